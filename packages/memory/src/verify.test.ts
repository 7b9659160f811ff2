// keel verify's supersession checks: a broken link is reported; an update, a merged duplicate and
// a resolved conflict are not.

import { describe, expect, it } from 'vitest';
import { dbOf } from './internal.js';
import { openTempStore, slot, turn } from './test-helpers.js';

const links = (store: ReturnType<typeof openTempStore>['store']) =>
  store.verify().problems.filter((p) => p.check === 'supersession_chain');

describe('verify: supersession links', () => {
  it('accepts an update chain and a merged duplicate, and reports a tampered link', async () => {
    const { store } = openTempStore();
    store.remember({ kind: 'profile', key: 'city', value: 'Lisbon', source: 'owner_stated' });
    const moved = store.remember({
      kind: 'profile',
      key: 'city',
      value: 'Porto',
      source: 'owner_stated',
    }).fact!;
    // A duplicate under another key, merged by dedupe into the keeper.
    const a = turn(store, 'my favourite walk is along the river Douro');
    const b = turn(store, 'I love the walk along the river Douro');
    store.remember({
      kind: 'preference',
      key: 'walk',
      value: 'along the river Douro',
      source: 'observed',
      episodeId: a,
    });
    store.remember({
      kind: 'preference',
      key: 'favourite_walk',
      value: 'along the river Douro',
      source: 'observed',
      episodeId: b,
    });
    expect(store.dedupe()).toHaveLength(1);
    expect(links(store)).toEqual([]);
    expect(store.verify().ok).toBe(true);

    // Tamper: the old row now names no successor.
    const old = store.history(slot('profile', 'city')).find((f) => f.status === 'superseded')!;
    dbOf(store).prepare('UPDATE facts SET superseded_by_id = NULL WHERE id = ?').run(old.id);
    expect(links(store).map((p) => p.detail)).toEqual([
      `fact ${old.id} is superseded but names no existing successor`,
      `fact ${moved.id} claims to supersede fact ${old.id}, which names another successor`,
    ]);
  });
});
