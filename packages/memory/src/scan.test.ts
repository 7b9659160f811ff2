// Secrets never reach the database: every credential shape is withheld from episode text, while
// ordinary text about passwords and keys is kept.
import { describe, expect, it } from 'vitest';
import { SECRET_PLACEHOLDER } from './scan.js';
import { openTempStore } from './test-helpers.js';

describe('secrets in episodes', () => {
  const secrets = [
    'github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJ',
    'glpat-abcdefghij0123456789',
    'AIzaSyA1234567890abcdefghijklmnopqrstuv',
    'hf_abcdefghijklmnopqrstuvwxyz0123456789',
    'Bearer abcdefghijklmnopqrstuvwxyz.0123456789',
    'my password for the bank is hunter2!',
    'my PIN is 4821',
  ];
  it.each(secrets)('withholds %s when the episode is stored', (secret) => {
    const { store } = openTempStore();
    const e = store.addEpisode({
      channel: 'terminal',
      role: 'owner',
      text: `note to self: ${secret} (keep it safe)`,
    });
    const stored = store.episode(e.id)!.text;
    expect(stored).toContain(SECRET_PLACEHOLDER);
    expect(stored).toContain('note to self:');
    const raw = JSON.stringify(store.db.prepare('SELECT * FROM episodes').all());
    expect(raw).not.toContain(secret.split(' ').pop()!.slice(0, 12));
  });

  it('keeps ordinary talk about passwords and keys', () => {
    const { store } = openTempStore();
    const text = 'my password was stolen last week, so I changed the locks and got new keys';
    const e = store.addEpisode({ channel: 'terminal', role: 'owner', text });
    expect(store.episode(e.id)!.text).toBe(text);
  });
});
