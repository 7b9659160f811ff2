/**
 * LongMemEval-S session retrieval: per question, its haystack sessions are imported into a fresh
 * store, the question is the query (`type: 'episode'`, 100 results, no access bumps), recalled
 * turns are mapped to their sessions in rank order, and session-level recall_any@5,
 * recall_all@5, recall_any@10 and NDCG@10 are averaged over the non-abstention questions, overall
 * and per question type.
 *
 * Two ways of turning ranked turns into ranked sessions are measured side by side:
 * - **first hit**: a session ranks where its best turn ranks;
 * - **score sum**: a session's score is the sum of its recalled turns' fused scores.
 *
 * Modes: lexical always; hybrid too when an embedder is available (`--embedder minilm|ollama|auto`,
 * reading `KEEL_HOME`/`OLLAMA_HOST` like the CLI).
 *
 * Data: LongMemEval (Wu et al., ICLR 2025), MIT licence. Default: `../shared/data/longmemeval`.
 *
 * Each question is asked twice: as lived (the store's clock at its `question_date`) and with the
 * clock frozen at the run's start; a raw whole-session FTS5 BM25 runs on the same sessions in the
 * same run, and each figure is paired with it per question.
 *
 * Run alone: `node --import tsx bench/longmemeval.ts [--data <file-or-folder>]... [--embedder auto]
 * [--clock lived|frozen|both] [--label <name>] [--compare bench/results/<earlier run>.json]`.
 *
 * @module
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { readConfig } from '@keel/host';
import {
  type EmbedderChoice,
  type EpisodeResult,
  type MemoryStore,
  parseImport,
  parseLongMemEvalDate,
  type RecallResponse,
  selectEmbedder,
} from '@keel/memory';
import { PAIRED_HEADER, paired, pairedRow, RawBm25 } from './baseline.js';
import {
  type BenchClock,
  type BenchOptions,
  displayPath,
  heading,
  isMain,
  latencyLine,
  openStore,
  printTable,
  REPO_ROOT,
  type SummaryRow,
  summarize,
  withTempDir,
} from './lib.js';
import { writeQuestions, writeResults } from './results.js';

/** Default data folder: the shared LongMemEval questions. */
export const DEFAULT_LONGMEMEVAL = resolve(REPO_ROOT, '../shared/data/longmemeval');
/** Whole-session BM25 (SQLite FTS5, porter) on 68 LongMemEval-S questions, measured on these machines. */
export const SESSION_BM25_REFERENCE = { any5: 0.956, all5: 0.897, any10: 0.985, ndcg10: 0.914 };

interface Question {
  question_id: string;
  question_type: string;
  question: string;
  question_date: string;
  answer_session_ids: string[];
}

/** Session-level metrics of one ranked session list against the evidence sessions. */
export function sessionMetrics(ranked: readonly string[], evidence: readonly string[]) {
  const wanted = new Set(evidence);
  const hits = (k: number) => ranked.slice(0, k).filter((s) => wanted.has(s)).length;
  let dcg = 0;
  ranked.slice(0, 10).forEach((s, i) => {
    if (wanted.has(s)) dcg += 1 / Math.log2(i + 2);
  });
  let ideal = 0;
  for (let i = 0; i < Math.min(wanted.size, 10); i++) ideal += 1 / Math.log2(i + 2);
  return {
    any5: hits(5) > 0 ? 1 : 0,
    all5: hits(5) === wanted.size ? 1 : 0,
    any10: hits(10) > 0 ? 1 : 0,
    ndcg10: ideal ? dcg / ideal : 0,
  };
}
type Metrics = ReturnType<typeof sessionMetrics>;

/** Ranked sessions from ranked turns: by first hit, or by the sum of turn scores. */
export function rankSessions(response: RecallResponse, how: 'first' | 'sum'): string[] {
  const score = new Map<string, number>();
  for (const r of response.results) {
    if (r.type !== 'episode') continue;
    const s = (r as EpisodeResult).provenance.session;
    if (!s) continue;
    if (how === 'first') {
      if (!score.has(s)) score.set(s, -score.size);
    } else score.set(s, (score.get(s) ?? 0) + r.score);
  }
  return [...score].sort((a, b) => b[1] - a[1]).map(([s]) => s);
}

function files(data: string): string[] {
  if (statSync(data).isFile()) return [data];
  return readdirSync(data)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => join(data, f));
}

/** Options of {@link benchLongMemEval}. */
export interface LongMemEvalOptions {
  /** Files or folders of LongMemEval-S questions (absolute paths). */
  data: string[];
  embedder: EmbedderChoice;
  /** See {@link BenchOptions.clock}; as lived is the question's `question_date`. */
  clock: BenchClock;
  /** Result file label (`longmemeval-<date>-<label>.*`). */
  label?: string | undefined;
  /** A previous run's per-question JSON to pair against. */
  compare?: string | undefined;
}

/**
 * `--data <file-or-folder>` (repeatable; default the 12 shared questions), `--embedder`,
 * `--clock lived|frozen|both`, `--label`, `--compare`.
 */
function parseArgs(argv = process.argv.slice(2)): LongMemEvalOptions {
  const data: string[] = [];
  let embedder: EmbedderChoice = 'none';
  let clock: BenchClock = 'both';
  let label: string | undefined;
  let compare: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--data') data.push(resolve(REPO_ROOT, argv[++i] ?? ''));
    else if (argv[i] === '--embedder') embedder = (argv[++i] ?? 'auto') as EmbedderChoice;
    else if (argv[i] === '--clock') clock = (argv[++i] ?? 'both') as BenchClock;
    else if (argv[i] === '--label') label = argv[++i];
    else if (argv[i] === '--compare') compare = resolve(REPO_ROOT, argv[++i] ?? '');
    else throw new Error(`unknown flag ${argv[i]}`);
  }
  if (!['lived', 'frozen', 'both'].includes(clock)) {
    throw new Error(`--clock must be lived, frozen or both (got "${clock}")`);
  }
  return { data: data.length ? data : [DEFAULT_LONGMEMEVAL], embedder, clock, label, compare };
}

/** One scored question's figures per system (keel: by first hit and by score sum). */
export interface LongMemEvalQuestionResult {
  id: string;
  type: string;
  question: string;
  /** keel lexical at the question's `question_date`. */
  lived?: { first: Metrics; sum: Metrics };
  /** keel lexical with the clock frozen at the run's start. */
  frozen?: { first: Metrics; sum: Metrics };
  /** keel hybrid, as lived (with `--embedder`). */
  hybrid?: { first: Metrics; sum: Metrics };
  /** Raw whole-session FTS5 BM25. */
  bm25: Metrics;
}

/** Runs the benchmark and prints its figures. */
export async function benchLongMemEval(options: LongMemEvalOptions): Promise<SummaryRow[]> {
  heading('LongMemEval-S: session recall');
  const config = readConfig(process.env);
  const selection = await selectEmbedder({
    choice: options.embedder,
    modelsDir: config.paths.models,
    ollamaHost: config.embedder.ollamaHost,
    ollamaModel: config.embedder.ollamaModel,
  }).catch((err: Error) => ({ embedder: null, info: null, reason: err.message }));
  const clocks = options.clock === 'both' ? (['lived', 'frozen'] as const) : [options.clock];
  const frozenAt = Date.now();
  const results: LongMemEvalQuestionResult[] = [];
  let abstention = 0;
  let turns = 0;
  const list = options.data.flatMap(files);
  const latencies: number[] = [];
  await withTempDir(async (dir) => {
    for (const [i, file] of list.entries()) {
      const text = readFileSync(file, 'utf8');
      const q = JSON.parse(text) as Question;
      if (q.question_id.endsWith('_abs')) {
        abstention++;
        continue;
      }
      const parsed = parseImport(q, 'longmemeval');
      turns += parsed.turns.length;
      const lived = parseLongMemEvalDate(q.question_date);
      let clock = lived;
      const store: MemoryStore = openStore(dir, `lme-${i}.db`, () => clock);
      const bm25 = new RawBm25();
      const sessions = new Map<string, string[]>();
      for (const t of parsed.turns)
        sessions.set(t.sessionKey, [...(sessions.get(t.sessionKey) ?? []), t.text]);
      bm25.add([...sessions].map(([id, texts]) => ({ id, text: texts.join('\n') })));
      try {
        store.importTurns(parsed, {
          path: file,
          fileSha256: createHash('sha256').update(text).digest('hex'),
        });
        // Recall as a long-running door runs it: the full-text indexes mirrored in memory.
        store.warmRecall();
        const result: LongMemEvalQuestionResult = {
          id: q.question_id,
          type: q.question_type,
          question: q.question,
          bm25: sessionMetrics(bm25.search(q.question, 50), q.answer_session_ids),
        };
        const both = (r: RecallResponse) => ({
          first: sessionMetrics(rankSessions(r, 'first'), q.answer_session_ids),
          sum: sessionMetrics(rankSessions(r, 'sum'), q.answer_session_ids),
        });
        for (const c of clocks) {
          clock = c === 'lived' ? lived : frozenAt;
          const t0 = performance.now();
          const r = await store.recall(q.question, { type: 'episode', limit: 100, touch: false });
          latencies.push(performance.now() - t0);
          result[c] = both(r);
        }
        if (selection.embedder) {
          clock = lived;
          await store.useEmbedder(selection.embedder);
          await store.embedPending();
          const r = await store.recall(q.question, { type: 'episode', limit: 100, touch: false });
          if (r.mode !== 'hybrid') throw new Error(`hybrid run fell back: ${r.reason}`);
          result.hybrid = both(r);
        }
        results.push(result);
      } finally {
        store.close();
        bm25.close();
      }
    }
  });
  const f = (x: number) => x.toFixed(3);
  const KEYS = ['any5', 'all5', 'any10', 'ndcg10'] as const;
  const mean = (ms: Metrics[], k: keyof Metrics) => ms.reduce((s, m) => s + m[k], 0) / ms.length;
  const types = [...new Set(results.map((r) => r.type))].sort();
  const rows: string[][] = [];
  const block = (label: string, pick: (r: LongMemEvalQuestionResult) => Metrics | undefined) => {
    const ms = results.map(pick).filter((m): m is Metrics => m !== undefined);
    if (ms.length === 0) return;
    rows.push([label, String(ms.length), ...KEYS.map((k) => f(mean(ms, k)))]);
    for (const type of types) {
      const tm = results
        .filter((r) => r.type === type)
        .map(pick)
        .filter((m): m is Metrics => m !== undefined);
      rows.push([`  ${type}`, String(tm.length), ...KEYS.map((k) => f(mean(tm, k)))]);
    }
  };
  const hybridLabel = selection.embedder
    ? `keel hybrid (${selection.info!.provider} ${selection.info!.model}), as lived`
    : '';
  block('keel lexical, as lived, first hit', (r) => r.lived?.first);
  block('keel lexical, frozen clock, first hit', (r) => r.frozen?.first);
  block('keel lexical, as lived, score sum', (r) => r.lived?.sum);
  block('keel lexical, frozen clock, score sum', (r) => r.frozen?.sum);
  if (selection.embedder) {
    block(`${hybridLabel}, first hit`, (r) => r.hybrid?.first);
    block(`${hybridLabel}, score sum`, (r) => r.hybrid?.sum);
  }
  block('raw whole-session FTS5 BM25', (r) => r.bm25);
  const ref = SESSION_BM25_REFERENCE;
  rows.push([
    'reference: whole-session BM25, 68 questions',
    '68',
    f(ref.any5),
    f(ref.all5),
    f(ref.any10),
    f(ref.ndcg10),
  ]);
  console.log(
    `${options.data.map(displayPath).join(', ')}: ${list.length} file(s), ${results.length} scored, ${abstention} abstention question(s) left out, ${turns} turns imported (a fresh store per question)`,
  );
  console.log(
    `clock: as lived = the question's question_date; frozen = the run's start (${new Date(frozenAt).toISOString().slice(0, 16)}Z)`,
  );
  console.log(
    "raw BM25: FTS5 bm25() over one row per session (its turns' text), porter unicode61; the question less NLTK stopwords, words OR-ed",
  );
  console.log(`recall latency  ${latencyLine(summarize(latencies))}`);
  console.log(
    `embedder: ${selection.embedder ? `${selection.info!.provider} ${selection.info!.model} (${selection.info!.dim}-d)` : `none (${options.embedder === 'none' ? 'pass --embedder auto|minilm|ollama' : selection.reason}): hybrid not measured`}\n`,
  );
  const header = [
    'mode, sessions ranked by',
    'questions',
    'recall_any@5',
    'recall_all@5',
    'recall_any@10',
    'NDCG@10',
  ];
  printTable(header, rows);

  const previous = options.compare
    ? new Map(
        (
          JSON.parse(readFileSync(options.compare, 'utf8')) as {
            questions: LongMemEvalQuestionResult[];
          }
        ).questions.map((r) => [r.id, r]),
      )
    : null;
  type Pick = (r: LongMemEvalQuestionResult) => Metrics | undefined;
  const pairs: [string, Pick, Pick][] = [
    ['as lived (first hit) − session BM25', (r) => r.lived?.first, (r) => r.bm25],
    ['as lived − frozen (first hit)', (r) => r.lived?.first, (r) => r.frozen?.first],
    ['frozen (first hit) − session BM25', (r) => r.frozen?.first, (r) => r.bm25],
    ...(previous
      ? ([
          [
            'as lived − compared run as lived (first hit)',
            (r) => r.lived?.first,
            (r) => previous.get(r.id)?.lived?.first,
          ],
          [
            'frozen − compared run frozen (first hit)',
            (r) => r.frozen?.first,
            (r) => previous.get(r.id)?.frozen?.first,
          ],
        ] as [string, Pick, Pick][])
      : []),
  ];
  const pairedRows: string[][] = [];
  for (const [label, a, b] of pairs) {
    const with2 = results.filter((r) => a(r) && b(r));
    if (with2.length === 0) continue;
    for (const k of ['ndcg10', 'all5', 'any5'] as const) {
      pairedRows.push(
        pairedRow(
          `${label}, ${k === 'ndcg10' ? 'NDCG@10' : k === 'all5' ? 'recall_all@5' : 'recall_any@5'}`,
          paired(
            with2.map((r) => a(r)![k]),
            with2.map((r) => b(r)![k]),
          ),
          1,
        ),
      );
    }
  }
  console.log();
  printTable(PAIRED_HEADER, pairedRows);
  writeResults(
    'longmemeval',
    header,
    rows,
    [
      `Data: ${options.data.map(displayPath).join(', ')} (${results.length} non-abstention questions).`,
      "Clock as lived: each question's question_date; frozen: the run's start.",
      `Embedder: ${selection.embedder ? `${selection.info!.provider} ${selection.info!.model}` : `none (${selection.reason})`}.`,
      'Query: the question; store.recall(q, { type: "episode", limit: 100, touch: false }).',
      'Raw whole-session BM25: one FTS5 row per session, porter unicode61, question less NLTK stopwords, OR-ed.',
      'Paired: a − b per question, mean with a bootstrap 95% interval, wins/ties/losses, exact sign test.',
      ...(options.compare ? [`Compared run: ${displayPath(options.compare)}.`] : []),
    ],
    options.label,
    [{ header: PAIRED_HEADER, rows: pairedRows }],
  );
  writeQuestions(
    'longmemeval',
    { data: options.data.map(displayPath), questions: results },
    options.label,
  );
  const main = results.some((r) => r.lived) ? 'lived' : 'frozen';
  const all = results.map((r) => r[main]?.first).filter((m): m is Metrics => m !== undefined);
  if (all.length === 0) return [];
  return [
    {
      bench: 'longmemeval' as const,
      metric: `keel lexical ${main === 'lived' ? 'as lived' : 'frozen clock'}, first hit: any@5 / all@5 / any@10 / NDCG@10`,
      value: KEYS.map((k) => f(mean(all, k))).join(' / '),
      target: `BM25 sessions (this run) ${KEYS.map((k) =>
        f(
          mean(
            results.map((r) => r.bm25),
            k,
          ),
        ),
      ).join(' / ')}`,
    },
  ];
}

if (isMain(import.meta.url)) await benchLongMemEval(parseArgs());
