/**
 * The vector tables of a store and what is kept beside them: per kind of row, a sqlite-vec `vec0`
 * table of float vectors (the record) and a plain `*_codes` table of the same vectors quantised
 * (read by the fast path, see `quantised.ts`); the embedder fingerprints and the generation counter
 * in `meta`; the queue of rows whose vector must change ({@link VECTOR_QUEUE}, made by schema step
 * 5); the text each row is embedded as; and the writes `VectorIndex` makes to them (store a batch,
 * remove the vectors of queued rows, mend a vector that lost a copy).
 *
 * The tables are created when an embedder is first bound, since their dimension depends on it.
 * Creating, dropping or reading a `vec0` table needs sqlite-vec loaded (`extension.ts`); the code
 * tables and the queue do not.
 *
 * @module
 */
import type Database from 'better-sqlite3';
import { type StoreContext, stmt } from '../context.js';
import type { EmbedderInfo } from '../embed/types.js';
import { getMeta, setMeta } from '../repos/meta.js';
import { VECTOR_QUEUE } from '../schema/index.js';
import { loadVectorExtension } from './extension.js';
import { type CodeIndex, int8Copy, signBits } from './quantised.js';

/** The two kinds of row with vectors. */
export type VectorEntity = 'fact' | 'episode';
/** Both kinds, in the order the tables are created, checked and loaded. */
export const VECTOR_ENTITIES: readonly VectorEntity[] = ['fact', 'episode'];
/** The two tables of each kind: the `vec0` table and its codes table. */
export const VECTOR_TABLES: Record<VectorEntity, { vec: string; codes: string }> = {
  fact: { vec: 'vec_facts', codes: 'vec_facts_codes' },
  episode: { vec: 'vec_episodes', codes: 'vec_episodes_codes' },
};
/** The `meta` key holding the embedder a `keel reindex` under way is rebuilding for. */
export const META_REINDEX = 'vector_reindex';
/** The `meta` key counting committed changes to the vectors (see {@link generation}). */
const META_GENERATION = 'vector_generation';
/** The longest text embedded, in characters (the models truncate to a few hundred tokens anyway). */
export const MAX_EMBED_CHARS = 4000;

/** One row of the vector queue. */
export interface QueuedRow {
  seq: number;
  entity: VectorEntity;
  id: number;
}

/** The embedder recorded in `meta` under `key`, or null. */
export function storedEmbedder(db: Database.Database, key: string): EmbedderInfo | null {
  const v = getMeta(db, key);
  return v ? (JSON.parse(v) as EmbedderInfo) : null;
}

/**
 * The vectors' generation: bumped by every committed change to the stored vectors, in the same
 * transaction, so a process can tell whether its in-memory copy is still current.
 */
export function generation(db: Database.Database): number {
  return Number(getMeta(db, META_GENERATION) ?? 0);
}
/** Bumps the generation (inside the caller's transaction); returns the new one. */
export function bumpGeneration(db: Database.Database): number {
  const g = generation(db) + 1;
  setMeta(db, META_GENERATION, String(g));
  return g;
}

/** True when the vector tables exist (an embedder has been bound). */
export function tablesExist(db: Database.Database): boolean {
  return Boolean(stmt(db, `SELECT 1 FROM sqlite_master WHERE name = 'vec_facts'`).get() as unknown);
}
/** Drops every vector table (those that exist). Needs sqlite-vec loaded. */
export function dropTables(db: Database.Database): void {
  for (const t of Object.values(VECTOR_TABLES)) {
    db.exec(`DROP TABLE IF EXISTS ${t.vec}; DROP TABLE IF EXISTS ${t.codes}`);
  }
}
/** Creates the vector tables for `dim`-d vectors compared by cosine. Needs sqlite-vec loaded. */
export function createTables(db: Database.Database, dim: number): void {
  for (const t of Object.values(VECTOR_TABLES)) {
    db.exec(`CREATE VIRTUAL TABLE ${t.vec} USING vec0 (embedding float[${dim}] distance_metric=cosine);
      CREATE TABLE ${t.codes} (id INTEGER PRIMARY KEY, code BLOB NOT NULL, q8 BLOB NOT NULL) STRICT;`);
  }
}
/** Empties the queue and queues every row that can have a vector (a first binding, a rebuild). */
export function queueEveryRow(db: Database.Database): void {
  db.exec(`DELETE FROM ${VECTOR_QUEUE};
          INSERT INTO ${VECTOR_QUEUE} (entity, id) SELECT 'fact', id FROM active_facts;
          INSERT INTO ${VECTOR_QUEUE} (entity, id) SELECT 'episode', id FROM episodes WHERE kind = 'conversation';`);
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
export function currentText(
  db: Database.Database,
  entity: VectorEntity,
  id: number,
): string | null {
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

/** A queued row read for embedding, with its text at that moment (null: it should have none). */
export interface BatchRow extends QueuedRow {
  text: string | null;
}

/** The oldest `n` queued rows, with the text each would be embedded as now. */
export function readBatch(db: Database.Database, n: number): BatchRow[] {
  return (
    stmt(db, `SELECT seq, entity, id FROM ${VECTOR_QUEUE} ORDER BY seq LIMIT ?`).all(
      n,
    ) as QueuedRow[]
  ).map((row) => ({ ...row, text: currentText(db, row.entity, row.id) }));
}

/**
 * The newest `n` rows queued after `since` (a queue `seq`) that should have a vector now, newest
 * first, with their text. Rows that should have none are left in the queue for the next sync,
 * which deletes their old vector first.
 */
export function readNewest(db: Database.Database, since: number, n: number): BatchRow[] {
  // Read before any text is looked up (better-sqlite3 runs one statement at a time); a few rows
  // to spare for those that should have no vector (a superseded fact beside its successor).
  const rows = stmt(
    db,
    `SELECT seq, entity, id FROM ${VECTOR_QUEUE} WHERE seq > ? ORDER BY seq DESC LIMIT ?`,
  ).all(since, 4 * n) as QueuedRow[];
  const out: BatchRow[] = [];
  for (const row of rows) {
    if (out.length >= n) break;
    const text = currentText(db, row.entity, row.id);
    if (text !== null) out.push({ ...row, text });
  }
  return out;
}

/** The highest `seq` the vector queue has handed out (0 for none): a row queued later has a higher one. */
export function queueMark(db: Database.Database): number {
  const r = stmt(db, `SELECT seq FROM sqlite_sequence WHERE name = '${VECTOR_QUEUE}'`).get() as
    | { seq: number }
    | undefined;
  return r?.seq ?? 0;
}

/** What {@link storeBatch} wrote. */
export interface StoredBatch {
  /** The vectors stored, with the quantised copies written to the codes table. */
  written: { entity: VectorEntity; id: number; code: Uint32Array; q8: Int8Array }[];
  /** Rows left queued because their text changed while they were being embedded. */
  kept: number;
  /** The generation before, and after. */
  before: number;
  after: number;
}

/**
 * Stores the vectors of one embedded batch in one transaction that bumps the generation. A row
 * whose text is still the text embedded gets its vector (both copies) and leaves the queue; one
 * whose text changed meanwhile stays queued; one that should have no vector leaves the queue.
 *
 * @param vectors - one per row of `batch` that has a text, in order.
 */
export function storeBatch(
  db: Database.Database,
  batch: readonly BatchRow[],
  vectors: readonly Float32Array[],
): StoredBatch {
  const dequeue = stmt(db, `DELETE FROM ${VECTOR_QUEUE} WHERE seq = ?`);
  return db
    .transaction((): StoredBatch => {
      const before = generation(db);
      const written: StoredBatch['written'] = [];
      let kept = 0;
      batch
        .filter((r) => r.text !== null)
        .forEach((r, i) => {
          if (currentText(db, r.entity, r.id) !== r.text) {
            kept++;
            return; // changed meanwhile: stays queued for the next pass
          }
          const t = VECTOR_TABLES[r.entity];
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
          dequeue.run(r.seq);
          written.push({ entity: r.entity, id: r.id, code, q8 });
        });
      for (const r of batch) if (r.text === null) dequeue.run(r.seq);
      return { written, kept, before, after: bumpGeneration(db) };
    })
    .immediate();
}

/**
 * Deletes each vector of one kind of row that has lost one of its two copies (a `vec0` row
 * without a code row, or a code row without a `vec0` row), inside the caller's transaction.
 *
 * @returns the number of rows deleted from either table.
 */
export function deleteLoneCopies(db: Database.Database, entity: VectorEntity): number {
  const t = VECTOR_TABLES[entity];
  let deleted = 0;
  const codeIds = new Set(
    (db.prepare(`SELECT id FROM ${t.codes}`).raw().all() as [number][]).map((r) => r[0]),
  );
  const vecIds = new Set(
    (db.prepare(`SELECT rowid FROM ${t.vec}`).raw().all() as [number][]).map((r) => Number(r[0])),
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
  return deleted;
}

/** Queues rows of one kind for the next sync; returns how many were not queued already. */
export function queueRows(db: Database.Database, entity: VectorEntity, ids: number[]): number {
  let queued = 0;
  for (const id of ids)
    queued += stmt(db, `INSERT OR IGNORE INTO ${VECTOR_QUEUE} (entity, id) VALUES (?, ?)`).run(
      entity,
      id,
    ).changes;
  return queued;
}

/** Reads every stored code of one kind of row (of `dim`-d vectors) into `into`. */
export function loadCodes(
  db: Database.Database,
  entity: VectorEntity,
  dim: number,
  into: CodeIndex,
): void {
  const words = Math.ceil(dim / 32);
  const rows = db
    .prepare(`SELECT id, code, q8 FROM ${VECTOR_TABLES[entity].codes}`)
    .raw()
    .iterate() as IterableIterator<[number, Buffer, Buffer]>;
  for (const [id, code, q8] of rows) {
    into.set(
      id,
      new Uint32Array(code.buffer.slice(code.byteOffset, code.byteOffset + words * 4)),
      new Int8Array(q8.buffer, q8.byteOffset, dim),
    );
  }
}

/** What {@link removeQueuedVectors} did. */
export interface RemovedVectors {
  /** The rows whose stored vector (both copies) was deleted. */
  removed: { entity: VectorEntity; id: number }[];
  /** The generation before, and after (the same when nothing was deleted). */
  before: number;
  after: number;
  /** The last queue `seq` looked at. */
  through: number;
}

/**
 * Deletes the stored vectors (both copies) of every row queued after `since`, in one transaction
 * that bumps the generation when any went. The rows stay queued (the next sync embeds them again)
 * except, with `dropIneligible`, those that should have no vector now.
 *
 * @param since - a queue `seq`; 0 for the whole queue.
 * @returns null, opening no transaction, when nothing is queued after `since`.
 */
export function removeQueuedVectors(
  db: Database.Database,
  since: number,
  dropIneligible: boolean,
): RemovedVectors | null {
  const queued = stmt(db, `SELECT seq, entity, id FROM ${VECTOR_QUEUE} WHERE seq > ? ORDER BY seq`);
  if (queued.get(since) === undefined) return null;
  return db
    .transaction((): RemovedVectors => {
      const rows = queued.all(since) as QueuedRow[];
      const before = generation(db);
      const removed: RemovedVectors['removed'] = [];
      for (const r of rows) {
        const t = VECTOR_TABLES[r.entity];
        if (stmt(db, `DELETE FROM ${t.codes} WHERE id = ?`).run(r.id).changes > 0) {
          stmt(db, `DELETE FROM ${t.vec} WHERE rowid = ?`).run(BigInt(r.id));
          removed.push({ entity: r.entity, id: r.id });
        }
        if (dropIneligible && currentText(db, r.entity, r.id) === null)
          stmt(db, `DELETE FROM ${VECTOR_QUEUE} WHERE seq = ?`).run(r.seq);
      }
      const after = removed.length > 0 ? bumpGeneration(db) : before;
      return { removed, before, after, through: rows[rows.length - 1]?.seq ?? since };
    })
    .immediate();
}

/**
 * Deletes the vectors of queued rows without an embedder (e.g. right after a purge in a process
 * that never attached one); the rows stay queued for the next sync. No-op when sqlite-vec or the
 * tables are absent.
 *
 * @returns the number of vectors deleted.
 */
export function removeStaleVectors(ctx: StoreContext): number {
  if (!loadVectorExtension(ctx.db).ok || !tablesExist(ctx.db)) return 0;
  return removeQueuedVectors(ctx.db, 0, false)?.removed.length ?? 0;
}
