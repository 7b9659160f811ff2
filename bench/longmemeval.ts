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
 * Run alone: `node --import tsx bench/longmemeval.ts [--data <file-or-folder>] [--embedder auto]`.
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
  type RecallResponse,
  selectEmbedder,
} from '@keel/memory';
import {
  heading,
  isMain,
  openStore,
  printTable,
  REPO_ROOT,
  type SummaryRow,
  withTempDir,
} from './lib.js';
import { writeResults } from './results.js';

/** Default data folder: the shared LongMemEval questions. */
export const DEFAULT_LONGMEMEVAL = resolve(REPO_ROOT, '../shared/data/longmemeval');
/** Whole-session BM25 (SQLite FTS5, porter) on 68 LongMemEval-S questions, measured on these machines. */
export const SESSION_BM25_REFERENCE = { any5: 0.956, all5: 0.897, any10: 0.985, ndcg10: 0.914 };

interface Question {
  question_id: string;
  question_type: string;
  question: string;
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

function parseArgs(argv = process.argv.slice(2)): { data: string; embedder: EmbedderChoice } {
  let data = DEFAULT_LONGMEMEVAL;
  let embedder: EmbedderChoice = 'none';
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--data') data = resolve(REPO_ROOT, argv[++i] ?? '');
    else if (argv[i] === '--embedder') embedder = (argv[++i] ?? 'auto') as EmbedderChoice;
  }
  return { data, embedder };
}

/** Runs the benchmark and prints its figures. */
export async function benchLongMemEval(options: {
  data: string;
  embedder: EmbedderChoice;
}): Promise<SummaryRow[]> {
  heading('LongMemEval-S: session recall');
  const config = readConfig(process.env);
  const selection = await selectEmbedder({
    choice: options.embedder,
    modelsDir: config.paths.models,
    ollamaHost: config.embedder.ollamaHost,
    ollamaModel: config.embedder.ollamaModel,
  }).catch((err: Error) => ({ embedder: null, info: null, reason: err.message }));
  const modes: ('lexical' | 'hybrid')[] = selection.embedder ? ['lexical', 'hybrid'] : ['lexical'];
  const label = (mode: string) =>
    mode === 'hybrid' ? `hybrid (${selection.info!.provider} ${selection.info!.model})` : 'lexical';
  // results[mode/aggregation] → per type → metrics list
  const results = new Map<string, Map<string, Metrics[]>>();
  const add = (key: string, type: string, m: Metrics) => {
    const byType = results.get(key) ?? new Map<string, Metrics[]>();
    for (const t of ['all', type]) byType.set(t, [...(byType.get(t) ?? []), m]);
    results.set(key, byType);
  };
  let abstention = 0;
  let questions = 0;
  let turns = 0;
  const list = files(options.data);
  await withTempDir(async (dir) => {
    for (const [i, file] of list.entries()) {
      const text = readFileSync(file, 'utf8');
      const q = JSON.parse(text) as Question;
      if (q.question_id.endsWith('_abs')) {
        abstention++;
        continue;
      }
      questions++;
      const parsed = parseImport(q, 'longmemeval');
      turns += parsed.turns.length;
      const store: MemoryStore = openStore(dir, `lme-${i}.db`);
      try {
        store.importTurns(parsed, {
          path: file,
          fileSha256: createHash('sha256').update(text).digest('hex'),
        });
        for (const mode of modes) {
          let r: RecallResponse;
          if (mode === 'hybrid') {
            await store.useEmbedder(selection.embedder);
            await store.embedPending();
            r = await store.recall(q.question, { type: 'episode', limit: 100, touch: false });
            if (r.mode !== 'hybrid') throw new Error(`hybrid run fell back: ${r.reason}`);
          } else {
            r = await store.recall(q.question, { type: 'episode', limit: 100, touch: false });
          }
          for (const how of ['first', 'sum'] as const) {
            add(
              `${label(mode)}, ${how === 'first' ? 'first hit' : 'score sum'}`,
              q.question_type,
              sessionMetrics(rankSessions(r, how), q.answer_session_ids),
            );
          }
        }
      } finally {
        store.close();
      }
    }
  });
  const f = (x: number) => x.toFixed(3);
  const mean = (ms: Metrics[], k: keyof Metrics) => ms.reduce((s, m) => s + m[k], 0) / ms.length;
  const rows: string[][] = [];
  for (const [key, byType] of results) {
    for (const [type, ms] of [...byType].sort((a, b) =>
      a[0] === 'all' ? -1 : b[0] === 'all' ? 1 : a[0].localeCompare(b[0]),
    )) {
      rows.push([
        type === 'all' ? key : `  ${type}`,
        String(ms.length),
        f(mean(ms, 'any5')),
        f(mean(ms, 'all5')),
        f(mean(ms, 'any10')),
        f(mean(ms, 'ndcg10')),
      ]);
    }
  }
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
    `${options.data}: ${list.length} file(s), ${questions} scored, ${abstention} abstention question(s) left out, ${turns} turns imported (a fresh store per question)`,
  );
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
  writeResults('longmemeval', header, rows, [
    `Data: ${options.data} (${questions} non-abstention questions).`,
    `Embedder: ${selection.embedder ? `${selection.info!.provider} ${selection.info!.model}` : `none (${selection.reason})`}.`,
    'Query: the question; store.recall(q, { type: "episode", limit: 100, touch: false }).',
  ]);
  const first = [...results].filter(([key]) => key.endsWith('first hit'));
  return first.map(([key, byType]) => {
    const all = byType.get('all')!;
    return {
      bench: 'longmemeval' as const,
      metric: `${key}: any@5 / all@5 / any@10 / NDCG@10`,
      value: (['any5', 'all5', 'any10', 'ndcg10'] as const).map((k) => f(mean(all, k))).join(' / '),
      target: `BM25 sessions ${ref.any5} / ${ref.all5} / ${ref.any10} / ${ref.ndcg10}`,
    };
  });
}

if (isMain(import.meta.url)) await benchLongMemEval(parseArgs());
