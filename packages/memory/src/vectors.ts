/**
 * The vector arm's storage: sqlite-vec `vec0` tables for facts and episodes, kept in step with the
 * rows they describe, and a k-nearest-neighbour search over them.
 *
 * - **What gets a vector.** Active facts and conversation episodes. Once vectors are in use (an
 *   embedder has been bound once: `meta` holds its fingerprint), triggers (migrations 5 and 7)
 *   queue every row whose embedded text or eligibility changes in `vector_queue`, so any writer
 *   (even a process without an embedder) leaves a note; before that nothing is queued, and the
 *   first binding queues every row written so far. Before every search the queued rows' old vectors
 *   are deleted (superseded, retracted, pending, purged or redacted rows can never fill the
 *   top-k); {@link VectorIndex.sync} embeds what is queued and eligible, in batches, each batch one
 *   transaction (an interrupted run loses nothing and a rerun continues).
 * - **Search.** The float vectors are kept in `vec0` (the record; {@link VectorIndex.exactKnn} is
 *   sqlite-vec's brute-force KNN over them, about 38 ms at 100k×384 here). Recall uses a faster
 *   path, measured in `bench/hybrid.ts`: a binary-quantised first pass (sign bits, Hamming
 *   distance computed with `i64.popcnt` in WebAssembly, see `hamming.ts`; in memory: 48 bytes a
 *   row for 384-d) keeps the best `max(20·k, 600)` candidates,
 *   rescored by cosine on 8-bit copies of the vectors (in memory, 384 bytes a row). Both copies
 *   live in a plain `*_codes` table next to the `vec0` table and are loaded once per process,
 *   after a few exact searches, so a one-shot command never pays the load.
 *   (sqlite-vec's own `bit[N]` KNN and rowid lookups were measured slower: 36 ms and 25 µs a row.)
 * - **Fingerprint.** `meta.vector_fingerprint` records the embedder (provider, model, dimension,
 *   dtype) that made the vectors. Another dimension is refused (`EMBEDDER_MISMATCH`); the same
 *   dimension from another model pauses the arm until `keel reindex` has rebuilt every vector.
 *
 * @module
 */

import { KeelError } from '@keel/errors';
import type Database from 'better-sqlite3';
import * as sqliteVec from 'sqlite-vec';
import { type StoreContext, stmt } from './context.js';
import { type Embedder, type EmbedderInfo, fingerprint } from './embed/types.js';
import { CodeBuffer } from './hamming.js';
import { getMeta, setMeta } from './meta.js';
import { META_VECTOR_FINGERPRINT as META_FINGERPRINT } from './schema/index.js';

/** Rows embedded per provider call and per transaction. */
export const EMBED_BATCH = 64;
/** The longest text embedded, in characters (the models truncate to a few hundred tokens anyway). */
export const MAX_EMBED_CHARS = 4000;

/** First-pass candidates kept per result wanted, for rescoring (and at least RESCORE_MIN). */
export const RESCORE_FACTOR = 20;
/** The fewest first-pass candidates rescored. */
export const RESCORE_MIN = 600;
/** Searches answered by exact KNN before the in-memory codes are (re)loaded. */
const COLD_EXACT_SEARCHES = 4;

/** The two kinds of row with vectors. */
export type VectorEntity = 'fact' | 'episode';
const TABLES: Record<VectorEntity, { vec: string; codes: string }> = {
  fact: { vec: 'vec_facts', codes: 'vec_facts_codes' },
  episode: { vec: 'vec_episodes', codes: 'vec_episodes_codes' },
};
const META_REINDEX = 'vector_reindex';
const META_GENERATION = 'vector_generation';

const loaded = new WeakMap<Database.Database, { ok: true } | { ok: false; error: string }>();

/** Loads sqlite-vec into a connection once. Never throws: says whether it worked. */
export function loadVectorExtension(
  db: Database.Database,
): { ok: true } | { ok: false; error: string } {
  let r = loaded.get(db);
  if (!r) {
    try {
      sqliteVec.load(db);
      r = { ok: true };
    } catch (err) {
      r = { ok: false, error: (err as Error).message };
    }
    loaded.set(db, r);
  }
  return r;
}

function metaInfo(db: Database.Database, key: string): EmbedderInfo | null {
  const v = getMeta(db, key);
  return v ? (JSON.parse(v) as EmbedderInfo) : null;
}
function generation(db: Database.Database): number {
  return Number(getMeta(db, META_GENERATION) ?? 0);
}
function bumpGeneration(db: Database.Database): number {
  const g = generation(db) + 1;
  setMeta(db, META_GENERATION, String(g));
  return g;
}
function tablesExist(db: Database.Database): boolean {
  return Boolean(stmt(db, `SELECT 1 FROM sqlite_master WHERE name = 'vec_facts'`).get() as unknown);
}
function dropTables(db: Database.Database): void {
  for (const t of Object.values(TABLES)) {
    db.exec(`DROP TABLE IF EXISTS ${t.vec}; DROP TABLE IF EXISTS ${t.codes}`);
  }
}
function createTables(db: Database.Database, dim: number): void {
  for (const t of Object.values(TABLES)) {
    db.exec(`CREATE VIRTUAL TABLE ${t.vec} USING vec0 (embedding float[${dim}] distance_metric=cosine);
      CREATE TABLE ${t.codes} (id INTEGER PRIMARY KEY, code BLOB NOT NULL, q8 BLOB NOT NULL) STRICT;`);
  }
}

/** The text a fact is embedded as: its kind, its key in words, and its value. */
export function factText(f: { kind: string; key: string; value: string }): string {
  return `${f.kind} ${f.key.replace(/[_.-]+/g, ' ')}: ${f.value}`.slice(0, MAX_EMBED_CHARS);
}
/** The text an episode is embedded as: speaker and words. */
export function episodeText(e: { speaker: string | null; text: string }): string {
  return (e.speaker ? `${e.speaker}: ${e.text}` : e.text).slice(0, MAX_EMBED_CHARS);
}

/** The embeddable text of a queued row now, or null when it should have no vector. */
function currentText(db: Database.Database, entity: VectorEntity, id: number): string | null {
  if (entity === 'fact') {
    const f = stmt(db, 'SELECT kind, key, value FROM active_facts WHERE id = ?').get(id) as
      | { kind: string; key: string; value: string }
      | undefined;
    return f ? factText(f) : null;
  }
  const e = stmt(
    db,
    `SELECT speaker, text FROM episodes WHERE id = ? AND kind = 'conversation'`,
  ).get(id) as { speaker: string | null; text: string } | undefined;
  return e?.text.trim() ? episodeText(e) : null;
}

/** Sign bits of a vector, packed 32 to a word (the binary quantisation). */
export function signBits(v: Float32Array): Uint32Array {
  const out = new Uint32Array(Math.ceil(v.length / 32));
  for (let i = 0; i < v.length; i++) if (v[i]! > 0) out[i >> 5]! |= 1 << (i & 31);
  return out;
}
/** The vector scaled to 8-bit integers (largest magnitude → 127). */
export function int8Copy(v: Float32Array): Int8Array {
  let max = 0;
  for (const x of v) max = Math.max(max, Math.abs(x));
  const out = new Int8Array(v.length);
  if (max > 0) for (let i = 0; i < v.length; i++) out[i] = Math.round((v[i]! / max) * 127);
  return out;
}

/** Binary codes and 8-bit copies of one table's vectors, in memory. */
class CodeIndex {
  private ids: number[] = [];
  private codes: CodeBuffer;
  private q8: Int8Array;
  private norms: Float32Array;
  private slots = new Map<number, number>();
  constructor(
    private readonly words: number,
    private readonly dim: number,
  ) {
    this.codes = new CodeBuffer(words, 1024);
    this.q8 = new Int8Array(1024 * dim);
    this.norms = new Float32Array(1024);
  }
  get size(): number {
    return this.ids.length;
  }
  set(id: number, code: Uint32Array, q8: Int8Array): void {
    let slot = this.slots.get(id);
    if (slot === undefined) {
      slot = this.ids.length;
      if (slot >= this.norms.length) {
        const grow = <T extends Int8Array | Float32Array>(a: T, make: (n: number) => T) => {
          const b = make(a.length * 2);
          b.set(a as never);
          return b;
        };
        this.q8 = grow(this.q8, (n) => new Int8Array(n));
        this.norms = grow(this.norms, (n) => new Float32Array(n));
        this.codes.reserve(this.norms.length);
      }
      this.ids.push(id);
      this.slots.set(id, slot);
    }
    this.codes.set(slot, code);
    this.q8.set(q8, slot * this.dim);
    let n = 0;
    for (const x of q8) n += x * x;
    this.norms[slot] = Math.sqrt(n) || 1;
  }
  delete(id: number): void {
    const slot = this.slots.get(id);
    if (slot === undefined) return;
    const last = this.ids.length - 1;
    const lastId = this.ids[last]!;
    this.codes.move(last, slot);
    this.q8.copyWithin(slot * this.dim, last * this.dim, (last + 1) * this.dim);
    this.norms[slot] = this.norms[last]!;
    this.ids[slot] = lastId;
    this.slots.set(lastId, slot);
    this.ids.pop();
    this.slots.delete(id);
  }
  /** Slots of the `n` codes nearest `query` by Hamming distance (ties at the cut-off included). */
  private nearestSlots(query: Uint32Array, n: number): number[] {
    const count = this.ids.length;
    if (count <= n) return Array.from({ length: count }, (_, i) => i);
    const hist = new Uint32Array(this.words * 32 + 1);
    const dist = this.codes.distances(query, count, hist);
    let cut = 0;
    for (let seen = 0; seen + hist[cut]! < n; cut++) seen += hist[cut]!;
    const out: number[] = [];
    for (let r = 0; r < count; r++) if (dist[r]! <= cut) out.push(r);
    return out;
  }
  /** The `k` nearest rows: Hamming first pass of `candidates`, then cosine on the 8-bit copies. */
  search(query: Float32Array, k: number, candidates: number): Neighbour[] {
    const d = this.dim;
    const q = Float64Array.from(query);
    const q8 = this.q8;
    const slots = this.nearestSlots(signBits(query), candidates);
    const distance = new Float64Array(slots.length);
    const whole = d - (d % 4);
    for (let s = 0; s < slots.length; s++) {
      // Four running sums: about twice as fast as one (bench/hybrid.ts).
      const o = slots[s]! * d;
      let a = 0;
      let b = 0;
      let c = 0;
      let e = 0;
      let i = 0;
      for (; i < whole; i += 4) {
        a += q[i]! * q8[o + i]!;
        b += q[i + 1]! * q8[o + i + 1]!;
        c += q[i + 2]! * q8[o + i + 2]!;
        e += q[i + 3]! * q8[o + i + 3]!;
      }
      for (; i < d; i++) a += q[i]! * q8[o + i]!;
      distance[s] = 1 - (a + b + c + e) / this.norms[slots[s]!]!;
    }
    // Only the candidates at or under the k-th smallest distance are sorted (ties by id).
    const kth = Float64Array.from(distance).sort()[Math.min(k, slots.length) - 1] ?? 0;
    const keep: number[] = [];
    for (let s = 0; s < slots.length; s++) if (distance[s]! <= kth) keep.push(s);
    keep.sort((x, y) => distance[x]! - distance[y]! || this.ids[slots[x]!]! - this.ids[slots[y]!]!);
    return keep.slice(0, k).map((x) => ({ id: this.ids[slots[x]!]!, distance: distance[x]! }));
  }
}

/** The vector arm's state, for recall and `keel doctor`. */
export interface VectorStatus {
  /** active: searched; paused: vectors from another model or a reindex not finished. */
  state: 'active' | 'paused';
  /** Why it is paused. */
  reason: string | null;
  embedder: EmbedderInfo;
  /** The embedder that made the stored vectors. */
  stored: EmbedderInfo | null;
  vectors: { facts: number; episodes: number };
  /** Rows waiting for a vector (or for their old vector to go). */
  pending: number;
}

/** Options for {@link VectorIndex.sync}. */
export interface SyncOptions {
  /** Stop after this many rows (default: all queued). */
  limit?: number;
  /** Called after each batch: rows done so far and rows queued at the start. */
  onProgress?: (done: number, total: number) => void;
  /** Stops between batches (what is committed stays). */
  signal?: AbortSignal;
}

/** One nearest neighbour: a row id and its cosine distance (0 same direction, 2 opposite). */
export interface Neighbour {
  id: number;
  distance: number;
}

/** The vector tables of one store, bound to one embedder. */
export class VectorIndex {
  private paused: string | null = null;
  private codeIndex: Record<VectorEntity, CodeIndex> | null = null;
  private knownGeneration = -1;
  private removedThrough = 0;
  private reindexing = false;
  /** Searches answered exactly while the in-memory codes were missing or stale. */
  private coldSearches = 0;

  private constructor(
    private readonly ctx: StoreContext,
    readonly embedder: Embedder,
    readonly info: EmbedderInfo,
  ) {}

  /**
   * Binds an embedder to a store's vectors: loads sqlite-vec, initialises the embedder, creates
   * the tables on first use and compares fingerprints.
   *
   * @param options.forReindex - accept another dimension (only `reindex` may).
   * @throws KeelError `EMBEDDER_UNAVAILABLE` (sqlite-vec or the embedder cannot load),
   *   `EMBEDDER_MISMATCH` (the stored vectors have another dimension; run `keel reindex`).
   */
  static async attach(
    ctx: StoreContext,
    embedder: Embedder,
    options: { forReindex?: boolean } = {},
  ): Promise<VectorIndex> {
    const ext = loadVectorExtension(ctx.db);
    if (!ext.ok) {
      throw new KeelError('EMBEDDER_UNAVAILABLE', `sqlite-vec did not load: ${ext.error}`);
    }
    const info = await embedder.init();
    const index = new VectorIndex(ctx, embedder, info);
    const db = ctx.db;
    db.transaction(() => {
      const stored = metaInfo(db, META_FINGERPRINT);
      const target = metaInfo(db, META_REINDEX);
      const held = target ?? stored;
      if (!held || !tablesExist(db)) {
        dropTables(db);
        createTables(db, info.dim);
        setMeta(db, META_FINGERPRINT, JSON.stringify(info));
        setMeta(db, META_REINDEX, null);
        db.exec(`DELETE FROM vector_queue;
          INSERT INTO vector_queue (entity, id) SELECT 'fact', id FROM active_facts;
          INSERT INTO vector_queue (entity, id) SELECT 'episode', id FROM episodes WHERE kind = 'conversation';`);
        bumpGeneration(db);
        return;
      }
      if (held.dim !== info.dim && !options.forReindex) {
        throw new KeelError(
          'EMBEDDER_MISMATCH',
          `the stored vectors are ${held.dim}-d (${held.provider} ${held.model}); ${info.provider} ${info.model} makes ${info.dim}-d vectors: run keel reindex`,
          { details: { stored: held, embedder: info } },
        );
      }
      if (target) {
        index.paused =
          fingerprint(target) === fingerprint(info)
            ? 'keel reindex has not finished: run keel reindex'
            : `keel reindex for ${target.provider} ${target.model} has not finished: run keel reindex`;
      } else if (fingerprint(held) !== fingerprint(info)) {
        index.paused = `vectors were made by ${held.provider} ${held.model} (${held.dtype}), the embedder is ${info.provider} ${info.model} (${info.dtype}): run keel reindex`;
      }
    }).immediate();
    return index;
  }

  /** Where the arm stands. */
  status(): VectorStatus {
    const n = (sql: string) => (this.ctx.db.prepare(sql).get() as { n: number }).n;
    const exist = tablesExist(this.ctx.db);
    return {
      state: this.paused ? 'paused' : 'active',
      reason: this.paused,
      embedder: this.info,
      stored: metaInfo(this.ctx.db, META_FINGERPRINT),
      vectors: {
        facts: exist ? n('SELECT count(*) AS n FROM vec_facts_codes') : 0,
        episodes: exist ? n('SELECT count(*) AS n FROM vec_episodes_codes') : 0,
      },
      pending: n('SELECT count(*) AS n FROM vector_queue'),
    };
  }

  /** True when recall may use the vector arm. */
  get active(): boolean {
    return this.paused === null;
  }

  /** Embeds a query (purpose "query"). @throws KeelError `EMBEDDER_UNAVAILABLE`, `EMBEDDING_INVALID`. */
  async embedQuery(query: string): Promise<Float32Array> {
    const [v] = await this.embedder.embed([query.slice(0, MAX_EMBED_CHARS)], 'query');
    return v!;
  }

  /** Applies a committed change to the in-memory codes when no other process wrote in between. */
  private afterWrite(
    before: number,
    after: number,
    apply: (idx: Record<VectorEntity, CodeIndex>) => void,
  ) {
    if (this.codeIndex && this.knownGeneration === before) {
      apply(this.codeIndex);
      this.knownGeneration = after;
    } else {
      this.codeIndex = null;
    }
  }

  /**
   * Deletes the vectors of every row queued since the last call (their text or status changed),
   * and forgets queued rows that should have no vector. Synchronous: runs before every search.
   *
   * @returns the number of vectors deleted.
   */
  removeStale(): number {
    const db = this.ctx.db; // attach made the tables; they exist for as long as this index does
    const rows = stmt(
      db,
      'SELECT seq, entity, id FROM vector_queue WHERE seq > ? ORDER BY seq',
    ).all(this.removedThrough) as { seq: number; entity: VectorEntity; id: number }[];
    if (rows.length === 0) return 0;
    const removed: { entity: VectorEntity; id: number }[] = [];
    let before = 0;
    let after = 0;
    db.transaction(() => {
      before = generation(db);
      for (const r of rows) {
        const t = TABLES[r.entity];
        if (stmt(db, `DELETE FROM ${t.codes} WHERE id = ?`).run(r.id).changes > 0) {
          stmt(db, `DELETE FROM ${t.vec} WHERE rowid = ?`).run(BigInt(r.id));
          removed.push(r);
        }
        if (currentText(db, r.entity, r.id) === null)
          stmt(db, 'DELETE FROM vector_queue WHERE seq = ?').run(r.seq);
      }
      after = removed.length > 0 ? bumpGeneration(db) : before;
    }).immediate();
    this.removedThrough = rows[rows.length - 1]!.seq;
    if (removed.length > 0)
      this.afterWrite(before, after, (idx) => {
        for (const r of removed) idx[r.entity].delete(r.id);
      });
    return removed.length;
  }

  /**
   * Embeds queued rows and stores their vectors, a batch per transaction. A row whose text changed
   * while it was being embedded stays queued. Runs while paused too (that is how reindex works).
   *
   * @returns rows embedded, and rows still queued.
   * @throws KeelError `EMBEDDER_UNAVAILABLE`, `EMBEDDING_INVALID` (nothing of that batch is stored),
   *   `CANCELLED` when `signal` aborts.
   */
  async sync(options: SyncOptions = {}): Promise<{ embedded: number; remaining: number }> {
    const db = this.ctx.db;
    this.removeStale();
    if (this.paused && !this.reindexing) {
      // Vectors of another model are stored: adding ours would mix two spaces.
      return { embedded: 0, remaining: this.status().pending };
    }
    const total = Math.min(
      options.limit ?? Number.POSITIVE_INFINITY,
      (stmt(db, 'SELECT count(*) AS n FROM vector_queue').get() as { n: number }).n,
    );
    let done = 0;
    let embedded = 0;
    let after = 0;
    while (done < total) {
      if (options.signal?.aborted) {
        throw new KeelError(
          'CANCELLED',
          'interrupted; the vectors embedded so far are kept: run keel reindex again to continue',
        );
      }
      const batch = stmt(
        db,
        'SELECT seq, entity, id FROM vector_queue ORDER BY seq LIMIT ? OFFSET ?',
      )
        .all(Math.min(EMBED_BATCH, total - done), 0)
        .map((r) => {
          const row = r as { seq: number; entity: VectorEntity; id: number };
          return { ...row, text: currentText(db, row.entity, row.id) };
        });
      if (batch.length === 0) break;
      const live = batch.filter((r) => r.text !== null);
      const vectors = await this.embedder.embed(
        live.map((r) => r.text!),
        'document',
      );
      const written: { entity: VectorEntity; id: number; code: Uint32Array; q8: Int8Array }[] = [];
      let before = 0;
      let kept = 0;
      db.transaction(() => {
        before = generation(db);
        live.forEach((r, i) => {
          if (currentText(db, r.entity, r.id) !== r.text) {
            kept++;
            return; // changed meanwhile: stays queued for the next pass
          }
          const t = TABLES[r.entity];
          const v = vectors[i]!;
          const code = signBits(v);
          const q8 = int8Copy(v);
          stmt(db, `DELETE FROM ${t.vec} WHERE rowid = ?`).run(BigInt(r.id));
          stmt(db, `INSERT INTO ${t.vec} (rowid, embedding) VALUES (?, ?)`).run(BigInt(r.id), v);
          stmt(db, `INSERT OR REPLACE INTO ${t.codes} (id, code, q8) VALUES (?, ?, ?)`).run(
            r.id,
            Buffer.from(code.buffer),
            Buffer.from(q8.buffer),
          );
          stmt(db, 'DELETE FROM vector_queue WHERE seq = ?').run(r.seq);
          written.push({ entity: r.entity, id: r.id, code, q8 });
        });
        for (const r of batch)
          if (r.text === null) stmt(db, 'DELETE FROM vector_queue WHERE seq = ?').run(r.seq);
        after = bumpGeneration(db);
      }).immediate();
      this.afterWrite(before, after, (idx) => {
        for (const w of written) idx[w.entity].set(w.id, w.code, w.q8);
      });
      embedded += written.length;
      done += batch.length;
      options.onProgress?.(done, total);
      if (kept === batch.length) break; // everything changed under us: try again later
    }
    const remaining = (stmt(db, 'SELECT count(*) AS n FROM vector_queue').get() as { n: number }).n;
    return { embedded, remaining };
  }

  private codes(): Record<VectorEntity, CodeIndex> {
    const db = this.ctx.db;
    const g = generation(db);
    if (this.codeIndex && this.knownGeneration === g) return this.codeIndex;
    const dim = this.info.dim;
    const words = Math.ceil(dim / 32);
    const idx = { fact: new CodeIndex(words, dim), episode: new CodeIndex(words, dim) };
    for (const entity of ['fact', 'episode'] as const) {
      const rows = db
        .prepare(`SELECT id, code, q8 FROM ${TABLES[entity].codes}`)
        .raw()
        .iterate() as IterableIterator<[number, Buffer, Buffer]>;
      for (const [id, code, q8] of rows) {
        idx[entity].set(
          id,
          new Uint32Array(code.buffer.slice(code.byteOffset, code.byteOffset + words * 4)),
          new Int8Array(q8.buffer, q8.byteOffset, dim),
        );
      }
    }
    this.codeIndex = idx;
    this.knownGeneration = g;
    return idx;
  }

  /**
   * The `k` rows nearest `query` among the stored vectors, nearest first. Stale vectors are
   * removed first. Callers still join the ids against live rows.
   *
   * @param query - a vector from {@link VectorIndex.embedQuery}.
   */
  knn(entity: VectorEntity, query: Float32Array, k: number): Neighbour[] {
    this.removeStale();
    const fresh = this.codeIndex !== null && this.knownGeneration === generation(this.ctx.db);
    if (!fresh && this.coldSearches < COLD_EXACT_SEARCHES) {
      // Loading the codes costs about 1 s at 100k rows: a one-shot process (the CLI) is better
      // served by sqlite-vec's exact search; a long-running one loads them on the next search.
      this.coldSearches++;
      return this.exactKnn(entity, query, k);
    }
    if (!fresh) this.coldSearches = 0;
    return this.codes()[entity].search(query, k, Math.max(RESCORE_FACTOR * k, RESCORE_MIN));
  }

  /**
   * Exact nearest neighbours by sqlite-vec's brute-force KNN over the float vectors (slower; used
   * to measure the fast path's agreement).
   */
  exactKnn(entity: VectorEntity, query: Float32Array, k: number): Neighbour[] {
    this.removeStale();
    return stmt(
      this.ctx.db,
      `SELECT rowid AS id, distance FROM ${TABLES[entity].vec} WHERE embedding MATCH ? AND k = ?`,
    ).all(query, k) as Neighbour[];
  }

  /**
   * Brings the vector tables back in line with the rows without re-embedding what is right:
   * deletes vectors whose `vec0` row or code row is missing (one of the two copies lost), and
   * queues every row that has a vector it should not have (not active any more) or lacks one it
   * should have, so the next {@link VectorIndex.sync} removes or makes them. What `keel verify`
   * reports as `vectors_stale`, `vectors_missing` or `vector_tables` is what this mends.
   *
   * @returns vectors deleted and rows queued.
   */
  repair(): { deleted: number; queued: number } {
    const db = this.ctx.db;
    let deleted = 0;
    let queued = 0;
    let before = 0;
    let after = 0;
    db.transaction(() => {
      before = generation(db);
      for (const entity of ['fact', 'episode'] as const) {
        const t = TABLES[entity];
        const codeIds = new Set(
          (db.prepare(`SELECT id FROM ${t.codes}`).raw().all() as [number][]).map((r) => r[0]),
        );
        const vecIds = new Set(
          (db.prepare(`SELECT rowid FROM ${t.vec}`).raw().all() as [number][]).map((r) =>
            Number(r[0]),
          ),
        );
        for (const id of vecIds)
          if (!codeIds.has(id)) {
            stmt(db, `DELETE FROM ${t.vec} WHERE rowid = ?`).run(BigInt(id));
            deleted++;
          }
        for (const id of codeIds)
          if (!vecIds.has(id)) {
            stmt(db, `DELETE FROM ${t.codes} WHERE id = ?`).run(id);
            deleted++;
          }
        const { stale, missing } = vectorDrift(db, entity);
        const ids = [...stale, ...missing];
        for (const id of ids)
          queued += stmt(db, 'INSERT OR IGNORE INTO vector_queue (entity, id) VALUES (?, ?)').run(
            entity,
            id,
          ).changes;
      }
      after = deleted > 0 ? bumpGeneration(db) : before;
    }).immediate();
    if (deleted > 0) this.codeIndex = null;
    else this.knownGeneration = after;
    return { deleted, queued };
  }

  /**
   * Rebuilds every vector with this embedder: records the target, recreates the tables at its
   * dimension, queues every row, and embeds them in batches. Interrupted, it is rerun and
   * continues; the arm stays paused until the last batch is in.
   *
   * @throws KeelError `EMBEDDER_UNAVAILABLE`, `EMBEDDING_INVALID`, `CANCELLED`.
   */
  async reindex(options: SyncOptions = {}): Promise<{ embedded: number; resumed: boolean }> {
    const db = this.ctx.db;
    const target = metaInfo(db, META_REINDEX);
    const resumed = target !== null && fingerprint(target) === fingerprint(this.info);
    if (!resumed) {
      db.transaction(() => {
        setMeta(db, META_REINDEX, JSON.stringify(this.info));
        dropTables(db);
        createTables(db, this.info.dim);
        db.exec(`DELETE FROM vector_queue;
          INSERT INTO vector_queue (entity, id) SELECT 'fact', id FROM active_facts;
          INSERT INTO vector_queue (entity, id) SELECT 'episode', id FROM episodes WHERE kind = 'conversation';`);
        bumpGeneration(db);
      }).immediate();
      this.codeIndex = null;
      this.removedThrough = 0;
    }
    this.paused = 'keel reindex has not finished: run keel reindex';
    this.reindexing = true;
    let embedded: number;
    let remaining: number;
    try {
      ({ embedded, remaining } = await this.sync(options));
    } finally {
      this.reindexing = false;
    }
    if (remaining === 0) {
      db.transaction(() => {
        setMeta(db, META_FINGERPRINT, JSON.stringify(this.info));
        setMeta(db, META_REINDEX, null);
      }).immediate();
      this.paused = null;
    }
    return { embedded, resumed };
  }
}

/**
 * Rows whose vector is wrong and not queued to be put right: `stale`, rows with a vector that
 * should have none (a fact no longer active, an episode gone or emptied); `missing`, rows that
 * should have a vector and have none. Queued rows are left out: the next sync or search deals
 * with them. Reads the plain code tables, so sqlite-vec need not be loaded.
 */
function vectorDrift(
  db: Database.Database,
  entity: VectorEntity,
): { stale: number[]; missing: number[] } {
  const codes = TABLES[entity].codes;
  const eligible =
    entity === 'fact'
      ? `SELECT id FROM active_facts`
      : `SELECT id FROM episodes WHERE kind = 'conversation'`;
  const notQueued = `AND NOT EXISTS (SELECT 1 FROM vector_queue q WHERE q.entity = '${entity}' AND q.id = x.id)`;
  const stale = (
    db
      .prepare(
        `SELECT x.id FROM ${codes} x WHERE x.id NOT IN (${eligible}) ${notQueued} ORDER BY x.id`,
      )
      .raw()
      .all() as [number][]
  ).map((r) => r[0]);
  const candidates = (
    db
      .prepare(
        `SELECT x.id FROM (${eligible}) x WHERE x.id NOT IN (SELECT id FROM ${codes}) ${notQueued} ORDER BY x.id`,
      )
      .raw()
      .all() as [number][]
  ).map((r) => r[0]);
  // A blank episode has no vector by design (sync never embeds one; blanking it queues it).
  const missing = candidates.filter((id) => currentText(db, entity, id) !== null);
  return { stale, missing };
}
/** One vector-table problem found by {@link checkVectors}. */
export interface VectorProblem {
  check: 'vectors' | 'vector_dimension' | 'vector_tables' | 'vectors_stale' | 'vectors_missing';
  detail: string;
  /** The command that mends it. */
  fix: string;
}

const listIds = (ids: number[], prefix: string) =>
  `${ids
    .slice(0, 10)
    .map((id) => `${prefix}${id}`)
    .join(', ')}${ids.length > 10 ? ` and ${ids.length - 10} more` : ''}`;

/**
 * Checks the vector tables against the rows and `meta` (for `keel verify`): the fingerprint is
 * readable and matches the tables' dimension; every stored code has the fingerprint's length; the
 * `vec0` table and the codes table hold the same ids; no row that is not active keeps a vector,
 * and no row that should have one lacks it, beyond what the queue is about to put right. A store
 * that never bound an embedder has nothing to check.
 *
 * @returns the problems found, each with the command that mends it; `[]` when consistent.
 */
export function checkVectors(ctx: StoreContext): VectorProblem[] {
  const db = ctx.db;
  const problems: VectorProblem[] = [];
  const add = (check: VectorProblem['check'], detail: string, fix = 'keel reindex') =>
    problems.push({ check, detail, fix });
  const rawFingerprint = getMeta(db, META_FINGERPRINT);
  const exist = tablesExist(db);
  if (rawFingerprint === undefined) {
    if (exist)
      add(
        'vectors',
        'vector tables exist but meta records no embedder fingerprint',
        'keel reindex --full',
      );
    return problems;
  }
  let held: EmbedderInfo;
  try {
    held = JSON.parse(getMeta(db, META_REINDEX) ?? rawFingerprint) as EmbedderInfo;
    if (!Number.isInteger(held.dim) || held.dim < 1) throw new Error(`dimension ${held.dim}`);
  } catch (err) {
    add(
      'vectors',
      `the embedder fingerprint in meta is unreadable (${(err as Error).message})`,
      'keel reindex --full',
    );
    return problems;
  }
  if (!exist) {
    add(
      'vector_tables',
      'meta records an embedder fingerprint but the vector tables are missing',
      'keel reindex --full',
    );
    return problems;
  }
  for (const [entity, t] of Object.entries(TABLES) as [
    VectorEntity,
    (typeof TABLES)[VectorEntity],
  ][]) {
    const sql =
      (
        stmt(db, 'SELECT sql FROM sqlite_master WHERE name = ?').get(t.vec) as
          | { sql: string }
          | undefined
      )?.sql ?? '';
    const declared = Number(/float\[(\d+)\]/.exec(sql)?.[1] ?? Number.NaN);
    if (declared !== held.dim)
      add(
        'vector_dimension',
        `${t.vec} holds ${declared}-d vectors; meta says ${held.provider} ${held.model} makes ${held.dim}-d`,
        'keel reindex --full',
      );
    const wrong = (
      db
        .prepare(`SELECT count(*) AS n FROM ${t.codes} WHERE length(code) <> ? OR length(q8) <> ?`)
        .get(Math.ceil(held.dim / 32) * 4, held.dim) as { n: number }
    ).n;
    if (wrong > 0)
      add(
        'vector_dimension',
        `${wrong} ${entity} code(s) in ${t.codes} are not of ${held.dim}-d vectors`,
        'keel reindex --full',
      );
    if (loadVectorExtension(db).ok) {
      const orphans = db
        .prepare(
          `SELECT (SELECT count(*) FROM ${t.vec} WHERE rowid NOT IN (SELECT id FROM ${t.codes})) AS vec,
                    (SELECT count(*) FROM ${t.codes} WHERE id NOT IN (SELECT rowid FROM ${t.vec})) AS codes`,
        )
        .get() as { vec: number; codes: number };
      if (orphans.vec > 0 || orphans.codes > 0)
        add(
          'vector_tables',
          `${t.vec} and ${t.codes} disagree: ${orphans.vec} vector(s) without a code, ${orphans.codes} code(s) without a vector`,
        );
    } else {
      add(
        'vectors',
        `cannot read ${t.vec}: sqlite-vec did not load (${(loadVectorExtension(db) as { error: string }).error})`,
        'reinstall keel (the sqlite-vec package carries the extension)',
      );
    }
    const { stale, missing } = vectorDrift(db, entity);
    const prefix = entity === 'fact' ? 'f' : 'e';
    if (stale.length > 0)
      add(
        'vectors_stale',
        `${stale.length} ${entity}(s) no longer eligible still have a vector and are not queued for removal: ${listIds(stale, prefix)}`,
      );
    if (missing.length > 0)
      add(
        'vectors_missing',
        `${missing.length} ${entity}(s) have no vector and are not queued for one: ${listIds(missing, prefix)}`,
      );
  }
  return problems;
}

/**
 * Rows waiting for a vector: once vectors are in use, the queued rows; before (no embedder was
 * ever bound), every row that will get one when the first is (active facts and conversation
 * episodes), since binding queues them all.
 */
export function pendingVectorRows(ctx: StoreContext): number {
  const n = (sql: string) => (stmt(ctx.db, sql).get() as { n: number }).n;
  if (getMeta(ctx.db, META_FINGERPRINT) !== undefined)
    return n('SELECT count(*) AS n FROM vector_queue');
  return (
    n('SELECT count(*) AS n FROM active_facts') +
    n(`SELECT count(*) AS n FROM episodes WHERE kind = 'conversation'`)
  );
}

/**
 * Deletes the vectors of queued rows without an embedder (e.g. right after a purge in a process
 * that never attached one). No-op when sqlite-vec or the tables are absent.
 */
export function removeStaleVectors(ctx: StoreContext): number {
  if (!loadVectorExtension(ctx.db).ok || !tablesExist(ctx.db)) return 0;
  let removed = 0;
  ctx.db
    .transaction(() => {
      const rows = ctx.db.prepare('SELECT seq, entity, id FROM vector_queue').all() as {
        seq: number;
        entity: VectorEntity;
        id: number;
      }[];
      for (const r of rows) {
        const t = TABLES[r.entity];
        if (stmt(ctx.db, `DELETE FROM ${t.codes} WHERE id = ?`).run(r.id).changes > 0) {
          stmt(ctx.db, `DELETE FROM ${t.vec} WHERE rowid = ?`).run(BigInt(r.id));
          removed++;
        }
      }
      if (removed > 0) bumpGeneration(ctx.db);
    })
    .immediate();
  return removed;
}
