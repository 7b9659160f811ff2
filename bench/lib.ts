/**
 * Shared helpers for keel's benchmarks: command-line flags, temp stores, timing and percentiles,
 * a seeded PRNG, and a deterministic synthetic conversation corpus in LoCoMo's JSON shape.
 *
 * Nothing here is a test: benchmarks print figures and never fail on them.
 *
 * @module
 */

import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { MemoryStore } from '@keel/memory';
import { dbOf } from '@keel/memory/internal';

/** The repository root (the folder above `bench/`). */
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** The LoCoMo file used when `--data` is not given, relative to {@link REPO_ROOT}. */
export const DEFAULT_DATA = 'tests/fixtures/data/locomo/conv-26.json';

/** The benchmarks, in the order `bench/run.ts` runs them. */
export const BENCH_NAMES = [
  'remember',
  'import',
  'recall',
  'locomo',
  'longmemeval',
  'hybrid',
  'recall-latency',
  'turn',
  'turn-budget',
  'think-pipeline',
  'integrity',
  'verify',
  'start-time',
  'honesty',
] as const;
/** One benchmark's name. */
export type BenchName = (typeof BENCH_NAMES)[number];

/** Flags shared by `bench/run.ts` and every benchmark run on its own. */
export interface BenchOptions {
  /** Absolute path of the LoCoMo JSON file. */
  data: string;
  /** Smaller sizes (10k instead of 100k). */
  quick: boolean;
  /** Run only this benchmark (run.ts only). */
  only: BenchName | undefined;
  /** Embedder for the hybrid rows of locomo and longmemeval: none (default), auto, minilm, ollama. */
  embedder: string;
  /**
   * The label of a result file that is compared across runs, e.g. `before`: think-pipeline's
   * `think-pipeline-<label>.json`, and the locomo and longmemeval files `<name>-<date>-<label>.*`.
   */
  label: string | undefined;
  /**
   * The clock recall runs with in locomo and longmemeval: `lived` (where the owner would be: just
   * after the conversation's last session; at a LongMemEval question's `question_date`), `frozen`
   * (the run's start, years after the data, so every turn is equally old), or `both` (default;
   * as lived printed first).
   */
  clock: BenchClock;
  /** A previous run's per-question file (`bench/results/*.json`) to pair this run against. */
  compare: string | undefined;
  /**
   * Another build of `@keel/memory` (the folder holding its `dist/`, e.g. `packages/memory` of a
   * checkout of an earlier commit) that import and recall-latency run beside this one, interleaved,
   * so both meet the same load.
   */
  against: string | undefined;
}

/** The clocks of {@link BenchOptions.clock}. */
export type BenchClock = 'lived' | 'frozen' | 'both';

/**
 * Parses `--data <path>`, `--quick`, `--only <name>`, `--embedder <choice>`, `--label <name>`,
 * `--clock lived|frozen|both`, `--compare <file>` and `--against <folder>` with `node:util`
 * `parseArgs`.
 *
 * @param argv - the arguments after the script (default `process.argv.slice(2)`).
 * @returns the options, `data` resolved from the repository root.
 * @throws Error for an unknown flag or an unknown `--only` name.
 */
export function parseBenchArgs(argv: string[] = process.argv.slice(2)): BenchOptions {
  const { values } = parseArgs({
    args: argv,
    options: {
      data: { type: 'string', default: DEFAULT_DATA },
      quick: { type: 'boolean', default: false },
      only: { type: 'string' },
      embedder: { type: 'string', default: 'none' },
      label: { type: 'string' },
      clock: { type: 'string', default: 'both' },
      compare: { type: 'string' },
      against: { type: 'string' },
    },
    strict: true,
    allowPositionals: false,
  });
  const only = values.only;
  if (only !== undefined && !BENCH_NAMES.includes(only as BenchName)) {
    throw new Error(`--only must be one of: ${BENCH_NAMES.join(', ')} (got "${only}")`);
  }
  if (!['lived', 'frozen', 'both'].includes(values.clock)) {
    throw new Error(`--clock must be lived, frozen or both (got "${values.clock}")`);
  }
  return {
    data: resolve(REPO_ROOT, values.data),
    quick: values.quick,
    only: only as BenchName | undefined,
    embedder: values.embedder,
    label: values.label,
    clock: values.clock as BenchClock,
    compare: values.compare === undefined ? undefined : resolve(REPO_ROOT, values.compare),
    against: values.against === undefined ? undefined : resolve(values.against),
  };
}

/** A path relative to the repository root when it lies inside it, else as given. */
export function displayPath(path: string): string {
  const rel = relative(REPO_ROOT, path);
  return rel.startsWith('..') || isAbsolute(rel) ? path : rel;
}

/** True when the module whose `import.meta.url` is given is the script node was started with. */
export function isMain(moduleUrl: string): boolean {
  const entry = process.argv[1];
  return entry !== undefined && pathToFileURL(resolve(entry)).href === moduleUrl;
}

/** One line of the final summary table. */
export interface SummaryRow {
  bench: BenchName;
  metric: string;
  value: string;
  /** The target, in words (e.g. "≤ 1 ms"), or "" when the figure has none. */
  target: string;
  /** Whether the figure meets its target; undefined when it has none. */
  met?: boolean;
}

/**
 * Runs `fn` with a fresh temp folder (under the OS temp dir) and removes the folder afterwards,
 * whatever happens.
 */
export async function withTempDir<T>(fn: (dir: string) => T | Promise<T>): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), 'keel-bench-'));
  try {
    return await fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Opens a new store on a real SQLite file `name` inside `dir`.
 *
 * @param now - the store's clock (ms since epoch); default `Date.now`.
 */
export function openStore(dir: string, name = 'keel.db', now?: () => number): MemoryStore {
  return MemoryStore.open(join(dir, name), now ? { now } : {});
}

/**
 * The store's size on disk after folding the WAL back into the main file.
 *
 * @returns bytes of the main database file (after `wal_checkpoint(TRUNCATE)`) and the WAL size
 *   measured just before the checkpoint.
 */
export function databaseBytes(store: MemoryStore): { bytes: number; walBeforeCheckpoint: number } {
  const size = (p: string) => {
    try {
      return statSync(p).size;
    } catch {
      return 0;
    }
  };
  const walBeforeCheckpoint = size(`${store.path}-wal`);
  dbOf(store).pragma('wal_checkpoint(TRUNCATE)');
  return { bytes: size(store.path), walBeforeCheckpoint };
}

// ---------------------------------------------------------------------------------------------
// Timing.

/** Milliseconds elapsed while running `fn`, and its result. */
export function time<T>(fn: () => T): { ms: number; result: T } {
  const t0 = performance.now();
  const result = fn();
  return { ms: performance.now() - t0, result };
}

/**
 * The `p`-th percentile (0..100) of `samples` by the nearest-rank method.
 *
 * @returns NaN for an empty list.
 */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
  return sorted[rank - 1]!;
}

/** p50, p95, p99, max and mean of latency samples in ms. */
export interface LatencySummary {
  n: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
  mean: number;
}

/** Summarises latency samples (ms). */
export function summarize(samples: readonly number[]): LatencySummary {
  const mean = samples.reduce((a, b) => a + b, 0) / Math.max(1, samples.length);
  return {
    n: samples.length,
    p50: percentile(samples, 50),
    p95: percentile(samples, 95),
    p99: percentile(samples, 99),
    max: samples.length ? Math.max(...samples) : Number.NaN,
    mean,
  };
}

/** Appends `value` to the list kept under `key`. */
export function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/** A duration in ms with three decimals, e.g. "0.412 ms". */
export const ms = (x: number): string => `${x.toFixed(3)} ms`;

/** An integer with thousands separators, e.g. "12,345". */
export const int = (x: number): string => Math.round(x).toLocaleString('en-US');

/** "p50 0.412 ms  p95 0.903 ms  p99 1.201 ms  max 3.100 ms  (n=2,000)". */
export function latencyLine(s: LatencySummary): string {
  return `p50 ${ms(s.p50)}  p95 ${ms(s.p95)}  p99 ${ms(s.p99)}  max ${ms(s.max)}  mean ${ms(s.mean)}  (n=${int(s.n)})`;
}

/** Prints a left-aligned text table with a header row. */
export function printTable(header: readonly string[], rows: readonly (readonly string[])[]): void {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  console.log(line(header));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const r of rows) console.log(line(r));
}

/** Prints a benchmark's heading. */
export function heading(title: string): void {
  console.log(`\n=== ${title} ${'='.repeat(Math.max(3, 90 - title.length))}`);
}

// ---------------------------------------------------------------------------------------------
// Deterministic randomness.

/** A seeded PRNG (mulberry32): the same seed gives the same stream on every machine. */
export class Rng {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** A float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  }

  /** An integer in [lo, hi], both included. */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }

  /** One element of a non-empty list. */
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]!;
  }

  /** True with probability `p`. */
  chance(p: number): boolean {
    return this.next() < p;
  }
}

/** Samples ranks 0..n-1 with probability ∝ 1 / (rank + 1)^s (Zipf). */
export class Zipf {
  private readonly cdf: Float64Array;

  constructor(n: number, s = 1.05) {
    this.cdf = new Float64Array(n);
    let total = 0;
    for (let i = 0; i < n; i++) {
      total += 1 / (i + 1) ** s;
      this.cdf[i] = total;
    }
    for (let i = 0; i < n; i++) this.cdf[i]! /= total;
  }

  /** A rank drawn with `rng`. */
  sample(rng: Rng): number {
    const u = rng.next();
    let lo = 0;
    let hi = this.cdf.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.cdf[mid]! < u) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

// ---------------------------------------------------------------------------------------------
// The synthetic corpus.

/**
 * The head of the vocabulary: English function and chat words, most frequent first, so that a
 * Zipf draw gives text whose commonest tokens are stopwords, as in real conversation.
 */
const HEAD_WORDS = (
  "the i to and a you it of that is in was my so we for me have just it's on but with this be " +
  "they like do not what at are really about all that's had he she her can think know yeah " +
  'go there out if get one when your them time would been some his how up oh from went good ' +
  "don't an me then now were by as much more could also or did got will our going love see " +
  'too very new day which because great make lot things where who those other back into over ' +
  'well still after before here only year want never feel way any take said us even through'
).split(' ');

const ONSETS = ['b', 'd', 'f', 'g', 'k', 'l', 'm', 'n', 'p', 'r', 's', 't', 'v', 'z', 'br', 'tr'];
const NUCLEI = ['a', 'e', 'i', 'o', 'u', 'ai', 'ou'];
const CODAS = ['', '', 'n', 'r', 's', 'l', 'm', 'st', 'nd'];

/** The vocabulary, the speakers and how words are drawn; see {@link makeCorpusModel}. */
export interface CorpusModel {
  /** Words, most frequent first. */
  words: string[];
  /** Rank → word draw. */
  zipf: Zipf;
  /** Speaker names, e.g. "Marel Tosk". */
  speakers: string[];
  /** Index in {@link CorpusModel.words} of the first non-head (content) word. */
  firstContentRank: number;
}

/**
 * Builds a deterministic vocabulary of `size` words (the English head above, then pronounceable
 * made-up words), a Zipf(1.05) draw over it, and `speakerCount` distinct speaker names.
 */
export function makeCorpusModel(seed = 7, size = 5000, speakerCount = 300): CorpusModel {
  const rng = new Rng(seed);
  const seen = new Set<string>(HEAD_WORDS);
  const words = [...new Set(HEAD_WORDS)];
  const firstContentRank = words.length;
  const made = (syllables: number) => {
    let w = '';
    for (let i = 0; i < syllables; i++) w += rng.pick(ONSETS) + rng.pick(NUCLEI);
    return w + rng.pick(CODAS);
  };
  while (words.length < size) {
    const w = made(rng.int(2, 4));
    if (seen.has(w)) continue;
    seen.add(w);
    words.push(w);
  }
  const speakers = new Set<string>();
  const cap = (s: string) => s[0]!.toUpperCase() + s.slice(1);
  while (speakers.size < speakerCount) speakers.add(`${cap(made(2))} ${cap(made(2))}`);
  return { words, zipf: new Zipf(words.length), speakers: [...speakers], firstContentRank };
}

/** One sentence of 8-40 words (shorter ones commoner), capitalised and punctuated. */
export function makeSentence(model: CorpusModel, rng: Rng): string {
  const n = 8 + Math.floor(33 * rng.next() ** 1.8);
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    let w = model.words[model.zipf.sample(rng)]!;
    if (i > 2 && i < n - 2 && rng.chance(0.06)) w += ',';
    out.push(w);
  }
  out[0] = out[0]![0]!.toUpperCase() + out[0]!.slice(1);
  return `${out.join(' ')}${rng.pick(['.', '.', '.', '?', '!'])}`;
}

const MONTH_NAMES = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

/** Formats ms since epoch (UTC) like LoCoMo's session dates: "1:56 pm on 8 May, 2023". */
export function locomoDate(t: number): string {
  const d = new Date(t);
  const h = d.getUTCHours();
  const minutes = String(d.getUTCMinutes()).padStart(2, '0');
  return `${h % 12 || 12}:${minutes} ${h < 12 ? 'am' : 'pm'} on ${d.getUTCDate()} ${
    MONTH_NAMES[d.getUTCMonth()]
  }, ${d.getUTCFullYear()}`;
}

/**
 * Generates a synthetic corpus of exactly `turns` turns as a LoCoMo-shaped JSON array:
 * conversations of 200-600 turns among two or three speakers drawn from the model's speakers,
 * sessions of 8-40 turns dated over two years from 2022-01-01 (UTC). Deterministic for a seed.
 */
export function makeLocomoCorpus(model: CorpusModel, turns: number, seed = 11): unknown[] {
  const rng = new Rng(seed);
  const start = Date.UTC(2022, 0, 1);
  const span = 2 * 365 * 86_400_000;
  const samples: unknown[] = [];
  let left = turns;
  for (let c = 0; left > 0; c++) {
    const size = Math.min(left, rng.int(200, 600));
    left -= size;
    const cast = new Set<string>();
    const castSize = rng.chance(0.3) ? 3 : 2;
    while (cast.size < castSize) cast.add(rng.pick(model.speakers));
    const speakers = [...cast];
    const lengths: number[] = [];
    for (let n = size; n > 0; ) {
      const len = Math.min(n, rng.int(8, 40));
      lengths.push(len);
      n -= len;
    }
    const dates = lengths
      .map(() => start + Math.floor(rng.next() * span))
      .sort((x, y) => x - y)
      .map((t) => Math.floor(t / 60_000) * 60_000);
    const conversation: Record<string, unknown> = {
      speaker_a: speakers[0],
      speaker_b: speakers[1],
    };
    lengths.forEach((len, s) => {
      const n = s + 1;
      conversation[`session_${n}_date_time`] = locomoDate(dates[s]!);
      let speaker = 0;
      conversation[`session_${n}`] = Array.from({ length: len }, (_, i) => {
        // Mostly alternating turns; now and then someone speaks twice in a row.
        if (i > 0 && !rng.chance(0.15))
          speaker = (speaker + 1 + rng.int(0, castSize - 2)) % castSize;
        return {
          speaker: speakers[speaker],
          dia_id: `D${n}:${i + 1}`,
          text: makeSentence(model, rng),
        };
      });
    });
    samples.push({ sample_id: `synth-${c}`, conversation, qa: [] });
  }
  return samples;
}
