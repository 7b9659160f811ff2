// The owner lock every Discord handler runs first.
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { OwnerGate } from './gate.js';

describe('OwnerGate', () => {
  const gate = new OwnerGate('111111111111111111');
  const base = { authorIsBot: false, guildId: null, selfId: '999999999999999999' };
  it('lets only the owner in a DM through', () => {
    expect(gate.check({ ...base, authorId: '111111111111111111' })).toEqual({ owner: true });
    expect(gate.check({ ...base, authorId: '222222222222222222' })).toMatchObject({
      reason: 'stranger',
    });
    expect(gate.check({ ...base, authorId: '111111111111111111', guildId: '5' })).toMatchObject({
      reason: 'guild',
    });
    expect(
      gate.check({ ...base, authorId: '111111111111111111', authorIsBot: true }),
    ).toMatchObject({ reason: 'bot' });
    expect(gate.check({ ...base, authorId: '999999999999999999' })).toMatchObject({
      reason: 'self',
    });
  });
  it('fails closed without an owner id', () => {
    expect(() => new OwnerGate('')).toThrow(/owner id/);
    expect(() => new OwnerGate(undefined)).toThrow(/owner id/);
  });
});

describe('the owner guard has one home', () => {
  const dir = new URL('./', import.meta.url);
  const code = (f: string) => readFileSync(new URL(f, dir), 'utf8');

  it('only bot.ts (where guarded() wraps every user-facing one) and pairing listen to discord.js events', () => {
    const listeners = readdirSync(dir)
      .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))
      .filter((f) => /\.(on|once)\(\s*Events\./.test(code(f)));
    expect(listeners).toEqual(['bot.ts', 'pair.ts']);
  });

  it('pairing, which has no owner yet, can store nothing and answer nothing but the paired owner', () => {
    const pair = code('pair.ts');
    // No store, no session, no turn: nothing it hears can be kept.
    expect(pair).not.toMatch(
      /from '@keel\/(memory|agent)'|from '\.\/(turns|catch-up|interactions|review|bot)\.js'/,
    );
    // One message is ever sent: the confirmation, to the author of the right code.
    const sends = [...pair.matchAll(/\.send\(([^)]*)\)/g)].map((m) => m[1]);
    expect(sends).toEqual(['PAIRED_TEXT']);
    const paired = pair.indexOf("case 'paired':");
    const send = pair.indexOf('.send(PAIRED_TEXT)');
    expect(paired).toBeGreaterThan(0);
    expect(send).toBeGreaterThan(paired);
    expect(pair.slice(paired + 1, send)).not.toContain('case ');
  });
});
