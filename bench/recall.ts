/**
 * Lexical recall latency at 10k and 100k rows (90% conversation episodes imported from the
 * synthetic corpus, 10% facts written one by one through `store.remember`), over 300 queries of
 * 2-6 words drawn from the corpus vocabulary: common words, natural questions with stopwords, and
 * queries with a rare word. Measured with the default options (the store counts the facts recall
 * returns as used, in memory: part of the real cost) and again with `touch: false`.
 *
 * Run alone: `node --import tsx bench/recall.ts [--quick]`.
 *
 * @module
 */

import { createHash } from 'node:crypto';
import { queryTerms } from '@keel/language';
import {
  KINDS,
  type MemoryStore,
  parseImport,
  type RecallOptions,
  type Source,
} from '@keel/memory';
import { dbOf, ftsMatch } from '@keel/memory/internal';
import {
  type BenchOptions,
  type CorpusModel,
  databaseBytes,
  heading,
  int,
  isMain,
  type LatencySummary,
  latencyLine,
  makeCorpusModel,
  makeLocomoCorpus,
  ms,
  openStore,
  parseBenchArgs,
  percentile,
  printTable,
  push,
  Rng,
  type SummaryRow,
  summarize,
  time,
  withTempDir,
  Zipf,
} from './lib.js';

/** Target p95 at the largest size, ms. */
const TARGET_P95_MS = 5;
/** Measured queries per pass. */
const QUERIES = 300;
/** Unmeasured queries run first, to warm the statement cache and the page cache. */
const WARMUP = 30;
/** Share of rows that are facts. */
const FACT_SHARE = 0.1;

/** The kind of a benchmark query. */
type QueryKind = 'common words' | 'question + stopwords' | 'with a rare word';

/** A benchmark query and what it is. */
interface Query {
  text: string;
  kind: QueryKind;
}

/**
 * Draws `count` queries of 2-6 words from the corpus vocabulary, a third of each kind: common
 * content words (Zipf-drawn); a natural question with stopwords around 1-3 content words; 2-6
 * words at least one of which is rare (frequency rank beyond 2,500 of 5,000).
 */
export function makeQueries(model: CorpusModel, count: number, seed: number): Query[] {
  const rng = new Rng(seed);
  const content = model.words.slice(model.firstContentRank);
  const contentZipf = new Zipf(content.length);
  const common = () => content[contentZipf.sample(rng)]!;
  const rare = () => model.words[rng.int(2500, model.words.length - 1)]!;
  const openers = [
    'what did',
    'when did',
    'how does',
    'where is the',
    'who was it that said',
    'do you remember the',
    'why did they',
    'what about the',
  ];
  const queries: Query[] = [];
  for (let i = 0; i < count; i++) {
    const kind: QueryKind = (['common words', 'question + stopwords', 'with a rare word'] as const)[
      i % 3
    ]!;
    let words: string[];
    if (kind === 'common words') {
      words = Array.from({ length: rng.int(2, 6) }, common);
    } else if (kind === 'question + stopwords') {
      const opener = rng.pick(openers).split(' ');
      const n = Math.max(1, Math.min(3, rng.int(2, 6) - opener.length));
      words = [...opener, ...Array.from({ length: n }, common)].slice(0, 6);
      if (words.length < 2) words.push(common());
    } else {
      const n = rng.int(2, 6);
      words = Array.from({ length: n }, common);
      words[rng.int(0, n - 1)] = rare();
    }
    const text = words.join(' ') + (kind === 'question + stopwords' ? '?' : '');
    queries.push({ text: rng.chance(0.2) ? text[0]!.toUpperCase() + text.slice(1) : text, kind });
  }
  return queries;
}

/** Builds a store of `rows` rows in `dir`: episodes by import, then facts by `remember`. */
export function buildStore(dir: string, model: CorpusModel, rows: number): MemoryStore {
  const episodes = Math.round(rows * (1 - FACT_SHARE));
  const facts = rows - episodes;
  const store = openStore(dir, `recall-${rows}.db`);
  const json = JSON.stringify(makeLocomoCorpus(model, episodes, 31));
  const parsed = parseImport(JSON.parse(json), 'locomo');
  const imported = time(() =>
    store.importTurns(parsed, {
      path: 'synthetic',
      fileSha256: createHash('sha256').update(json).digest('hex'),
    }),
  );

  const rng = new Rng(41);
  const content = model.words.slice(model.firstContentRank);
  const contentZipf = new Zipf(content.length);
  const word = () => content[contentZipf.sample(rng)]!;
  const phrase = (lo: number, hi: number) =>
    Array.from({ length: rng.int(lo, hi) }, () => model.words[model.zipf.sample(rng)]!).join(' ');
  const sources: Source[] = ['observed', 'observed', 'observed', 'owner_stated', 'inferred'];
  const decisions = new Map<string, number>();
  const written = time(() => {
    for (let i = 0; i < facts; i++) {
      const source = rng.pick(sources);
      const r = store.remember({
        kind: rng.pick(KINDS),
        key: rng.chance(0.5) ? word() : `${word()}_${word()}`,
        value: phrase(3, 15),
        source,
        // Observed and inferred facts cite the conversation turn they came from.
        ...(source === 'owner_stated' ? {} : { episodeId: rng.int(1, episodes) }),
      });
      decisions.set(r.decision, (decisions.get(r.decision) ?? 0) + 1);
    }
  });
  const stats = store.stats();
  const { bytes } = databaseBytes(store);
  console.log(
    `\n${int(rows)} rows: ${int(episodes)} episodes imported in ${ms(imported.ms)}; ` +
      `${int(facts)} remember() calls in ${ms(written.ms)} (${ms(written.ms / facts)}/call; ` +
      `${[...decisions].map(([d, n]) => `${d} ${int(n)}`).join(', ')}); ` +
      `now ${int(stats.active)} active facts, ${int(stats.facts)} fact rows, ${int(stats.episodes)} episodes, ${int(bytes)} bytes`,
  );
  return store;
}

/**
 * Times `store.recall` over the queries under each set of options. Each query runs under every
 * option set before the next query, in a rotating order, so load that comes and goes during the
 * run falls on all option sets alike.
 *
 * @returns per-option-set latencies (ms), in query order.
 */
function passes(
  store: MemoryStore,
  queries: readonly Query[],
  variants: readonly (RecallOptions | undefined)[],
): number[][] {
  const out = variants.map(() => [] as number[]);
  queries.forEach((q, i) => {
    for (let j = 0; j < variants.length; j++) {
      const v = (i + j) % variants.length;
      const t0 = performance.now();
      store.recall(q.text, variants[v]);
      out[v]!.push(performance.now() - t0);
    }
  });
  return out;
}

/** Rows of the FTS index of episodes matched by a query (what BM25 has to score). */
function episodeCandidates(store: MemoryStore, query: string): number {
  const match = ftsMatch(queryTerms(query));
  if (!match) return 0;
  const row = dbOf(store)
    .prepare('SELECT count(*) AS n FROM episodes_fts WHERE episodes_fts MATCH ?')
    .get(match) as { n: number };
  return row.n;
}

/** Measures one store size; prints its figures and returns the default pass's summary. */
function measureSize(
  dir: string,
  model: CorpusModel,
  rows: number,
  queries: readonly Query[],
  warmup: readonly Query[],
): { def: LatencySummary; noTouch: LatencySummary } {
  const store = buildStore(dir, model, rows);
  try {
    const variants = [
      undefined,
      { touch: false },
      { type: 'episode', touch: false },
      { type: 'fact', touch: false },
    ] as const;
    passes(store, warmup, variants);
    const [def, noTouch, episodesOnly, factsOnly] = passes(store, queries, variants) as [
      number[],
      number[],
      number[],
      number[],
    ];
    const d = summarize(def);
    const n = summarize(noTouch);
    console.log(`  default (limit 10, touch)   ${latencyLine(d)}`);
    console.log(`  touch: false                ${latencyLine(n)}`);
    console.log(`  episodes only, no touch     ${latencyLine(summarize(episodesOnly))}`);
    console.log(`  facts only, no touch        ${latencyLine(summarize(factsOnly))}`);

    const candidates = queries.map((q) => episodeCandidates(store, q.text));
    const byKind = new Map<QueryKind, number[]>();
    const candByKind = new Map<QueryKind, number[]>();
    queries.forEach((q, i) => {
      push(byKind, q.kind, def[i]!);
      push(candByKind, q.kind, candidates[i]!);
    });
    console.log('  by query kind (default options):');
    printTable(
      ['    kind', 'n', 'p50', 'p95', 'matching episodes p50', 'p95'],
      [...byKind].map(([kind, xs]) => {
        const s = summarize(xs);
        const c = candByKind.get(kind)!;
        return [
          `    ${kind}`,
          int(s.n),
          ms(s.p50),
          ms(s.p95),
          int(percentile(c, 50)),
          int(percentile(c, 95)),
        ];
      }),
    );
    const slowest = queries
      .map((q, i) => ({ q, t: def[i]!, c: candidates[i]! }))
      .sort((a, b) => b.t - a.t)
      .slice(0, 5);
    console.log('  slowest queries (default options):');
    for (const s of slowest) {
      console.log(
        `    ${ms(s.t).padStart(11)}  ${int(s.c).padStart(7)} matching episodes  "${s.q.text}" → [${queryTerms(s.q.text).join(', ')}]`,
      );
    }
    return { def: d, noTouch: n };
  } finally {
    store.close();
  }
}

/**
 * Runs the recall benchmark (10k and 100k rows; 10k only with `--quick`), each size in a fresh
 * temp folder, and prints its figures.
 *
 * @returns rows for the final summary table.
 */
export async function benchRecall(options: BenchOptions): Promise<SummaryRow[]> {
  heading('recall: lexical latency');
  const sizes = options.quick ? [10_000] : [10_000, 100_000];
  const model = makeCorpusModel();
  const queries = makeQueries(model, QUERIES, 51);
  const warmup = makeQueries(model, WARMUP, 52);
  console.log(
    `${QUERIES} queries of 2-6 words (${QUERIES / 3} of each kind), ${WARMUP} warm-up queries first; ` +
      'each query runs under the four option sets below in rotating order; ' +
      `e.g. "${queries[0]!.text}", "${queries[1]!.text}", "${queries[2]!.text}"`,
  );
  const rows: SummaryRow[] = [];
  for (const size of sizes) {
    const { def, noTouch } = await withTempDir((dir) =>
      measureSize(dir, model, size, queries, warmup),
    );
    const largest = size === sizes[sizes.length - 1];
    const label = `${int(size / 1000)}k rows`;
    rows.push(
      { bench: 'recall', metric: `${label} p50`, value: ms(def.p50), target: '' },
      {
        bench: 'recall',
        metric: `${label} p95`,
        value: ms(def.p95),
        target: largest && !options.quick ? `≤ ${TARGET_P95_MS} ms` : '',
        ...(largest && !options.quick ? { met: def.p95 <= TARGET_P95_MS } : {}),
      },
      { bench: 'recall', metric: `${label} p95, touch: false`, value: ms(noTouch.p95), target: '' },
    );
    if (largest) {
      console.log(
        `\ntarget p95 ≤ ${TARGET_P95_MS} ms at 100k rows: ${
          options.quick
            ? 'not measured (--quick)'
            : def.p95 <= TARGET_P95_MS
              ? 'met'
              : `missed by ${ms(def.p95 - TARGET_P95_MS)}`
        }`,
      );
    }
  }
  return rows;
}

if (isMain(import.meta.url)) await benchRecall(parseBenchArgs());
