// The span of secrets (MemoryStore.withSecrets): a secret one write of a span withheld is withheld
// from the span's later writes, in other units of work and across awaits; a span running at the
// same time, and writes outside any span, judge the same text on its own (the controls).

import { describe, expect, it } from 'vitest';
import { openTempStore } from './test-helpers.js';

const SAID = 'my wifi password is marmalade';

describe('withSecrets', () => {
  it('withholds a secret across the units of work of one span, and not in another span or none', async () => {
    const { store } = openTempStore();
    const tick = () => new Promise((r) => setTimeout(r, 5));
    let inOther = '';
    const other = store.withSecrets(async () => {
      await tick();
      // Runs while the first span holds the secret: this span never saw it.
      inOther = store.remember({
        kind: 'note',
        key: 'jam',
        value: 'marmalade',
        source: 'owner_stated',
      }).decision;
    });
    const first = store.withSecrets(async () => {
      const episode = store.addEpisode({
        kind: 'conversation',
        channel: 'terminal',
        role: 'owner',
        text: SAID,
      });
      expect(episode.text).not.toContain('marmalade');
      await tick();
      await tick();
      // A later unit of work of the same span: the same word, under a key that names no secret.
      return store.remember({
        kind: 'note',
        key: 'spread',
        value: 'marmalade',
        source: 'owner_stated',
      }).decision;
    });
    const [decision] = await Promise.all([first, other]);
    expect(decision).toBe('withheld');
    expect(inOther).toBe('create');
    // Outside any span the span's secrets are gone.
    expect(
      store.remember({ kind: 'note', key: 'toast', value: 'marmalade', source: 'owner_stated' })
        .decision,
    ).toBe('create');
  });

  it('a span inside a span is the outer one', async () => {
    const { store } = openTempStore();
    const decision = await store.withSecrets(async () => {
      store.withSecrets(() =>
        store.addEpisode({ kind: 'conversation', channel: 'terminal', role: 'owner', text: SAID }),
      );
      return store.remember({
        kind: 'note',
        key: 'spread',
        value: 'marmalade',
        source: 'owner_stated',
      }).decision;
    });
    expect(decision).toBe('withheld');
  });
});
