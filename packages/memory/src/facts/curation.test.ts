// The nightly curator's and weekly review's store side: dedupe over active rows, journal
// compaction, stale beliefs for review, and the one unit of work a night runs in.

import { describe, expect, it } from 'vitest';
import { dbOf } from '../internal.js';
import { verifyJournal } from '../journal/journal.js';
import {
  count,
  DAY,
  expectKeelError,
  journalRows,
  openTempStore,
  recalledFactIds,
  slot,
  T0,
  turn,
  WEEK,
} from '../test-helpers.js';
import type { Fact } from '../types.js';
import { DEDUPE_REASON } from './dedupe.js';
import { confidenceCeiling } from './evidence-gate.js';
import { PRUNE_BELOW } from './maintenance.js';
import { STALE_AFTER_DAYS } from './review-flags.js';

type Store = ReturnType<typeof openTempStore>['store'];

/** Every row of the tables a night may change, in rowid order, for byte-for-byte comparison. */
function snapshot(store: Store): Record<string, unknown[]> {
  const out: Record<string, unknown[]> = {};
  for (const t of [
    'facts',
    'fact_evidence',
    'tombstones',
    'journal',
    'episodes',
    'review_flags',
    'vector_queue',
  ]) {
    out[t] = dbOf(store).prepare(`SELECT * FROM ${t} ORDER BY rowid`).all();
  }
  return out;
}

/** verify() problems, supersession links included (a merge must keep them consistent). */
function verifyProblems(store: Store) {
  return store.verify().problems;
}

describe('dedupe over active rows', () => {
  it('merges a same-value pair into the stronger; a different-value pair and a superseded row stay', async () => {
    const { store, clock } = openTempStore();
    const put = (key: string, value: string, text: string, kind: Fact['kind'] = 'preference') => {
      clock.advance();
      return store.remember({ kind, key, value, source: 'observed', episodeId: turn(store, text) });
    };
    // The stronger duplicate: seen in two episodes (0.75).
    const e1 = turn(store, 'oat flat white for me');
    const strong = store.remember({
      kind: 'preference',
      key: 'coffee',
      value: 'oat flat white',
      source: 'observed',
      episodeId: e1,
    }).fact!;
    clock.advance();
    const e2 = turn(store, 'another oat flat white');
    store.remember({
      kind: 'preference',
      key: 'coffee',
      value: 'oat flat white',
      source: 'observed',
      episodeId: e2,
    });
    // The weaker one: the same value (other case and punctuation) under another key, one episode.
    clock.advance();
    const e3 = turn(store, 'my usual is an Oat Flat-White');
    const weak = store.remember({
      kind: 'preference',
      key: 'coffee_order',
      value: 'Oat Flat-White!',
      source: 'observed',
      episodeId: e3,
    }).fact!;
    // Controls: a different-value pair; the same value in another kind and in the agent scope; a
    // superseded row of the same value.
    const teaA = put('tea', 'green tea with honey', 'green tea with honey please').fact!;
    const teaB = put('evening_drink', 'chamomile tea with honey', 'chamomile tonight').fact!;
    const otherKind = put('order_note', 'oat flat white', 'note: oat flat white', 'note').fact!;
    clock.advance();
    const agentScope = store.remember({
      scope: 'agent',
      kind: 'preference',
      key: 'coffee_hint',
      value: 'oat flat white',
      source: 'observed',
    }).fact!;
    const old = put('morning_drink', 'oat flat white', 'mornings: oat flat white').fact!;
    put('morning_drink', 'builder tea', 'mornings are builder tea now');
    expect(store.fact(old.id)!.status).toBe('superseded');
    const oldBefore = store.fact(old.id)!;
    const strongBefore = store.fact(strong.id)!;
    expect(strongBefore).toMatchObject({ confidence: 0.75, evidence_count: 2 });

    clock.advance();
    const changes = store.dedupe();
    expect(changes).toEqual([
      {
        id: weak.id,
        keptId: strong.id,
        scope: 'owner',
        kind: 'preference',
        key: 'coffee_order',
        keptKey: 'coffee',
        movedEvidence: [e3],
        confidence: 0.8,
        evidenceCount: 3,
      },
    ]);
    expect(store.fact(weak.id)).toMatchObject({
      status: 'superseded',
      superseded_by_id: strong.id,
      status_reason: `${DEDUPE_REASON} (f${strong.id})`,
      value: 'Oat Flat-White!', // the row is kept, value and all
    });
    expect(store.fact(strong.id)).toMatchObject({
      status: 'active',
      evidence_count: 3,
      confidence: 0.8, // 0.75 + one independent episode, within the gate's ceiling
      last_seen_at: weak.last_seen_at,
    });
    expect(store.evidence(strong.id)).toEqual([e1, e2, e3]);
    // The duplicate's own evidence rows are still there (append-only).
    expect(store.evidence(weak.id)).toEqual([e3]);
    // The controls are untouched.
    for (const f of [teaA, teaB, otherKind, agentScope]) {
      expect(store.fact(f.id)).toMatchObject({ status: 'active', superseded_by_id: null });
    }
    expect(store.fact(old.id)).toEqual(oldBefore);
    // Recall finds the value once, as the kept belief.
    expect(
      (await recalledFactIds(store, 'flat white')).filter((id) => id !== otherKind.id),
    ).toEqual([strong.id]);
    // Journaled with the reason.
    const j = journalRows(store, 'dedupe');
    expect(j).toHaveLength(1);
    expect(j[0]).toMatchObject({ actor: 'curator', entity: 'fact', entity_id: weak.id });
    expect(JSON.parse(j[0]!.payload)).toMatchObject({
      reason: DEDUPE_REASON,
      kept: { id: strong.id, key: 'coffee' },
      after: { status: 'superseded', superseded_by_id: strong.id },
      keeper: {
        before: { confidence: 0.75, evidence_count: 2 },
        after: { confidence: 0.8, evidence_count: 3 },
      },
      moved_evidence: [e3],
    });
    expect(
      count(
        store,
        `SELECT count(*) AS n FROM episodes WHERE kind = 'mechanism' AND text LIKE 'dedupe%'`,
      ),
    ).toBe(1);
    // Idempotent: nothing left to merge, nothing more written.
    const journalBefore = journalRows(store).length;
    expect(store.dedupe()).toEqual([]);
    expect(journalRows(store)).toHaveLength(journalBefore);
    expect(verifyJournal(dbOf(store)).breaks).toEqual([]);
    // The evidence counts, the gate and one-active-per-slot all hold. (verify's supersession-link
    // check expects a successor in the same slot that links back; a merge's keeper links to its own
    // slot's predecessor, so that one check is left out here.)
    expect(verifyProblems(store)).toEqual([]);
  });

  it('an owner row is kept over a stronger observed one, and two owner rows are never merged', async () => {
    const { store, clock } = openTempStore();
    const ownerLow = store.remember({
      kind: 'goal',
      key: 'language',
      value: 'learn to speak Welsh',
      source: 'owner_stated',
      confidence: 0.5,
    }).fact!;
    clock.advance();
    const ownerOther = store.remember({
      kind: 'goal',
      key: 'welsh',
      value: 'Learn to speak Welsh.',
      source: 'owner_stated',
      confidence: 0.4,
    }).fact!;
    clock.advance();
    const eA = turn(store, 'practising Welsh again');
    const observed = store.remember({
      kind: 'goal',
      key: 'welsh_study',
      value: 'learn to speak welsh',
      source: 'observed',
      episodeId: eA,
    }).fact!;
    clock.advance();
    const eB = turn(store, 'Welsh lesson today');
    store.remember({
      kind: 'goal',
      key: 'welsh_study',
      value: 'learn to speak welsh',
      source: 'observed',
      episodeId: eB,
    });
    expect(store.fact(observed.id)!.confidence).toBe(0.75); // stronger than both owner rows

    const changes = store.dedupe();
    expect(changes.map((c) => [c.id, c.keptId])).toEqual([[observed.id, ownerLow.id]]);
    // The owner's word is kept; its confidence rises 0.05 per newly counted episode.
    expect(store.fact(ownerLow.id)).toMatchObject({
      status: 'active',
      source: 'owner_stated',
      confidence: 0.6,
      evidence_count: 3,
    });
    // The other owner statement stays active under its own key.
    expect(store.fact(ownerOther.id)).toMatchObject({ status: 'active', confidence: 0.4 });
    expect(store.fact(observed.id)).toMatchObject({
      status: 'superseded',
      superseded_by_id: ownerLow.id,
    });
    expect(store.dedupe()).toEqual([]);
  });

  it('an episode both rows share is counted once; confidence never passes the gate ceiling', async () => {
    const { store, clock } = openTempStore();
    const shared = turn(store, 'I keep a sourdough starter called Clint');
    const a = store.remember({
      kind: 'fact',
      key: 'starter',
      value: 'a sourdough starter called Clint',
      source: 'observed',
      episodeId: shared,
    }).fact!;
    clock.advance();
    const b = store.remember({
      kind: 'fact',
      key: 'sourdough',
      value: 'a sourdough starter called Clint',
      source: 'inferred',
      episodeId: shared,
    }).fact!;
    // A strong pair: the keeper at the ceiling already.
    const eps = Array.from({ length: 6 }, (_, i) => turn(store, `Mochi the cat, mention ${i}`));
    let cat: Fact | null = null;
    for (const ep of eps) {
      clock.advance();
      cat = store.remember({
        kind: 'relationship',
        key: 'cat',
        value: 'a tabby cat called Mochi',
        source: 'observed',
        episodeId: ep,
      }).fact!;
    }
    expect(cat!.confidence).toBe(0.95);
    clock.advance();
    const catDup = store.remember({
      kind: 'relationship',
      key: 'pet',
      value: 'a tabby cat called Mochi',
      source: 'observed',
      episodeId: turn(store, 'Mochi again'),
    }).fact!;

    const changes = store.dedupe();
    expect(changes.map((c) => [c.id, c.keptId, c.movedEvidence.length])).toEqual([
      [b.id, a.id, 0],
      [catDup.id, cat!.id, 1],
    ]);
    // Same episode: no new independent evidence, so nothing rises.
    expect(store.fact(a.id)).toMatchObject({ evidence_count: 1, confidence: 0.7 });
    expect(store.fact(b.id)!.status).toBe('superseded');
    // Eight episodes would allow more than 0.95 without the gate: it stays at the ceiling.
    expect(store.fact(cat!.id)).toMatchObject({ evidence_count: 7, confidence: 0.95 });
    expect(confidenceCeiling('observed', 7)).toBe(0.95);
    expect(verifyProblems(store)).toEqual([]);
  });

  it('a short value takes its meaning from its key and is not merged; a longer one is', async () => {
    const { store } = openTempStore();
    const car = store.remember({
      kind: 'preference',
      key: 'car_colour',
      value: 'blue',
      source: 'observed',
      episodeId: turn(store, 'my car is blue'),
    }).fact!;
    const favourite = store.remember({
      kind: 'preference',
      key: 'favourite_colour',
      value: 'Blue',
      source: 'observed',
      episodeId: turn(store, 'I love blue'),
    }).fact!;
    const a = store.remember({
      kind: 'preference',
      key: 'running',
      value: 'runs along the canal',
      source: 'observed',
      episodeId: turn(store, 'ran along the canal'),
    }).fact!;
    const b = store.remember({
      kind: 'preference',
      key: 'exercise',
      value: 'runs along the canal',
      source: 'inferred',
      episodeId: turn(store, 'canal run again'),
    }).fact!;
    expect(store.dedupe().map((c) => [c.id, c.keptId])).toEqual([[b.id, a.id]]);
    expect(store.fact(car.id)!.status).toBe('active');
    expect(store.fact(favourite.id)!.status).toBe('active');
  });
});

describe('journal compaction', () => {
  /** A store with one belief decayed three times and one decayed once then pruned. */
  function decayed() {
    const t = openTempStore();
    const { store, clock } = t;
    const owner = store.remember({
      kind: 'profile',
      key: 'home',
      value: 'lives in Leeds',
      source: 'owner_stated',
    }).fact!;
    const steady = store.remember({
      kind: 'note',
      key: 'padel',
      value: 'plays padel on weekends',
      source: 'observed',
    }).fact!;
    const gone = store.remember({
      kind: 'note',
      key: 'vinyl',
      value: 'collects vinyl records',
      source: 'inferred',
      confidence: 0.35,
    }).fact!;
    clock.set(T0 + 6 * WEEK);
    const d1 = store.decay();
    clock.set(T0 + 8 * WEEK);
    const d2 = store.decay();
    expect(store.prune().sort()).toEqual([gone.id]); // 0.35 - 0.08 < 0.3
    clock.set(T0 + 10 * WEEK);
    const d3 = store.decay();
    expect(d1.map((c) => c.id).sort()).toEqual([steady.id, gone.id].sort());
    expect(d2.map((c) => c.id).sort()).toEqual([steady.id, gone.id].sort());
    expect(d3.map((c) => c.id)).toEqual([steady.id]);
    expect(PRUNE_BELOW).toBe(0.3);
    return { ...t, owner, steady, gone };
  }

  it('redacts decay numbers a later decay repeats; keeps the newest per fact; the chain verifies', async () => {
    const { store, clock, steady, gone } = decayed();
    const decays = journalRows(store, 'decay');
    expect(decays).toHaveLength(3);
    const untouched = journalRows(store).filter((r) => r.op !== 'decay');
    clock.set(T0 + 11 * WEEK);
    expect(store.compactJournal({ before: clock.t })).toEqual({ compacted: 2 });

    const [j1, j2, j3] = journalRows(store, 'decay');
    // The first run's numbers are all repeated later: only the ids remain.
    expect(j1!.redacted_at).toBe(clock.t);
    expect(JSON.parse(j1!.payload)).toEqual({
      changes: [],
      compacted: {
        rule: 'decay numbers repeated by a later decay',
        ids: expect.arrayContaining([steady.id, gone.id]),
      },
    });
    // The second run holds the pruned belief's last numbers: those stay, the other leaves.
    const p2 = JSON.parse(j2!.payload);
    expect(p2.changes.map((c: { id: number }) => c.id)).toEqual([gone.id]);
    expect(p2.compacted.ids).toEqual([steady.id]);
    // The newest decay entry is untouched.
    expect(j3).toEqual(decays[2]);
    // Every other entry (creates by the owner, the prune, episodes) is byte-for-byte the same.
    for (const before of untouched) {
      expect(journalRows(store).find((r) => r.seq === before.seq)).toEqual(before);
    }
    // Hashes unchanged; the chain verifies; the store verifies.
    expect(j1!.hash).toBe(decays[0]!.hash);
    expect(j1!.payload_hash).toBe(decays[0]!.payload_hash);
    expect(verifyJournal(dbOf(store)).breaks).toEqual([]);
    expect(store.verify()).toMatchObject({ ok: true, problems: [] });
    // The run is journaled, and a second run changes nothing.
    expect(JSON.parse(journalRows(store, 'compact')[0]!.payload)).toMatchObject({
      compacted: 2,
      seqs: [decays[0]!.seq, decays[1]!.seq],
    });
    const all = journalRows(store);
    expect(store.compactJournal({ before: clock.t })).toEqual({ compacted: 0 });
    expect(journalRows(store)).toEqual(all);
  });

  it('entries at or after `before` are not compacted, even when redundant', async () => {
    const { store } = decayed();
    const decays = journalRows(store, 'decay');
    // Only the first decay run is older than this instant.
    expect(store.compactJournal({ before: decays[1]!.at })).toEqual({ compacted: 1 });
    const after = journalRows(store, 'decay');
    expect(after[0]!.redacted_at).not.toBeNull();
    expect(after[1]).toEqual(decays[1]);
    expect(after[2]).toEqual(decays[2]);
    expect(store.verify().ok).toBe(true);
    expectKeelError(() => store.compactJournal({ before: Number.NaN }), 'INVALID_INPUT');
  });

  it('cuts a fact row repeated by a later entry; owner, supersession and forget records stay', async () => {
    const { store, clock } = openTempStore();
    // An owner-stated belief, contradicted by observed sightings in three episodes: one pending row
    // whose full row is journaled three times (created, then evidence added twice).
    store.remember({
      kind: 'preference',
      key: 'band',
      value: 'The Lanterns',
      source: 'owner_stated',
    });
    const pending: number[] = [];
    for (const text of ['Paper Owls live!', 'Paper Owls again', 'more Paper Owls']) {
      clock.advance();
      pending.push(
        store.remember({
          kind: 'preference',
          key: 'band',
          value: 'Paper Owls',
          source: 'observed',
          episodeId: turn(store, text),
        }).fact!.id,
      );
    }
    expect(new Set(pending).size).toBe(1);
    // An observed belief later confirmed by the owner (its create row is repeated by the confirm).
    clock.advance();
    const confirmed = store.remember({
      kind: 'profile',
      key: 'city',
      value: 'Leeds',
      source: 'observed',
    }).fact!;
    clock.advance();
    store.confirm(confirmed.id);
    // An observed belief replaced by another (a supersession), and one forgotten.
    clock.advance();
    store.remember({ kind: 'note', key: 'shoe', value: 'size 42', source: 'observed' });
    clock.advance();
    store.remember({ kind: 'note', key: 'shoe', value: 'size 43', source: 'observed' });
    clock.advance();
    const forgotten = store.remember({
      kind: 'note',
      key: 'gym',
      value: 'gym on Mondays',
      source: 'observed',
    }).fact!;
    clock.advance();
    store.forget(forgotten.id);
    const before = journalRows(store);

    clock.advance();
    expect(store.compactJournal({ before: clock.t })).toEqual({ compacted: 3 });
    const rows = journalRows(store);
    const changed = rows.filter((r, i) => i < before.length && r.payload !== before[i]!.payload);
    const conflicts = rows.filter((r) => r.op === 'conflict');
    expect(conflicts).toHaveLength(3);
    const creates = rows.filter((r) => r.op === 'create' && r.entity_id === confirmed.id);
    expect(changed.map((r) => r.seq)).toEqual(
      [conflicts[0]!.seq, conflicts[1]!.seq, creates[0]!.seq].sort((a, b) => a - b),
    );
    // The first two conflict entries keep their reason and numbers; the row itself is in the third.
    const first = JSON.parse(conflicts[0]!.payload);
    expect(first).toMatchObject({
      contradicts: expect.any(Number),
      reason: expect.stringMatching(/^a weaker source/),
      after: { id: pending[0], status: 'pending', source: 'observed', confidence: 0.7 },
      compacted: { rule: 'fact row repeated by a later entry' },
    });
    expect(first.after).not.toHaveProperty('value');
    expect(JSON.parse(conflicts[1]!.payload).after).toEqual({
      id: pending[0],
      status: 'pending',
      source: 'observed',
      confidence: 0.75,
      evidence_count: 2,
    });
    expect(JSON.parse(conflicts[2]!.payload).after).toMatchObject({
      value: 'Paper Owls',
      evidence_count: 3,
    });
    // Untouched: the owner's create and confirm, the update, the forget, every refusal and episode.
    for (const r of rows.slice(0, before.length)) {
      if (changed.includes(r)) continue;
      expect(r).toEqual(before.find((b) => b.seq === r.seq));
    }
    for (const op of ['confirm', 'update', 'forget']) {
      expect(rows.filter((r) => r.op === op && r.redacted_at !== null)).toEqual([]);
    }
    expect(rows.filter((r) => r.actor === 'owner' && r.redacted_at !== null)).toEqual([]);
    expect(verifyJournal(dbOf(store)).breaks).toEqual([]);
    expect(store.verify()).toMatchObject({ ok: true, problems: [] });
    expect(store.compactJournal({ before: clock.t })).toEqual({ compacted: 0 });
  });

  it('a purge after compaction still finds and redacts the value', async () => {
    const { store, clock } = openTempStore();
    const f = store.remember({
      kind: 'profile',
      key: 'dentist',
      value: 'Dr Quillfeather',
      source: 'observed',
    }).fact!;
    clock.advance();
    store.confirm(f.id);
    clock.advance();
    expect(store.compactJournal({ before: clock.t })).toEqual({ compacted: 1 });
    store.forget(f.id, { purge: true });
    expect(
      count(store, 'SELECT count(*) AS n FROM journal WHERE payload LIKE ?', '%quillfeather%'),
    ).toBe(0);
    expect(store.verify().ok).toBe(true);
  });
});

describe('stale beliefs for review', () => {
  /** Two beliefs: one last seen at T0, one seen again 100 days later. */
  function aging() {
    const t = openTempStore();
    const { store, clock } = t;
    const old = store.remember({
      kind: 'profile',
      key: 'employer',
      value: 'works at Acme',
      source: 'observed',
      episodeId: turn(store, 'I work at Acme'),
    }).fact!;
    const ownerOld = store.remember({
      kind: 'profile',
      key: 'home',
      value: 'lives in Leeds',
      source: 'owner_stated',
    }).fact!;
    const fresh = store.remember({
      kind: 'preference',
      key: 'tea',
      value: 'green tea',
      source: 'observed',
      episodeId: turn(store, 'green tea please'),
    }).fact!;
    clock.set(T0 + 100 * DAY);
    store.remember({
      kind: 'preference',
      key: 'tea',
      value: 'green tea',
      source: 'observed',
      episodeId: turn(store, 'green tea again'),
    });
    clock.set(T0 + (STALE_AFTER_DAYS + 1) * DAY);
    return { ...t, old, ownerOld, fresh };
  }

  it('flags active beliefs with no evidence for 180 days, once; fresher ones are not flagged', async () => {
    const { store, clock, old, ownerOld, fresh } = aging();
    expect(store.review().stale).toEqual([]);
    expect(store.flagStaleBeliefs()).toEqual([old.id, ownerOld.id]);
    expect(store.review().stale.map((f) => f.id)).toEqual([old.id, ownerOld.id]);
    expect(
      dbOf(store).prepare('SELECT fact_id, reason, flagged_at, cleared_at FROM review_flags').all(),
    ).toEqual([
      { fact_id: old.id, reason: 'stale', flagged_at: clock.t, cleared_at: null },
      { fact_id: ownerOld.id, reason: 'stale', flagged_at: clock.t, cleared_at: null },
    ]);
    // Once: a second run a week later adds nothing.
    clock.advance(WEEK);
    expect(store.flagStaleBeliefs()).toEqual([]);
    expect(count(store, 'SELECT count(*) AS n FROM review_flags')).toBe(2);
    // The fresher belief becomes stale in time.
    clock.set(T0 + 100 * DAY + (STALE_AFTER_DAYS + 1) * DAY);
    expect(store.flagStaleBeliefs()).toEqual([fresh.id]);
    // A custom window; a bad one is refused.
    expect(store.flagStaleBeliefs({ olderThanDays: 1 })).toEqual([]);
    expectKeelError(() => store.flagStaleBeliefs({ olderThanDays: 0 }), 'INVALID_INPUT');
    expect(journalRows(store, 'flag_stale')).toHaveLength(2);
    expect(store.verify().ok).toBe(true);
  });

  it('a new sighting clears the flag; an unrelated write does not', async () => {
    const { store, clock, old, ownerOld } = aging();
    store.flagStaleBeliefs();
    clock.advance();
    // Unrelated: another slot, and a same-episode repeat of the flagged value (no new sighting).
    store.remember({ kind: 'note', key: 'x', value: 'something else', source: 'observed' });
    const firstEp = store.evidence(old.id)[0]!;
    expect(
      store.remember({
        kind: 'profile',
        key: 'employer',
        value: 'works at Acme',
        source: 'observed',
        episodeId: firstEp,
      }).decision,
    ).toBe('ignore');
    expect(store.review().stale.map((f) => f.id)).toEqual([old.id, ownerOld.id]);
    // A new sighting of the value.
    const r = store.remember({
      kind: 'profile',
      key: 'employer',
      value: 'works at Acme',
      source: 'observed',
      episodeId: turn(store, 'still at Acme'),
    });
    expect(r.decision).toBe('corroborate');
    expect(store.review().stale.map((f) => f.id)).toEqual([ownerOld.id]);
    expect(
      dbOf(store).prepare('SELECT cleared_at FROM review_flags WHERE fact_id = ?').get(old.id),
    ).toEqual({ cleared_at: clock.t });
    // It is not stale now, so the next weekly run does not flag it again.
    expect(store.flagStaleBeliefs()).toEqual([]);
  });

  it('an update, confirm, reject and forget each clear the flag of the belief they decide', async () => {
    const { store, clock } = openTempStore();
    const put = (key: string, value: string) =>
      store.remember({ kind: 'note', key, value, source: 'observed' }).fact!;
    const updated = put('a', 'first value a');
    const confirmed = put('b', 'value b');
    const rejected = put('c', 'value c');
    const forgotten = put('d', 'value d');
    const control = put('e', 'value e');
    clock.set(T0 + 200 * DAY);
    expect(store.flagStaleBeliefs()).toHaveLength(5);
    store.remember({ kind: 'note', key: 'a', value: 'second value a', source: 'observed' });
    store.confirm(confirmed.id);
    store.reject(rejected.id);
    store.forget(forgotten.id);
    expect(store.review().stale.map((f) => f.id)).toEqual([control.id]);
    const open = dbOf(store)
      .prepare('SELECT fact_id FROM review_flags WHERE cleared_at IS NULL')
      .all() as { fact_id: number }[];
    expect(open.map((r) => r.fact_id)).toEqual([control.id]);
    for (const f of [updated, confirmed, rejected, forgotten]) {
      expect(
        dbOf(store).prepare('SELECT cleared_at FROM review_flags WHERE fact_id = ?').get(f.id),
      ).toEqual({ cleared_at: clock.t });
    }
  });

  it('imported evidence is as old as the conversation it came from', async () => {
    const { store } = openTempStore(T0 + 400 * DAY);
    const said = store.addEpisode({
      channel: 'import:locomo',
      role: 'owner',
      text: 'I play the cello',
      occurredAt: T0,
    }).id;
    const f = store.remember({
      kind: 'profile',
      key: 'instrument',
      value: 'plays the cello',
      source: 'imported',
      episodeId: said,
    }).fact!;
    const control = store.remember({
      kind: 'profile',
      key: 'sport',
      value: 'plays hockey',
      source: 'observed',
      episodeId: turn(store, 'hockey tonight'),
    }).fact!;
    expect(store.flagStaleBeliefs()).toEqual([f.id]);
    expect(store.fact(control.id)!.status).toBe('active');
  });
});

describe('one unit of work', () => {
  /** A store with a belief old enough to decay and prune, and one that is fresh. */
  function night() {
    const t = openTempStore();
    const { store, clock } = t;
    store.remember({
      kind: 'note',
      key: 'padel',
      value: 'plays padel',
      source: 'inferred',
      confidence: 0.32,
    });
    store.remember({
      kind: 'note',
      key: 'owner',
      value: 'allergic to cats',
      source: 'owner_stated',
    });
    clock.set(T0 + 10 * WEEK);
    return t;
  }

  const work = (store: Store) => {
    const written = store.remember({
      kind: 'preference',
      key: 'tea',
      value: 'green tea',
      source: 'observed',
      episodeId: turn(store, 'green tea please'),
    });
    const decayed = store.decay();
    const pruned = store.prune();
    return { written, decayed, pruned };
  };

  it('a throw inside rolls back a remember, a decay and a prune: the database is unchanged', async () => {
    const { store } = night();
    const before = snapshot(store);
    let seen: ReturnType<typeof work> | null = null;
    expect(() =>
      store.transaction(() => {
        seen = work(store);
        // Inside the unit, the work is visible.
        expect(store.current(slot('preference', 'tea'))).toBeDefined();
        throw new Error('the curator failed');
      }),
    ).toThrow('the curator failed');
    expect(seen!.written.decision).toBe('create');
    expect(seen!.decayed).toHaveLength(1);
    expect(seen!.pruned).toHaveLength(1);
    expect(snapshot(store)).toEqual(before);
    expect(store.current(slot('preference', 'tea'))).toBeUndefined();
    expect(store.verify().ok).toBe(true);
  });

  it('without a throw the same work commits, and returns what fn returned', async () => {
    const { store } = night();
    const before = snapshot(store);
    const r = store.transaction(() => work(store));
    expect(r.written.decision).toBe('create');
    expect(r.pruned).toHaveLength(1);
    const after = snapshot(store);
    expect(after.facts).not.toEqual(before.facts);
    expect(after.tombstones).toHaveLength(before.tombstones!.length + 1);
    expect(journalRows(store, 'decay')).toHaveLength(1);
    expect(store.current(slot('preference', 'tea'))).toMatchObject({ value: 'green tea' });
    expect(store.verify().ok).toBe(true);
  });

  it('a nested unit that throws is rolled back alone when the outer one catches it', async () => {
    const { store } = night();
    store.transaction(() => {
      store.remember({ kind: 'note', key: 'kept', value: 'kept value', source: 'observed' });
      try {
        store.transaction(() => {
          store.remember({
            kind: 'note',
            key: 'dropped',
            value: 'dropped value',
            source: 'observed',
          });
          throw new Error('inner');
        });
      } catch {
        // the outer unit carries on
      }
    });
    expect(store.current(slot('note', 'kept'))).toBeDefined();
    expect(store.current(slot('note', 'dropped'))).toBeUndefined();
  });

  it('a whole night (dedupe, compaction, stale flags) and a purge commit together and verify', async () => {
    const { store, clock } = night();
    const forgotten = store.remember({
      kind: 'note',
      key: 'gym',
      value: 'gym on Mondays at the Riverside centre',
      source: 'owner_stated',
    }).fact!;
    // Two evidenced duplicates (seen twice each, so they do not decay).
    for (const key of ['canal', 'canal_run']) {
      for (let i = 0; i < 2; i++) {
        store.remember({
          kind: 'note',
          key,
          value: 'runs along the canal',
          source: 'observed',
          episodeId: turn(store, `canal run ${key} ${i}`),
        });
      }
    }
    clock.advance(200 * DAY);
    const r = store.transaction(() => {
      store.forget(forgotten.id, { purge: true });
      return {
        decayed: store.decay().length,
        pruned: store.prune().length,
        merged: store.dedupe().length,
        stale: store.flagStaleBeliefs().length,
        compacted: store.compactJournal({ before: clock.t }).compacted,
      };
    });
    expect(r).toEqual({ decayed: 1, pruned: 1, merged: 1, stale: 2, compacted: 0 });
    expect(
      count(store, 'SELECT count(*) AS n FROM journal WHERE payload LIKE ?', '%riverside%'),
    ).toBe(0);
    expect(verifyProblems(store)).toEqual([]);
    // The purge's WAL was folded into the file once the unit committed.
    expect(dbOf(store).pragma('wal_checkpoint(PASSIVE)')).toEqual([
      { busy: 0, log: 0, checkpointed: 0 },
    ]);
  });

  it('refuses an async function and keeps nothing it did before its first await', async () => {
    const { store } = night();
    const before = snapshot(store);
    let finished: Promise<void> | null = null;
    expectKeelError(
      () =>
        store.transaction(() => {
          store.remember({ kind: 'note', key: 'early', value: 'early value', source: 'observed' });
          finished = (async () => {
            await Promise.resolve();
          })();
          return finished;
        }),
      'INVALID_INPUT',
    );
    await finished;
    expect(snapshot(store)).toEqual(before);
  });
});
