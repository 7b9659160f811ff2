/**
 * Hybrid recall latency at 10k and 100k rows (facts + episodes) with 384-d vectors: the same
 * synthetic store as `recall.ts` (90% imported conversation episodes, 10% facts through
 * `remember`), every row embedded, then 300 queries through `store.recall` (the one recall door).
 *
 * No real sentence-embedding weights are reachable on these machines, so the vectors come from a
 * stand-in: a dense random projection of the bag of words (each word a fixed pseudo-random 384-d
 * direction, summed and normalised). It is dense like MiniLM's output, so the index does the same
 * work; it says nothing about retrieval quality. Query vectors are computed before timing, so the
 * figures exclude the query's embedding time, as the issue asks; the stand-in's own embedding time
 * is printed apart and is NOT MiniLM's.
 *
 * Run alone: `node --import tsx bench/hybrid.ts [--quick]`.
 *
 * @module
 */
import { checkEmbeddings, type Embedder, type EmbedderInfo, type EmbedPurpose } from '@keel/memory';
import { contextOf, lexicalRecall } from '@keel/memory/internal';
import {
  type BenchOptions,
  heading,
  int,
  isMain,
  latencyLine,
  makeCorpusModel,
  ms,
  parseBenchArgs,
  printTable,
  type SummaryRow,
  summarize,
  time,
  withTempDir,
} from './lib.js';
import { buildStore, makeQueries } from './recall.js';
import { writeResults } from './results.js';

const DIM = 384;
const QUERIES = 300;
const WARMUP = 30;
const TARGET_P95_MS = 8;

/** A dense random-projection bag-of-words embedder (deterministic). Latency stand-in only. */
export class ProjectionEmbedder implements Embedder {
  readonly provider = 'projection';
  private readonly info: EmbedderInfo = {
    provider: 'projection',
    model: 'bow-rp-384',
    dim: DIM,
    dtype: 'fp32',
  };
  /**
   * 0.28: calibrated by `bench/similarity-floor.ts` on the shared data (the nearest of 50,989
   * turns to 200 nonsense queries is at most 0.277; a question's nearest turn is at least 0.29 for
   * 95% of them). See bench/results/similarity-floor-projection-2026-12-01.md.
   */
  readonly similarityFloor = 0.28;
  private readonly words = new Map<string, Float32Array>();
  /** Precomputed query vectors: served without work, so timing excludes embedding. */
  readonly cached = new Map<string, Float32Array>();
  embedMs = 0;
  embedded = 0;

  private direction(word: string): Float32Array {
    let v = this.words.get(word);
    if (!v) {
      v = new Float32Array(DIM);
      let h = 2166136261;
      for (let i = 0; i < word.length; i++) h = Math.imul(h ^ word.charCodeAt(i), 16777619);
      for (let i = 0; i < DIM; i++) {
        h = Math.imul(h ^ (h >>> 15), 2246822507) >>> 0;
        h = Math.imul(h ^ (h >>> 13), 3266489909) >>> 0;
        v[i] = (h / 4294967296) * 2 - 1;
      }
      this.words.set(word, v);
    }
    return v;
  }
  vector(text: string): Float32Array {
    const out = new Float32Array(DIM);
    for (const w of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? ['empty']) {
      const d = this.direction(w);
      for (let i = 0; i < DIM; i++) out[i]! += d[i]!;
    }
    return out;
  }
  async init(): Promise<EmbedderInfo> {
    return this.info;
  }
  async embed(texts: readonly string[], purpose: EmbedPurpose): Promise<Float32Array[]> {
    if (purpose === 'query') {
      const hit = texts.map((t) => this.cached.get(t));
      if (hit.every(Boolean)) return hit as Float32Array[];
    }
    const t0 = performance.now();
    const out = checkEmbeddings(
      this.info,
      texts,
      texts.map((t) => this.vector(t)),
    );
    this.embedMs += performance.now() - t0;
    this.embedded += texts.length;
    return out;
  }
}

/** Runs the hybrid latency benchmark and prints its figures. */
export async function benchHybrid(options: BenchOptions): Promise<SummaryRow[]> {
  heading('hybrid recall latency (384-d vectors, excluding query embedding)');
  const sizes = options.quick ? [10_000] : [10_000, 100_000];
  const model = makeCorpusModel();
  const queries = makeQueries(model, QUERIES + WARMUP, 97);
  const rows: string[][] = [];
  const summary: SummaryRow[] = [];
  await withTempDir(async (dir) => {
    for (const size of sizes) {
      const store = buildStore(dir, model, size);
      try {
        const embedder = new ProjectionEmbedder();
        await store.useEmbedder(embedder);
        const indexed = performance.now();
        const r = await store.embedPending();
        const indexMs = performance.now() - indexed;
        console.log(
          `${int(size)} rows: ${int(r.embedded)} vectors written in ${ms(indexMs)} ` +
            `(${int(r.embedded / (indexMs / 1000))} rows/s, of which stand-in embedding ${ms(embedder.embedMs)})`,
        );
        for (const q of queries) {
          const [v] = await embedder.embed([q.text], 'document');
          embedder.cached.set(q.text, v!);
        }
        // The first searches of a process are exact (sqlite-vec brute force); then the in-memory
        // codes are loaded. Both are reported apart from the warm figures.
        const warm: number[] = [];
        for (const q of queries.slice(0, WARMUP)) {
          const t0 = performance.now();
          await store.recall(q.text, { touch: false });
          warm.push(performance.now() - t0);
        }
        const coldMs = warm[0]!;
        const loadMs = Math.max(...warm.slice(1));
        const hybrid: number[] = [];
        const lexical: number[] = [];
        const episodesOnly: number[] = [];
        for (const [i, q] of queries.slice(WARMUP).entries()) {
          const runs = [
            async () => {
              const t0 = performance.now();
              const res = await store.recall(q.text, { touch: false });
              hybrid.push(performance.now() - t0);
              if (res.mode !== 'hybrid') throw new Error(`ran ${res.mode}: ${res.reason}`);
            },
            async () => {
              const t0 = performance.now();
              await store.recall(q.text, { touch: false, type: 'episode' });
              episodesOnly.push(performance.now() - t0);
            },
            async () => {
              lexical.push(
                time(() => lexicalRecall(contextOf(store), q.text, { touch: false })).ms,
              );
            },
          ];
          for (let j = 0; j < runs.length; j++) await runs[(i + j) % runs.length]!();
        }
        // Agreement of the fast path (binary first pass + 8-bit rescoring) with sqlite-vec's exact
        // brute-force KNN, and the exact KNN's own time, over 50 queries.
        const index = store.vectorIndex!;
        let overlap = 0;
        const exact: number[] = [];
        const fast: number[] = [];
        for (const q of queries.slice(WARMUP, WARMUP + 50)) {
          const v = embedder.cached.get(q.text)!;
          let t0 = performance.now();
          const a = index.knn('episode', v, 30);
          fast.push(performance.now() - t0);
          t0 = performance.now();
          const b = new Set(index.exactKnn('episode', v, 30).map((n) => n.id));
          exact.push(performance.now() - t0);
          overlap += a.filter((n) => b.has(n.id)).length / 30;
        }
        const h = summarize(hybrid);
        console.log(`  first query (cold: exact sqlite-vec search) ${ms(coldMs)}`);
        console.log(`  query that loads the in-memory codes ${ms(loadMs)}`);
        console.log(`  hybrid, both arms     ${latencyLine(h)}`);
        console.log(`  hybrid, episodes only ${latencyLine(summarize(episodesOnly))}`);
        console.log(`  lexical (same store)  ${latencyLine(summarize(lexical))}`);
        console.log(`  episode KNN k=30: fast path ${latencyLine(summarize(fast))}`);
        console.log(`  episode KNN k=30: exact sqlite-vec ${latencyLine(summarize(exact))}`);
        const agree = (100 * overlap) / 50;
        console.log(`  fast path finds ${agree.toFixed(1)}% of the exact top 30`);
        rows.push([
          int(size),
          ms(h.p50),
          ms(h.p95),
          ms(h.p99),
          ms(summarize(lexical).p95),
          ms(summarize(fast).p95),
          ms(summarize(exact).p95),
          `${agree.toFixed(1)} %`,
          ms(coldMs),
          ms(loadMs),
        ]);
        summary.push({
          bench: 'hybrid',
          metric: `hybrid recall p95 at ${int(size)} rows`,
          value: ms(h.p95),
          target: `≤ ${TARGET_P95_MS} ms`,
          met: h.p95 <= TARGET_P95_MS,
        });
      } finally {
        store.close();
      }
    }
  });
  console.log('');
  const header = [
    'rows',
    'hybrid p50',
    'hybrid p95',
    'hybrid p99',
    'lexical p95',
    'KNN fast p95',
    'KNN exact p95',
    'fast ∩ exact @30',
    'first query (exact)',
    'codes load',
  ];
  printTable(header, rows);
  writeResults('hybrid-latency', header, rows, [
    'Query embedding excluded (vectors precomputed). Vectors: dense random-projection stand-in, 384-d.',
    `Target: p95 ≤ ${TARGET_P95_MS} ms.`,
  ]);
  return summary;
}

if (isMain(import.meta.url)) await benchHybrid(parseBenchArgs());
