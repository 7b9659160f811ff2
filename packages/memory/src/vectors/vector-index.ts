/**
 * {@link VectorIndex}: the vector tables of one store bound to one embedder, and their lifecycle:
 * binding (`attach`, which creates the tables on first use and compares fingerprints), keeping
 * them in step with the rows (`removeStale`, `sync`), searching (`knn`, `exactKnn`), mending
 * (`repair`) and rebuilding (`reindex`). The SQL they run is in `tables.ts`; a process without an
 * embedder removes stale vectors with `removeStaleVectors` there.
 *
 * @module
 */

import { KeelError } from '@keel/errors';
import { type StoreContext, stmt } from '../context.js';
import { type Embedder, type EmbedderInfo, fingerprint } from '../embed/types.js';
import { setMeta } from '../repos/meta.js';
import { META_VECTOR_FINGERPRINT, VECTOR_QUEUE } from '../schema/index.js';
import { vectorDrift } from './check.js';
import { loadVectorExtension } from './extension.js';
import { similarityFloor } from './floor.js';
import { CodeIndex, type Neighbour, RESCORE_FACTOR, RESCORE_MIN } from './quantised.js';
import {
  bumpGeneration,
  createTables,
  deleteLoneCopies,
  dropTables,
  generation,
  loadCodes,
  MAX_EMBED_CHARS,
  META_REINDEX,
  type QueuedRow,
  queueEveryRow,
  queueMark,
  queueRows,
  readBatch,
  readNewest,
  removeQueuedVectors,
  storeBatch,
  storedEmbedder,
  tablesExist,
  VECTOR_ENTITIES,
  VECTOR_TABLES,
  type VectorEntity,
} from './tables.js';

/** Rows embedded per provider call and per transaction. */
export const EMBED_BATCH = 64;
/** Searches answered by exact KNN before the in-memory codes are (re)loaded. */
const COLD_EXACT_SEARCHES = 4;

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
  /** The cosine similarity under which a nearest neighbour is not a result (`floor.ts`). */
  floor: number;
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

/** Options for {@link VectorIndex.embedSince}. */
export interface EmbedSinceOptions {
  /** Rows to embed at most (default {@link EMBED_BATCH}): the newest; older ones wait for a sync. */
  limit?: number;
  /**
   * Abandons the work: nothing is stored once it aborts, even a batch the embedder has already
   * answered (`CANCELLED`). A caller bounding the wait aborts it when its time is up.
   */
  signal?: AbortSignal;
}

/** What {@link VectorIndex.embedSince} did. */
export interface EmbedSinceResult {
  /** Rows whose vector was stored. */
  embedded: number;
  /** The queue's mark when it began (see {@link VectorIndex.mark}): pass it as the next `since`. */
  through: number;
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
  /**
   * The rows in the vector queue, which searches leave out (their stored vector, if any, is of
   * text or a status they no longer have): read incrementally (`staleThrough`, a queue `seq`),
   * and again from the start when the vectors' generation moved (rows may have left the queue).
   */
  private stale: Record<VectorEntity, Set<number>> = { fact: new Set(), episode: new Set() };
  private staleThrough = 0;
  private staleGeneration = -1;
  /** Per kind, how many queued rows the in-memory codes hold, and for which state of both. */
  private staleHeld: Record<VectorEntity, { key: string; n: number }> = {
    fact: { key: '', n: 0 },
    episode: { key: '', n: 0 },
  };
  /** The cosine similarity under which a nearest neighbour is not a result. */
  readonly floor: number;

  private constructor(
    private readonly ctx: StoreContext,
    readonly embedder: Embedder,
    readonly info: EmbedderInfo,
  ) {
    this.floor = similarityFloor(embedder, info);
  }

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
      const stored = storedEmbedder(db, META_VECTOR_FINGERPRINT);
      const target = storedEmbedder(db, META_REINDEX);
      const held = target ?? stored;
      if (!held || !tablesExist(db)) {
        dropTables(db);
        createTables(db, info.dim);
        setMeta(db, META_VECTOR_FINGERPRINT, JSON.stringify(info));
        setMeta(db, META_REINDEX, null);
        queueEveryRow(db);
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
    const vectors = (entity: VectorEntity) =>
      exist ? n(`SELECT count(*) AS n FROM ${VECTOR_TABLES[entity].codes}`) : 0;
    return {
      state: this.paused ? 'paused' : 'active',
      reason: this.paused,
      embedder: this.info,
      stored: storedEmbedder(this.ctx.db, META_VECTOR_FINGERPRINT),
      vectors: { facts: vectors('fact'), episodes: vectors('episode') },
      pending: n(`SELECT count(*) AS n FROM ${VECTOR_QUEUE}`),
      floor: this.floor,
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
   * and forgets queued rows that should have no vector. A write: {@link sync} and forget run it;
   * searches never do (they leave queued rows out instead, see {@link knn}).
   *
   * @returns the number of vectors deleted.
   */
  removeStale(): number {
    // attach made the tables; they exist for as long as this index does
    const r = removeQueuedVectors(this.ctx.db, this.removedThrough, true);
    if (!r) return 0;
    this.removedThrough = r.through;
    if (r.removed.length > 0)
      this.afterWrite(r.before, r.after, (idx) => {
        for (const x of r.removed) idx[x.entity].delete(x.id);
      });
    return r.removed.length;
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
    const queued = () =>
      (stmt(db, `SELECT count(*) AS n FROM ${VECTOR_QUEUE}`).get() as { n: number }).n;
    const total = Math.min(options.limit ?? Number.POSITIVE_INFINITY, queued());
    let done = 0;
    let embedded = 0;
    while (done < total) {
      if (options.signal?.aborted) {
        throw new KeelError(
          'CANCELLED',
          'interrupted; the vectors embedded so far are kept: run keel reindex again to continue',
        );
      }
      // The oldest queued rows: what an earlier batch embedded or forgot has left the queue.
      const batch = readBatch(db, Math.min(EMBED_BATCH, total - done));
      if (batch.length === 0) break;
      const vectors = await this.embedder.embed(
        batch.filter((r) => r.text !== null).map((r) => r.text!),
        'document',
      );
      const { written, kept, before, after } = storeBatch(db, batch, vectors);
      this.afterWrite(before, after, (idx) => {
        for (const w of written) idx[w.entity].set(w.id, w.code, w.q8);
      });
      embedded += written.length;
      done += batch.length;
      options.onProgress?.(done, total);
      if (kept === batch.length) break; // everything changed under us: try again later
    }
    return { embedded, remaining: queued() };
  }

  /**
   * The vector queue's mark: the highest `seq` it has handed out. Every row queued later (written,
   * or changed, after this call) is after it; pass it to {@link embedSince}. Reads only.
   */
  mark(): number {
    return queueMark(this.ctx.db);
  }

  /**
   * Embeds what was written since `since` (a {@link mark}) at once, instead of waiting for the
   * next {@link sync}: the newest rows queued after it that should have a vector, at most
   * `limit`, stored as `sync` stores them (a row whose text changed meanwhile stays queued).
   * Everything else stays queued for `sync`: older rows, rows past the limit, and rows that should
   * have no vector (their stored vector, if any, is left out of searches until `sync` deletes it).
   * Nothing while the arm is paused (vectors of another model are stored).
   *
   * @returns rows embedded, and the mark it began at.
   * @throws KeelError `EMBEDDER_UNAVAILABLE`, `EMBEDDING_INVALID` (nothing of that batch is
   *   stored), `CANCELLED` when `signal` aborts (nothing more is stored).
   */
  async embedSince(since: number, options: EmbedSinceOptions = {}): Promise<EmbedSinceResult> {
    const db = this.ctx.db;
    const through = this.mark();
    if (this.paused || through <= since) return { embedded: 0, through };
    const rows = readNewest(db, since, options.limit ?? EMBED_BATCH);
    const cancelled = () =>
      new KeelError('CANCELLED', 'stopped waiting for the embedder; the rows stay queued');
    let embedded = 0;
    for (let at = 0; at < rows.length; at += EMBED_BATCH) {
      if (options.signal?.aborted) throw cancelled();
      const batch = rows.slice(at, at + EMBED_BATCH);
      const vectors = await this.embedder.embed(
        batch.map((r) => r.text!),
        'document',
      );
      // Abandoned while the embedder worked (or the store closed): store nothing.
      if (options.signal?.aborted || !db.open) throw cancelled();
      const { written, before, after } = storeBatch(db, batch, vectors);
      this.afterWrite(before, after, (idx) => {
        for (const w of written) idx[w.entity].set(w.id, w.code, w.q8);
      });
      embedded += written.length;
    }
    return { embedded, through };
  }

  /** The in-memory codes, (re)loaded when another write has changed the vectors since. */
  private codes(): Record<VectorEntity, CodeIndex> {
    const db = this.ctx.db;
    const g = generation(db);
    if (this.codeIndex && this.knownGeneration === g) return this.codeIndex;
    const dim = this.info.dim;
    const words = Math.ceil(dim / 32);
    const idx = { fact: new CodeIndex(words, dim), episode: new CodeIndex(words, dim) };
    for (const entity of VECTOR_ENTITIES) loadCodes(db, entity, dim, idx[entity]);
    this.codeIndex = idx;
    this.knownGeneration = g;
    return idx;
  }

  /**
   * The rows now in the vector queue, by kind: read without writing (only the rows queued since
   * the last read, unless the vectors changed since, when the whole queue is read again).
   */
  private queued(): Record<VectorEntity, Set<number>> {
    const db = this.ctx.db;
    const g = generation(db);
    if (g !== this.staleGeneration) {
      this.stale = { fact: new Set(), episode: new Set() };
      this.staleThrough = 0;
      this.staleGeneration = g;
    }
    const rows = stmt(
      db,
      `SELECT seq, entity, id FROM ${VECTOR_QUEUE} WHERE seq > ? ORDER BY seq`,
    ).all(this.staleThrough) as QueuedRow[];
    for (const r of rows) this.stale[r.entity].add(r.id);
    if (rows.length > 0) this.staleThrough = rows[rows.length - 1]!.seq;
    return this.stale;
  }

  /**
   * The `k` rows nearest `query` among the stored vectors, nearest first, leaving out every row
   * in the vector queue (its text or status changed since its vector was made: a superseded,
   * purged or redacted row never fills the top k). Writes nothing. Callers still join the ids
   * against live rows, and drop neighbours below {@link floor}.
   *
   * @param query - a vector from {@link VectorIndex.embedQuery}.
   */
  knn(entity: VectorEntity, query: Float32Array, k: number): Neighbour[] {
    const fresh = this.codeIndex !== null && this.knownGeneration === generation(this.ctx.db);
    if (!fresh && this.coldSearches < COLD_EXACT_SEARCHES) {
      // Loading the codes costs about 1 s at 100k rows: a one-shot process (the CLI) is better
      // served by sqlite-vec's exact search; a long-running one loads them on the next search.
      this.coldSearches++;
      return this.exactKnn(entity, query, k);
    }
    if (!fresh) this.coldSearches = 0;
    const codes = this.codes()[entity];
    const stale = this.queued()[entity];
    // How many queued rows still have codes here (counted again only when either side changed).
    const key = `${this.knownGeneration}:${this.staleGeneration}:${this.staleThrough}`;
    let extra = this.staleHeld[entity];
    if (extra.key !== key) {
      let n = 0;
      for (const id of stale) if (codes.has(id)) n++;
      extra = this.staleHeld[entity] = { key, n };
    }
    const want = k + extra.n;
    const found = codes.search(query, want, Math.max(RESCORE_FACTOR * want, RESCORE_MIN));
    return (extra.n > 0 ? found.filter((n) => !stale.has(n.id)) : found).slice(0, k);
  }

  /**
   * Exact nearest neighbours by sqlite-vec's brute-force KNN over the float vectors, leaving out
   * queued rows as {@link knn} does (slower: a one-shot process's first searches, and the measure
   * of the fast path's agreement). Writes nothing.
   */
  exactKnn(entity: VectorEntity, query: Float32Array, k: number): Neighbour[] {
    const stale = this.queued()[entity];
    // sqlite-vec answers at most 4096 neighbours.
    const ask = Math.min(4096, k + stale.size);
    const found = stmt(
      this.ctx.db,
      `SELECT rowid AS id, distance FROM ${VECTOR_TABLES[entity].vec} WHERE embedding MATCH ? AND k = ?`,
    ).all(query, ask) as Neighbour[];
    return (stale.size > 0 ? found.filter((n) => !stale.has(n.id)) : found).slice(0, k);
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
      for (const entity of VECTOR_ENTITIES) {
        deleted += deleteLoneCopies(db, entity);
        const { stale, missing } = vectorDrift(db, entity);
        queued += queueRows(db, entity, [...stale, ...missing]);
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
    const target = storedEmbedder(db, META_REINDEX);
    const resumed = target !== null && fingerprint(target) === fingerprint(this.info);
    if (!resumed) {
      db.transaction(() => {
        setMeta(db, META_REINDEX, JSON.stringify(this.info));
        dropTables(db);
        createTables(db, this.info.dim);
        queueEveryRow(db);
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
        setMeta(db, META_VECTOR_FINGERPRINT, JSON.stringify(this.info));
        setMeta(db, META_REINDEX, null);
      }).immediate();
      this.paused = null;
    }
    return { embedded, resumed };
  }
}
