/**
 * Recall latency on real conversations and real questions, beside the raw FTS5 query on the same
 * rows in the same run.
 *
 * The store: 100k rows (`--quick`: 10k), 90% episodes and 10% facts. The episodes are the real
 * turns of the shared data (`../shared/data`: every distinct LongMemEval-S haystack session of
 * `longmemeval-dev/` and `longmemeval/`, about 52,900 turns, and LoCoMo's conv-26), imported with
 * `store.importTurns`: by default cut to chat size ({@link chatSized}: an owner's messages are a
 * sentence or two, LongMemEval's assistant answers average 1,700 characters), or as they are with
 * `--turns whole`; past the end of the data they are imported again as other sessions a year later
 * (the same words said twice: posting lists grow as an owner's do). The facts are written one by
 * one through `store.remember`: sentences of the owner's turns under keys made of their words, from
 * a mix of sources.
 *
 * The queries: every question of the same data (LongMemEval's and LoCoMo's, about 311), each
 * asked under three arms in rotating order, so passing load falls on all alike:
 *
 * - **lexical**: `store.recall(question)` with the default options, on a second connection to the
 *   file with no embedder bound (what a door without an embedder runs);
 * - **hybrid**: `store.recall(question)` on a connection with a 384-d embedder bound and every row
 *   embedded. The vectors are a dense random projection of the bag of words (no real
 *   sentence-embedding weights are on these machines: it exercises the index like MiniLM output
 *   would and says nothing about quality), and each question's vector is computed before timing, so
 *   the figures exclude the query's embedding;
 * - **lexical, FTS5 only**: as lexical, on a connection that never built the episodes' in-memory
 *   index (`MemoryStore.warmRecall`), as a one-shot command runs; the lexical and hybrid arms
 *   built it first, as a long-running door does while idle (the build time is printed);
 * - **raw FTS5**: the query a plain FTS5 search runs over the same indexes for the same words:
 *   `SELECT rowid, bm25(…) … WHERE … MATCH ? ORDER BY bm25 LIMIT 10` over facts and over episodes,
 *   with the match expression recall builds for the question (its terms and their irregular forms,
 *   OR-ed), built before timing.
 *
 * Printed: p50, p95, p99 of each arm and each arm's ratio to raw FTS5 (at p50 and p95), the first
 * recall in a fresh process (Node started, `@keel/memory` loaded: a one-shot `keel recall`), with
 * and without a date in the question, and the slowest questions. Written to
 * `bench/results/recall-latency-<date>[-<label>].md`. Targets at 100k rows: lexical p95 ≤ 5 ms,
 * hybrid p95 ≤ 8 ms, each at most 2× the raw query.
 *
 * With `--against <folder>` (a checkout of another commit with `packages/memory` built, given as
 * that package's folder), that build's lexical and hybrid recall run as two more arms on the same
 * file, in the same rotation: a before/after comparison under one load.
 *
 * Run alone: `node --import tsx bench/recall-latency.ts [--quick] [--label <name>]
 * [--turns chat|whole] [--against <packages/memory of another build>]`.
 *
 * @module
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { recallTerms, searchedForms } from '@keel/language';
import {
  type ImportedTurn,
  KINDS,
  MemoryStore,
  type ParsedImport,
  parseImport,
  type Source,
} from '@keel/memory';
import { dbOf, ftsMatch } from '@keel/memory/internal';
import { ProjectionEmbedder } from './hybrid.js';
import {
  type BenchOptions,
  databaseBytes,
  heading,
  int,
  isMain,
  type LatencySummary,
  latencyLine,
  ms,
  printTable,
  REPO_ROOT,
  Rng,
  type SummaryRow,
  summarize,
  time,
  withTempDir,
} from './lib.js';
import { writeResults } from './results.js';

/** The shared data folder (its README describes the files). */
export const SHARED_DATA = resolve(REPO_ROOT, '../shared/data');
/** Target lexical recall p95 at 100k rows, ms. */
export const TARGET_LEXICAL_P95_MS = 5;
/** Target hybrid recall p95 at 100k rows (query embedding excluded), ms. */
export const TARGET_HYBRID_P95_MS = 8;
/** The ratio to the raw FTS5 query aimed at. */
export const TARGET_RATIO = 2;
/** Share of rows that are facts. */
const FACT_SHARE = 0.1;
/** Unmeasured questions asked first under every arm (statement and page caches). */
const WARMUP = 30;
/** Passes over the questions (each question under each arm once per pass). */
const PASSES = 2;
const YEAR_MS = 365 * 86_400_000;

/**
 * The shared data's turns (deduplicated LongMemEval sessions, then LoCoMo) and questions.
 *
 * @param root - the shared data folder (default {@link SHARED_DATA}).
 */
export function sharedData(root: string = SHARED_DATA): {
  turns: ImportedTurn[];
  questions: string[];
} {
  const lme: unknown[] = [];
  for (const dir of ['longmemeval-dev', 'longmemeval']) {
    const folder = join(root, dir);
    for (const f of readdirSync(folder).sort()) {
      if (f.endsWith('.json')) lme.push(JSON.parse(readFileSync(join(folder, f), 'utf8')));
    }
  }
  const locomo = JSON.parse(readFileSync(join(root, 'locomo', 'conv-26.json'), 'utf8')) as {
    qa: { question: string }[];
  }[];
  const turns = [...parseImport(lme, 'longmemeval').turns, ...parseImport(locomo, 'locomo').turns];
  const questions = [
    ...lme.map((q) => (q as { question: string }).question),
    ...locomo.flatMap((s) => s.qa.map((q) => q.question)),
  ];
  return { turns, questions };
}

/** The longest piece of a chat-sized turn, in characters (about a LoCoMo turn's length twice). */
const CHAT_PIECE_CHARS = 280;
/** Pieces kept of each turn when turns are chat-sized. */
const CHAT_PIECES_PER_TURN = 2;

/**
 * The turns cut to chat size: each turn's sentences packed into pieces of at most
 * {@link CHAT_PIECE_CHARS} characters (a longer sentence is a piece of its own, cut there), of
 * which the first {@link CHAT_PIECES_PER_TURN} are kept, each a turn of its own in the same
 * session. An owner's messages are this short; LongMemEval's assistant answers (1,700 characters
 * on average) are represented by their opening.
 */
export function chatSized(turns: readonly ImportedTurn[]): ImportedTurn[] {
  const out: ImportedTurn[] = [];
  for (const t of turns) {
    const pieces: string[] = [];
    let piece = '';
    for (const sentence of t.text.split(/(?<=[.!?])\s+/)) {
      if (piece && piece.length + 1 + sentence.length > CHAT_PIECE_CHARS) {
        pieces.push(piece);
        if (pieces.length === CHAT_PIECES_PER_TURN) break;
        piece = '';
      }
      piece = (piece ? `${piece} ${sentence}` : sentence).slice(0, CHAT_PIECE_CHARS);
    }
    if (piece && pieces.length < CHAT_PIECES_PER_TURN) pieces.push(piece);
    for (const [k, text] of pieces.entries()) {
      out.push(k === 0 ? { ...t, text } : { ...t, text, sourceId: `${t.sourceId}.${k}` });
    }
  }
  return out;
}

/** `n` turns: the data's turns, then copies of them as other sessions, a year later each time. */
function turnsFor(data: readonly ImportedTurn[], n: number): ImportedTurn[] {
  const out: ImportedTurn[] = [];
  for (let copy = 0; out.length < n; copy++) {
    for (const t of data) {
      if (out.length >= n) break;
      out.push(
        copy === 0
          ? t
          : {
              ...t,
              sourceDoc: `${t.sourceDoc}~${copy}`,
              sessionKey: `${t.sessionKey}~${copy}`,
              occurredAt: t.occurredAt + copy * YEAR_MS,
            },
      );
    }
  }
  return out;
}

/** Sentences of the owner's turns, 20-160 characters, as fact values. */
function factSentences(turns: readonly ImportedTurn[]): string[] {
  const out: string[] = [];
  for (const t of turns) {
    if (t.role !== 'owner' && t.role !== 'other') continue;
    for (const s of t.text.split(/(?<=[.!?])\s+/)) {
      const v = s.trim();
      if (v.length >= 20 && v.length <= 160) out.push(v);
    }
  }
  return out;
}

/**
 * Builds the store at `path`: `rows` × 90% episodes by import, then the facts by `remember`.
 *
 * @returns the figures of the build, for the printout.
 */
export function buildRealStore(path: string, turns: readonly ImportedTurn[], rows: number): string {
  const episodes = Math.round(rows * (1 - FACT_SHARE));
  const facts = rows - episodes;
  const store = MemoryStore.open(path);
  try {
    const picked = turnsFor(turns, episodes);
    const parsed: ParsedImport = {
      format: 'longmemeval',
      docs: [...new Set(picked.map((t) => t.sourceDoc))],
      turns: picked,
      skipped: [],
    };
    const imported = time(() =>
      store.importTurns(parsed, { path: 'shared-data', fileSha256: 'bench' }),
    );
    const rng = new Rng(61);
    const sentences = factSentences(turns);
    const sources: Source[] = ['observed', 'observed', 'observed', 'owner_stated', 'inferred'];
    const decisions = new Map<string, number>();
    const written = time(() => {
      for (let i = 0; i < facts; i++) {
        const value = sentences[rng.int(0, sentences.length - 1)]!;
        const words = recallTerms(value).filter((w) => /^\p{L}{3,}$/u.test(w));
        const key = words.slice(0, rng.int(1, 2)).join('_') || `note_${i}`;
        const source = rng.pick(sources);
        const r = store.remember({
          kind: rng.pick(KINDS),
          key,
          value,
          source,
          ...(source === 'owner_stated' ? {} : { episodeId: rng.int(1, episodes) }),
        });
        decisions.set(r.decision, (decisions.get(r.decision) ?? 0) + 1);
      }
    });
    const stats = store.stats();
    const { bytes } = databaseBytes(store);
    return (
      `${int(rows)} rows: ${int(episodes)} episodes imported in ${ms(imported.ms)} ` +
      `(${int(episodes / (imported.ms / 1000))} turns/s); ${int(facts)} remember() calls in ` +
      `${ms(written.ms)} (${[...decisions].map(([d, n]) => `${d} ${int(n)}`).join(', ')}); ` +
      `${int(stats.active)} active facts, ${int(stats.episodes)} episodes, ${int(bytes)} bytes`
    );
  } finally {
    store.close();
  }
}

/** The match expression recall builds for a question (its terms and their irregular forms). */
function matchOf(question: string): string | null {
  const terms = recallTerms(question);
  return ftsMatch(searchedForms(terms));
}

/**
 * The first recall in a fresh Node process on the store at `path`: loading `@keel/memory`, opening
 * the store, and one recall each of a question without and with a date (ms each, median of 3
 * processes).
 */
function freshProcess(path: string): { load: number; open: number; plain: number; dated: number } {
  const script = `
    const t0 = performance.now();
    const { MemoryStore } = await import('@keel/memory');
    const t1 = performance.now();
    const store = MemoryStore.open(${JSON.stringify(path)});
    const t2 = performance.now();
    await store.recall('What degree did I graduate with?');
    const t3 = performance.now();
    await store.recall('Where did Joanna travel to in July 2022?');
    const t4 = performance.now();
    store.close();
    console.log(JSON.stringify({ load: t1 - t0, open: t2 - t1, plain: t3 - t2, dated: t4 - t3 }));`;
  const runs = [0, 1, 2].map(
    () =>
      JSON.parse(
        execFileSync(process.execPath, ['--input-type=module', '-e', script], {
          cwd: join(REPO_ROOT, 'bench'),
          encoding: 'utf8',
        }),
      ) as { load: number; open: number; plain: number; dated: number },
  );
  const med = (k: 'load' | 'open' | 'plain' | 'dated') =>
    runs.map((r) => r[k]).sort((a, b) => a - b)[1]!;
  return { load: med('load'), open: med('open'), plain: med('plain'), dated: med('dated') };
}

/** Options of {@link benchRecallLatency}. */
export interface RecallLatencyOptions extends Pick<BenchOptions, 'quick' | 'label'> {
  /** `chat` (default): turns cut to chat size ({@link chatSized}); `whole`: the turns as they are. */
  turns: 'chat' | 'whole';
  /**
   * A folder holding another build of `@keel/memory` (its `dist/`), e.g. of an earlier commit:
   * its lexical and hybrid recall run as two more arms on the same file, in the same rotation.
   */
  against?: string;
}

/** Parses `--quick`, `--label <name>` and `--turns chat|whole`. */
function parseOptions(argv = process.argv.slice(2)): RecallLatencyOptions {
  const { values } = parseArgs({
    args: argv,
    options: {
      quick: { type: 'boolean', default: false },
      label: { type: 'string' },
      turns: { type: 'string', default: 'chat' },
      against: { type: 'string' },
    },
    strict: true,
  });
  if (values.turns !== 'chat' && values.turns !== 'whole') {
    throw new Error(`--turns must be chat or whole (got "${values.turns}")`);
  }
  return {
    quick: values.quick,
    label: values.label,
    turns: values.turns,
    ...(values.against ? { against: resolve(values.against) } : {}),
  };
}

/** Runs the benchmark and prints its figures. */
export async function benchRecallLatency(options: RecallLatencyOptions): Promise<SummaryRow[]> {
  heading(
    `recall latency: real conversations and questions (${options.turns} turns), beside raw FTS5`,
  );
  const rows = options.quick ? 10_000 : 100_000;
  const data = sharedData();
  const turns = options.turns === 'chat' ? chatSized(data.turns) : data.turns;
  const { questions } = data;
  console.log(
    `shared data: ${int(data.turns.length)} distinct turns` +
      (options.turns === 'chat' ? `, ${int(turns.length)} chat-sized pieces` : '') +
      `; ${int(questions.length)} questions; ` +
      `${WARMUP} warm-up questions, then ${PASSES} passes of every question under each arm`,
  );
  return withTempDir(async (dir) => {
    const path = join(dir, 'keel.db');
    console.log(buildRealStore(path, turns, rows));
    const fresh = freshProcess(path);

    // Another build of the store (`--against`): its recall runs on the same file, in the same
    // rotation, so both meet the same load.
    const Other = options.against
      ? (
          (await import(pathToFileURL(join(options.against, 'dist', 'index.js')).href)) as {
            MemoryStore: typeof MemoryStore;
          }
        ).MemoryStore
      : null;
    const stores: MemoryStore[] = [];
    const open = (Store: typeof MemoryStore) => {
      const store = Store.open(path);
      stores.push(store);
      return store;
    };
    try {
      const embedder = new ProjectionEmbedder();
      const lexical = open(MemoryStore);
      const hybrid = open(MemoryStore);
      const unwarmed = open(MemoryStore);
      await hybrid.useEmbedder(embedder);
      const r = await hybrid.embedPending();
      console.log(`${int(r.embedded)} rows embedded (stand-in vectors, 384-d)`);
      // What a long-running door does while idle: the full-text indexes mirrored in memory, in 20 ms steps.
      let steps = 0;
      const warm = time(() => {
        while (!lexical.warmRecall(20)) steps++;
      });
      hybrid.warmRecall();
      const warmLine = `full-text indexes mirrored in memory, built in ${ms(warm.ms)} (${steps + 1} steps of about 20 ms)`;
      console.log(warmLine);
      for (const q of questions) {
        const [v] = await embedder.embed([q], 'document');
        embedder.cached.set(q, v!);
      }
      const db = dbOf(lexical);
      const rawFacts = db.prepare(
        'SELECT rowid, bm25(facts_fts) AS s FROM facts_fts WHERE facts_fts MATCH ? ORDER BY s LIMIT 10',
      );
      const rawEpisodes = db.prepare(
        'SELECT rowid, bm25(episodes_fts) AS s FROM episodes_fts WHERE episodes_fts MATCH ? ORDER BY s LIMIT 10',
      );
      const matches = questions.map(matchOf);
      const recallArm = (store: MemoryStore, mode: 'lexical' | 'hybrid') => async (q: number) => {
        const res = await store.recall(questions[q]!);
        if (res.mode !== mode) throw new Error(`ran ${res.mode}: ${res.reason}`);
      };
      const arms: { name: string; target: string; run: (q: number) => Promise<void> }[] = [
        {
          name: 'lexical recall',
          target: `≤ ${TARGET_LEXICAL_P95_MS} ms, ≤ ${TARGET_RATIO}×`,
          run: recallArm(lexical, 'lexical'),
        },
        {
          name: 'hybrid recall',
          target: `≤ ${TARGET_HYBRID_P95_MS} ms, ≤ ${TARGET_RATIO}×`,
          run: recallArm(hybrid, 'hybrid'),
        },
        {
          name: 'raw FTS5 query',
          target: '',
          run: async (q: number) => {
            const m = matches[q];
            if (!m) return;
            rawFacts.all(m);
            rawEpisodes.all(`{text} : (${m})`);
          },
        },
        {
          name: 'lexical recall, FTS5 only',
          target: '',
          run: recallArm(unwarmed, 'lexical'),
        },
      ];
      if (Other) {
        const otherHybrid = open(Other);
        await otherHybrid.useEmbedder(embedder);
        arms.push(
          { name: 'lexical recall (against)', target: '', run: recallArm(open(Other), 'lexical') },
          { name: 'hybrid recall (against)', target: '', run: recallArm(otherHybrid, 'hybrid') },
        );
      }
      const RAW = 2;
      const samples = arms.map(() => [] as number[]);
      const perQuestion = questions.map(() => arms.map(() => 0));
      const order = [...questions.keys()];
      for (const q of order.slice(0, WARMUP)) for (const arm of arms) await arm.run(q);
      // The first hybrid searches of a process are exact; the warm-up loaded the in-memory codes.
      let i = 0;
      for (let pass = 0; pass < PASSES; pass++) {
        for (const q of order) {
          for (let j = 0; j < arms.length; j++) {
            const a = (i + j) % arms.length;
            const t0 = performance.now();
            await arms[a]!.run(q);
            const t = performance.now() - t0;
            samples[a]!.push(t);
            perQuestion[q]![a]! += t / PASSES;
          }
          i++;
        }
      }
      const summaries = samples.map(summarize);
      const raw = summaries[RAW]!;
      for (const [k, arm] of arms.entries()) {
        console.log(`  ${arm.name.padEnd(26)} ${latencyLine(summaries[k]!)}`);
      }
      const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}×`;
      const header = ['arm', 'p50', 'p95', 'p99', 'p50 / raw', 'p95 / raw', 'target p95'];
      const table = arms.map((arm, k) => {
        const x = summaries[k]!;
        return [
          arm.name,
          ms(x.p50),
          ms(x.p95),
          ms(x.p99),
          ratio(x.p50, raw.p50),
          ratio(x.p95, raw.p95),
          arm.target,
        ];
      });
      console.log('');
      printTable(header, table);
      const freshRows = [
        ['load @keel/memory', ms(fresh.load)],
        ['open the store', ms(fresh.open)],
        ['first recall, no date in the question', ms(fresh.plain)],
        ['second recall, a date in the question', ms(fresh.dated)],
      ];
      console.log('\n  a fresh process (median of 3):');
      printTable(['    step', 'ms'], freshRows);
      const slowest = order
        .map((q) => ({ q, t: perQuestion[q]![0]! }))
        .sort((a, b) => b.t - a.t)
        .slice(0, 5);
      console.log('  slowest questions (lexical):');
      for (const s of slowest) {
        console.log(
          `    ${ms(s.t).padStart(10)}  raw ${ms(perQuestion[s.q]![RAW]!).padStart(10)}  "${questions[s.q]}"`,
        );
      }
      const [lex, hyb] = summaries as [LatencySummary, LatencySummary];
      writeResults(
        `recall-latency-${options.turns}`,
        ['rows', ...header],
        table.map((r) => [int(rows), ...r]),
        [
          `Store: ${int(rows)} rows (90% episodes: the shared data's real turns${options.turns === 'chat' ? `, cut to chat size (${int(turns.length)} pieces of at most ${CHAT_PIECE_CHARS} characters, the first ${CHAT_PIECES_PER_TURN} of each turn)` : ` as they are (${int(turns.length)})`}, repeated as later sessions past the end; 10% facts through remember).`,
          `Queries: the shared data's ${int(questions.length)} questions, ${PASSES} passes, each under every arm in rotating order after ${WARMUP} warm-up questions.`,
          'Hybrid: query vectors precomputed (embedding excluded); stand-in 384-d random-projection vectors, in-memory codes loaded.',
          'Raw FTS5: bm25() top 10 over facts_fts and over episodes_fts, the match expression recall builds for the question.',
          `Lexical and hybrid recall run as a long-running door does, with the full-text indexes mirrored in memory (${warmLine.replace('full-text indexes mirrored in memory, ', '')}); "FTS5 only" is lexical recall on a connection that never built it (a one-shot command).`,
          ...(options.against
            ? [`Against: the build of @keel/memory in ${options.against}, on the same file.`]
            : []),
          `A fresh process (median of 3): load @keel/memory ${ms(fresh.load)}, open ${ms(fresh.open)}, first recall without a date ${ms(fresh.plain)}, then one with a date ${ms(fresh.dated)}.`,
        ],
        options.label,
      );
      const large = !options.quick;
      return [
        {
          bench: 'recall-latency',
          metric: `lexical p95 at ${int(rows)} rows (real questions)`,
          value: `${ms(lex.p95)} (${ratio(lex.p95, raw.p95)} raw)`,
          target: large ? `≤ ${TARGET_LEXICAL_P95_MS} ms` : '',
          ...(large ? { met: lex.p95 <= TARGET_LEXICAL_P95_MS } : {}),
        },
        {
          bench: 'recall-latency',
          metric: `hybrid p95 at ${int(rows)} rows (real questions)`,
          value: `${ms(hyb.p95)} (${ratio(hyb.p95, raw.p95)} raw)`,
          target: large ? `≤ ${TARGET_HYBRID_P95_MS} ms` : '',
          ...(large ? { met: hyb.p95 <= TARGET_HYBRID_P95_MS } : {}),
        },
      ];
    } finally {
      for (const store of stores) store.close();
    }
  });
}

if (isMain(import.meta.url)) await benchRecallLatency(parseOptions());
