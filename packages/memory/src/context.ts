/**
 * The handle every store module works through: the database, the clock, and a cache of prepared
 * statements.
 *
 * @module
 */

import type { SecretLedger } from '@keel/language';
import type Database from 'better-sqlite3';

/** The clock, in ms since the Unix epoch. Injected so tests and the think service control time. */
export type Clock = () => number;

/** What store functions receive. */
export interface StoreContext {
  readonly db: Database.Database;
  readonly now: Clock;
  /**
   * The secrets withheld so far in the current unit of work (`MemoryStore.transaction`) or span
   * (`MemoryStore.withSecrets`), in memory only: their later writes withhold them too. Absent
   * outside both.
   */
  ledger?: SecretLedger | undefined;
}

const cache = new WeakMap<Database.Database, Map<string, Database.Statement>>();

/** A prepared statement for `sql`, compiled once per connection. */
export function stmt(db: Database.Database, sql: string): Database.Statement {
  let perDb = cache.get(db);
  if (!perDb) {
    perDb = new Map();
    cache.set(db, perDb);
  }
  let s = perDb.get(sql);
  if (!s) {
    s = db.prepare(sql);
    perDb.set(sql, s);
  }
  return s;
}

/** A single number from a query selecting one column named `n` (e.g. `SELECT count(*) AS n …`). */
export function countRows(db: Database.Database, sql: string, ...params: unknown[]): number {
  return (stmt(db, sql).get(...params) as { n: number }).n;
}
