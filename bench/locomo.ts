/**
 * LoCoMo evidence recall@k: each conversation of the `--data` file is imported into a fresh store;
 * each question of categories 1-4 is sent to recall as the query (episodes only, 50 results, no
 * access bumps); the returned turns' dia_ids are compared with the question's evidence dia_ids.
 *
 * Data: LoCoMo, Maharana et al., "Evaluating Very Long-Term Conversational Memory of LLM Agents",
 * ACL 2024. Licence CC BY-NC 4.0.
 *
 * Run alone: `node --import tsx bench/locomo.ts [--data <locomo.json>] [--clock lived|frozen|both]
 * [--label <name>] [--compare bench/results/<earlier run>.json]`.
 *
 * @module
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { readConfig } from '@keel/host';
import { type EmbedderChoice, type EpisodeResult, parseImport, selectEmbedder } from '@keel/memory';
import { PAIRED_HEADER, paired, pairedRow, RawBm25 } from './baseline.js';
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
import { writeQuestions, writeResults } from './results.js';

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

/** One scored question's figures: recall@k for each k of {@link KS}, per system. */
export interface LocomoQuestionResult {
  /** `<sample_id>#<index in qa>`. */
  id: string;
  category: number;
  question: string;
  /** keel lexical with the clock as lived (just after the conversation's last session). */
  lived?: number[];
  /** keel lexical with the clock frozen at the run's start. */
  frozen?: number[];
  /** keel hybrid, as lived (with `--embedder`). */
  hybrid?: number[];
  /** The raw FTS5 BM25 baseline ("Speaker: text" rows). */
  bm25: number[];
}

/** How long after the last turn the "as lived" clock stands: one minute. */
export const LIVED_AFTER_MS = 60_000;

/**
 * Runs the LoCoMo evidence-recall benchmark on `options.data` and prints its figures: keel as
 * lived (first) and with the frozen clock, the raw BM25 baseline, per category, and the paired
 * per-question comparisons.
 *
 * @returns rows for the final summary table.
 */
export async function benchLocomo(options: BenchOptions): Promise<SummaryRow[]> {
  heading('LoCoMo: evidence recall@k');
  const text = readFileSync(options.data, 'utf8');
  const json = JSON.parse(text) as unknown;
  const samples = Array.isArray(json) ? json : [json];
  const sha = createHash('sha256').update(text).digest('hex');
  const clocks = options.clock === 'both' ? (['lived', 'frozen'] as const) : [options.clock];
  const frozenAt = Date.now();

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
  const results: LocomoQuestionResult[] = [];
  let turns = 0;
  let noEvidence = 0;
  let malformed = 0;
  let unknown = 0;
  let evidenceIds = 0;
  const examples = { malformed: [] as string[], unknown: [] as string[] };
  const latencies: number[] = [];
  const livedClocks: string[] = [];
  let oldest = Number.POSITIVE_INFINITY;
  let newest = Number.NEGATIVE_INFINITY;

  await withTempDir(async (dir) => {
    for (const [index, sample] of samples.entries()) {
      const sampleId = String((sample as { sample_id?: unknown }).sample_id ?? index);
      const parsed = parseImport([sample], 'locomo');
      turns += parsed.turns.length;
      const stored = new Set(parsed.turns.map((t) => diaIdOf(t.sourceId)));
      let last = Number.NEGATIVE_INFINITY;
      for (const t of parsed.turns) {
        oldest = Math.min(oldest, t.occurredAt);
        newest = Math.max(newest, t.occurredAt);
        last = Math.max(last, t.occurredAt);
      }
      const lived = last + LIVED_AFTER_MS;
      livedClocks.push(`${sampleId} ${new Date(lived).toISOString().slice(0, 16)}Z`);
      let clock = lived;
      const store = openStore(dir, `locomo-${index}.db`, () => clock);
      const bm25 = new RawBm25();
      bm25.add(
        parsed.turns.map((t) => ({
          id: diaIdOf(t.sourceId) ?? '',
          text: `${t.speaker ?? t.role}: ${t.text}`,
        })),
      );
      try {
        store.importTurns(parsed, { path: options.data, fileSha256: sha });
        // Recall as a long-running door runs it: the full-text indexes mirrored in memory.
        store.warmRecall();
        const qa = (sample as { qa?: unknown[] }).qa ?? [];
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
          const scored = (ranked: readonly (string | null)[]) =>
            KS.map((k) => evidenceRecallAtK(ranked, evidence, k)!);
          const keel = async () => {
            const t0 = performance.now();
            const response = await store.recall(q.question, {
              type: 'episode',
              limit: 50,
              touch: false,
            });
            latencies.push(performance.now() - t0);
            return scored(
              response.results
                .filter((r): r is EpisodeResult => r.type === 'episode')
                .map((r) => diaIdOf(r.provenance.source_id)),
            );
          };
          const result: LocomoQuestionResult = {
            id: `${sampleId}#${qa.indexOf(q)}`,
            category: q.category,
            question: q.question,
            bm25: scored(bm25.search(q.question, 50)),
          };
          for (const c of clocks) {
            clock = c === 'lived' ? lived : frozenAt;
            result[c] = await keel();
          }
          if (selection?.embedder) {
            clock = lived;
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
            result.hybrid = scored(
              h.results
                .filter((r): r is EpisodeResult => r.type === 'episode')
                .map((r) => diaIdOf(r.provenance.source_id)),
            );
          }
          results.push(result);
        }
      } finally {
        store.close();
        bm25.close();
      }
    }
  });

  const listed = (xs: string[]) =>
    xs
      .slice(0, 10)
      .map((e) => JSON.stringify(e))
      .join(', ') + (xs.length > 10 ? ', ...' : '');
  const pct = (x: number) => (100 * x).toFixed(1);
  type System = 'lived' | 'frozen' | 'hybrid' | 'bm25';
  const mean = (rs: LocomoQuestionResult[], system: System, i: number) =>
    rs.reduce((s, r) => s + r[system]![i]!, 0) / rs.length;
  const block = (label: string, system: System): string[][] => {
    if (!results.some((r) => r[system])) return [];
    return [
      [label, int(results.length), ...KS.map((_, i) => pct(mean(results, system, i)))],
      ...Object.entries(CATEGORIES).map(([c, name]) => {
        const rs = results.filter((r) => r.category === Number(c));
        return [
          `  ${c} ${name}`,
          int(rs.length),
          ...KS.map((_, i) => (rs.length ? pct(mean(rs, system, i)) : '-')),
        ];
      }),
    ];
  };
  const ids = samples.map((s) => (s as { sample_id?: unknown }).sample_id).join(', ');
  console.log(
    `${displayPath(options.data)}: ${samples.length} conversation(s) (${ids}), ${int(turns)} turns, ` +
      `each imported into a fresh store; turns dated ${new Date(oldest).toISOString().slice(0, 10)}..${new Date(newest).toISOString().slice(0, 10)}`,
  );
  console.log(
    `clock: as lived = one minute after the conversation's last turn (${livedClocks.join(', ')}); ` +
      `frozen = the run's start (${new Date(frozenAt).toISOString().slice(0, 16)}Z)`,
  );
  console.log(
    `query: the question text; await store.recall(q, { type: 'episode', limit: 50, touch: false }); ` +
      `returned turns mapped to their dia_id (provenance.source_id)`,
  );
  console.log(
    'raw BM25: FTS5 bm25() over one row per turn, "Speaker: text", porter unicode61; the question ' +
      'less NLTK stopwords, words OR-ed',
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
    ...block('keel lexical, as lived', 'lived'),
    ...block('keel lexical, frozen clock', 'frozen'),
    ...(selection?.embedder
      ? block(`keel hybrid (${selection.info!.model}), as lived`, 'hybrid')
      : []),
    ...block('raw FTS5 BM25, "Speaker: text"', 'bm25'),
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

  // Paired, per question: a against b at each k.
  const previous = options.compare
    ? new Map(
        (
          JSON.parse(readFileSync(options.compare, 'utf8')) as { questions: LocomoQuestionResult[] }
        ).questions.map((r) => [r.id, r]),
      )
    : null;
  type Pick = (r: LocomoQuestionResult) => number[] | undefined;
  const pairs: [string, Pick, Pick][] = [
    ['as lived − raw BM25', (r) => r.lived, (r) => r.bm25],
    ['as lived − frozen', (r) => r.lived, (r) => r.frozen],
    ['frozen − raw BM25', (r) => r.frozen, (r) => r.bm25],
    ...(previous
      ? ([
          ['as lived − compared run as lived', (r) => r.lived, (r) => previous.get(r.id)?.lived],
          ['frozen − compared run frozen', (r) => r.frozen, (r) => previous.get(r.id)?.frozen],
        ] as [string, Pick, Pick][])
      : []),
  ];
  const pairedRows: string[][] = [];
  for (const [label, a, b] of pairs) {
    const both = results.filter((r) => a(r) && b(r));
    if (both.length === 0) continue;
    for (const [i, k] of KS.entries()) {
      pairedRows.push(
        pairedRow(
          `${label}, @${k}`,
          paired(
            both.map((r) => a(r)![i]!),
            both.map((r) => b(r)![i]!),
          ),
          100,
        ),
      );
    }
  }
  console.log();
  printTable(PAIRED_HEADER, pairedRows);
  const notes = [
    `Data: ${displayPath(options.data)} (${ids}); evidence recall@k in %, categories 1-4.`,
    `Clock as lived: one minute after each conversation's last turn (${livedClocks.join(', ')}); frozen: the run's start.`,
    'Raw FTS5 BM25: one row per turn, "Speaker: text", porter unicode61, question less NLTK stopwords, OR-ed.',
    'Paired: a − b per question, mean with a bootstrap 95% interval, wins/ties/losses, exact sign test.',
    'DRAGON row: the LoCoMo paper, over all ten conversations.',
    ...(options.compare ? [`Compared run: ${displayPath(options.compare)}.`] : []),
  ];
  writeResults('locomo', header, rows, notes, options.label, [
    { header: PAIRED_HEADER, rows: pairedRows },
  ]);
  writeQuestions('locomo', { data: displayPath(options.data), questions: results }, options.label);
  console.log(
    '\nThe DRAGON row is the LoCoMo paper’s dense retriever over dialog turns, averaged over all ten\n' +
      'LoCoMo conversations (Maharana et al., ACL 2024); keel’s rows are over the conversation(s) above.',
  );
  const main: System = results.some((r) => r.lived) ? 'lived' : 'frozen';
  return KS.map((k, i) => ({
    bench: 'locomo' as const,
    metric: `evidence recall@${k}, ${main === 'lived' ? 'as lived' : 'frozen clock'} (DRAGON ${DRAGON_DIALOG_RECALL[k].toFixed(1)})`,
    value: results.length ? `${pct(mean(results, main, i))} %` : '-',
    target: '',
  }));
}

if (isMain(import.meta.url)) await benchLocomo(parseBenchArgs());
