/**
 * Recall's full-text indexes mirrored in memory: BM25 over the conversation turns and the active
 * facts, ranked the way FTS5's `bm25()` ranks them, without FTS5's per-row cost.
 *
 * FTS5 scores every row a query's OR-ed words match, calling `bm25()` for each (a doclist walk,
 * position lists decoded, a `%_docsize` lookup per row) and sorting them all: at 100k turns a
 * question of twenty words costs 3-15 ms, most of it there. A mirror holds, for each token of an
 * FTS5 table, the rows that hold it and how often (postings), and each row's length in tokens; a
 * query adds up each matching row's BM25 in a dense accumulator and keeps the best k.
 *
 * **The same ranking, by construction.** The postings are read from the FTS5 table itself
 * (`fts5vocab`, so the tokens are FTS5's own, over `keel_fold`ed text), rows written later are
 * tokenized by a TEMP FTS5 table of the same tokenizer, and a query's phrases too; the score is
 * FTS5's formula in FTS5's order of operations (SQLite's `ext/fts5/fts5_aux.c`,
 * `fts5Bm25Function`: k1 = 1.2, b = 0.75, IDF log((N − n + 0.5) / (n + 0.5)) floored at 1e-6, a
 * phrase's frequency counted in the searched columns, the row's length over all columns, N and the
 * average length from FTS5's own statistics). `postings.test.ts` holds the two to the same scores.
 * A query a mirror cannot answer the same way (a phrase of more or fewer than one token, as a Korean
 * word, one token a syllable, is; a read inside a write transaction, whose FTS5 changes are not yet in its tables) gets
 * null, and recall asks FTS5.
 *
 * **Built in steps, kept current.** {@link RecallIndex.step} builds a bounded slice at a time (a
 * long-running door calls it while idle; one-shot commands never build it, and their recall asks
 * FTS5). The episodes' mirror catches up on each query: turns appended since (by any connection)
 * are tokenized and added, up to {@link CATCH_UP_ROWS}; more (an import) or a redaction (the
 * journal records each before a turn's text changes) drops it until it is built again. The facts'
 * mirror is current while `facts_fts` is unchanged (FTS5's structure record changes with every
 * write to it); a change leaves recall asking FTS5 for facts until the next step rebuilds it (a few
 * milliseconds for thousands of facts). Nothing is written to the store.
 *
 * @module
 */
import type Database from 'better-sqlite3';
import { countRows, stmt } from '../context.js';

/** BM25 k1, as FTS5's `bm25()` (SQLite `ext/fts5/fts5_aux.c`). */
const K1 = 1.2;
/** BM25 b, as FTS5's `bm25()`. */
const B = 0.75;
/** FTS5's floor for a phrase's IDF (a word in more than half the rows). */
const MIN_IDF = 1e-6;
/** Turns appended since the last query that are tokenized on the read path; more means a rebuild. */
export const CATCH_UP_ROWS = 2000;
/**
 * Term occurrences read from FTS5's vocabulary per statement while building (about 10 ms of work;
 * a single term said more often is read alone, in one statement).
 */
const BUILD_INSTANCES = 40_000;
/** Terms whose counts are read per statement to plan the build's statements. */
const PLAN_TERMS = 3000;
/** Turns' dates read per statement while building. */
const BUILD_ROWS = 8000;
/** Query phrases whose tokens are remembered (the cache is cleared when full). */
const PHRASE_CACHE = 20_000;

/** One ranked row: its id and its FTS5-style BM25 (negative; lower is better). */
export interface Hit {
  id: number;
  bm: number;
}

/** Which turns may be returned: said at or after `from`, before `to` (ms since epoch). */
export interface HitFilter {
  from?: number;
  to?: number;
}

/** The columns of a turn that recall scores with (an `episodes` row's, as they are stored). */
export interface TurnKey {
  id: number;
  occurred_at: number;
  session_key: string | null;
  channel: string;
  speaker: string | null;
}

/** What {@link RecallIndex.searchFacts} returns. */
export interface FactHits {
  /** The best facts by BM25 over kind/key and value, best first (ties by id). */
  hits: Hit[];
  /** Every matching fact whose kind/key holds a query phrase (recall's key boost). */
  keyed: Set<number>;
}

/** The rows that hold one token, in id order, how often, and whether in the flagged column. */
interface Postings {
  docs: Int32Array;
  /** How often (32 bits: FTS5 counts every instance; a turn may say one word 65,536 times). */
  tf: Uint32Array;
  flag: Uint8Array;
  n: number;
}

/** An FTS5 table as a mirror reads it. */
interface TableSpec {
  table: 'episodes_fts' | 'facts_fts';
  /** Its columns, in order. */
  columns: readonly string[];
  /** The columns whose instances are a phrase's frequency (what `{col} :` restricts a query to). */
  searched: readonly boolean[];
  /** The column whose holding a token is flagged per posting (-1: none). */
  flagged: number;
}

const EPISODES: TableSpec = {
  table: 'episodes_fts',
  columns: ['text', 'speaker'],
  searched: [true, false],
  flagged: -1,
};
const FACTS: TableSpec = {
  table: 'facts_fts',
  columns: ['key', 'value'],
  searched: [true, true],
  flagged: 0,
};

/** Grows a typed array to hold index `i` (new room zeroed, or NaN for a Float64Array). */
function grow<T extends Uint32Array | Float64Array | Int32Array | Uint8Array>(a: T, i: number): T {
  if (i < a.length) return a;
  let size = Math.max(16, a.length);
  while (size <= i) size *= 2;
  const b = new (a.constructor as new (n: number) => T)(size);
  b.set(a);
  if (b instanceof Float64Array) b.fill(Number.NaN, a.length);
  return b;
}

/**
 * The SQLite varints of `bytes`, in order (big-endian groups of 7 bits, the high bit set on all
 * but the last byte; a ninth byte carries 8 bits: SQLite's `sqlite3GetVarint`).
 */
function varints(bytes: Uint8Array): number[] {
  const out: number[] = [];
  let i = 0;
  while (i < bytes.length) {
    let v = 0;
    let n = 0;
    for (;;) {
      const byte = bytes[i++]!;
      if (n === 8) {
        v = v * 256 + byte;
        break;
      }
      v = v * 128 + (byte & 0x7f);
      n++;
      if (byte < 0x80 || i >= bytes.length) break;
    }
    out.push(v);
  }
  return out;
}

/** The FTS5 `tokenize` option of `table`, as it was created. */
function tokenizerOf(db: Database.Database, table: string): string {
  const row = db.prepare('SELECT sql FROM sqlite_master WHERE name = ?').get(table) as
    | { sql: string }
    | undefined;
  const m = row?.sql.match(/tokenize\s*=\s*'((?:[^']|'')*)'/i);
  return m ? m[1]!.replaceAll("''", "'") : 'unicode61';
}

/**
 * One FTS5 table's postings in memory: built from its vocabulary a slice at a time, extended by
 * rows tokenized later, scored as `bm25()` scores.
 */
class FtsMirror {
  readonly #db: Database.Database;
  readonly #spec: TableSpec;
  readonly #temp: string;
  #terms = new Map<string, Postings>();
  /** Tokens per row over all columns, by rowid. */
  #length = new Uint32Array(0);
  /** Rows past this id are not read by the build (written after it began). */
  #upTo = 0;
  /** The build's next statements: ranges of terms, first to last, of bounded occurrences. */
  #plan: [string, string][] = [];
  /** The last term planned; null before the first. */
  #planned: string | null = null;
  /** True once every term is planned. */
  #planDone = false;
  /** True once the build read the whole vocabulary. */
  built = false;
  #acc = new Float64Array(0);
  /** The generation of the statistics each row's norm was computed with (see {@link #norm}). */
  #stamp = new Int32Array(0);
  #generation = 0;
  #touched = new Int32Array(0);
  #hit = new Uint8Array(0);
  /**
   * K1 · (1 − B + B · length / avgdl) by rowid, computed with the statistics of generation
   * {@link #stamp} (the norms change with every write; a row's is computed when a query needs it).
   */
  #norm = new Float64Array(0);
  /** (1 · (K1 + 1)) / (1 + norm) by rowid: a posting of frequency 1's term before its IDF. */
  #once = new Float64Array(0);
  #normKey = '';
  #version = 0;
  readonly #phrases = new Map<string, string | null>();
  /** True once this connection has the TEMP objects. */
  #tempMade = false;

  constructor(db: Database.Database, spec: TableSpec) {
    this.#db = db;
    this.#spec = spec;
    this.#temp = `keel_tokenize_${spec.table}`;
  }

  /** Starts over: empty, reading rows up to `upTo` (rowid) from the first term. */
  begin(upTo: number): void {
    this.#terms = new Map();
    this.#length = new Uint32Array(upTo + 1);
    this.#upTo = upTo;
    this.#plan = [];
    this.#planned = null;
    this.#planDone = false;
    this.built = false;
    this.#version++;
  }

  /**
   * One slice of the build: plans the next statements from the vocabulary's term counts, or reads
   * one range of terms (at most {@link BUILD_INSTANCES} occurrences, unless one term has more).
   *
   * @returns true once built.
   */
  buildStep(): boolean {
    if (this.built) return true;
    this.#ensureTemp();
    const range = this.#plan.shift();
    if (!range) {
      if (this.#planDone) {
        this.built = true;
        return true;
      }
      const terms = stmt(
        this.#db,
        `SELECT term, cnt FROM temp.${this.#temp}_rows WHERE term > ? ORDER BY term LIMIT ?`,
      )
        .raw()
        .all(this.#planned ?? '', PLAN_TERMS) as [string, number][];
      let first: string | null = null;
      let last = '';
      let sum = 0;
      for (const [term, cnt] of terms) {
        if (first !== null && sum + cnt > BUILD_INSTANCES) {
          this.#plan.push([first, last]);
          first = null;
          sum = 0;
        }
        first ??= term;
        last = term;
        sum += cnt;
      }
      if (first !== null) this.#plan.push([first, last]);
      if (terms.length > 0) this.#planned = terms[terms.length - 1]![0];
      if (terms.length < PLAN_TERMS) this.#planDone = true;
      return false;
    }
    const groups = stmt(
      this.#db,
      `SELECT term, group_concat(doc), group_concat(${this.#columnDigit()}, '')
       FROM temp.${this.#temp}_main WHERE term >= ? AND term <= ? GROUP BY term`,
    )
      .raw()
      .all(range[0], range[1]) as [string, string, string][];
    for (const [term, docs, cols] of groups) this.#add(term, docs, cols);
    return false;
  }

  /**
   * Adds rows written after the build: `select` (with `params`) yields `(rowid, col1, col2)` as
   * the FTS5 table's trigger writes them; they are tokenized by a TEMP table of the same tokenizer.
   */
  addRows(select: string, params: unknown[], upTo: number): void {
    this.#ensureTemp();
    const [a, b] = this.#spec.columns;
    let groups: [string, string, string][];
    try {
      stmt(this.#db, `INSERT INTO temp.${this.#temp} (rowid, ${a}, ${b}) ${select}`).run(...params);
      groups = stmt(
        this.#db,
        `SELECT term, group_concat(doc), group_concat(${this.#columnDigit()}, '')
         FROM temp.${this.#temp}_vocab GROUP BY term`,
      )
        .raw()
        .all() as [string, string, string][];
    } finally {
      stmt(this.#db, `DELETE FROM temp.${this.#temp}`).run();
    }
    this.#length = grow(this.#length, upTo);
    this.#upTo = upTo;
    for (const [term, docs, cols] of groups) this.#add(term, docs, cols);
    this.#version++;
  }

  /** `CASE col …` giving each instance's column as one digit. */
  #columnDigit(): string {
    const cases = this.#spec.columns.map((c, i) => `WHEN '${c}' THEN '${i}'`).join(' ');
    return `CASE col ${cases} END`;
  }

  /**
   * Adds one term's instances (`docs`: the row of each, comma-separated, in row order; `cols`: the
   * column of each as a digit): each counts toward its row's length; rows holding it in a searched
   * column are its postings.
   */
  #add(term: string, docs: string, cols: string): void {
    const ids = docs.split(',');
    const { searched, flagged } = this.#spec;
    let p = this.#terms.get(term);
    const fresh = !p;
    if (!p) p = { docs: new Int32Array(8), tf: new Uint32Array(8), flag: new Uint8Array(8), n: 0 };
    // Rows are added in id order, each term once per batch: the new postings follow the old ones.
    const before = p.n;
    let last = -1;
    for (let i = 0; i < ids.length; i++) {
      const d = +ids[i]!;
      if (d > this.#upTo) continue;
      this.#length[d]!++;
      const col = cols.charCodeAt(i) - 48;
      if (d !== last) {
        if (p.n === p.docs.length) {
          p.docs = grow(p.docs, p.n);
          p.tf = grow(p.tf, p.n);
          p.flag = grow(p.flag, p.n);
        }
        p.docs[p.n] = d;
        p.tf[p.n] = 0;
        p.flag[p.n] = 0;
        p.n++;
        last = d;
      }
      if (searched[col]) p.tf[p.n - 1]!++;
      if (col === flagged) p.flag[p.n - 1] = 1;
    }
    // A row holding the term only outside the searched columns is not a posting of it.
    let w = before;
    for (let r = before; r < p.n; r++) {
      if (p.tf[r] === 0) continue;
      p.docs[w] = p.docs[r]!;
      p.tf[w] = p.tf[r]!;
      p.flag[w] = p.flag[r]!;
      w++;
    }
    p.n = w;
    if (fresh && p.n > 0) {
      // Exact-size arrays for a built term (most are short).
      p.docs = p.docs.slice(0, p.n);
      p.tf = p.tf.slice(0, p.n);
      p.flag = p.flag.slice(0, p.n);
      this.#terms.set(term, p);
    }
  }

  /**
   * FTS5's statistics of the table: its row count and its token total over all columns, from the
   * averages record (`%_data` row 1: the row count, then each column's total, as SQLite varints;
   * `ext/fts5/fts5_index.c`, `sqlite3Fts5IndexGetAverages`). They are what `bm25()` reads through
   * `xRowCount` and `xColumnTotalSize`, and they are not a count of the rows: a row deleted from a
   * contentless table stays counted.
   */
  #averages(): { rows: number; tokens: number } {
    const row = stmt(this.#db, `SELECT block FROM ${this.#spec.table}_data WHERE id = 1`).get() as
      | { block: Uint8Array }
      | undefined;
    if (!row) return { rows: 0, tokens: 0 };
    const values = varints(row.block);
    let tokens = 0;
    for (let i = 1; i < values.length; i++) tokens += values[i]!;
    return { rows: values[0] ?? 0, tokens };
  }

  /**
   * FTS5's structure record of the table (`%_data` row 10), which every write to it changes (it
   * counts writes), as hex.
   */
  structure(): string {
    const row = stmt(
      this.#db,
      `SELECT hex(block) AS h FROM ${this.#spec.table}_data WHERE id = 10`,
    ).get() as { h: string } | undefined;
    return row?.h ?? '';
  }

  /**
   * The best `k` rows for a query of `phrases` (each one token, else null), best first (ties by
   * id), among rows `accept` lets through; with the set of matching rows flagged for a phrase.
   */
  search(
    phrases: readonly string[],
    k: number,
    accept: ((id: number) => boolean) | null,
  ): { hits: Hit[]; flagged: Set<number> } | null {
    const tokens = this.#tokens(phrases);
    if (!tokens) return null;
    const size = this.#length.length;
    if (this.#acc.length < size) {
      this.#acc = new Float64Array(size);
      this.#touched = new Int32Array(size);
      this.#hit = new Uint8Array(size);
      this.#norm = new Float64Array(size);
      this.#once = new Float64Array(size);
      this.#stamp = new Int32Array(size);
      this.#normKey = '';
    }
    const acc = this.#acc;
    const touched = this.#touched;
    const hit = this.#hit;
    const norm = this.#norm;
    const once = this.#once;
    const stamp = this.#stamp;
    const length = this.#length;
    const { rows, tokens: total } = this.#averages();
    // The norms depend on the statistics: computed for a row when first needed under them.
    const key = `${rows}:${total}:${this.#version}`;
    if (key !== this.#normKey) {
      this.#normKey = key;
      this.#generation = (this.#generation + 1) | 0 || 1;
    }
    const gen = this.#generation;
    const avgdl = total / rows;
    const flags = this.#spec.flagged >= 0;
    let m = 0;
    for (const token of tokens) {
      const p = this.#terms.get(token);
      if (!p) continue;
      let idf = Math.log((rows - p.n + 0.5) / (p.n + 0.5));
      if (idf <= 0) idf = MIN_IDF;
      const { docs, tf, flag, n } = p;
      // FTS5: score += idf * ((f * (k1 + 1)) / (f + k1 * (1 - b + b * D / avgdl))), phrase by phrase.
      for (let j = 0; j < n; j++) {
        const d = docs[j]!;
        const f = tf[j]!;
        if (stamp[d] !== gen) {
          // FTS5: k1 * (1 - b + b * D / avgdl), in this order of operations; and a frequency of
          // 1's whole term, (1 * (k1 + 1)) / (1 + that), the same double as computed below.
          const x = K1 * (1 - B + (B * length[d]!) / avgdl);
          norm[d] = x;
          once[d] = (1 * (K1 + 1.0)) / (1 + x);
          stamp[d] = gen;
        }
        const a = acc[d]!;
        if (a === 0) touched[m++] = d;
        acc[d] = a + idf * (f === 1 ? once[d]! : (f * (K1 + 1.0)) / (f + norm[d]!));
      }
      if (flags) for (let j = 0; j < n; j++) hit[docs[j]!]! |= flag[j]!;
    }
    const best = new TopK(k);
    const flagged = new Set<number>();
    for (let i = 0; i < m; i++) {
      const d = touched[i]!;
      if (!accept || accept(d)) best.offer(d, acc[d]!);
      if (hit[d]) flagged.add(d);
      acc[d] = 0;
      hit[d] = 0;
    }
    return { hits: best.sorted(), flagged };
  }

  /** Each phrase's one token, or null when one is not exactly one token. */
  #tokens(phrases: readonly string[]): string[] | null {
    const unknown = [...new Set(phrases.filter((p) => !this.#phrases.has(p)))];
    if (unknown.length > 0) {
      this.#ensureTemp();
      if (this.#phrases.size + unknown.length > PHRASE_CACHE) this.#phrases.clear();
      const [a, b] = this.#spec.columns;
      const insert = stmt(
        this.#db,
        `INSERT INTO temp.${this.#temp} (rowid, ${a}, ${b}) VALUES (?, ?, '')`,
      );
      const found = new Map<number, string[]>();
      try {
        for (const [i, p] of unknown.entries()) insert.run(i + 1, p);
        for (const [doc, term] of stmt(
          this.#db,
          `SELECT doc, term FROM temp.${this.#temp}_vocab ORDER BY doc, offset`,
        )
          .raw()
          .all() as [number, string][]) {
          const list = found.get(doc);
          if (list) list.push(term);
          else found.set(doc, [term]);
        }
      } finally {
        stmt(this.#db, `DELETE FROM temp.${this.#temp}`).run();
      }
      for (const [i, p] of unknown.entries()) {
        const list = found.get(i + 1);
        this.#phrases.set(p, list?.length === 1 ? list[0]! : null);
      }
    }
    const out: string[] = [];
    for (const p of phrases) {
      const t = this.#phrases.get(p);
      if (t === null || t === undefined) return null;
      out.push(t);
    }
    return out;
  }

  /**
   * Creates, once per connection, the TEMP objects a mirror reads through: the table's vocabulary
   * (`fts5vocab`, instance and row), and an FTS5 table of the same columns and tokenizer with its
   * own.
   */
  #ensureTemp(): void {
    if (this.#tempMade) return;
    const { table, columns } = this.#spec;
    const tokenize = tokenizerOf(this.#db, table).replaceAll("'", "''");
    this.#db.exec(`
      CREATE VIRTUAL TABLE IF NOT EXISTS temp.${this.#temp}_main
        USING fts5vocab(main, '${table}', 'instance');
      CREATE VIRTUAL TABLE IF NOT EXISTS temp.${this.#temp}_rows
        USING fts5vocab(main, '${table}', 'row');
      CREATE VIRTUAL TABLE IF NOT EXISTS temp.${this.#temp}
        USING fts5(${columns.join(', ')}, tokenize = '${tokenize}');
      CREATE VIRTUAL TABLE IF NOT EXISTS temp.${this.#temp}_vocab
        USING fts5vocab(temp, '${this.#temp}', 'instance');`);
    this.#tempMade = true;
  }
}

/** The episodes' mirror's own state: what it has read, and when each turn was said. */
interface EpisodeState {
  /** The highest episode id read (all kinds). */
  maxId: number;
  /** The journal's newest sequence number when last checked. */
  seq: number;
  /** When each turn was said, by id (NaN: not an indexed turn). */
  occurred: Float64Array;
  /** Each turn's session, channel and speaker, by id, as indexes into {@link strings} (-1: null). */
  session: Int32Array;
  channel: Int32Array;
  speaker: Int32Array;
  strings: string[];
  interned: Map<string, number>;
  /** The last id whose date was read (dates are read before the vocabulary). */
  datesTo: number;
  ready: boolean;
}

/**
 * Recall's two full-text indexes mirrored in memory (see the module notes), one per store
 * connection: built by {@link step}, queried by {@link searchEpisodes} and {@link searchFacts}.
 */
export class RecallIndex {
  readonly #db: Database.Database;
  readonly #episodes: FtsMirror;
  readonly #facts: FtsMirror;
  #ep: EpisodeState | null = null;
  /** `facts_fts`'s structure record when the facts' mirror began its build. */
  #factsAt: string | null = null;
  #factsBuilt: string | null = null;

  constructor(db: Database.Database) {
    this.#db = db;
    this.#episodes = new FtsMirror(db, EPISODES);
    this.#facts = new FtsMirror(db, FACTS);
  }

  /** True when both mirrors answer queries (as of the last step or query). */
  get ready(): boolean {
    return this.#ep?.ready === true && this.#factsBuilt !== null;
  }

  /** Drops the episodes' mirror: recall asks FTS5 for turns until the next build completes. */
  resetEpisodes(): void {
    this.#ep = null;
  }

  /**
   * Advances the builds by about `budgetMs` of work (at least one statement): the episodes'
   * mirror first, then the facts' (again whenever `facts_fts` changed).
   *
   * @param budgetMs - time to spend, ms (Infinity: build both whole).
   * @returns true when both are ready.
   */
  step(budgetMs: number): boolean {
    const until = performance.now() + budgetMs;
    do {
      if (!this.#ep?.ready) this.#episodeStep();
      else if (this.#factsBuilt === null || this.#factsBuilt !== this.#facts.structure()) {
        this.#factsBuilt = null;
        if (this.#factsAt === null) {
          this.#factsAt = this.#facts.structure();
          this.#facts.begin(this.#maxOf('facts'));
        }
        if (this.#facts.buildStep()) {
          this.#factsBuilt = this.#factsAt;
          this.#factsAt = null;
        }
      } else return true;
    } while (performance.now() < until);
    return this.ready && this.#factsBuilt === this.#facts.structure();
  }

  /**
   * The best `k` turns for the phrases of an FTS5 query `{text} : ("p1" OR "p2" …)`, by BM25 as
   * FTS5 scores them, best first (ties by id), after catching up with the store.
   *
   * @param phrases - the query's phrases in order, as written inside the quotes (folded text).
   * @returns the hits, or null when recall must ask FTS5 (see the module notes).
   */
  searchEpisodes(phrases: readonly string[], k: number, filter: HitFilter = {}): Hit[] | null {
    return this.#snapshot(() => {
      if (!this.#catchUp()) return null;
      const occurred = this.#ep!.occurred;
      const from = filter.from ?? Number.NEGATIVE_INFINITY;
      const to = filter.to ?? Number.POSITIVE_INFINITY;
      const accept =
        filter.from === undefined && filter.to === undefined
          ? null
          : (d: number) => occurred[d]! >= from && occurred[d]! < to;
      return this.#episodes.search(phrases, k, accept)?.hits ?? null;
    });
  }

  /**
   * `read` in one read transaction (so the catch-up, FTS5's statistics and the check that the
   * mirror is current all see the same state), or null inside a caller's write transaction (its
   * FTS5 changes are not in the tables yet, and rolled-back rows must never enter the mirror).
   */
  #snapshot<T>(read: () => T | null): T | null {
    if (this.#db.inTransaction) return null;
    return this.#db.transaction(read).deferred();
  }

  /**
   * The scoring columns of the conversation turns among `ids` (others, and unknown ids, left
   * out), in no particular order, as the `episodes` rows hold them.
   *
   * @returns null when recall must read them from the store (the mirror is not ready).
   */
  turnKeys(ids: readonly number[]): TurnKey[] | null {
    return this.#snapshot(() => {
      if (!this.#catchUp()) return null;
      const ep = this.#ep!;
      const out: TurnKey[] = [];
      const str = (i: number) => (i < 0 ? null : ep.strings[i]!);
      for (const id of ids) {
        if (!(id > 0 && id <= ep.maxId) || Number.isNaN(ep.occurred[id]!)) continue;
        out.push({
          id,
          occurred_at: ep.occurred[id]!,
          session_key: str(ep.session[id]!),
          channel: ep.strings[ep.channel[id]!]!,
          speaker: str(ep.speaker[id]!),
        });
      }
      return out;
    });
  }

  /**
   * The best `k` active facts for the FTS5 query `"p1" OR "p2" …` over kind/key and value, by
   * BM25 as FTS5 scores them, best first (ties by id), and which matching facts hold a phrase in
   * their kind/key.
   *
   * @returns the hits, or null when recall must ask FTS5 (not built, or `facts_fts` changed since).
   */
  searchFacts(phrases: readonly string[], k: number): FactHits | null {
    return this.#snapshot(() => {
      if (this.#factsBuilt === null || this.#factsBuilt !== this.#facts.structure()) return null;
      const found = this.#facts.search(phrases, k, null);
      return found ? { hits: found.hits, keyed: found.flagged } : null;
    });
  }

  #maxOf(table: 'episodes' | 'facts'): number {
    return countRows(this.#db, `SELECT coalesce(max(id), 0) AS n FROM ${table}`);
  }

  #journalSeq(): number {
    return countRows(this.#db, 'SELECT coalesce(max(seq), 0) AS n FROM journal');
  }

  /** One slice of the episodes' build: the turns' dates, then the vocabulary. */
  #episodeStep(): void {
    if (!this.#ep) {
      const maxId = this.#maxOf('episodes');
      this.#ep = {
        maxId,
        seq: this.#journalSeq(),
        occurred: new Float64Array(maxId + 1).fill(Number.NaN),
        session: new Int32Array(maxId + 1),
        channel: new Int32Array(maxId + 1),
        speaker: new Int32Array(maxId + 1),
        strings: [],
        interned: new Map(),
        datesTo: 0,
        ready: false,
      };
      this.#episodes.begin(maxId);
    }
    const ep = this.#ep;
    if (ep.datesTo < ep.maxId) {
      const rows = stmt(
        this.#db,
        `SELECT ${TURN_COLUMNS} FROM episodes
         WHERE id > ? AND id <= ? AND kind = 'conversation' ORDER BY id LIMIT ?`,
      )
        .raw()
        .all(ep.datesTo, ep.maxId, BUILD_ROWS) as TurnRow[];
      keep(ep, rows);
      ep.datesTo = rows.length < BUILD_ROWS ? ep.maxId : rows[rows.length - 1]![0];
      return;
    }
    if (this.#episodes.buildStep()) {
      ep.ready = true;
      // Turns written while it was built, and redactions since it began.
      this.#catchUp();
    }
  }

  /**
   * Brings the episodes' mirror up to the store: appended turns added; a redaction, too many
   * turns at once, or a store that went back (as after a restore) drop it.
   *
   * @returns true when it is ready.
   */
  #catchUp(): boolean {
    const ep = this.#ep;
    if (!ep?.ready) return false;
    const db = this.#db;
    const seq = this.#journalSeq();
    if (seq !== ep.seq) {
      const redacted =
        seq < ep.seq ||
        stmt(
          db,
          `SELECT 1 FROM journal WHERE seq > ? AND entity = 'episode' AND op = 'redact' LIMIT 1`,
        ).get(ep.seq) !== undefined;
      if (redacted) {
        this.#ep = null;
        return false;
      }
      ep.seq = seq;
    }
    const maxId = this.#maxOf('episodes');
    if (maxId === ep.maxId) return true;
    const added =
      maxId < ep.maxId
        ? Number.POSITIVE_INFINITY
        : (
            stmt(
              db,
              `SELECT count(*) AS n FROM (SELECT 1 FROM episodes
               WHERE id > ? AND id <= ? AND kind = 'conversation' LIMIT ?)`,
            ).get(ep.maxId, maxId, CATCH_UP_ROWS + 1) as { n: number }
          ).n;
    if (added > CATCH_UP_ROWS) {
      this.#ep = null;
      return false;
    }
    const rows = stmt(
      db,
      `SELECT ${TURN_COLUMNS} FROM episodes
       WHERE id > ? AND id <= ? AND kind = 'conversation'`,
    )
      .raw()
      .all(ep.maxId, maxId) as TurnRow[];
    ep.occurred = grow(ep.occurred, maxId);
    ep.session = grow(ep.session, maxId);
    ep.channel = grow(ep.channel, maxId);
    ep.speaker = grow(ep.speaker, maxId);
    keep(ep, rows);
    // The same text the full-text trigger indexes.
    this.#episodes.addRows(
      `SELECT id, keel_fold(text), keel_fold(coalesce(speaker, '')) FROM episodes
       WHERE id > ? AND id <= ? AND kind = 'conversation'`,
      [ep.maxId, maxId],
      maxId,
    );
    ep.maxId = maxId;
    return true;
  }
}

/** The columns of a turn the episodes' mirror keeps, as a raw row. */
const TURN_COLUMNS = 'id, occurred_at, session_key, channel, speaker';
type TurnRow = [number, number, string | null, string, string | null];

/** Keeps the scoring columns of `rows` in `ep` (its arrays already hold their ids). */
function keep(ep: EpisodeState, rows: readonly TurnRow[]): void {
  const intern = (s: string | null) => {
    if (s === null) return -1;
    let i = ep.interned.get(s);
    if (i === undefined) {
      i = ep.strings.length;
      ep.strings.push(s);
      ep.interned.set(s, i);
    }
    return i;
  };
  for (const [id, at, session, channel, speaker] of rows) {
    ep.occurred[id] = at;
    ep.session[id] = intern(session);
    ep.channel[id] = intern(channel);
    ep.speaker[id] = intern(speaker);
  }
}

/** The k largest scores offered (a min-heap), returned as hits best first, ties by id. */
class TopK {
  readonly #k: number;
  readonly #ids: number[] = [];
  readonly #scores: number[] = [];

  constructor(k: number) {
    this.#k = k;
  }

  /** True when (s, id) ranks below (t, jd): a lower score, or the same score and a later id. */
  static #below(s: number, id: number, t: number, jd: number): boolean {
    return s < t || (s === t && id > jd);
  }

  offer(id: number, score: number): void {
    const ids = this.#ids;
    const sc = this.#scores;
    if (ids.length < this.#k) {
      ids.push(id);
      sc.push(score);
      let i = ids.length - 1;
      while (i > 0) {
        const up = (i - 1) >> 1;
        if (!TopK.#below(sc[i]!, ids[i]!, sc[up]!, ids[up]!)) break;
        [ids[i], ids[up]] = [ids[up]!, ids[i]!];
        [sc[i], sc[up]] = [sc[up]!, sc[i]!];
        i = up;
      }
      return;
    }
    if (this.#k === 0 || !TopK.#below(sc[0]!, ids[0]!, score, id)) return;
    ids[0] = id;
    sc[0] = score;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < ids.length && TopK.#below(sc[l]!, ids[l]!, sc[m]!, ids[m]!)) m = l;
      if (r < ids.length && TopK.#below(sc[r]!, ids[r]!, sc[m]!, ids[m]!)) m = r;
      if (m === i) break;
      [ids[i], ids[m]] = [ids[m]!, ids[i]!];
      [sc[i], sc[m]] = [sc[m]!, sc[i]!];
      i = m;
    }
  }

  sorted(): Hit[] {
    return this.#ids
      .map((id, i) => ({ id, bm: -this.#scores[i]! }))
      .sort((a, b) => a.bm - b.bm || a.id - b.id);
  }
}
