// Decay and prune, driven by the fake clock.

import { describe, expect, it } from 'vitest';
import { dbOf } from '../internal.js';
import {
  count,
  journalRows,
  openTempStore,
  recalledFactIds,
  refusals,
  slot,
  T0,
  WEEK,
} from '../test-helpers.js';
import type { Fact } from '../types.js';
import { DECAY_GRACE_WEEKS, DECAY_PER_WEEK, PRUNE_BELOW } from './maintenance.js';

type Store = ReturnType<typeof openTempStore>['store'];

const r4 = (x: number) => Math.round(x * 10_000) / 10_000;

/** A store holding one belief of each decay-relevant shape, all written at T0. */
function seed(store: Store, clock: ReturnType<typeof openTempStore>['clock']) {
  const put = (key: string, value: string, source: Fact['source'], confidence?: number) =>
    store.remember({
      kind: 'note',
      key,
      value,
      source,
      ...(confidence === undefined ? {} : { confidence }),
    }).fact!;
  const plain = put('plain', 'plays padel on weekends', 'observed');
  const used = put('used', 'collects vinyl records', 'observed');
  const inferred = put('guess', 'probably a night owl', 'inferred');
  const owner = put('owner', 'allergic to penicillin', 'owner_stated');
  const ownerLow = put('owner_low', 'maybe learning Welsh', 'owner_stated', 0.2);
  put('twice', 'runs along the canal', 'observed');
  clock.advance(1000);
  const twice = put('twice', 'runs along the canal', 'observed');
  clock.set(T0);
  return { plain, used, inferred, owner, ownerLow, twice };
}

describe('decay', () => {
  it('touches only single-evidence non-owner facts, slowed by access_count', async () => {
    const { store, clock } = openTempStore();
    const f = seed(store, clock);
    // Three recalls of "vinyl" bump `used` only (control: the others stay at 0).
    for (let i = 0; i < 3; i++)
      expect((await store.recall('vinyl records')).results).toHaveLength(1);
    // Recall counts the uses; the store writes them with its next write (decay writes them first).
    expect(store.flushAccess()).toBe(1);
    expect(store.fact(f.used.id)!.access_count).toBe(3);
    expect(store.fact(f.plain.id)!.access_count).toBe(0);
    const snapshot = new Map(store.activeFacts().map((x) => [x.id, x]));

    // Inside the grace period nothing decays.
    clock.set(T0 + (DECAY_GRACE_WEEKS - 0.5) * WEEK);
    expect(store.decay()).toEqual([]);

    clock.set(T0 + 10 * WEEK);
    const changes = store.decay();
    const plainAfter = r4(0.7 - DECAY_PER_WEEK * (10 - DECAY_GRACE_WEEKS));
    const usedAfter = r4(0.7 - DECAY_PER_WEEK * (10 - DECAY_GRACE_WEEKS - Math.log1p(3)));
    expect(plainAfter).toBe(0.58);
    expect(usedAfter).toBe(0.6077);
    expect(changes).toEqual([
      { id: f.plain.id, before: 0.7, after: plainAfter },
      { id: f.used.id, before: 0.7, after: usedAfter },
      { id: f.inferred.id, before: 0.7, after: plainAfter },
    ]);
    for (const x of [f.plain, f.used, f.inferred]) {
      const now = store.fact(x.id)!;
      expect(now.last_decayed_at).toBe(clock.t);
      expect(now.last_seen_at).toBe(snapshot.get(x.id)!.last_seen_at); // never rewritten
      expect(now.last_seen_at).toBe(T0);
      expect(now.status).toBe('active');
    }
    // Owner facts (even a low one) and multi-evidence facts are untouched.
    for (const x of [f.owner, f.ownerLow, f.twice]) {
      expect(store.fact(x.id)).toEqual(snapshot.get(x.id));
    }
    expect(store.fact(f.twice.id)!.evidence_count).toBe(2);
    const decayEntries = journalRows(store, 'decay');
    expect(decayEntries).toHaveLength(1);
    expect(JSON.parse(decayEntries[0]!.payload)).toEqual({ changes });
    // A mechanism episode, not part of the conversation index.
    expect(
      count(
        store,
        `SELECT count(*) AS n FROM episodes WHERE kind = 'mechanism' AND text LIKE 'decay%'`,
      ),
    ).toBe(1);
    expect(store.verify().ok).toBe(true);
  });

  it('a second decay at the same instant changes nothing; later runs decay only the new time', async () => {
    const { store, clock } = openTempStore();
    const f = seed(store, clock);
    clock.set(T0 + 10 * WEEK);
    expect(store.decay()).toHaveLength(3);
    const after = dbOf(store).prepare('SELECT * FROM facts ORDER BY id').all();
    const journal = count(store, 'SELECT count(*) AS n FROM journal');
    expect(store.decay()).toEqual([]);
    expect(dbOf(store).prepare('SELECT * FROM facts ORDER BY id').all()).toEqual(after);
    expect(count(store, 'SELECT count(*) AS n FROM journal')).toBe(journal);
    // One more week: exactly one week's decay, not a re-decay from the start.
    clock.advance(WEEK);
    const next = store.decay();
    expect(next.find((c) => c.id === f.plain.id)).toEqual({
      id: f.plain.id,
      before: 0.58,
      after: 0.56,
    });
  });

  it('recall never raises confidence, it only postpones decay', async () => {
    const { store, clock } = openTempStore();
    const f = seed(store, clock);
    clock.set(T0 + 10 * WEEK);
    store.decay();
    const before = store.fact(f.plain.id)!.confidence;
    for (let i = 0; i < 5; i++) await store.recall('padel');
    // Decay writes the uses recall counted before it reads them (and decays nothing more now).
    expect(store.decay()).toEqual([]);
    expect(store.fact(f.plain.id)).toMatchObject({ confidence: before, access_count: 5 });
  });
});

describe('prune', () => {
  it('retracts decayed beliefs below the threshold with a tombstone; owner facts untouched', async () => {
    const { store, clock } = openTempStore();
    const f = seed(store, clock);
    clock.set(T0 + 30 * WEEK); // 26 weeks past grace: 0.70 - 0.52 = 0.18
    store.decay();
    expect(store.fact(f.plain.id)!.confidence).toBeLessThan(PRUNE_BELOW);
    expect(store.fact(f.ownerLow.id)!.confidence).toBeLessThan(PRUNE_BELOW); // the control
    const pruned = store.prune();
    expect(pruned.sort()).toEqual([f.plain.id, f.used.id, f.inferred.id].sort());

    for (const id of pruned) {
      const row = store.fact(id)!;
      expect(row).toMatchObject({
        status: 'retracted',
        status_reason: `pruned: confidence below ${PRUNE_BELOW}`,
      });
      expect(row.value).not.toBe(''); // the row is still there, value kept
      expect(
        dbOf(store).prepare('SELECT reason, value_hash FROM tombstones WHERE fact_id = ?').all(id),
      ).toEqual([{ reason: 'pruned', value_hash: row.value_hash }]);
    }
    expect(count(store, 'SELECT count(*) AS n FROM facts')).toBe(6);
    // Owner facts are never pruned, however low.
    expect(store.fact(f.ownerLow.id)!.status).toBe('active');
    expect(store.fact(f.owner.id)!.status).toBe('active');
    expect(store.fact(f.twice.id)!.status).toBe('active');
    // Not recalled; the owner's low belief, matched by the same query, is.
    expect(await recalledFactIds(store, 'padel Welsh')).toEqual([f.ownerLow.id]);
    expect(journalRows(store, 'prune')).toHaveLength(3);
    // Reflection cannot re-derive a pruned belief.
    const again = store.remember({
      kind: 'note',
      key: 'plain',
      value: 'plays padel on weekends',
      source: 'observed',
    });
    expect(again.decision).toBe('ignore');
    expect(again.reason).toBe('tombstoned (pruned); only the owner can restore it');
    expect(refusals(store)).toHaveLength(1);
    // A second prune finds nothing more.
    expect(store.prune()).toEqual([]);
    expect(store.verify().ok).toBe(true);
    expect(store.current(slot('note', 'plain'))).toBeUndefined();
  });

  it('a custom threshold prunes only decayable beliefs below it', async () => {
    const { store, clock } = openTempStore();
    const f = seed(store, clock);
    // No decay at all: a threshold above 0.70 catches the single-evidence non-owner beliefs,
    // not the owner's 0.2 belief nor the twice-seen one at 0.75.
    expect(store.prune(0.71).sort()).toEqual([f.plain.id, f.used.id, f.inferred.id].sort());
    expect(store.fact(f.ownerLow.id)!.status).toBe('active');
    expect(store.fact(f.twice.id)!.status).toBe('active');
  });
});
