// Secrets never reach the database: every credential shape is withheld from episode text, while
// ordinary text about passwords and keys is kept.

import { redactSecrets, SECRET_PLACEHOLDER } from '@keel/language';
import { describe, expect, it } from 'vitest';
import { dbOf } from './internal.js';
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
    const raw = JSON.stringify(dbOf(store).prepare('SELECT * FROM episodes').all());
    expect(raw).not.toContain(secret.split(' ').pop()!.slice(0, 12));
  });

  it('keeps ordinary talk about passwords and keys', async () => {
    const { store } = openTempStore();
    const text = 'my password was stolen last week, so I changed the locks and got new keys';
    const e = store.addEpisode({ channel: 'terminal', role: 'owner', text });
    expect(store.episode(e.id)!.text).toBe(text);
  });
});

describe('redactSecrets', () => {
  const apiKey = `sk-ant-api03-${'abcdefghij'.repeat(4)}`;
  const githubToken = `ghp_${'A1b2C3d4E5'.repeat(4)}`;

  // The credential word stays: only the secret itself is withheld.
  it.each([
    [
      `remember that my api key: ${apiKey} thanks`,
      'remember that my api key: [secret withheld] thanks',
    ],
    [`my password: ${githubToken} thanks`, 'my password: [secret withheld] thanks'],
  ])('replaces a secret two patterns match once: %s', (text, expected) => {
    const out = redactSecrets(text);
    expect(out).toBe(expected);
    expect(out.split(SECRET_PLACEHOLDER)).toHaveLength(2);
    expect(out).not.toContain('withheld] withheld]');
    expect(out).toMatch(/ thanks$/);
  });

  it('withholds each of several secrets once and keeps the words between them', async () => {
    const out = redactSecrets(`key ${apiKey} and token ${githubToken}, ok`);
    expect(out).toBe(`key ${SECRET_PLACEHOLDER} and token ${SECRET_PLACEHOLDER}, ok`);
  });

  const samples = [
    `remember that my api key: ${apiKey} thanks`,
    `my password: ${githubToken} thanks`,
    `Authorization: Bearer ${apiKey}`,
    'my password for the bank is hunter2! and my PIN is 4821',
    `note: ${SECRET_PLACEHOLDER}${apiKey} (old)`,
    `my password is ${SECRET_PLACEHOLDER} thanks`,
    `api key = ${SECRET_PLACEHOLDER}`,
  ];
  it.each(samples)('is idempotent: %s', (text) => {
    const once = redactSecrets(text);
    expect(redactSecrets(once)).toBe(once);
    expect(once).not.toContain('withheld] withheld]');
  });

  it('leaves text that already holds only placeholders as it is', async () => {
    for (const text of [
      `my password is ${SECRET_PLACEHOLDER} thanks`,
      `api key: ${SECRET_PLACEHOLDER}`,
      `${SECRET_PLACEHOLDER}${SECRET_PLACEHOLDER}`,
    ]) {
      expect(redactSecrets(text)).toBe(text);
    }
  });

  it('leaves ordinary text unchanged (control)', async () => {
    for (const text of [
      'my password was stolen last week, so I changed the locks and got new keys',
      'remember that my sister Ana lives in Porto, thanks',
      'the skeleton key sk-8 is a model number',
      '',
    ]) {
      expect(redactSecrets(text)).toBe(text);
    }
  });
});
