/**
 * LoCoMo evidence recall@k: each conversation of the `--data` file is imported into a fresh store;
 * each question of categories 1-4 is sent to recall as the query (episodes only, 50 results, no
 * access bumps); the returned turns' dia_ids are compared with the question's evidence dia_ids.
 *
 * Data: LoCoMo, Maharana et al., "Evaluating Very Long-Term Conversational Memory of LLM Agents",
 * ACL 2024. Licence CC BY-NC 4.0.
 *
 * Run alone: `node --import tsx bench/locomo.ts [--data <locomo.json>]`.
 *
 * @module
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { readConfig } from '@keel/host';
import { type EmbedderChoice, type EpisodeResult, parseImport, selectEmbedder } from '@keel/memory';
import {
  type BenchOptions,
  displayPath,
  heading,
  int,
  isMain,
  latencyLine,
  openStore,
  parseBenchArgs,
  printTable,
  type SummaryRow,
  summarize,
  withTempDir,
} from './lib.js';
import { writeResults } from './results.js';

/** The cut-offs reported. */
export const KS = [5, 10, 25, 50] as const;

/** LoCoMo question categories scored here (5, adversarial, has no evidence to retrieve). */
export const CATEGORIES: Readonly<Record<number, string>> = {
  1: 'multi-hop',
  2: 'temporal',
  3: 'open-domain',
  4: 'single-hop',
};

/**
 * The LoCoMo paper's dense retriever (DRAGON) over dialog turns, recall@5/10/25/50 in %, over all
 * ten conversations.
 */
export const DRAGON_DIALOG_RECALL: Readonly<Record<(typeof KS)[number], number>> = {
  5: 56.7,
  10: 66.2,
  25: 76.7,
  50: 82.7,
};

/** A LoCoMo dia_id such as "D1:3". */
const DIA_ID = /^D\d+:\d+$/;

/**
 * The LoCoMo dia_id an imported episode came from: its provenance `source_id` without the `#N`
 * suffix the parser adds when a dia_id repeats inside one conversation.
 */
export function diaIdOf(sourceId: string | null): string | null {
  return sourceId === null ? null : sourceId.replace(/#\d+$/, '');
}

/**
 * Evidence recall@k: the share of a question's distinct evidence ids found among the first `k`
 * retrieved ids. An evidence id that is malformed or names no stored turn can never be retrieved,
 * so it counts as missed.
 *
 * @param retrieved - ids of the retrieved items, best first (duplicates allowed).
 * @param evidence - the question's evidence ids.
 * @param k - the cut-off, ≥ 1.
 * @returns a share in 0..1, or `null` when the question has no evidence ids (it has no recall).
 */
export function evidenceRecallAtK(
  retrieved: readonly (string | null)[],
  evidence: readonly string[],
  k: number,
): number | null {
  const wanted = new Set(evidence);
  if (wanted.size === 0) return null;
  const top = new Set(retrieved.slice(0, k));
  let found = 0;
  for (const id of wanted) if (top.has(id)) found++;
  return found / wanted.size;
}

interface Question {
  question: string;
  evidence: string[];
  category: number;
}

/** Reads a sample's `qa` list, keeping well-typed questions of the scored categories. */
function questionsOf(sample: unknown): Question[] {
  const qa = (sample as { qa?: unknown }).qa;
  if (!Array.isArray(qa)) return [];
  return qa.filter(
    (q): q is Question =>
      typeof q === 'object' &&
      q !== null &&
      typeof q.question === 'string' &&
      Array.isArray(q.evidence) &&
      q.evidence.every((e: unknown) => typeof e === 'string') &&
      typeof q.category === 'number' &&
      q.category in CATEGORIES,
  );
}

/** Per-category (and overall, key 0) running sums of recall@k. */
type Sums = Map<number, { n: number; sum: number[] }>;

/**
 * Runs the LoCoMo evidence-recall benchmark on `options.data` and prints its figures.
 *
 * @returns rows for the final summary table.
 */
export async function benchLocomo(options: BenchOptions): Promise<SummaryRow[]> {
  heading('LoCoMo: evidence recall@k');
  const text = readFileSync(options.data, 'utf8');
  const json = JSON.parse(text) as unknown;
  const samples = Array.isArray(json) ? json : [json];
  const sha = createHash('sha256').update(text).digest('hex');

  // Hybrid rows too when an embedder is available (`--embedder auto|minilm|ollama`).
  const config = readConfig(process.env);
  const selection =
    options.embedder === 'none'
      ? null
      : await selectEmbedder({
          choice: options.embedder as EmbedderChoice,
          modelsDir: config.paths.models,
          ollamaHost: config.embedder.ollamaHost,
          ollamaModel: config.embedder.ollamaModel,
        }).catch((err: Error) => ({ embedder: null, info: null, reason: err.message }));
  const hybridSums: Sums = new Map();
  const sums: Sums = new Map();
  const add = (cat: number, values: number[], into: Sums = sums) => {
    const s = into.get(cat) ?? { n: 0, sum: KS.map(() => 0) };
    s.n++;
    values.forEach((v, i) => {
      s.sum[i]! += v;
    });
    into.set(cat, s);
  };
  let turns = 0;
  let noEvidence = 0;
  let malformed = 0;
  let unknown = 0;
  let evidenceIds = 0;
  const examples = { malformed: [] as string[], unknown: [] as string[] };
  const latencies: number[] = [];
  let oldest = Number.POSITIVE_INFINITY;
  let newest = Number.NEGATIVE_INFINITY;

  await withTempDir(async (dir) => {
    for (const [index, sample] of samples.entries()) {
      const parsed = parseImport([sample], 'locomo');
      turns += parsed.turns.length;
      const stored = new Set(parsed.turns.map((t) => diaIdOf(t.sourceId)));
      for (const t of parsed.turns) {
        oldest = Math.min(oldest, t.occurredAt);
        newest = Math.max(newest, t.occurredAt);
      }
      const store = openStore(dir, `locomo-${index}.db`);
      try {
        store.importTurns(parsed, { path: options.data, fileSha256: sha });
        for (const q of questionsOf(sample)) {
          const evidence = [...new Set(q.evidence)];
          if (evidence.length === 0) {
            noEvidence++;
            continue;
          }
          for (const id of evidence) {
            evidenceIds++;
            if (!DIA_ID.test(id)) {
              malformed++;
              examples.malformed.push(id);
            } else if (!stored.has(id)) {
              unknown++;
              examples.unknown.push(id);
            }
          }
          const t0 = performance.now();
          const response = await store.recall(q.question, {
            type: 'episode',
            limit: 50,
            touch: false,
          });
          latencies.push(performance.now() - t0);
          const ranked = response.results
            .filter((r): r is EpisodeResult => r.type === 'episode')
            .map((r) => diaIdOf(r.provenance.source_id));
          const values = KS.map((k) => evidenceRecallAtK(ranked, evidence, k)!);
          add(0, values);
          add(q.category, values);
          if (selection?.embedder) {
            if (!store.vectorIndex) {
              await store.useEmbedder(selection.embedder);
              await store.embedPending();
            }
            const h = await store.recall(q.question, {
              type: 'episode',
              limit: 50,
              touch: false,
            });
            if (h.mode !== 'hybrid') throw new Error(`hybrid run fell back: ${h.reason}`);
            const rankedH = h.results
              .filter((r): r is EpisodeResult => r.type === 'episode')
              .map((r) => diaIdOf(r.provenance.source_id));
            const valuesH = KS.map((k) => evidenceRecallAtK(rankedH, evidence, k)!);
            add(0, valuesH, hybridSums);
            add(q.category, valuesH, hybridSums);
          }
        }
      } finally {
        store.close();
      }
    }
  });

  const listed = (xs: string[]) =>
    xs
      .slice(0, 10)
      .map((e) => JSON.stringify(e))
      .join(', ') + (xs.length > 10 ? ', ...' : '');
  const pct = (x: number) => (100 * x).toFixed(1);
  const row = (label: string, cat: number, from: Sums = sums): string[] => {
    const s = from.get(cat);
    if (!s) return [label, '0', ...KS.map(() => '-')];
    return [label, int(s.n), ...KS.map((_, i) => pct(s.sum[i]! / s.n))];
  };
  const ids = samples.map((s) => (s as { sample_id?: unknown }).sample_id).join(', ');
  console.log(
    `${displayPath(options.data)}: ${samples.length} conversation(s) (${ids}), ${int(turns)} turns, ` +
      `each imported into a fresh store; turns dated ${new Date(oldest).toISOString().slice(0, 10)}..${new Date(newest).toISOString().slice(0, 10)}`,
  );
  console.log(
    `query: the question text; await store.recall(q, { type: 'episode', limit: 50, touch: false }); ` +
      `returned turns mapped to their dia_id (provenance.source_id)`,
  );
  console.log(
    `scored: categories 1-4; ${noEvidence} question(s) without evidence ids left out; ` +
      `${evidenceIds} evidence ids, of which ${malformed} malformed${
        malformed ? ` (${listed(examples.malformed)})` : ''
      } and ${unknown} naming no imported turn${
        unknown ? ` (${listed(examples.unknown)})` : ''
      }: all counted as missed`,
  );
  console.log(`recall latency  ${latencyLine(summarize(latencies))}\n`);
  const header = ['evidence recall@k (%)', 'questions', ...KS.map((k) => `@${k}`)];
  const rows = [
    row('keel lexical, all', 0),
    ...Object.entries(CATEGORIES).map(([c, name]) => row(`  ${c} ${name}`, Number(c))),
    ...(selection?.embedder
      ? [
          row(`keel hybrid (${selection.info!.model}), all`, 0, hybridSums),
          ...Object.entries(CATEGORIES).map(([c, name]) =>
            row(`  ${c} ${name}`, Number(c), hybridSums),
          ),
        ]
      : []),
    [
      'LoCoMo paper: DRAGON, dialog turns',
      '',
      ...KS.map((k) => DRAGON_DIALOG_RECALL[k].toFixed(1)),
    ],
  ];
  console.log(
    `embedder: ${selection?.embedder ? `${selection.info!.provider} ${selection.info!.model} (${selection.info!.dim}-d)` : `none (${selection ? selection.reason : 'pass --embedder auto|minilm|ollama'}): hybrid not measured`}\n`,
  );
  printTable(header, rows);
  writeResults('locomo', header, rows, [
    `Data: ${displayPath(options.data)} (${ids}); evidence recall@k in %, categories 1-4.`,
    'DRAGON row: the LoCoMo paper, over all ten conversations.',
  ]);
  console.log(
    '\nThe DRAGON row is the LoCoMo paper’s dense retriever over dialog turns, averaged over all ten\n' +
      'LoCoMo conversations (Maharana et al., ACL 2024); keel’s rows are over the conversation(s) above.',
  );
  const all = sums.get(0);
  return KS.map((k, i) => ({
    bench: 'locomo' as const,
    metric: `evidence recall@${k} (DRAGON ${DRAGON_DIALOG_RECALL[k].toFixed(1)})`,
    value: all ? `${pct(all.sum[i]! / all.n)} %` : '-',
    target: '',
  }));
}

if (isMain(import.meta.url)) await benchLocomo(parseBenchArgs());
