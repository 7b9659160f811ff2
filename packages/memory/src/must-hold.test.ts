// The three must-hold cases: the behaviours keel's memory is judged by.
import { describe, expect, it } from 'vitest';
import {
  count,
  DAY,
  episodeResults,
  factResults,
  openTempStore,
  recalledFactIds,
  slot,
  tableCounts,
  turn,
} from './test-helpers.js';

describe('the three must-hold cases', () => {
  it('must-hold (a): the same statement in two separate turns is one fact with evidence 2', async () => {
    const { store, clock } = openTempStore();
    const said = 'My dentist is Dr. Ortiz on Elm Street';
    const e1 = turn(store, said);
    const r1 = store.remember({
      kind: 'profile',
      key: 'dentist',
      value: 'Dr. Ortiz on Elm Street',
      source: 'owner_stated',
      episodeId: e1,
    });
    const afterFirst = tableCounts(store);
    clock.advance(2 * DAY);
    const e2 = turn(store, said);
    const r2 = store.remember({
      kind: 'profile',
      key: 'dentist',
      value: 'Dr. Ortiz on Elm Street',
      source: 'owner_stated',
      episodeId: e2,
    });
    expect([r1.decision, r2.decision]).toEqual(['create', 'corroborate']);

    const history = store.history(slot('profile', 'dentist'));
    expect(history).toHaveLength(1); // one row: no supersession
    expect(history[0]).toMatchObject({
      id: r1.fact!.id,
      status: 'active',
      value: 'Dr. Ortiz on Elm Street',
      evidence_count: 2,
      confidence: 1,
      supersedes_id: null,
      superseded_by_id: null,
      created_at: clock.t - 2 * DAY,
      last_seen_at: clock.t,
    });
    expect(store.evidence(r1.fact!.id)).toEqual([e1, e2]);
    expect(store.activeFacts()).toHaveLength(1);
    // Nothing deleted: every count only grew, both turns are still there.
    const now = tableCounts(store);
    for (const [table, n] of Object.entries(afterFirst))
      expect(now[table]).toBeGreaterThanOrEqual(n);
    expect(store.episode(e1)!.text).toBe(said);
    expect(store.episode(e2)!.text).toBe(said);
    expect(count(store, `SELECT count(*) AS n FROM facts WHERE status <> 'active'`)).toBe(0);
    expect(store.verify().ok).toBe(true);
  });

  it('must-hold (b): "I love sushi" then, a week later, "I can\'t stand sushi anymore"', async () => {
    const { store, clock } = openTempStore();
    const e1 = turn(store, 'I love sushi');
    const loved = store.remember({
      kind: 'preference',
      key: 'sushi',
      value: 'I love sushi',
      source: 'owner_stated',
      episodeId: e1,
    }).fact!;
    clock.advance(7 * DAY);
    const e2 = turn(store, "I can't stand sushi anymore");
    const r = store.remember({
      kind: 'preference',
      key: 'sushi',
      value: "I can't stand sushi anymore",
      source: 'owner_stated',
      episodeId: e2,
    });
    expect(r.decision).toBe('update');
    const now = r.fact!;
    expect(store.current(slot('preference', 'sushi'))).toMatchObject({
      id: now.id,
      value: "I can't stand sushi anymore",
      supersedes_id: loved.id,
    });
    expect(store.history(slot('preference', 'sushi')).map((f) => [f.value, f.status])).toEqual([
      ["I can't stand sushi anymore", 'active'],
      ['I love sushi', 'superseded'],
    ]);
    expect(store.fact(loved.id)).toMatchObject({
      superseded_by_id: now.id,
      valid_to: clock.t,
    });
    // Recall returns only the new belief about sushi (both turns remain as episodes).
    const res = await store.recall('sushi');
    expect(factResults(res).map((f) => f.value)).toEqual(["I can't stand sushi anymore"]);
    expect(await recalledFactIds(store, 'love sushi')).toEqual([now.id]);
    // Both turns come back in relevance order: "I love sushi" is the closer match (BM25), and
    // recency, a week apart, only orders ties (it used to put the newer turn first whatever the
    // match; see docs/decisions/2026-12-01-recall-as-lived.md).
    expect(episodeResults(res).map((e) => e.id)).toEqual([e1, e2]);
    // The old turn is marked as support for a belief that no longer holds.
    expect(episodeResults(res).map((e) => e.supports)).toEqual([
      [{ id: loved.id, status: 'superseded' }],
      [{ id: now.id, status: 'active' }],
    ]);
  });

  it('must-hold (c): observed "Paper Owls" against owner_stated "The Lanterns" is a conflict', async () => {
    const { store, clock } = openTempStore();
    const band = slot('preference', 'favourite_band');
    const lanterns = store.remember({
      kind: 'preference',
      key: 'favourite band',
      value: 'The Lanterns',
      source: 'owner_stated',
    }).fact!;
    clock.advance(DAY);
    const e = turn(store, 'been playing Paper Owls on repeat all week');
    const r = store.remember({
      kind: 'preference',
      key: 'favourite_band',
      value: 'Paper Owls',
      source: 'observed',
      episodeId: e,
    });
    expect(r.decision).toBe('conflict');
    const owls = r.fact!;
    expect(owls).toMatchObject({ status: 'pending', conflicts_with_id: lanterns.id });
    // Not recalled as true; the query also names the current value, which IS recalled.
    expect(await recalledFactIds(store, 'Paper Owls')).toEqual([]);
    expect(await recalledFactIds(store, 'favourite band Paper Owls')).toEqual([lanterns.id]);
    expect(store.current(band)!.id).toBe(lanterns.id);
    // Listed by review, with the value it contradicts.
    const queue = store.review();
    expect(queue.pending).toHaveLength(1);
    expect(queue.pending[0]!.fact.id).toBe(owls.id);
    expect(queue.pending[0]!.current!.value).toBe('The Lanterns');

    // The owner confirms: Paper Owls becomes current and supersedes The Lanterns.
    clock.advance(DAY);
    const { fact, superseded } = store.confirm(owls.id, { channel: 'discord' });
    expect(fact).toMatchObject({
      id: owls.id,
      status: 'active',
      source: 'owner_confirmed',
      confidence: 1,
      supersedes_id: lanterns.id,
    });
    expect(superseded).toMatchObject({
      id: lanterns.id,
      status: 'superseded',
      superseded_by_id: owls.id,
    });
    expect(store.current(band)!.value).toBe('Paper Owls');
    expect(await recalledFactIds(store, 'favourite band Lanterns Paper Owls')).toEqual([owls.id]);
    expect(await recalledFactIds(store, 'Lanterns')).toEqual([]);
    expect(store.review().pending).toEqual([]);
    expect(store.verify().ok).toBe(true);
  });
});
