/**
 * Calibrates an embedder's similarity floor (`packages/memory/src/vectors/floor.ts`) on the shared
 * data: how similar a question's nearest neighbour is, how similar its evidence is, and how similar
 * the nearest neighbour of a question about nothing is.
 *
 * - **Questions** (wanted above the floor): every LoCoMo conv-26 question against its 419 turns,
 *   every LongMemEval-S question (`longmemeval-dev/` and `longmemeval/`) against its own haystack;
 *   for each, the cosine similarity of its nearest turn, and of its best evidence turn (LoCoMo's
 *   `evidence` dia_ids; LongMemEval's turns marked `has_answer`).
 * - **Nonsense** (wanted below it): 200 queries that name nothing (made-up words of 5-14 random
 *   letters, one to four of them, and "nothingmatcheszzz"), each against every distinct turn of
 *   the data (about 53,000): the nearest of that many rows is what a large store would return.
 *
 * Printed: the distribution of each (p5 … max), the floor the nonsense asks for (its maximum,
 * rounded up to 0.01) and what that floor keeps of the questions. The texts are embedded as keel
 * embeds them (an episode as "Speaker: text", the question with purpose "query").
 *
 * `--embedder projection` (default: the benchmarks' dense random projection of the bag of words,
 * what `bench/hybrid.ts` and `bench/recall-latency.ts` run), `minilm` (the model under
 * `$KEEL_HOME/models`: `keel models pull`) or `ollama` (at `OLLAMA_HOST`).
 *
 * Run: `node --import tsx bench/similarity-floor.ts [--embedder projection|minilm|ollama]`.
 *
 * @module
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '@keel/host';
import { type Embedder, type EmbedderChoice, parseImport, selectEmbedder } from '@keel/memory';
import { ProjectionEmbedder } from './hybrid.js';
import { heading, int, isMain, percentile, printTable, Rng } from './lib.js';
import { SHARED_DATA } from './recall-latency.js';
import { writeResults } from './results.js';

/** Nonsense queries against the whole data. */
const NONSENSE = 200;
/** Texts per embedding call. */
const BATCH = 64;

/** One text to embed as a stored turn, with what it is evidence of. */
interface Turn {
  text: string;
  /** The question set and haystack it belongs to. */
  group: string;
  evidence: boolean;
}

/** A question and the haystack (`Turn.group`) it is asked against. */
interface Question {
  text: string;
  group: string;
}

/** The shared data as turns (grouped by haystack) and questions. */
function load(): { turns: Turn[]; questions: Question[]; distinct: string[] } {
  const turns: Turn[] = [];
  const questions: Question[] = [];
  const locomo = JSON.parse(readFileSync(join(SHARED_DATA, 'locomo', 'conv-26.json'), 'utf8')) as {
    qa: { question: string; evidence?: string[]; category: number }[];
  }[];
  const parsed = parseImport(locomo, 'locomo');
  const evidenceOf = new Map<string, Set<string>>();
  locomo[0]!.qa.forEach((q, i) => {
    if (q.category === 5 || !q.evidence?.length) return;
    const group = `locomo#${i}`;
    questions.push({ text: q.question, group });
    evidenceOf.set(group, new Set(q.evidence));
  });
  // LoCoMo questions share one haystack: its turns are added once per question that has evidence,
  // marked for that question (the similarity work is the same; the turns are few).
  for (const q of questions) {
    const ev = evidenceOf.get(q.group)!;
    for (const t of parsed.turns) {
      turns.push({
        text: `${t.speaker}: ${t.text}`,
        group: q.group,
        evidence: ev.has(t.sourceId.replace(/#\d+$/, '')),
      });
    }
  }
  const distinct = new Set(parsed.turns.map((t) => `${t.speaker}: ${t.text}`));
  for (const dir of ['longmemeval-dev', 'longmemeval']) {
    const folder = join(SHARED_DATA, dir);
    for (const f of readdirSync(folder).sort()) {
      if (!f.endsWith('.json')) continue;
      const q = JSON.parse(readFileSync(join(folder, f), 'utf8')) as {
        question_id: string;
        question: string;
        haystack_sessions: { role: string; content: string; has_answer?: boolean }[][];
      };
      if (q.question_id.endsWith('_abs')) continue;
      const group = `lme#${q.question_id}`;
      questions.push({ text: q.question, group });
      for (const t of q.haystack_sessions.flat()) {
        const text = `${t.role}: ${t.content}`;
        turns.push({ text, group, evidence: t.has_answer === true });
        distinct.add(text);
      }
    }
  }
  return { turns, questions, distinct: [...distinct] };
}

/** Embeds texts in batches, each vector unit length (the embedders return them so). */
async function embedAll(
  embedder: Embedder,
  texts: readonly string[],
  purpose: 'query' | 'document',
): Promise<Float32Array[]> {
  const out: Float32Array[] = [];
  const cache = new Map<string, Float32Array>();
  const todo = [...new Set(texts)];
  for (let i = 0; i < todo.length; i += BATCH) {
    const batch = todo.slice(i, i + BATCH).map((t) => t.slice(0, 4000));
    const vs = await embedder.embed(batch, purpose);
    for (const [j, t] of batch.entries()) cache.set(t, vs[j]!);
  }
  for (const t of texts) out.push(cache.get(t.slice(0, 4000))!);
  return out;
}

const dot = (a: Float32Array, b: Float32Array) => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
};

/** Nonsense queries: made-up words of random letters, and "nothingmatcheszzz". */
function nonsense(count: number): string[] {
  const rng = new Rng(97);
  const word = () =>
    Array.from({ length: rng.int(5, 14) }, () => String.fromCharCode(97 + rng.int(0, 25))).join('');
  const out = ['nothingmatcheszzz'];
  while (out.length < count) out.push(Array.from({ length: rng.int(1, 4) }, word).join(' '));
  return out;
}

/** p5, p25, p50, p75, p95, max of `xs`, two decimals each. */
const spread = (xs: readonly number[]) =>
  [5, 25, 50, 75, 95, 100].map((p) => percentile(xs, p).toFixed(3));

/** Runs the calibration and prints its figures. */
export async function benchSimilarityFloor(choice: string): Promise<void> {
  heading(`similarity floor: ${choice}`);
  let embedder: Embedder;
  if (choice === 'projection') embedder = new ProjectionEmbedder();
  else {
    const config = loadConfig(process.env);
    const s = await selectEmbedder({
      choice: choice as EmbedderChoice,
      modelsDir: config.paths.models,
      ollamaHost: config.embedder.ollamaHost,
      ollamaModel: config.embedder.ollamaModel,
    });
    embedder = s.embedder!;
  }
  const info = await embedder.init();
  const { turns, questions, distinct } = load();
  console.log(
    `${info.provider} ${info.model} (${info.dim}-d); ${int(questions.length)} questions; ` +
      `${int(distinct.length)} distinct turns; ${NONSENSE} nonsense queries`,
  );
  const t0 = performance.now();
  const turnVectors = new Map<string, Float32Array>();
  const all = await embedAll(embedder, distinct, 'document');
  for (const [i, t] of distinct.entries()) turnVectors.set(t, all[i]!);
  const qv = await embedAll(
    embedder,
    questions.map((q) => q.text),
    'query',
  );
  console.log(`embedded in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

  const byGroup = new Map<string, Turn[]>();
  for (const t of turns) {
    const list = byGroup.get(t.group);
    if (list) list.push(t);
    else byGroup.set(t.group, [t]);
  }
  const nearest: number[] = [];
  const evidence: number[] = [];
  questions.forEach((q, i) => {
    let best = -1;
    let ev = -1;
    for (const t of byGroup.get(q.group) ?? []) {
      const s = dot(qv[i]!, turnVectors.get(t.text)!);
      best = Math.max(best, s);
      if (t.evidence) ev = Math.max(ev, s);
    }
    nearest.push(best);
    if (ev > -1) evidence.push(ev);
  });
  const junk = nonsense(NONSENSE);
  const jv = await embedAll(embedder, junk, 'query');
  const junkNearest = jv.map((v) => {
    let best = -1;
    for (const t of all) best = Math.max(best, dot(v, t));
    return best;
  });
  const floor = Math.ceil(Math.max(...junkNearest) * 100) / 100;
  const kept = (xs: number[]) =>
    `${((100 * xs.filter((x) => x >= floor).length) / xs.length).toFixed(1)} %`;
  const header = ['similarity of', 'n', 'p5', 'p25', 'p50', 'p75', 'p95', 'max', `≥ ${floor}`];
  const rows = [
    ['question → nearest turn', int(nearest.length), ...spread(nearest), kept(nearest)],
    ['question → best evidence turn', int(evidence.length), ...spread(evidence), kept(evidence)],
    [
      `nonsense → nearest of ${int(all.length)}`,
      int(junkNearest.length),
      ...spread(junkNearest),
      kept(junkNearest),
    ],
  ];
  printTable(header, rows);
  console.log(
    `\nfloor asked for by the nonsense (its maximum, rounded up): ${floor}; ` +
      `keeps ${kept(evidence)} of the best evidence turns and ${kept(nearest)} of the nearest turns`,
  );
  writeResults(`similarity-floor-${info.provider}`, header, rows, [
    `Embedder: ${info.provider} ${info.model} (${info.dim}-d, ${info.dtype}).`,
    `Questions: LoCoMo conv-26 (categories 1-4 with evidence) against its turns; LongMemEval-S (dev and the 12, abstention left out) against its own haystack. Evidence: dia_ids; has_answer turns.`,
    `Nonsense: ${NONSENSE} queries of 1-4 made-up words of 5-14 random letters (seeded), and "nothingmatcheszzz", against all ${int(all.length)} distinct turns.`,
    `Floor asked for: ${floor} (the nonsense maximum, rounded up to 0.01).`,
  ]);
}

if (isMain(import.meta.url)) {
  const { values } = parseArgs({
    options: { embedder: { type: 'string', default: 'projection' } },
    strict: true,
  });
  await benchSimilarityFloor(values.embedder);
}
