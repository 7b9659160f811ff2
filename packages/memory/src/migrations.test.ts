// Migrations and opening the database file: step by step to each version, a database from the
// future, a file that is not a database, and the file's permissions.

import { randomBytes } from 'node:crypto';
import { chmodSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { openDatabase } from './db.js';
import { LATEST_VERSION, MIGRATIONS, migrate, schemaVersion } from './migrations.js';
import { DB_FILENAME, MemoryStore } from './store.js';
import { expectKeelError, T0, tempDir } from './test-helpers.js';

/** What each version adds (tables, views, virtual tables, triggers). */
const ADDS: Record<number, string[]> = {
  1: [
    'meta',
    'episodes',
    'facts',
    'active_facts',
    'fact_evidence',
    'tombstones',
    'journal',
    'journal_no_delete',
    'journal_redact_only',
    'facts_one_active_per_slot',
  ],
  2: ['facts_fts', 'episodes_fts', 'facts_fts_insert', 'facts_fts_update', 'episodes_fts_insert'],
  3: ['imports'],
  4: ['sessions', 'turns', 'messages', 'belief_queue'],
  5: [
    'vector_queue',
    'vector_queue_fact_insert',
    'vector_queue_fact_update',
    'vector_queue_episode_insert',
    'vector_queue_episode_update',
  ],
  6: [
    'think_runs',
    'curator_diary',
    'interrupts',
    'review_flags',
    'belief_queue_uncurated',
    'review_flags_open',
  ],
  // Recreates step 5's four triggers (same names) with a condition: adds no name of its own.
  7: [],
};

const names = (db: Database.Database): Set<string> =>
  new Set(
    (db.prepare('SELECT name FROM sqlite_master').all() as { name: string }[]).map((r) => r.name),
  );

describe('migrations', () => {
  it('every migration has an expectation here (a new one needs a test)', () => {
    expect(MIGRATIONS.map((m) => m.version)).toEqual(Object.keys(ADDS).map(Number));
    expect(LATEST_VERSION).toBe(MIGRATIONS[MIGRATIONS.length - 1]!.version);
  });

  it('migrates a fresh database step by step, each version adding its tables', () => {
    const path = join(tempDir(), DB_FILENAME);
    const db = openDatabase(path, { migrate: false });
    try {
      expect(schemaVersion(db)).toBe(0);
      for (const m of MIGRATIONS) {
        expect(migrate(db, T0 + m.version, m.version)).toEqual([m.version]);
        expect(schemaVersion(db)).toBe(m.version);
        const rows = db
          .prepare('SELECT version, name, applied_at FROM schema_migrations ORDER BY version')
          .all();
        expect(rows).toEqual(
          MIGRATIONS.filter((x) => x.version <= m.version).map((x) => ({
            version: x.version,
            name: x.name,
            applied_at: T0 + x.version,
          })),
        );
        const present = names(db);
        for (const v of Object.keys(ADDS).map(Number)) {
          for (const name of ADDS[v]!) {
            expect(present.has(name), `${name} after v${m.version}`).toBe(v <= m.version);
          }
        }
      }
      // Then the rest: nothing left to apply, and re-running is a no-op.
      expect(migrate(db, T0 + 100)).toEqual([]);
      expect(schemaVersion(db)).toBe(LATEST_VERSION);
    } finally {
      db.close();
    }
  });

  it('migrates part of the way, then the rest in one call', () => {
    const path = join(tempDir(), DB_FILENAME);
    const db = openDatabase(path, { migrate: false });
    try {
      expect(migrate(db, T0, 1)).toEqual([1]);
      expect(names(db).has('facts_fts')).toBe(false);
      expect(migrate(db, T0)).toEqual(MIGRATIONS.slice(1).map((m) => m.version));
      expect(schemaVersion(db)).toBe(LATEST_VERSION);
    } finally {
      db.close();
    }
    // A store opened on the result works and verifies.
    const store = MemoryStore.open(path, { now: () => T0 });
    try {
      store.remember({ kind: 'note', key: 'x', value: 'migrated fine', source: 'owner_stated' });
      expect(store.verify()).toMatchObject({ ok: true, schemaVersion: LATEST_VERSION });
    } finally {
      store.close();
    }
  });

  it('step 7 empties the vector queue of a store without vectors and keeps that of a store with them', () => {
    const setup = (withVectors: boolean) => {
      const db = openDatabase(join(tempDir(), DB_FILENAME), { migrate: false });
      migrate(db, T0, 6);
      if (withVectors) {
        // What binding an embedder left before step 7: its fingerprint (the vec0 tables need
        // sqlite-vec; the migration looks only at meta).
        db.prepare(`INSERT INTO meta (key, value) VALUES ('vector_fingerprint', '{}')`).run();
      }
      db.prepare(
        `INSERT INTO episodes (kind, channel, role, text, occurred_at, created_at)
         VALUES ('conversation', 'cli', 'owner', 'queued by step 5', ?, ?)`,
      ).run(T0, T0);
      expect(db.prepare('SELECT count(*) AS n FROM vector_queue').get()).toEqual({ n: 1 });
      migrate(db, T0 + 7);
      return db;
    };
    const insertEpisode = (db: Database.Database) =>
      db
        .prepare(
          `INSERT INTO episodes (kind, channel, role, text, occurred_at, created_at)
           VALUES ('conversation', 'cli', 'owner', 'after step 7', ?, ?)`,
        )
        .run(T0, T0);
    const without = setup(false);
    const withVectors = setup(true);
    try {
      expect(without.prepare('SELECT count(*) AS n FROM vector_queue').get()).toEqual({ n: 0 });
      insertEpisode(without);
      expect(without.prepare('SELECT count(*) AS n FROM vector_queue').get()).toEqual({ n: 0 });
      // Control: with vectors in use the old row stays queued and a new one is queued too.
      expect(withVectors.prepare('SELECT count(*) AS n FROM vector_queue').get()).toEqual({ n: 1 });
      insertEpisode(withVectors);
      expect(withVectors.prepare('SELECT count(*) AS n FROM vector_queue').get()).toEqual({ n: 2 });
    } finally {
      without.close();
      withVectors.close();
    }
  });

  it('a failing migration applies nothing (all or none)', () => {
    const path = join(tempDir(), DB_FILENAME);
    const db = openDatabase(path, { migrate: false });
    try {
      migrate(db, T0, 1);
      db.exec('CREATE TABLE imports (id INTEGER PRIMARY KEY)'); // v3 will collide with this
      expect(() => migrate(db, T0)).toThrow(/already exists/);
      expect(schemaVersion(db)).toBe(1);
      expect(names(db).has('facts_fts')).toBe(false); // v2 rolled back with v3
    } finally {
      db.close();
    }
  });

  it('a database from a newer keel is refused with SCHEMA_FROM_FUTURE and left untouched', () => {
    const path = join(tempDir(), DB_FILENAME);
    MemoryStore.open(path, { now: () => T0 }).close();
    const raw = new Database(path);
    raw
      .prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)')
      .run(LATEST_VERSION + 1, 'from the future', T0);
    raw.close();
    const err = expectKeelError(() => MemoryStore.open(path), 'SCHEMA_FROM_FUTURE');
    expect(err.details).toEqual({
      databaseVersion: LATEST_VERSION + 1,
      codeVersion: LATEST_VERSION,
    });
    const check = new Database(path, { readonly: true });
    try {
      expect(schemaVersion(check)).toBe(LATEST_VERSION + 1);
    } finally {
      check.close();
    }
  });

  it('a file of random bytes is DB_CORRUPT and its bytes are kept', () => {
    const path = join(tempDir(), DB_FILENAME);
    const bytes = randomBytes(8192);
    bytes.write('not sqlite', 0); // never the 16-byte SQLite header, whatever the random bytes
    writeFileSync(path, bytes);
    const err = expectKeelError(() => MemoryStore.open(path), 'DB_CORRUPT');
    expect(err.message).toContain(path);
    expect(readFileSync(path).equals(bytes)).toBe(true);
  });

  it('the database file (and its WAL side files) have mode 0600', () => {
    const dir = tempDir();
    const path = join(dir, 'nested', DB_FILENAME);
    const store = MemoryStore.open(path, { now: () => T0 });
    try {
      store.remember({ kind: 'note', key: 'x', value: 'private', source: 'owner_stated' });
      expect(statSync(path).mode & 0o777).toBe(0o600);
      expect(statSync(join(dir, 'nested')).mode & 0o777).toBe(0o700);
      for (const side of [`${path}-wal`, `${path}-shm`]) {
        let mode: number | null = null;
        try {
          mode = statSync(side).mode & 0o777;
        } catch {
          // not present
        }
        if (mode !== null) expect(mode, side).toBe(0o600);
      }
    } finally {
      store.close();
    }
    // Reopening tightens a file someone loosened.
    chmodSync(path, 0o644);
    MemoryStore.open(path).close();
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  it('opens with WAL and foreign keys on', () => {
    const path = join(tempDir(), DB_FILENAME);
    const store = MemoryStore.open(path, { now: () => T0 });
    try {
      expect(store.db.pragma('journal_mode', { simple: true })).toBe('wal');
      expect(store.db.pragma('foreign_keys', { simple: true })).toBe(1);
    } finally {
      store.close();
    }
  });
});
