// Recall (DESIGN "Reading: recall"): ranking order, the side effect on access_count, and FTS5
// input safety (user text is never FTS5 syntax). Ranking tests assert ORDER.

import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import { dbOf } from '../internal.js';
import { MemoryStore } from '../store.js';
import {
  DAY,
  episodeResults,
  expectKeelError,
  expectKeelErrorAsync,
  factResults,
  openTempStore,
  recalledFactIds,
  T0,
  tableCounts,
  turn,
} from '../test-helpers.js';
import type { Fact } from '../types.js';
import {
  EPISODE_HALF_LIFE_MS,
  KEY_BOOST,
  NEIGHBOUR_WEIGHT,
  NEIGHBOUR_WEIGHT_2,
  RECENCY_WEIGHT,
  RRF_K,
  SPEAKER_BOOST,
} from './recall.js';

type Store = ReturnType<typeof openTempStore>['store'];

/** The BM25 score SQLite gives each fact id for a term (lower is better). */
function factBm25(store: Store, term: string): Map<number, number> {
  const rows = dbOf(store)
    .prepare(
      'SELECT rowid AS id, bm25(facts_fts) AS bm FROM facts_fts WHERE facts_fts MATCH ? ORDER BY bm',
    )
    .all(`"${term}"`) as { id: number; bm: number }[];
  return new Map(rows.map((r) => [r.id, r.bm]));
}

const accessCount = (store: Store, id: number) => store.fact(id)!.access_count;

describe('recall ranking', () => {
  it('a high-confidence fact outranks a low-confidence one with the same text match', async () => {
    const { store } = openTempStore();
    // The observed one is written first, so any tie order would favour it.
    const low = store.remember({
      kind: 'note',
      key: 'alpha',
      value: 'hiking boots from the outlet',
      source: 'observed',
    }).fact!;
    const high = store.remember({
      kind: 'note',
      key: 'bravo',
      value: 'hiking boots from the outlet',
      source: 'owner_stated',
    }).fact!;
    const bm = factBm25(store, 'hiking');
    expect(bm.get(low.id)).toBe(bm.get(high.id)); // same text match: BM25 ties
    const res = factResults(await store.recall('hiking boots'));
    expect(res.map((r) => r.id)).toEqual([high.id, low.id]);
    expect(res[0]!.score / res[1]!.score).toBeCloseTo((0.7 + 0.3 * 1) / (0.7 + 0.3 * 0.7), 10);
  });

  it('the episode with the higher term frequency ranks first', async () => {
    const { store, clock } = openTempStore();
    const once = turn(store, 'kayak trip down the river with friends', clock.t);
    const thrice = turn(store, 'kayak kayak kayak down the river with friends', clock.t);
    const none = turn(store, 'a quiet walk along the river with friends', clock.t);
    const res = episodeResults(await store.recall('kayak'));
    expect(res.map((r) => r.id)).toEqual([thrice, once]);
    expect(res.map((r) => r.id)).not.toContain(none);
    expect(res[0]!.score).toBeGreaterThan(res[1]!.score);
  });

  it('more distinct query terms matched ranks a fact first', async () => {
    const { store } = openTempStore();
    const one = store.remember({
      kind: 'note',
      key: 'alpha',
      value: 'ramen shop downtown near work',
      source: 'observed',
    }).fact!;
    const two = store.remember({
      kind: 'note',
      key: 'bravo',
      value: 'ramen shop with spicy miso broth',
      source: 'observed',
    }).fact!;
    expect(await recalledFactIds(store, 'spicy ramen')).toEqual([two.id, one.id]);
  });

  it('a key hit boosts a fact past one with a better BM25 score', async () => {
    const { store } = openTempStore();
    const keyHit = store.remember({
      kind: 'preference',
      key: 'tea',
      value: 'sencha brewed at seventy degrees in the afternoon',
      source: 'observed',
    }).fact!;
    const valueHit = store.remember({
      kind: 'note',
      key: 'shopping',
      value: 'tea tea tea',
      source: 'observed',
    }).fact!;
    // Precondition: BM25 alone prefers the value hit (lower is better in SQLite).
    const bm = factBm25(store, 'tea');
    expect(bm.get(valueHit.id)!).toBeLessThan(bm.get(keyHit.id)!);
    const res = factResults(await store.recall('tea'));
    expect(res.map((r) => r.id)).toEqual([keyHit.id, valueHit.id]);
    // BM25 ranks: value hit 1, key hit 2; the key hit wins by the boost alone (same confidence).
    expect(res[0]!.score).toBeCloseTo(KEY_BOOST * (1 / (RRF_K + 2)) * (0.7 + 0.3 * 0.7), 12);
    expect(res[1]!.score).toBeCloseTo((1 / (RRF_K + 1)) * (0.7 + 0.3 * 0.7), 12);
  });

  it('facts have no recency term: an old and a new fact with the same text and confidence tie', async () => {
    const { store, clock } = openTempStore();
    const old = store.remember({
      kind: 'note',
      key: 'alpha',
      value: 'prefers the window seat on trains',
      source: 'observed',
    }).fact!;
    clock.advance(365 * DAY);
    const fresh = store.remember({
      kind: 'note',
      key: 'bravo',
      value: 'prefers the window seat on trains',
      source: 'observed',
    }).fact!;
    const res = factResults(await store.recall('window seat'));
    expect(new Set(res.map((r) => r.id))).toEqual(new Set([old.id, fresh.id]));
    const byId = new Map(res.map((r) => [r.id, r]));
    expect(byId.get(old.id)!.age_ms).toBe(365 * DAY);
    expect(byId.get(fresh.id)!.age_ms).toBe(0);
    expect(byId.get(old.id)!.score).toBe(byId.get(fresh.id)!.score);
    // The tie keeps BM25 order (the order SQLite's own ranking returns them in).
    const sqlOrder = [...factBm25(store, 'window').keys()];
    expect(res.map((r) => r.id)).toEqual(sqlOrder);
  });

  it('episodes have a recency term: the newer of two identical episodes ranks first', async () => {
    const { store, clock } = openTempStore();
    // The older one is inserted first, so a tie would keep it first.
    const older = turn(store, 'we talked about the lighthouse trip', clock.t - 60 * DAY);
    const newer = turn(store, 'we talked about the lighthouse trip', clock.t - DAY);
    const res = episodeResults(await store.recall('lighthouse'));
    expect(res.map((r) => r.id)).toEqual([newer, older]);
    const w = (age: number) => 1 + RECENCY_WEIGHT * 0.5 ** (age / EPISODE_HALF_LIFE_MS);
    expect(res[0]!.score / res[1]!.score).toBeCloseTo(w(DAY) / w(60 * DAY), 10);
    expect(res[1]!.provenance.occurred_at).toBe(clock.t - 60 * DAY);
  });

  it('of two identical episodes years old (recency too small to tell), the newer still ranks first', async () => {
    const { store, clock } = openTempStore();
    const older = turn(store, 'we talked about the lighthouse trip', clock.t - 4000 * DAY);
    const newer = turn(store, 'we talked about the lighthouse trip', clock.t - 3000 * DAY);
    const res = episodeResults(await store.recall('lighthouse'));
    expect(res.map((r) => r.id)).toEqual([newer, older]);
  });

  it('recency cannot outweigh relevance: an old turn that answers beats recent weak matches', async () => {
    // "When Jon has lost his job as a banker?" in miniature: the answer was said months ago; the
    // days before the question are full of turns that share one word with it.
    const { store, clock } = openTempStore();
    const at = (days: number) => clock.t - days * DAY;
    const turns: [string, string, number][] = [
      ['old', 'Jon: I lost my job as a banker yesterday, so I am starting a dance studio', at(200)],
      ['old', 'Gina: oh no, I am sorry to hear that', at(200) + 1],
      ...Array.from({ length: 12 }, (_, i): [string, string, number] => [
        'recent',
        [
          'Gina: my new job at the store is hectic',
          'Jon: I lost track of time at the studio',
          'Gina: Jon, the job fair was busy today',
          'Jon: lost my keys again this morning',
        ][i % 4]!,
        at(2) + i * 60_000,
      ]),
    ];
    store.importTurns(
      {
        format: 'locomo',
        docs: ['d'],
        skipped: [],
        turns: turns.map(([session, line, occurredAt], i) => ({
          sourceDoc: 'd',
          sourceId: `t${i}`,
          sessionKey: session,
          speaker: line.slice(0, line.indexOf(':')),
          role: 'other' as const,
          text: line.slice(line.indexOf(':') + 2),
          occurredAt,
        })),
      },
      { path: 'd', fileSha256: 'x' },
    );
    const r = episodeResults(
      await store.recall('When Jon has lost his job as a banker?', {
        type: 'episode',
        touch: false,
      }),
    );
    expect(r[0]!.provenance.source_id).toBe('t0');
    // The same question with the clock years later ranks it first too: as lived, as frozen.
    clock.advance(3000 * DAY);
    const later = episodeResults(
      await store.recall('When Jon has lost his job as a banker?', {
        type: 'episode',
        touch: false,
      }),
    );
    expect(later[0]!.provenance.source_id).toBe('t0');
  });

  it('candidates come from the whole store, not a recency window', async () => {
    const { store, clock } = openTempStore();
    const ancient = store.remember({
      kind: 'note',
      key: 'zeppelin',
      value: 'rode a zeppelin once',
      source: 'owner_stated',
    }).fact!;
    for (let i = 0; i < 60; i++) {
      clock.advance(DAY);
      store.remember({
        kind: 'note',
        key: `trip_${i}`,
        value: `trip number ${i} by train`,
        source: 'observed',
      });
    }
    expect(await recalledFactIds(store, 'zeppelin')).toEqual([ancient.id]);
    expect((await recalledFactIds(store, 'train zeppelin'))[0]).toBe(ancient.id);
  });

  it('access_count is bumped on the recalled facts only, never the confidence', async () => {
    const { store, clock } = openTempStore();
    const mk = (key: string, value: string, source: Fact['source'] = 'observed') =>
      store.remember({ kind: 'note', key, value, source }).fact!;
    const a = mk('alpha', 'banjo lessons on tuesday', 'owner_stated');
    const b = mk('bravo', 'banjo lessons on thursday');
    const c = mk('charlie', 'banjo strings banjo case banjo');
    const other = mk('delta', 'violin lessons on friday');
    clock.advance();
    const changes = () =>
      (dbOf(store).prepare('SELECT total_changes() AS n').get() as { n: number }).n;
    const before = changes();
    const res = await store.recall('banjo lessons', { limit: 2 });
    const returned = res.results.map((r) => r.id);
    expect(returned).toHaveLength(2);
    const all = [a.id, b.id, c.id];
    const cut = all.filter((id) => !returned.includes(id));
    expect(cut).toHaveLength(1);
    // Recall writes nothing: the uses are counted, and written by the store's next write.
    expect(changes()).toBe(before);
    for (const id of returned) expect(accessCount(store, id)).toBe(0);
    const recalledAt = clock.t;
    clock.advance();
    mk('echo', 'cello lessons on monday');
    for (const id of returned) {
      expect(accessCount(store, id)).toBe(1);
      expect(store.fact(id)!.last_accessed_at).toBe(recalledAt);
    }
    expect(accessCount(store, cut[0]!)).toBe(0); // matched but not returned
    expect(accessCount(store, other.id)).toBe(0); // did not match
    expect(store.fact(b.id)!.confidence).toBe(0.7);
    // touch: false and episode-only recalls bump nothing.
    await store.recall('banjo', { touch: false });
    turn(store, 'banjo recital tonight');
    await store.recall('banjo', { type: 'episode' });
    expect(store.flushAccess()).toBe(0);
    for (const id of returned) expect(accessCount(store, id)).toBe(1);
  });

  it('counted uses are written by a unit of work, and at close when nothing else wrote', async () => {
    const { store, path } = openTempStore();
    const f = store.remember({
      kind: 'note',
      key: 'kayak',
      value: 'kayak on the lake',
      source: 'owner_stated',
    }).fact!;
    await store.recall('kayak');
    await store.recall('kayak');
    expect(accessCount(store, f.id)).toBe(0);
    store.transaction(() => turn(store, 'nothing about boats'));
    expect(accessCount(store, f.id)).toBe(2);
    await store.recall('kayak');
    store.close();
    const reopened = MemoryStore.open(path);
    expect(reopened.fact(f.id)!.access_count).toBe(3);
    reopened.close();
  });

  it('scope is filtered before scoring: agent facts are not recalled for the owner', async () => {
    const { store } = openTempStore();
    const mine = store.remember({
      kind: 'preference',
      key: 'tone',
      value: 'terse replies',
      source: 'owner_stated',
    }).fact!;
    const agents = store.remember({
      scope: 'agent',
      kind: 'learned',
      key: 'tone',
      value: 'terse replies work best',
      source: 'system',
    }).fact!;
    expect(await recalledFactIds(store, 'terse replies')).toEqual([mine.id]);
    expect(
      factResults(await store.recall('terse replies', { scope: 'agent' })).map((r) => r.id),
    ).toEqual([agents.id]);
  });

  it('facts of another scope that fill the best matches do not crowd out the scope asked for', async () => {
    const { store } = openTempStore();
    // 80 agent facts that match "terse replies" better (shorter, both words) than any owner fact.
    for (let i = 0; i < 80; i++) {
      store.remember({
        scope: 'agent',
        kind: 'learned',
        key: `tone_${i}`,
        value: 'terse replies',
        source: 'system',
      });
    }
    const owner = Array.from(
      { length: 40 },
      (_, i) =>
        store.remember({
          kind: 'note',
          key: `reply_${i}`,
          value: `long letters and terse replies and a great many other words besides ${i}`,
          source: 'owner_stated',
        }).fact!,
    );
    const ids = async (limit: number) =>
      factResults(await store.recall('terse replies', { limit, touch: false })).map((r) => r.id);
    // Every owner fact is found and none of the agent's, though those are the 80 best matches.
    expect(new Set(await ids(40))).toEqual(new Set(owner.map((f) => f.id)));
    expect(await ids(5)).toHaveLength(5);
    // Control: the agent's facts are there to be found in their own scope.
    expect(
      factResults(await store.recall('terse replies', { scope: 'agent', limit: 80, touch: false })),
    ).toHaveLength(80);
  });

  it('the turns up to two after or before a hit in the same session come back after the hits; turns of other sessions do not', async () => {
    const { store } = openTempStore();
    const turns: [string, string][] = [
      ['s1', 'what did you think of the violin recital?'], // hit, both words
      ['s1', 'it was moving, I cried at the end'], // after the first hit: context
      ['s1', 'the weather was mild today'], // two turns away: context too
      ['s2', 'violin strings are expensive'], // hit, one word
      ['s3', 'shall we eat out tonight'], // after the second hit, but another session
    ];
    store.importTurns(
      {
        format: 'locomo',
        docs: ['d'],
        skipped: [],
        turns: turns.map(([session, text], i) => ({
          sourceDoc: 'd',
          sourceId: `t${i}`,
          sessionKey: session,
          speaker: 'Ann',
          role: 'other' as const,
          text,
          occurredAt: T0,
        })),
      },
      { path: 'd', fileSha256: 'x' },
    );
    const r = episodeResults(
      await store.recall('violin recital', { type: 'episode', touch: false }),
    );
    expect(r.map((e) => e.provenance.source_id)).toEqual(['t0', 't3', 't1', 't2']);
    // Scored as NEIGHBOUR_WEIGHT of its hit's reciprocal rank (the hit ranked first).
    expect(r[2]!.score / r[0]!.score).toBeCloseTo(NEIGHBOUR_WEIGHT, 6);
    expect(r[3]!.score / r[0]!.score).toBeCloseTo(NEIGHBOUR_WEIGHT_2, 6);
  });

  it('a weak hit next to a strong hit is lifted to the neighbour score', async () => {
    const { store } = openTempStore();
    const turns: [string, string][] = [
      ['s1', 'violin recital violin recital'], // the strongest hit
      ['s1', 'the recital hall was cold, the seats were hard and the coffee was bad'], // weakest hit
      ['s2', 'violin recital'],
      ['s3', 'violin recital'],
      ['s4', 'violin recital'],
      ['s5', 'violin recital'],
    ];
    store.importTurns(
      {
        format: 'locomo',
        docs: ['d'],
        skipped: [],
        turns: turns.map(([session, text], i) => ({
          sourceDoc: 'd',
          sourceId: `t${i}`,
          sessionKey: session,
          speaker: 'Ann',
          role: 'other' as const,
          text,
          occurredAt: T0,
        })),
      },
      { path: 'd', fileSha256: 'x' },
    );
    const r = episodeResults(
      await store.recall('violin recital', { type: 'episode', touch: false }),
    );
    expect(r[0]!.provenance.source_id).toBe('t0');
    const weak = r.find((e) => e.provenance.source_id === 't1')!;
    // Its own rank (sixth) would score 1/(RRF_K + 6); next to the first hit it scores more.
    expect(weak.score / r[0]!.score).toBeCloseTo(NEIGHBOUR_WEIGHT, 6);
  });

  it('a name in the question counts for the turns that person said, not as a match on every turn they said', async () => {
    const { store } = openTempStore();
    const turns: [string, string, string][] = [
      ['s1', 'Melanie', 'I read about adoption agencies for my research'],
      ['s2', 'Caroline', 'I read about adoption agencies for my research'],
      ['s3', 'Caroline', 'the weather is lovely today'],
      ['s4', 'Caroline', 'shall we go for a walk'],
    ];
    store.importTurns(
      {
        format: 'locomo',
        docs: ['d'],
        skipped: [],
        turns: turns.map(([session, speaker, text], i) => ({
          sourceDoc: 'd',
          sourceId: `t${i}`,
          sessionKey: session,
          speaker,
          role: 'other' as const,
          text,
          occurredAt: T0,
        })),
      },
      { path: 'd', fileSha256: 'x' },
    );
    const r = episodeResults(
      await store.recall('What did Caroline research?', { type: 'episode', touch: false }),
    );
    // Caroline's own words first; her turns that share no word with the question are not results.
    expect(r.map((e) => e.provenance.source_id)).toEqual(['t1', 't0']);
    expect(r[0]!.score / r[1]!.score).toBeCloseTo(SPEAKER_BOOST, 6);
  });

  it('irregular verb forms find each other: "buy" finds "bought", "won" finds "win"', async () => {
    const { store, clock } = openTempStore();
    const bought = turn(store, 'she bought a cello last spring', clock.t - DAY);
    const win = turn(store, 'I hope the Ravens win the cup', clock.t - DAY);
    expect(episodeResults(await store.recall('What did she buy?')).map((r) => r.id)).toEqual([
      bought,
    ]);
    expect(episodeResults(await store.recall('Who won it?')).map((r) => r.id)).toEqual([win]);
  });

  it('reports lexical mode and the searched terms; rejects a bad limit', async () => {
    const { store } = openTempStore();
    const res = await store.recall('What is the Wi-Fi password at the cabin?');
    expect(res.mode).toBe('lexical');
    expect(res.terms).toEqual(['wi', 'fi', 'password', 'cabin']);
    await expectKeelErrorAsync(() => store.recall('x', { limit: 0 }), 'INVALID_INPUT');
    await expectKeelErrorAsync(() => store.recall('x', { limit: 201 }), 'INVALID_INPUT');
    // biome-ignore lint/suspicious/noExplicitAny: deliberately invalid input
    await expectKeelErrorAsync(() => store.recall(42 as any), 'INVALID_INPUT');
  });

  it('a belief is found through the turn it rests on, ranked just before it', async () => {
    const { store } = openTempStore();
    const said = turn(store, 'remember that I live in Porto');
    const home = store.remember({
      kind: 'profile',
      key: 'home',
      value: 'Porto',
      source: 'owner_stated',
      episodeId: said,
    }).fact!;
    // Control: a belief whose turn does not match stays out.
    const work = turn(store, 'remember that I work at Acme');
    store.remember({
      kind: 'profile',
      key: 'employer',
      value: 'Acme',
      source: 'owner_stated',
      episodeId: work,
    });
    const r = await store.recall('where do I live?', { touch: false });
    expect(r.results.map((x) => x.ref)).toEqual([`f${home.id}`, `e${said}`]);
    // Its score is its turn's (confidence 1.0: weight 1), not a guess above it.
    expect(r.results[0]!.score).toBeCloseTo(r.results[1]!.score, 12);

    // After a move, the old turn still matches: the belief it supported is history and is not
    // recalled; the slot's current belief is, with the turn marked as said then.
    const moved = turn(store, 'I moved to Lisbon');
    const lisbon = store.remember({
      kind: 'profile',
      key: 'home',
      value: 'Lisbon',
      source: 'owner_stated',
      episodeId: moved,
    }).fact!;
    const after = await store.recall('where do I live?', { touch: false });
    expect(after.results.map((x) => x.ref)).toEqual([`f${lisbon.id}`, `e${said}`]);
    expect(episodeResults(after)[0]!.supports).toEqual([{ id: home.id, status: 'superseded' }]);
    // A forgotten belief is not brought back through its turn, nor is its slot's.
    store.forget(lisbon.id);
    const forgotten = await store.recall('where do I live?', { touch: false });
    expect(forgotten.results.map((x) => x.ref)).toEqual([`e${said}`]);
  });
});

describe('recall: dates in the question are windows over when things were said', () => {
  // The owner is in UTC-7; it is Tuesday 1 December 2026, 10:00 there (17:00 UTC).
  const phx = 'America/Phoenix';
  const local = (iso: string) => DateTime.fromISO(iso, { zone: phx }).toMillis();

  it('"What did I tell you yesterday?": yesterday midnight to midnight in the owner\'s zone', async () => {
    const { store } = openTempStore(local('2026-12-01T10:00'));
    const late = turn(store, 'booked the plumber for Thursday', local('2026-11-29T23:30'));
    const noon = turn(store, 'my sister called about the wedding', local('2026-11-30T12:00'));
    const night = turn(store, 'remind me to water the plants', local('2026-11-30T23:59'));
    const today = turn(store, 'good morning', local('2026-12-01T09:00'));
    turn(store, 'yesterday I fixed the sink', local('2026-11-17T18:00'));
    const r = await store.recall('What did I tell you yesterday?', { tz: phx });
    expect(r.window).toEqual({
      from: Date.parse('2026-11-30T07:00:00Z'),
      to: Date.parse('2026-12-01T07:00:00Z'),
      phrase: 'yesterday',
    });
    // Newest first; not the turn at 23:30 the day before, not today's, not the one that says
    // "yesterday" two weeks ago.
    expect(episodeResults(r).map((e) => e.id)).toEqual([night, noon]);
    // Read in UTC, the day is another one: the day before's 23:30 is in it, 23:59 is not.
    const utc = await store.recall('What did I tell you yesterday?');
    expect(episodeResults(utc).map((e) => e.id)).toEqual([noon, late]);
    expect(episodeResults(utc).map((e) => e.id)).not.toContain(today);
  });

  it('a window is combined with the words: its matches first, never everything in it', async () => {
    const { store } = openTempStore(local('2026-12-01T10:00'));
    const booked = turn(store, 'I booked the dentist for Friday', local('2026-11-30T15:00'));
    turn(store, 'the plumber fixed the sink', local('2026-11-30T16:00'));
    const old = turn(
      store,
      'the dentist dentist visit went fine, the dentist was kind',
      local('2026-11-10T12:00'),
    );
    const r = await store.recall('What did I say about the dentist yesterday?', { tz: phx });
    expect(r.terms).toEqual(['say', 'dentist']);
    expect(episodeResults(r).map((e) => e.id)).toEqual([booked, old]);
  });

  it('a window of thousands of turns ranks its own matches first, however the store ranks them', async () => {
    // 2,400 turns in 2023 (more than a window is searched by rowid range), 800 in 2022 that
    // outrank every 2023 match (the word three times): the window's best are past the store's
    // best 720 (the deep pass), so the window is searched alone.
    const { store } = openTempStore(Date.UTC(2024, 5, 1));
    const day = (y: number, i: number) => Date.UTC(y, 0, 1) + i * 3_600_000;
    const turns: { text: string; occurredAt: number }[] = [];
    for (let i = 0; i < 800; i++)
      turns.push({ text: `kayak kayak kayak trip ${i}`, occurredAt: day(2022, i) });
    for (let i = 0; i < 2400; i++) {
      const text = i % 100 === 7 ? `a long kayak day number ${i} on the lake` : `filler turn ${i}`;
      turns.push({ text, occurredAt: day(2023, i) });
    }
    const ids = (r: Awaited<ReturnType<typeof store.recall>>) =>
      episodeResults(r).map((e) => e.provenance.source_id);
    store.importTurns(
      {
        format: 'locomo',
        docs: ['d'],
        skipped: [],
        turns: turns.map((t, i) => ({
          sourceDoc: 'd',
          sourceId: `t${i}`,
          sessionKey: `s${i}`,
          speaker: 'Ann',
          role: 'other' as const,
          ...t,
        })),
      },
      { path: 'd', fileSha256: 'x' },
    );
    const r = await store.recall('kayak in 2023', { type: 'episode', limit: 30, touch: false });
    expect(r.window?.phrase).toBe('in 2023');
    // The 24 kayak turns of 2023 first (newest first among equals), then 2022's.
    const inYear = ids(r).slice(0, 24);
    expect(new Set(inYear)).toEqual(
      new Set(Array.from({ length: 24 }, (_, k) => `t${800 + k * 100 + 7}`)),
    );
    expect(Number(ids(r)[24]!.slice(1))).toBeLessThan(800);
    // Control: read from the deep pass alone when the year's matches are among the best.
    const few = await store.recall('lake in 2023', { type: 'episode', limit: 5, touch: false });
    expect(ids(few)).toHaveLength(5);
    for (const id of ids(few)) expect(Number(id!.slice(1))).toBeGreaterThanOrEqual(800);
  });

  it('"Where did Joanna travel to in July 2022?" reads the sessions\' dates', async () => {
    const { store } = openTempStore(Date.UTC(2023, 1, 1));
    const turns: [string, string, number][] = [
      ['s1', 'I traveled to Bali with my sister', Date.UTC(2022, 6, 12, 14)],
      ['s2', 'travel plans! I love to travel, travel is my thing', Date.UTC(2023, 0, 20, 9)],
    ];
    store.importTurns(
      {
        format: 'locomo',
        docs: ['d'],
        skipped: [],
        turns: turns.map(([session, text, occurredAt], i) => ({
          sourceDoc: 'd',
          sourceId: `t${i}`,
          sessionKey: session,
          speaker: 'Joanna',
          role: 'other' as const,
          text,
          occurredAt,
        })),
      },
      { path: 'd', fileSha256: 'x' },
    );
    const r = episodeResults(
      await store.recall('Where did Joanna travel to in July 2022?', {
        type: 'episode',
        touch: false,
      }),
    );
    expect(r.map((e) => e.provenance.source_id)).toEqual(['t0', 't1']);
  });
});

describe('recall: words in every script', () => {
  /** The ids of the turns recall returns for `query`, best first. */
  const turnsFor = async (store: Store, query: string) =>
    episodeResults(await store.recall(query, { type: 'episode', touch: false })).map((r) => r.id);

  it('a word inside an unspaced sentence is recalled by that word; an unrelated sentence is not', async () => {
    // [sentence, a word of it, an unrelated sentence in the same script]
    const cases: [string, string, string][] = [
      ['น้องสาวฉันอยู่กรุงเทพ', 'กรุงเทพ', 'ฉันชอบดื่มกาแฟทุกเช้า'],
      ['ເອື້ອຍຂອງຂ້ອຍຢູ່ປາກເຊ', 'ປາກເຊ', 'ຂ້ອຍຊອບດື່ມກາເຟ'],
      ['ខ្ញុំធ្វើការនៅបាត់ដំបង', 'បាត់ដំបង', 'ខ្ញុំទិញសៀវភៅថ្មី'],
      ['ကျွန်တော်ရန်ကုန်မှာနေတယ်', 'ရန်ကုန်', 'ကျွန်တော်ကော်ဖီကြိုက်တယ်'],
      ['昨日東京タワーに行きました', '東京タワー', '明日は歯医者に行く'],
      ['我妹妹住在深圳', '深圳', '我喜欢喝绿茶'],
      ['나는 서울에 살아요', '서울', '나는 부산에서 일해요'],
    ];
    for (const [sentence, word, unrelated] of cases) {
      const { store } = openTempStore();
      const said = turn(store, sentence);
      turn(store, unrelated);
      expect(await turnsFor(store, word), word).toEqual([said]);
    }
  });

  it('a Hebrew word with each attached prefix is recalled by its bare form, and the other way', async () => {
    for (const prefix of ['ו', 'ה', 'ב', 'ל', 'מ', 'ש', 'כ', 'וב', 'שמ', 'כש']) {
      const { store } = openTempStore();
      const prefixed = turn(store, `הדירה ${prefix}נתניה גדולה`);
      turn(store, 'הדירה בעכו קטנה');
      expect(await turnsFor(store, 'נתניה'), prefix).toEqual([prefixed]);
      const bare = turn(store, 'נסעתי אל נתניה אתמול');
      const found = await turnsFor(store, `${prefix}נתניה`);
      expect(found.sort(), prefix).toEqual([prefixed, bare].sort());
    }
  });

  it('an Arabic word with each attached prefix is recalled by its bare form, and the other way', async () => {
    for (const prefix of ['ال', 'وال', 'بال', 'كال', 'فال', 'لل', 'و']) {
      const { store } = openTempStore();
      const prefixed = turn(store, `ذهبت ${prefix}مكتبة أمس`);
      turn(store, 'ذهبت إلى السوق أمس');
      expect(await turnsFor(store, 'مكتبة'), prefix).toEqual([prefixed]);
      const bare = turn(store, 'مكتبة كبيرة في المدينة');
      const found = await turnsFor(store, `${prefix}مكتبة`);
      expect(found.sort(), prefix).toEqual([prefixed, bare].sort());
    }
  });

  it('a word that begins with prefix letters keeps its meaning: the whole word ranks first', async () => {
    const { store } = openTempStore();
    // "מים" (water) holds the letters of "ים" (the sea) after a מ: both come back for "מים",
    // the water first; "בית" (a house) is not "ית", and a turn about the sea is not a house.
    const water = turn(store, 'שתיתי מים קרים');
    const sea = turn(store, 'שחינו בים');
    const house = turn(store, 'קנינו בית');
    expect(await turnsFor(store, 'מים')).toEqual([water, sea]);
    expect(await turnsFor(store, 'בית')).toEqual([house]);
    // A Hebrew fact is found by the bare word as a turn is.
    const fact = store.remember({
      kind: 'profile',
      key: 'home_city',
      value: 'גר בחיפה',
      source: 'owner_stated',
    }).fact!;
    store.remember({
      kind: 'profile',
      key: 'work_city',
      value: 'עובד בעכו',
      source: 'owner_stated',
    });
    expect(await recalledFactIds(store, 'חיפה')).toEqual([fact.id]);
  });

  it('recall as of a moment matches words as the index does: a Thai word, a bare Hebrew word', async () => {
    const { store, clock } = openTempStore();
    const put = (key: string, value: string) =>
      store.remember({ kind: 'note', key, value, source: 'owner_stated' }).fact!.id;
    const thai = put('trip', 'เมื่อวานไปกินข้าวซอยที่เชียงใหม่อร่อยมาก');
    put('dentist', 'พรุ่งนี้ต้องไปหาหมอฟันตอนบ่ายสามโมง');
    const hebrew = put('home', 'אני גר בחיפה');
    put('work', 'אני עובד בעכו');
    const english = put('order', 'Oat flat white, no sugar');
    clock.advance(DAY);
    const asOf = async (q: string) =>
      factResults(await store.recall(q, { type: 'fact', asOf: clock.t, touch: false })).map(
        (f) => f.id,
      );
    expect(await asOf('เชียงใหม่')).toEqual([thai]);
    expect(await asOf('חיפה')).toEqual([hebrew]);
    expect(await asOf('בחיפה')).toEqual([hebrew]);
    // As before: whole words, case and punctuation aside.
    expect(await asOf('OAT sugar?')).toEqual([english]);
    expect(await asOf('oa')).toEqual([]);
  });
});

describe('FTS5 input safety', () => {
  function seeded() {
    const t = openTempStore();
    const put = (key: string, value: string) =>
      t.store.remember({ kind: 'note', key, value, source: 'owner_stated' }).fact!.id;
    return {
      ...t,
      ids: {
        agents: put('agents', 'multi-agent orchestration research'),
        keel: put('keel', 'project keel launch plan'),
        oolong: put('oolong', 'oolong with honey'),
        shellfish: put('shellfish', "I don't eat shellfish"),
        and: put('seasoning', 'salt and pepper'),
        or: put('choice', 'either tea or coffee'),
        not: put('mornings', 'not a morning person'),
        near: put('home', 'lives near the harbour'),
      },
    };
  }

  it('operators, quotes, colons, brackets, apostrophes, * and ^ never throw and still match', async () => {
    const { store, ids } = seeded();
    const cases: [string, number][] = [
      ['multi-agent', ids.agents],
      ['multi-agent -orchestration', ids.agents],
      ['project: keel', ids.keel],
      ['keel:launch', ids.keel],
      ['{key} : oolong', ids.oolong],
      ['"oolong', ids.oolong],
      ['oolong"', ids.oolong],
      ['"oolong honey"', ids.oolong],
      ['oolong AND honey', ids.oolong],
      ['oolong OR', ids.oolong],
      ['NOT oolong', ids.oolong],
      ['NEAR(oolong honey, 2)', ids.oolong],
      ['oolong NEAR/2 honey', ids.oolong],
      ['(oolong)', ids.oolong],
      ['((oolong', ids.oolong],
      ['oolong)', ids.oolong],
      ["don't", ids.shellfish],
      ["I don't eat", ids.shellfish],
      ['oolong*', ids.oolong],
      ['^oolong', ids.oolong],
      ['oolong^', ids.oolong],
      ['+oolong', ids.oolong],
      ['AND', ids.and],
      ['OR', ids.or],
      ['NOT', ids.not],
      ['NEAR', ids.near],
      ['AND OR NOT', ids.not], // "not" is not a stopword; "and" and "or" are
    ];
    for (const [query, expected] of cases) {
      let ids: number[] = [];
      await expect(
        store.recall(query, { touch: false }).then((r) => {
          ids = factResults(r).map((x) => x.id);
        }),
        query,
      ).resolves.toBeUndefined();
      expect(ids, query).toContain(expected);
    }
  });

  it('a colon-joined query ("re:dentist", "tea:oolong") still finds the matching fact', async () => {
    const { store } = openTempStore();
    const dentist = store.remember({
      kind: 'profile',
      key: 'dentist',
      value: 'Dr. Ortiz on Elm Street',
      source: 'owner_stated',
    }).fact!.id;
    const tea = store.remember({
      kind: 'preference',
      key: 'tea',
      value: 'oolong with honey',
      source: 'owner_stated',
    }).fact!.id;
    // Controls: the same words with a space or a hyphen are found.
    expect(await recalledFactIds(store, 're: dentist')).toEqual([dentist]);
    expect(await recalledFactIds(store, 're-dentist')).toEqual([dentist]);
    expect(await recalledFactIds(store, 'tea: oolong')).toEqual([tea]);
    expect(await recalledFactIds(store, 're:dentist')).toEqual([dentist]);
    expect(await recalledFactIds(store, 'tea:oolong')).toEqual([tea]);
  });

  it('a possessive ("dentist\'s", "dentist’s") still finds the matching fact', async () => {
    const { store } = openTempStore();
    const dentist = store.remember({
      kind: 'profile',
      key: 'dentist',
      value: 'Dr. Ortiz on Elm Street',
      source: 'owner_stated',
    }).fact!.id;
    expect(await recalledFactIds(store, 'dentist')).toEqual([dentist]); // control
    expect(await recalledFactIds(store, "dentist's")).toEqual([dentist]);
    expect(await recalledFactIds(store, 'dentist’s')).toEqual([dentist]);
  });

  it('emoji-only and punctuation-only queries return results: [] and no error', async () => {
    const { store } = seeded();
    turn(store, 'sushi 🍣 and green tea 🍵!!!');
    for (const query of [
      '🍣🍵👍🏽',
      '🇵🇹',
      '?!...;',
      '*',
      '^',
      '"',
      '""',
      '()',
      ':',
      '-',
      '   ',
      '',
    ]) {
      const res = await store.recall(query);
      expect(res.results, JSON.stringify(query)).toEqual([]);
      expect(res.terms, JSON.stringify(query)).toEqual([]);
    }
    // Control: the same store recalls a word query.
    expect((await store.recall('sushi')).results).toHaveLength(1);
  });

  it('CJK: "我喜欢喝绿茶" is found by "绿茶"', async () => {
    const { store } = openTempStore();
    const tea = store.remember({
      kind: 'preference',
      key: 'tea',
      value: '我喜欢喝绿茶',
      source: 'owner_stated',
    }).fact!;
    const coffee = store.remember({
      kind: 'preference',
      key: 'coffee',
      value: '我喜欢喝咖啡',
      source: 'owner_stated',
    }).fact!;
    const ep = turn(store, '今天我喝了绿茶');
    expect(await recalledFactIds(store, '绿茶')).toEqual([tea.id]);
    expect(await recalledFactIds(store, '咖啡')).toEqual([coffee.id]);
    expect(episodeResults(await store.recall('绿茶')).map((r) => r.id)).toEqual([ep]);
    // A phrase, not a bag of characters: 红茶 (black tea) shares 茶 but is not 绿茶.
    expect(await recalledFactIds(store, '红茶')).toEqual([]);
  });

  it('NFC "café" and NFD "cafe\\u0301" find each other both ways', async () => {
    const { store } = openTempStore();
    const nfc = 'caf\u00e9';
    const nfd = 'cafe\u0301';
    const a = store.remember({
      kind: 'note',
      key: 'nfc',
      value: `${nfc} au lait`,
      source: 'owner_stated',
    }).fact!;
    const b = store.remember({
      kind: 'note',
      key: 'nfd',
      value: `${nfd} noir`,
      source: 'owner_stated',
    }).fact!;
    expect(await recalledFactIds(store, nfd)).toContain(a.id);
    expect(await recalledFactIds(store, nfc)).toContain(b.id);
    expect((await recalledFactIds(store, `${nfd} lait`))[0]).toBe(a.id);
    expect((await recalledFactIds(store, `${nfc} noir`))[0]).toBe(b.id);
    const e1 = turn(store, `meet at the ${nfd} tomorrow`);
    expect(episodeResults(await store.recall(nfc)).map((r) => r.id)).toEqual([e1]);
  });

  it('text with a NUL byte is stored and findable; a NUL in a query does not throw', async () => {
    const { store } = openTempStore();
    const text = 'before\u0000after zebrafish tank';
    const ep = turn(store, text);
    expect(store.episode(ep)!.text).toBe(text);
    expect(episodeResults(await store.recall('zebrafish')).map((r) => r.id)).toEqual([ep]);
    expect(episodeResults(await store.recall('after')).map((r) => r.id)).toEqual([ep]);
    const f = store.remember({
      kind: 'note',
      key: 'pet',
      value: 'a pet quokka\u0000',
      source: 'owner_stated',
    }).fact!;
    expect(f.value).toBe('a pet quokka');
    expect(await recalledFactIds(store, 'quok\u0000ka quokka')).toEqual([f.id]);
  });

  it('a 1 MB episode is stored whole and findable', async () => {
    const { store } = openTempStore();
    const filler = 'lorem ipsum dolor sit amet consectetur ';
    const half = filler.repeat(Math.ceil((512 * 1024) / filler.length));
    const text = `${half} the xylophonist arrived ${half}`;
    expect(text.length).toBeGreaterThan(1024 * 1024);
    const ep = turn(store, text);
    const small = turn(store, 'a xylophonist played at the wedding');
    expect(store.episode(ep)!.text).toBe(text);
    const res = episodeResults(await store.recall('xylophonist'));
    expect(new Set(res.map((r) => r.id))).toEqual(new Set([ep, small]));
  });

  it('an episode over the limit is refused with TOO_LARGE and nothing is written', async () => {
    const { store } = openTempStore();
    const before = tableCounts(store);
    expectKeelError(() => turn(store, 'x'.repeat(2_000_001)), 'TOO_LARGE');
    expect(tableCounts(store)).toEqual(before);
  });
});
