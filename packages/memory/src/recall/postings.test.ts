// Recall's full-text indexes mirrored in memory rank as FTS5's bm25() does: the same turns and
// facts, in the same order, with the same scores, before and after rows are added, and they step
// aside (recall asks FTS5) when they cannot answer the same way or the store changed under them.

import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { dbOf } from '../internal.js';
import { MemoryStore } from '../store.js';
import { DAY, openTempStore, T0 } from '../test-helpers.js';
import { ftsMatch, ftsPhrases } from './fts-query.js';
import { CATCH_UP_ROWS, RecallIndex } from './postings.js';

/** Words with a skewed frequency (the first are said often), some stemming together. */
const VOCABULARY = [
  ...['coffee', 'morning', 'work', 'running', 'runs', 'ran', 'run', 'dog', 'park', 'walked'],
  ...['walking', 'sister', 'porto', 'café', 'CAFÉ', 'résumé', 'job', 'banker', 'lost', 'won'],
  ...['win', 'tournament', 'tourney', 'guitar', 'store', 'weekend', 'mortgage', 'approved'],
  ...['garden', 'tomatoes', 'painting', 'sunset', 'lake', 'hiking', 'trail', 'mountain'],
  // Thai, Hebrew and Arabic words, prefixed and bare (the index holds a bare form beside each).
  ...['เชียงใหม่', 'กาแฟ', 'בחיפה', 'חיפה', 'ומים', 'والقهوة', 'قهوة', 'بالقطار'],
];

/** Sentences as they are written: Thai unspaced, Hebrew and Arabic words with prefixes. */
const SENTENCES = [
  'เมื่อวานไปกินข้าวซอยที่เชียงใหม่อร่อยมาก',
  'אני גר בחיפה ועובד בתל אביב',
  'سافرت بالقطار إلى الإسكندرية',
  'ฉันชอบดื่มกาแฟทุกเช้า',
  'שתיתי מים קרים אחרי הריצה',
  'أشرب قهوة كل صباح والقهوة العربية مع الهيل',
];

/** A deterministic pseudo-random generator (mulberry32). */
function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Adds `n` turns: skewed words, repeats, speakers whose names are also said, odd texts. */
function addTurns(store: MemoryStore, n: number, seed: number, start: number): void {
  const r = rng(seed);
  const word = () => VOCABULARY[Math.floor(VOCABULARY.length * r() ** 2)]!;
  const speakers = [null, 'Ada', 'Jon Banker', 'Caroline'];
  for (let i = 0; i < n; i++) {
    // A word of its own in each turn: hundreds of terms, so the build takes several steps.
    const words = [...Array.from({ length: 1 + Math.floor(r() * 14) }, word), `w${seed}x${i}`];
    let text = words.join(r() < 0.3 ? ', ' : ' ');
    if (i % 17 === 0) text = '?!'; // no tokens at all
    if (i % 23 === 0) text = `${text} 咖啡 커피 ${text}`; // CJK, and every word twice
    if (i % 7 === 3) text = `${text} ${SENTENCES[Math.floor(i / 7) % SENTENCES.length]}`;
    store.addEpisode({
      channel: i % 5 === 0 ? 'discord' : 'terminal',
      role: i % 2 === 0 ? 'owner' : 'other',
      speaker: speakers[i % speakers.length]!,
      text,
      occurredAt: start + i * 3_600_000,
      // keel's own command records are not conversation: not indexed, never ranked.
      ...(i % 29 === 0 ? { kind: 'command' as const } : {}),
    });
  }
}

const QUERIES = [
  'coffee',
  'running in the park',
  'Where does my sister live? Porto?',
  'cafe resume',
  'When did Jon lose his job as a banker?',
  'won the tourney tournament',
  'ada',
  'guitar store weekend mortgage approved garden tomatoes painting sunset lake hiking trail',
  'nothingmatcheszzz',
  'เชียงใหม่ กาแฟ',
  'חיפה תל',
  'בחיפה מים',
  'قهوة قطار',
  'والقهوة الإسكندرية',
];

/** FTS5's own ranking: the best `k` turns for `query`'s phrases, as recall would ask it. */
function ftsTop(
  store: MemoryStore,
  query: string,
  k: number,
  window?: { from: number; to: number },
): { id: number; bm: number }[] {
  const match = ftsMatch(query.split(/\s+/));
  if (!match) return [];
  const db = dbOf(store);
  return (
    window
      ? db
          .prepare(
            `SELECT e.id, bm25(episodes_fts) AS bm FROM episodes_fts
             JOIN episodes e ON e.id = episodes_fts.rowid
             WHERE episodes_fts MATCH ? AND e.occurred_at >= ? AND e.occurred_at < ?
             ORDER BY bm, e.id LIMIT ?`,
          )
          .all(`{text} : (${match})`, window.from, window.to, k)
      : db
          .prepare(
            `SELECT rowid AS id, bm25(episodes_fts) AS bm FROM episodes_fts
             WHERE episodes_fts MATCH ? ORDER BY bm, rowid LIMIT ?`,
          )
          .all(`{text} : (${match})`, k)
  ) as { id: number; bm: number }[];
}

/** Asserts the index's hits are FTS5's: the same ids in the same order, the same scores. */
function expectSameAsFts(
  store: MemoryStore,
  index: RecallIndex,
  query: string,
  k: number,
  window?: { from: number; to: number },
): number {
  const want = ftsTop(store, query, k, window);
  const got = index.searchEpisodes(ftsPhrases(query.split(/\s+/)), k, window ?? {});
  expect(got, query).not.toBeNull();
  expect(
    got!.map((h) => h.id),
    query,
  ).toEqual(want.map((h) => h.id));
  for (const [i, h] of got!.entries()) expect(h.bm / want[i]!.bm, query).toBeCloseTo(1, 12);
  return want.length;
}

describe('the full-text indexes mirrored in memory', () => {
  it('ranks every query as FTS5 bm25() does, windows too, and keeps doing so as turns are added', () => {
    const { store } = openTempStore();
    addTurns(store, 600, 7, T0 - 60 * DAY);
    const index = new RecallIndex(dbOf(store));
    let steps = 0;
    while (!index.step(0)) steps++;
    // One statement per step: the build really was done in slices.
    expect(steps).toBeGreaterThan(1);
    let matched = 0;
    for (const q of QUERIES) matched += expectSameAsFts(store, index, q, 30);
    const window = { from: T0 - 50 * DAY, to: T0 - 45 * DAY };
    for (const q of QUERIES) expectSameAsFts(store, index, q, 10, window);
    // Control: the queries did match turns (a comparison of two empty lists proves nothing).
    expect(matched).toBeGreaterThan(150);
    expect(ftsTop(store, 'nothingmatcheszzz', 30)).toEqual([]);
    // The Thai, Hebrew and Arabic queries matched turns too (each word of them, alone).
    for (const q of ['เชียงใหม่', 'กาแฟ', 'חיפה', 'מים', 'قهوة', 'قطار']) {
      expect(ftsTop(store, q, 30).length, q).toBeGreaterThan(3);
      expectSameAsFts(store, index, q, 30);
    }

    // Turns written after the build (here, as by another door) are caught up on the next query.
    addTurns(store, 120, 8, T0);
    const fresh = store.addEpisode({
      channel: 'terminal',
      role: 'owner',
      text: 'my zanzibar trip',
      occurredAt: T0 + 200 * 3_600_000,
    }).id;
    expect(index.searchEpisodes(ftsPhrases(['zanzibar']), 5)?.map((h) => h.id)).toEqual([fresh]);
    expect(index.ready).toBe(true);
    for (const q of QUERIES) expectSameAsFts(store, index, q, 30);
  });

  it('answers nothing it cannot answer as FTS5 would: a phrase of several tokens goes to FTS5', () => {
    const { store } = openTempStore();
    addTurns(store, 50, 3, T0);
    const index = new RecallIndex(dbOf(store));
    expect(index.searchEpisodes(ftsPhrases(['coffee']), 5)).toBeNull(); // not built yet
    index.step(Number.POSITIVE_INFINITY);
    // A Korean word is a phrase of its syllables.
    expect(index.searchEpisodes(ftsPhrases(['커피']), 5)).toBeNull();
    // Control: a one-token phrase is answered, a Chinese word (one token) too.
    expect(index.searchEpisodes(ftsPhrases(['coffee']), 5)!.length).toBeGreaterThan(0);
    expect(index.searchEpisodes(ftsPhrases(['咖啡']), 5)!.length).toBeGreaterThan(0);
  });

  it('counts a word said more than 65,535 times in one turn as FTS5 does', () => {
    const { store } = openTempStore();
    for (let i = 0; i < 20; i++) {
      store.addEpisode({ channel: 'terminal', role: 'owner', text: `coffee or tea ${i}` });
    }
    store.addEpisode({
      channel: 'terminal',
      role: 'owner',
      text: `${'coffee '.repeat(70_000)}tea`,
    });
    const index = new RecallIndex(dbOf(store));
    index.step(Number.POSITIVE_INFINITY);
    const want = ftsTop(store, 'coffee', 3);
    const got = index.searchEpisodes(ftsPhrases(['coffee']), 3)!;
    expect(got.map((h) => h.id)).toEqual(want.map((h) => h.id));
    // Relative: these scores are about 1e-6 (the word is in every row: IDF floored).
    for (const [i, h] of got.entries()) expect(h.bm / want[i]!.bm).toBeCloseTo(1, 12);
  });

  it('answers nothing inside a write transaction, and a turn rolled back never enters it', () => {
    const { store } = openTempStore();
    addTurns(store, 30, 4, T0);
    const db = dbOf(store);
    const index = new RecallIndex(db);
    index.step(Number.POSITIVE_INFINITY);
    let phantom = 0;
    const rolledBack = db.transaction(() => {
      phantom = store.addEpisode({ channel: 'terminal', role: 'owner', text: 'zanzibar' }).id;
      expect(index.searchEpisodes(ftsPhrases(['zanzibar']), 5)).toBeNull();
      expect(index.searchFacts(ftsPhrases(['zanzibar']), 5)).toBeNull();
      expect(index.turnKeys([phantom])).toBeNull();
      throw new Error('rolled back');
    });
    expect(() => rolledBack()).toThrow('rolled back');
    // The id is taken again by the next turn: the mirror must hold that turn's words, not the phantom's.
    const next = store.addEpisode({ channel: 'terminal', role: 'owner', text: 'pelican' }).id;
    expect(next).toBe(phantom);
    expect(index.searchEpisodes(ftsPhrases(['zanzibar']), 5)).toEqual([]);
    expect(index.searchEpisodes(ftsPhrases(['pelican']), 5)?.map((h) => h.id)).toEqual([next]);
  });

  it('is dropped by a redaction and by a large import, and built again', () => {
    const { store } = openTempStore();
    addTurns(store, 40, 5, T0 - 10 * DAY);
    const said = store.addEpisode({
      channel: 'terminal',
      role: 'owner',
      text: 'my locker code word is pelican',
      occurredAt: T0 - DAY,
    }).id;
    const fact = store.remember({
      kind: 'note',
      key: 'locker_word',
      value: 'pelican',
      source: 'owner_stated',
    });
    expect(store.warmRecall()).toBe(true);
    const index = new RecallIndex(dbOf(store));
    index.step(Number.POSITIVE_INFINITY);
    expect(index.searchEpisodes(ftsPhrases(['pelican']), 5)?.map((h) => h.id)).toEqual([said]);

    store.forget(fact.fact!.id, { purge: true });
    // The redacted turn's old words are no longer in FTS5; the index steps aside until rebuilt.
    expect(index.searchEpisodes(ftsPhrases(['pelican']), 5)).toBeNull();
    expect(index.ready).toBe(false);
    index.step(Number.POSITIVE_INFINITY);
    expect(index.searchEpisodes(ftsPhrases(['pelican']), 5)).toEqual([]);
    expectSameAsFts(store, index, 'coffee morning', 10);

    // More turns at once than a read catches up (an import): rebuilt, not read turn by turn.
    addTurns(store, CATCH_UP_ROWS + 100, 9, T0); // 1 in 29 is a command record
    expect(index.searchEpisodes(ftsPhrases(['coffee']), 5)).toBeNull();
    index.step(Number.POSITIVE_INFINITY);
    expectSameAsFts(store, index, 'coffee morning', 10);
  });

  it('leaves recall exactly as it is without it, dates, speakers and neighbours included', async () => {
    const { store, path } = openTempStore();
    addTurns(store, 400, 11, T0 - 30 * DAY);
    store.remember({
      kind: 'preference',
      key: 'coffee',
      value: 'flat white',
      source: 'owner_stated',
    });
    const cold = MemoryStore.open(path, { now: () => T0 });
    // What the mirror answered (null: it stepped aside and FTS5 ranked).
    const answers = { episodes: [] as boolean[], facts: [] as boolean[] };
    const episodes = vi.spyOn(RecallIndex.prototype, 'searchEpisodes');
    const facts = vi.spyOn(RecallIndex.prototype, 'searchFacts');
    onTestFinished(() => {
      vi.restoreAllMocks();
    });
    try {
      expect(store.warmRecall()).toBe(true);
      const questions = [
        ...QUERIES,
        'What did Ada say about coffee last week?',
        'What did I tell you yesterday?',
        'Where did Caroline go hiking two weeks ago?',
        '커피 morning',
      ];
      let results = 0;
      for (const q of questions) {
        episodes.mockClear();
        facts.mockClear();
        const warm = await store.recall(q, { touch: false, limit: 20 });
        answers.episodes.push(...episodes.mock.results.map((r) => r.value !== null));
        answers.facts.push(...facts.mock.results.map((r) => r.value !== null));
        const plain = await cold.recall(q, { touch: false, limit: 20 });
        const view = (r: typeof warm) => r.results.map((x) => [x.ref, x.score.toPrecision(12)]);
        expect(view(warm), q).toEqual(view(plain));
        results += warm.results.length;
      }
      expect(results).toBeGreaterThan(100);
      // The mirror ranked every question but the Korean one (its phrase is several tokens); the
      // cold store never built one, so its answers came from FTS5.
      expect(answers.episodes.filter((a) => !a)).toHaveLength(1);
      expect(answers.episodes.length).toBeGreaterThan(questions.length);
      expect(answers.facts.filter((a) => !a)).toHaveLength(1);
      expect(answers.facts.length).toBeGreaterThan(questions.length - 2);
    } finally {
      cold.close();
    }
  });

  it('ranks facts as FTS5 does over kind/key and value, flags key hits, and is rebuilt after a write', () => {
    const { store } = openTempStore();
    const r = rng(21);
    const word = () => VOCABULARY[Math.floor(VOCABULARY.length * r() ** 2)]!;
    for (let i = 0; i < 300; i++) {
      store.remember({
        kind: i % 3 === 0 ? 'preference' : 'note',
        key: `${word()}_${i}`,
        value: Array.from({ length: 2 + Math.floor(r() * 8) }, word).join(' '),
        source: 'owner_stated',
      });
    }
    const db = dbOf(store);
    const fts = (query: string, k: number) => {
      const match = ftsMatch(query.split(/\s+/))!;
      const hits = db
        .prepare(
          `SELECT rowid AS id, bm25(facts_fts) AS bm FROM facts_fts WHERE facts_fts MATCH ?
           ORDER BY bm, rowid LIMIT ?`,
        )
        .all(match, k) as { id: number; bm: number }[];
      const keyed = db
        .prepare('SELECT rowid AS id FROM facts_fts WHERE facts_fts MATCH ? ORDER BY rowid')
        .all(`{key} : (${match})`) as { id: number }[];
      return { hits, keyed: keyed.map((x) => x.id) };
    };
    const same = (index: RecallIndex, query: string) => {
      const want = fts(query, 40);
      const got = index.searchFacts(ftsPhrases(query.split(/\s+/)), 40);
      expect(got, query).not.toBeNull();
      expect(
        got!.hits.map((h) => h.id),
        query,
      ).toEqual(want.hits.map((h) => h.id));
      for (const [i, h] of got!.hits.entries())
        expect(h.bm / want.hits[i]!.bm, query).toBeCloseTo(1, 12);
      expect(
        [...got!.keyed].sort((a, b) => a - b),
        query,
      ).toEqual(want.keyed);
      return want.hits.length + want.keyed.length;
    };
    const index = new RecallIndex(dbOf(store));
    index.step(Number.POSITIVE_INFINITY);
    let found = 0;
    for (const q of [...QUERIES, 'preference coffee', 'note']) found += same(index, q);
    expect(found).toBeGreaterThan(200);

    // A write to facts_fts (a correction supersedes a fact): the mirror steps aside until rebuilt.
    store.remember({
      kind: 'note',
      key: 'coffee_0',
      value: 'espresso tonic',
      source: 'owner_stated',
    });
    expect(index.searchFacts(ftsPhrases(['espresso']), 5)).toBeNull();
    index.step(Number.POSITIVE_INFINITY);
    for (const q of ['espresso', ...QUERIES]) same(index, q);
  });
});
