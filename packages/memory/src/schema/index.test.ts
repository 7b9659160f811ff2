// The list of migrations as a whole: one step file and one test per version, released steps never
// edited, versions recorded as they are applied, part of the way and then the rest, all or none,
// and a database from the future refused. Each step's own test is `NNN-name.test.ts` beside it.

import { createHash } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../db.js';
import { DB_FILENAME, MemoryStore } from '../store.js';
import { expectKeelError, T0, tempDir } from '../test-helpers.js';
import { LATEST_VERSION, MIGRATIONS, migrate, schemaVersion } from './index.js';
import { schemaNames } from './testkit.js';

/**
 * SHA-256 of each released step's SQL. A step is never edited once released: a change to the
 * schema is a new step (with a new line here).
 */
const RELEASED: Record<number, string> = {
  1: '10af445101ad5da2d3266fee8de96b68efb1ae9322c5e79f41e8eef052d13641',
  2: '045b0d99fc5b9d4274f988eb9307c29adfc6bcf5637d94ce9218e0993ce86233',
  3: '86b54c02356b8b121359b981a1ede180db4579ef60836e44d2f677157e0d4799',
  4: '206c3a95aa9fa840f6e21ee69ff022afc49b489bcccee835fe085b5feef22d1f',
  5: '5c24df15e8b0323166d6668d48ca90ed24f4d932802feb5ac4a0dc08e68837e5',
  6: '46a4db5faba919b6ec489c677c9e8303e9e3a83157d455b8e9b21415da51bb09',
  7: '0e978afb12fe360be0319a08b769b925aedf90cf4744417a5b8e8928a8314eb4',
  8: '072fca049564691eada7bdf6099f11a7cbd7018000c26787962b85e10f38d4f4',
  9: '2b74b98acd6158599b861118b49af8fe3ec3372aac127c6756b5f5315bbb6e4b',
  10: '56ab7cafbcb9b04afbb45d0b23cb4441048341e76421ab577b371e8955cc65d2',
  11: 'e2ec827a3db1d615a254ebc67e1591307e33dc09b87e8cbb1cc8db778bfa574f',
  12: '0d77f96d3afc8b05dfbf249fd0234c4593065671876378543ba0cf2ff5a6e85c',
  13: '5da97db35869e7399efdd81e098215c08ed501e57f6b0104ff7c845418235046',
  14: '115708a98d33a08ffb6be53e02acf3eba466f7d0680d09e2809413fdec97cd92',
  15: '0d77f96d3afc8b05dfbf249fd0234c4593065671876378543ba0cf2ff5a6e85c',
  16: '7f3404d2ec7143bd429c40a30e01af6cb62a2cb21311911690c476ef0e905fd1',
  17: 'e8efd6a9844607bb71030bdedd40222424cf8c74eb28e38f6821710a1ed553ad',
};

describe('migrations', () => {
  it('every migration has a step file and a test here (a new one needs a test)', async () => {
    const files = readdirSync(fileURLToPath(new URL('.', import.meta.url))).sort();
    const steps = files.filter((f) => /^\d{3}-[a-z0-9-]+\.ts$/.test(f));
    const tests = files.filter((f) => /^\d{3}-[a-z0-9-]+\.test\.ts$/.test(f));
    const versions = MIGRATIONS.map((m) => m.version);
    expect(versions).toEqual(Array.from({ length: versions.length }, (_, i) => i + 1));
    expect(steps.map((f) => Number(f.slice(0, 3)))).toEqual(versions);
    expect(tests).toEqual(steps.map((f) => f.replace(/\.ts$/, '.test.ts')));
    expect(LATEST_VERSION).toBe(MIGRATIONS[MIGRATIONS.length - 1]!.version);
  });

  it('no released step has been edited', async () => {
    const sha = (sql: string) => createHash('sha256').update(sql).digest('hex');
    expect(Object.fromEntries(MIGRATIONS.map((m) => [m.version, sha(m.sql)]))).toEqual(RELEASED);
  });

  it('migrates a fresh database step by step, recording each version as it is applied', async () => {
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
      }
      // Then the rest: nothing left to apply, and re-running is a no-op.
      expect(migrate(db, T0 + 100)).toEqual([]);
      expect(schemaVersion(db)).toBe(LATEST_VERSION);
    } finally {
      db.close();
    }
  });

  it('migrates part of the way, then the rest in one call', async () => {
    const path = join(tempDir(), DB_FILENAME);
    const db = openDatabase(path, { migrate: false });
    try {
      expect(migrate(db, T0, 1)).toEqual([1]);
      expect(schemaNames(db).has('facts_fts')).toBe(false);
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

  it('a failing migration applies nothing (all or none)', async () => {
    const path = join(tempDir(), DB_FILENAME);
    const db = openDatabase(path, { migrate: false });
    try {
      migrate(db, T0, 1);
      db.exec('CREATE TABLE imports (id INTEGER PRIMARY KEY)'); // v3 will collide with this
      expect(() => migrate(db, T0)).toThrow(/already exists/);
      expect(schemaVersion(db)).toBe(1);
      expect(schemaNames(db).has('facts_fts')).toBe(false); // v2 rolled back with v3
    } finally {
      db.close();
    }
  });

  it('a database from a newer keel is refused with SCHEMA_FROM_FUTURE and left untouched', async () => {
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
});
