/**
 * Checking the vector tables against the rows they describe, for `keel verify` and `keel doctor`:
 * {@link checkVectors} reports what is wrong (each problem with the command that mends it),
 * {@link vectorDrift} finds the rows whose vector is wrong and not queued to be put right (also
 * what `VectorIndex.repair` queues), and {@link pendingVectorRows} counts the rows waiting for a
 * vector. Nothing here writes.
 *
 * @module
 */
import type Database from 'better-sqlite3';
import { type StoreContext, stmt } from '../context.js';
import type { EmbedderInfo } from '../embed/types.js';
import { getMeta } from '../repos/meta.js';
import { META_VECTOR_FINGERPRINT, VECTOR_QUEUE } from '../schema/index.js';
import { loadVectorExtension } from './extension.js';
import {
  currentText,
  META_REINDEX,
  tablesExist,
  VECTOR_ENTITIES,
  VECTOR_TABLES,
  type VectorEntity,
} from './tables.js';

/**
 * Rows whose vector is wrong and not queued to be put right: `stale`, rows with a vector that
 * should have none (a fact no longer active, an episode gone or emptied); `missing`, rows that
 * should have a vector and have none. Queued rows are left out: the next sync or search deals
 * with them. Reads the plain code tables, so sqlite-vec need not be loaded.
 */
export function vectorDrift(
  db: Database.Database,
  entity: VectorEntity,
): { stale: number[]; missing: number[] } {
  const codes = VECTOR_TABLES[entity].codes;
  const eligible =
    entity === 'fact'
      ? `SELECT id FROM active_facts`
      : `SELECT id FROM episodes WHERE kind = 'conversation'`;
  const notQueued = `AND NOT EXISTS (SELECT 1 FROM ${VECTOR_QUEUE} q WHERE q.entity = '${entity}' AND q.id = x.id)`;
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
  const rawFingerprint = getMeta(db, META_VECTOR_FINGERPRINT);
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
  for (const entity of VECTOR_ENTITIES) {
    const t = VECTOR_TABLES[entity];
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
    const ext = loadVectorExtension(db);
    if (ext.ok) {
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
        `cannot read ${t.vec}: sqlite-vec did not load (${ext.error})`,
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
  if (getMeta(ctx.db, META_VECTOR_FINGERPRINT) !== undefined)
    return n(`SELECT count(*) AS n FROM ${VECTOR_QUEUE}`);
  return (
    n('SELECT count(*) AS n FROM active_facts') +
    n(`SELECT count(*) AS n FROM episodes WHERE kind = 'conversation'`)
  );
}
