/**
 * Test support for the schema steps' tests: a fresh database migrated to exactly one version, what
 * the schema holds, and rows written the way the code that owns each table writes them.
 *
 * Used only by `*.test.ts` files.
 *
 * @module
 */
import { queryPhrases } from '@keel/language';
import type Database from 'better-sqlite3';
import { expect, onTestFinished } from 'vitest';
import { openDatabase } from '../db.js';
import { T0 } from '../test-helpers.js';
import { MIGRATIONS, migrate } from './index.js';

/**
 * A fresh in-memory database (with the SQL functions the triggers call) migrated to exactly
 * `version`, closed when the test finishes.
 */
export function databaseAt(version: number): Database.Database {
  const db = openDatabase(':memory:', { migrate: false });
  onTestFinished(() => {
    db.close();
  });
  if (version > 0) migrate(db, T0, version);
  return db;
}

/** The names of every table, view, index and trigger in the schema. */
export function schemaNames(db: Database.Database): Set<string> {
  return new Set(
    (db.prepare('SELECT name FROM sqlite_master').all() as { name: string }[]).map((r) => r.name),
  );
}

/** The column names of `table`, in order. */
export function columns(db: Database.Database, table: string): string[] {
  return (db.prepare('SELECT name FROM pragma_table_info(?)').all(table) as { name: string }[]).map(
    (r) => r.name,
  );
}

/**
 * Checks that step `version` adds `names` (tables, views, indexes, triggers) where it should:
 * migrating a fresh database one step at a time, none of them exists before it, and all of them
 * exist once it is applied and after every later step.
 */
export function expectStepAdds(version: number, names: readonly string[]): void {
  const db = databaseAt(0);
  for (const m of MIGRATIONS) {
    expect(migrate(db, T0 + m.version, m.version)).toEqual([m.version]);
    const present = schemaNames(db);
    for (const name of names) {
      expect(present.has(name), `${name} after v${m.version}`).toBe(m.version >= version);
    }
  }
  expect(migrate(db, T0 + 100)).toEqual([]);
}

/** Inserts a fact row with the columns a write needs; returns its id. */
export function insertFact(
  db: Database.Database,
  row: { key?: string; value?: string; status?: string; kind?: string } = {},
): number {
  return Number(
    db
      .prepare(
        `INSERT INTO facts (scope, kind, key, value, value_hash, status, source, confidence,
           created_at, updated_at, last_seen_at)
         VALUES ('owner', ?, ?, ?, 'h', ?, 'owner_stated', 1.0, ?, ?, ?)`,
      )
      .run(
        row.kind ?? 'note',
        row.key ?? 'k',
        row.value ?? 'a value',
        row.status ?? 'active',
        T0,
        T0,
        T0,
      ).lastInsertRowid,
  );
}

/** Inserts an episode row (a conversation turn unless `kind` says otherwise); returns its id. */
export function insertEpisode(
  db: Database.Database,
  row: { text?: string; kind?: string; speaker?: string } = {},
): number {
  return Number(
    db
      .prepare(
        `INSERT INTO episodes (kind, channel, role, speaker, text, occurred_at, created_at)
         VALUES (?, 'cli', 'owner', ?, ?, ?, ?)`,
      )
      .run(row.kind ?? 'conversation', row.speaker ?? null, row.text ?? 'said something', T0, T0)
      .lastInsertRowid,
  );
}

/** The number of rows `sql` (a `SELECT count(*) AS n ...`) counts. */
export function countRows(db: Database.Database, sql: string, ...params: unknown[]): number {
  return (db.prepare(sql).get(...params) as { n: number }).n;
}

/** The rowids `table` (a full-text index) matches for one query word, searched as recall does. */
export function ftsFound(db: Database.Database, table: string, word: string): number[] {
  const match = queryPhrases(word)
    .map((p) => `"${p}"`)
    .join(' OR ');
  return (
    db.prepare(`SELECT rowid FROM ${table} WHERE ${table} MATCH ? ORDER BY rowid`).all(match) as {
      rowid: number;
    }[]
  ).map((r) => r.rowid);
}
