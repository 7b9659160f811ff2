/**
 * What keel's recall is compared with, in the same run on the same data: a raw SQLite FTS5 BM25
 * index (tokenizer `porter unicode61 remove_diacritics 2`, FTS5's own `bm25()`), queried with the
 * question's words less a standard English stopword list, OR-ed. No recency, no neighbours, no
 * fusion: the plain baseline a retrieval paper would run.
 *
 * - turns: one row per turn, indexed as "Speaker: text" (LoCoMo's baseline);
 * - sessions: one row per session, all its turns' text (LongMemEval's whole-session BM25).
 *
 * And the paired comparison: per question, the two systems' figures side by side — wins, ties and
 * losses, the mean difference with a bootstrap 95% interval, and an exact two-sided sign test.
 *
 * @module
 */
import Database from 'better-sqlite3';
import { Rng } from './lib.js';

/**
 * NLTK's English stopword list (179 words; nltk_data `corpora/stopwords/english`, Bird, Klein &
 * Loper, "Natural Language Processing with Python", 2009), the list most retrieval baselines use.
 */
export const NLTK_STOPWORDS: ReadonlySet<string> = new Set(
  `i me my myself we our ours ourselves you you're you've you'll you'd your yours yourself
yourselves he him his himself she she's her hers herself it it's its itself they them their theirs
themselves what which who whom this that that'll these those am is are was were be been being have
has had having do does did doing a an the and but if or because as until while of at by for with
about against between into through during before after above below to from up down in out on off
over under again further then once here there when where why how all any both each few more most
other some such no nor not only own same so than too very s t can will just don don't should
should've now d ll m o re ve y ain aren aren't couldn couldn't didn didn't doesn doesn't hadn hadn't
hasn hasn't haven haven't isn isn't ma mightn mightn't mustn mustn't needn needn't shan shan't
shouldn shouldn't wasn wasn't weren weren't won won't wouldn wouldn't`.split(/\s+/),
);

/** The baseline's query: lower-cased words (letters and digits) less stopwords, each quoted, OR-ed. */
export function baselineQuery(text: string): string | null {
  const words = text
    .toLowerCase()
    .replace(/’/g, "'")
    .match(/[\p{L}\p{N}]+(?:'[\p{L}]+)?/gu);
  const kept = [...new Set((words ?? []).filter((w) => !NLTK_STOPWORDS.has(w)))]
    .flatMap((w) => w.split("'"))
    .filter((w) => w.length > 0 && !NLTK_STOPWORDS.has(w));
  const terms = [...new Set(kept)];
  return terms.length ? terms.map((t) => `"${t}"`).join(' OR ') : null;
}

/** An in-memory FTS5 BM25 index of documents keyed by a string id. */
export class RawBm25 {
  private readonly db = new Database(':memory:');
  private readonly ids: string[] = [];

  constructor() {
    this.db.exec(
      `CREATE VIRTUAL TABLE docs USING fts5(body, tokenize = 'porter unicode61 remove_diacritics 2')`,
    );
  }

  /** Adds documents (id, text). */
  add(docs: Iterable<{ id: string; text: string }>): void {
    const insert = this.db.prepare('INSERT INTO docs (rowid, body) VALUES (?, ?)');
    this.db.transaction(() => {
      for (const d of docs) {
        this.ids.push(d.id);
        insert.run(this.ids.length, d.text);
      }
    })();
  }

  /** The ids of the best `limit` documents for `question`, best first. */
  search(question: string, limit: number): string[] {
    const match = baselineQuery(question);
    if (!match) return [];
    const rows = this.db
      .prepare('SELECT rowid AS id FROM docs WHERE docs MATCH ? ORDER BY bm25(docs) LIMIT ?')
      .all(match, limit) as { id: number }[];
    return rows.map((r) => this.ids[r.id - 1]!);
  }

  close(): void {
    this.db.close();
  }
}

/** The paired comparison of one figure over the same questions: system a against system b. */
export interface Paired {
  n: number;
  meanA: number;
  meanB: number;
  /** Mean of a − b. */
  diff: number;
  /** Bootstrap 95% interval of the mean difference (2,000 resamples, seeded). */
  lo: number;
  hi: number;
  wins: number;
  ties: number;
  losses: number;
  /** Exact two-sided sign test over the questions that differ. */
  p: number;
}

/** Two-sided exact binomial (p = 0.5) probability of a split at least as uneven as wins/losses. */
function signTest(wins: number, losses: number): number {
  const n = wins + losses;
  if (n === 0) return 1;
  const k = Math.min(wins, losses);
  let logC = 0;
  let tail = 0;
  for (let i = 0; i <= k; i++) {
    if (i > 0) logC += Math.log(n - i + 1) - Math.log(i);
    tail += Math.exp(logC - n * Math.LN2);
  }
  return Math.min(1, 2 * tail);
}

/** Compares per-question figures `a` and `b` (same questions, same order). */
export function paired(a: readonly number[], b: readonly number[]): Paired {
  const n = a.length;
  const d = a.map((x, i) => x - b[i]!);
  const mean = (xs: readonly number[]) => xs.reduce((s, x) => s + x, 0) / Math.max(1, xs.length);
  const rng = new Rng(20261201);
  const boots: number[] = [];
  for (let r = 0; r < 2000; r++) {
    let s = 0;
    for (let i = 0; i < n; i++) s += d[Math.floor(rng.next() * n)]!;
    boots.push(s / Math.max(1, n));
  }
  boots.sort((x, y) => x - y);
  const eps = 1e-12;
  const wins = d.filter((x) => x > eps).length;
  const losses = d.filter((x) => x < -eps).length;
  return {
    n,
    meanA: mean(a),
    meanB: mean(b),
    diff: mean(d),
    lo: boots[Math.floor(0.025 * boots.length)] ?? 0,
    hi: boots[Math.floor(0.975 * boots.length)] ?? 0,
    wins,
    ties: n - wins - losses,
    losses,
    p: signTest(wins, losses),
  };
}

/**
 * One row of a paired table: label, n, mean a, mean b, a − b [95% interval], wins/ties/losses, p.
 *
 * @param scale - 100 for shares shown in %, 1 for scores shown as 0..1.
 */
export function pairedRow(label: string, p: Paired, scale: number): string[] {
  const f = (x: number) => (scale === 100 ? (100 * x).toFixed(1) : x.toFixed(3));
  const s = (x: number) => `${x >= 0 ? '+' : ''}${f(x)}`;
  return [
    label,
    String(p.n),
    f(p.meanA),
    f(p.meanB),
    `${s(p.diff)} [${s(p.lo)}, ${s(p.hi)}]`,
    `${p.wins}/${p.ties}/${p.losses}`,
    p.p < 0.001 ? '<0.001' : p.p.toFixed(3),
  ];
}

/** The header of {@link pairedRow}'s table. */
export const PAIRED_HEADER = [
  'paired, per question',
  'n',
  'a',
  'b',
  'a − b [95% CI]',
  'a wins/ties/b wins',
  'sign test p',
] as const;
