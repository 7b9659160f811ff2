// Copies of the database (`backup.ts`): the online backup, verified, and the checks a file must
// pass to be restored.

import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import {
  backupDatabase,
  inspectDatabase,
  isSqliteFile,
  partialName,
  temporaryCopyPid,
} from './backup.js';
import { dbOf } from './internal.js';
import { LATEST_VERSION } from './schema/index.js';
import { DB_FILENAME, MemoryStore } from './store.js';
import { expectKeelError, expectKeelErrorAsync, T0, tempDir } from './test-helpers.js';

function filled(dir: string, n = 200): MemoryStore {
  const store = MemoryStore.open(join(dir, DB_FILENAME), { now: () => T0 });
  // One unit of work: the writes commit (and move the journal's anchor) once, not n times.
  store.transaction(() => {
    for (let i = 0; i < n; i++) {
      store.remember({
        kind: 'note',
        key: `n${i}`,
        value: `value number ${i} `.repeat(40),
        source: 'owner_stated',
      });
    }
  });
  return store;
}

describe('backupDatabase', () => {
  it('copies an open store, WAL included, into one private file that passes the quick check', async () => {
    const dir = tempDir();
    const store = filled(dir);
    try {
      expect(statSync(`${store.path}-wal`).size).toBeGreaterThan(0); // writes still in the WAL
      const dest = join(dir, 'copy.db');
      const r = await backupDatabase(store.path, dest);
      expect(r).toMatchObject({ path: dest });
      expect(r.bytes).toBe(statSync(dest).size);
      expect(statSync(dest).mode & 0o777).toBe(0o600);
      expect(existsSync(`${dest}-wal`)).toBe(false);
      const copy = new Database(dest, { readonly: true });
      expect(copy.pragma('journal_mode', { simple: true })).toBe('delete');
      expect((copy.prepare('SELECT count(*) AS n FROM facts').get() as { n: number }).n).toBe(200);
      copy.close();
      expect(inspectDatabase(dest)).toMatchObject({
        version: LATEST_VERSION,
        latest: LATEST_VERSION,
        facts: 200,
      });
    } finally {
      store.close();
    }
  });

  it('takes a consistent copy while the store keeps writing', async () => {
    const dir = tempDir();
    const store = filled(dir, 2000);
    try {
      const dest = join(dir, 'copy.db');
      const copying = backupDatabase(store.path, dest);
      for (let i = 0; i < 50; i++) {
        store.addEpisode({ channel: 'terminal', role: 'owner', text: `meanwhile ${i}` });
        await new Promise((resolve) => setImmediate(resolve));
      }
      await copying;
      expect(inspectDatabase(dest).facts).toBe(2000);
    } finally {
      store.close();
    }
  });

  it('a damaged source is DB_CORRUPT and leaves no copy', async () => {
    const dir = tempDir();
    const store = filled(dir);
    store.close();
    const bytes = readFileSync(store.path);
    bytes.fill(0xff, Math.floor(bytes.length / 2), Math.floor(bytes.length / 2) + 16_384);
    writeFileSync(store.path, bytes);
    const dest = join(dir, 'copy.db');
    const err = await expectKeelErrorAsync(() => backupDatabase(store.path, dest), 'DB_CORRUPT');
    expect(err.message).toMatch(/no backup was kept/);
    expect(existsSync(dest)).toBe(false);
    expect(readFileSync(store.path).equals(bytes)).toBe(true);
  });

  it('writes under a temporary name and gives the copy its name only once it passed the check', async () => {
    const dir = tempDir();
    const store = filled(dir, 20);
    try {
      const dest = join(dir, 'copy.db');
      const seen: string[] = [];
      const r = await backupDatabase(store.path, dest, {
        copied: (temp) => {
          seen.push(temp);
          // Midway: the copy exists under its temporary name only, and that name is no backup's.
          expect(existsSync(temp)).toBe(true);
          expect(temp.endsWith('.db')).toBe(false);
          expect(existsSync(dest)).toBe(false);
        },
      });
      expect(seen).toEqual([partialName(dest)]);
      expect(r.path).toBe(dest);
      expect(inspectDatabase(dest).facts).toBe(20);
      expect(readdirSync(dir).filter((n) => n.includes('partial'))).toEqual([]);
    } finally {
      store.close();
    }
  });

  it('a copy that fails midway leaves neither the backup nor its temporary file', async () => {
    const dir = tempDir();
    const store = filled(dir, 20);
    try {
      const dest = join(dir, 'copy.db');
      await expect(
        backupDatabase(store.path, dest, {
          copied: () => {
            throw new Error('disk pulled');
          },
        }),
      ).rejects.toThrow('disk pulled');
      expect(existsSync(dest)).toBe(false);
      expect(readdirSync(dir).filter((n) => n.includes('copy'))).toEqual([]);
      // Control: the same copy without the fault is made.
      await backupDatabase(store.path, dest);
      expect(isSqliteFile(dest)).toBe(true);
    } finally {
      store.close();
    }
  });

  it('never overwrites a file', async () => {
    const dir = tempDir();
    const store = filled(dir, 3);
    try {
      const dest = join(dir, 'taken.db');
      writeFileSync(dest, 'mine');
      await expectKeelErrorAsync(() => backupDatabase(store.path, dest), 'INVALID_INPUT');
      expect(readFileSync(dest, 'utf8')).toBe('mine');
      // Taken while the copy was made: the verified copy is not published over it either.
      const late = join(dir, 'late.db');
      await expectKeelErrorAsync(
        () => backupDatabase(store.path, late, { copied: () => writeFileSync(late, 'theirs') }),
        'INVALID_INPUT',
      );
      expect(readFileSync(late, 'utf8')).toBe('theirs');
      expect(readdirSync(dir).filter((n) => n.includes('partial'))).toEqual([]);
    } finally {
      store.close();
    }
  });
});

describe('temporaryCopyPid', () => {
  it('names the writer of every temporary copy and of the files beside it, and of nothing else', () => {
    const copy = partialName('/h/backups/keel-2026-01-01T00-00-00-000Z.db', 4242);
    expect(copy).toBe('/h/backups/.keel-2026-01-01T00-00-00-000Z.db.partial-4242');
    const name = copy.split('/').pop()!;
    for (const n of [
      name,
      `${name}-journal`,
      `${name}-wal`,
      `${name}-shm`,
      `${name}.anchor`,
      // A copy's own temporary name (a rewrite of a backup, a restore's incoming copy).
      `.${name}.partial-4242`,
      '.keel.db.partial-4242',
      // An older keel's restore.
      'keel.db.restoring-4242',
      'keel.db.restoring-4242-wal',
    ]) {
      expect(temporaryCopyPid(n), n).toBe(4242);
    }
    for (const n of [
      'keel-2026-01-01T00-00-00-000Z.db',
      'keel.db',
      'keel.db-wal',
      'keel.db.anchor',
      'keel.db.damaged-2026-01-01T00-00-00-000Z',
      'notes.partial-12', // not hidden: not keel's name for a copy
      '.keel.db.partial-',
      'purged.jsonl',
    ]) {
      expect(temporaryCopyPid(n), n).toBeNull();
    }
  });
});

describe('inspectDatabase', () => {
  it('refuses what is not a sound keel database of a schema this code knows', () => {
    const dir = tempDir();
    expectKeelError(() => inspectDatabase(join(dir, 'missing.db')), 'FILE_UNREADABLE');

    const junk = join(dir, 'junk.db');
    writeFileSync(junk, Buffer.alloc(8192, 7));
    expectKeelError(() => inspectDatabase(junk), 'DB_CORRUPT');

    const other = join(dir, 'other.db');
    const db = new Database(other);
    db.exec('CREATE TABLE notes (x TEXT)');
    db.close();
    expect(expectKeelError(() => inspectDatabase(other), 'INVALID_INPUT').message).toMatch(
      /not a keel database/,
    );

    const future = filled(dir, 3);
    dbOf(future)
      .prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)')
      .run(LATEST_VERSION + 1, 'from the future', T0);
    future.close();
    const before = readFileSync(future.path);
    expectKeelError(() => inspectDatabase(future.path), 'SCHEMA_FROM_FUTURE');
    expect(readFileSync(future.path).equals(before)).toBe(true);
  });

  it('a damaged keel database is DB_CORRUPT, and is not written to', () => {
    const dir = tempDir();
    const store = filled(dir);
    store.close();
    const bytes = readFileSync(store.path);
    bytes.fill(0xff, Math.floor(bytes.length / 2), Math.floor(bytes.length / 2) + 16_384);
    writeFileSync(store.path, bytes);
    expectKeelError(() => inspectDatabase(store.path), 'DB_CORRUPT');
    expect(readFileSync(store.path).equals(bytes)).toBe(true);
  });
});
