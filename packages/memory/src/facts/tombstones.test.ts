// Forgetting is about meaning: after the owner forgets a value, every writer that is not the owner
// (the model's tool, reflection, the curator, an import) is refused a value or key that mentions
// it, in any slot of the scope, in any case, accent or punctuation; a value that merely shares a
// word or begins the same way is written; the owner's own word lifts it.

import { describe, expect, it } from 'vitest';
import { count, openTempStore, slot, turn } from '../test-helpers.js';
import { REFUSED_FORGOTTEN_CONTENT } from './review.js';

function forgetPorto() {
  const t = openTempStore();
  const said = turn(t.store, 'remember that I live in Porto');
  const home = t.store.remember({
    kind: 'profile',
    key: 'home',
    value: 'Porto',
    source: 'owner_stated',
    episodeId: said,
  }).fact!;
  t.clock.advance();
  t.store.forget(home.id);
  t.clock.advance();
  const later = turn(
    t.store,
    'is it going to rain in Porto, Portugal this weekend? I want port wine, then Portobello Road',
  );
  return { ...t, home, later };
}

describe('a tombstone blocks the value by its folded content', () => {
  it('refuses a longer value, another spelling, or a key that mentions it, from every writer', () => {
    const { store, later } = forgetPorto();
    for (const write of [
      {
        kind: 'profile',
        key: 'home',
        value: 'Porto, Portugal',
        source: 'inferred',
        actor: 'model',
      },
      { kind: 'profile', key: 'city', value: 'PÔRTO!', source: 'observed', actor: 'reflection' },
      { kind: 'note', key: 'sister_in_porto', value: 'yes', source: 'inferred', actor: 'curator' },
      { kind: 'fact', key: 'hometown', value: 'pórto', source: 'imported', actor: 'import' },
    ] as const) {
      const r = store.remember({ ...write, episodeId: later });
      expect(r, write.key).toMatchObject({
        decision: 'ignore',
        reason: REFUSED_FORGOTTEN_CONTENT,
        fact: null,
      });
    }
    // The refusal records neither the value nor the key.
    expect(
      count(store, `SELECT count(*) AS n FROM journal WHERE payload LIKE '%sister_in_porto%'`),
    ).toBe(0);
    // Controls: words that share letters or a neighbour are written.
    for (const [key, value] of [
      ['country', 'Portugal'],
      ['drink', 'Port wine'],
      ['street', 'Portobello Road'],
    ] as const) {
      const r = store.remember({
        kind: 'preference',
        key,
        value,
        source: 'observed',
        episodeId: later,
        actor: 'reflection',
      });
      expect(r.decision, `${value}: ${r.reason}`).toBe('create');
    }
  });

  it('refuses a value made only of the forgotten value’s words, and not one that adds its own', () => {
    const { store, clock } = openTempStore();
    const said = turn(store, 'my sister lives in São Paulo');
    const f = store.remember({
      kind: 'relationship',
      key: 'sister_home',
      value: 'my sister lives in São Paulo',
      source: 'owner_stated',
      episodeId: said,
    }).fact!;
    clock.advance();
    store.forget(f.id, { purge: true });
    const later = turn(store, 'sao paulo has great food, and my sister loves Lisbon');
    const back = store.remember({
      kind: 'relationship',
      key: 'sister.city',
      value: 'Sao Paulo',
      source: 'observed',
      episodeId: later,
      actor: 'reflection',
    });
    expect(back).toMatchObject({ decision: 'ignore', reason: REFUSED_FORGOTTEN_CONTENT });
    // control: a value with its own words is written
    const other = store.remember({
      kind: 'relationship',
      key: 'sister.likes',
      value: 'Lisbon',
      source: 'observed',
      episodeId: later,
      actor: 'reflection',
    });
    expect(other.decision).toBe('create');
  });

  it('the owner saying it again lifts it, and later writers may corroborate', () => {
    const { store, later } = forgetPorto();
    const owner = store.remember({
      kind: 'profile',
      key: 'home',
      value: 'Porto, Portugal',
      source: 'owner_stated',
      episodeId: later,
    });
    expect(owner.decision).toBe('create');
    expect(
      count(
        store,
        'SELECT count(*) AS n FROM tombstones WHERE lifted_at IS NULL AND kind = ?',
        'profile',
      ),
    ).toBe(0);
    const model = store.remember({
      kind: 'profile',
      key: 'home',
      value: 'Porto, Portugal',
      source: 'inferred',
      episodeId: turn(store, 'back home in Porto'),
      actor: 'model',
    });
    expect(model.decision).toBe('corroborate');
    expect(store.current(slot('profile', 'home'))?.value).toBe('Porto, Portugal');
  });

  it('a pruned value binds only its own slot by content', () => {
    const { store, clock } = openTempStore();
    const ep = turn(store, 'I might like jazz, and my friend likes jazz too');
    const weak = store.remember({
      kind: 'preference',
      key: 'music',
      value: 'jazz',
      source: 'inferred',
      episodeId: ep,
    }).fact!;
    clock.advance(400 * 24 * 3600_000);
    store.decay();
    expect(store.prune(1)).toContain(weak.id);
    const again = turn(store, 'jazz jazz jazz, smooth jazz');
    expect(
      store.remember({
        kind: 'preference',
        key: 'music',
        value: 'smooth jazz',
        source: 'inferred',
        episodeId: again,
      }).decision,
    ).toBe('ignore');
    // control: another slot is free to hold it
    expect(
      store.remember({
        kind: 'note',
        key: 'friend_music',
        value: 'jazz',
        source: 'inferred',
        episodeId: again,
      }).decision,
    ).toBe('create');
  });
});
