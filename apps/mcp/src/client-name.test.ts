import { describe, expect, it } from 'vitest';
import { clientName, MAX_CLIENT_NAME, UNNAMED_CLIENT } from './client-name.js';

describe('clientName', () => {
  it('keeps letters and digits of any script, lower-cased, with every other run as one -', () => {
    expect(clientName('Claude Desktop')).toBe('claude-desktop');
    expect(clientName('cursor-vscode 1.2')).toBe('cursor-vscode-1.2');
    expect(clientName('Клиент ✓ 2')).toBe('клиент-2');
    expect(clientName('evil\nname\u0000:with/slashes')).toBe('evil-name-with-slashes');
  });

  it('cuts a long name and names a client that gave nothing keel can keep', () => {
    expect(clientName('a'.repeat(500))).toHaveLength(MAX_CLIENT_NAME);
    expect(clientName(`${'a'.repeat(MAX_CLIENT_NAME - 1)} b`)).toBe(
      'a'.repeat(MAX_CLIENT_NAME - 1),
    );
    expect(clientName(undefined)).toBe(UNNAMED_CLIENT);
    expect(clientName(' \u0007 ')).toBe(UNNAMED_CLIENT);
  });

  it("never takes a name of the owner's or keel's own writers, in any case (a near name is kept)", () => {
    for (const name of [
      'owner',
      'OWNER',
      ' Owner ',
      'keel',
      'System',
      'MODEL',
      'web',
      'Ｏｗｎｅｒ',
    ]) {
      const kept = clientName(name);
      expect(kept, name).toBe(`client-${name.normalize('NFKC').trim().toLowerCase()}`);
    }
    expect(clientName('owner-bot')).toBe('owner-bot');
    expect(clientName('keel web')).toBe('keel-web');
  });
});
