// The integrity guard (`integrity.ts`): a damaged file is found before anything is written to it,
// and a sound verdict is cached by the file's state so a one-shot verb need not read the whole file.

import { copyFileSync, existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDatabase } from './db.js';
import { fileState } from './integrity.js';
import { dbOf } from './internal.js';
import { anchorPathFor } from './journal/anchor.js';
import { LATEST_VERSION, migrate, schemaVersion } from './schema/index.js';
import { DB_FILENAME, MemoryStore } from './store.js';
import { expectKeelError, T0, tempDir } from './test-helpers.js';

/** A store with 200 long notes, closed (its WAL folded into the file). */
function filledStore(dir: string, to?: number): string {
  const path = join(dir, DB_FILENAME);
  const store = MemoryStore.open(path, { now: () => T0 });
  for (let i = 0; i < 200; i++) {
    store.remember({
      kind: 'note',
      key: `n${i}`,
      value: `value number ${i} `.repeat(40),
      source: 'owner_stated',
    });
  }
  store.close();
  if (to !== undefined) {
    // Take the schema back to `to` (a file an older keel wrote): rebuilt from scratch at `to`.
    rmSync(path);
    const db = openDatabase(path, { migrate: false });
    migrate(db, T0, to);
    db.exec(`CREATE TABLE filler (x TEXT); INSERT INTO filler
      WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 400)
      SELECT hex(randomblob(400)) FROM n;`);
    db.close();
  }
  return path;
}

/** Overwrites 16 KB in the middle of the file (data pages, not the header). */
function damage(path: string): Buffer {
  const bytes = readFileSync(path);
  const at = Math.floor(bytes.length / 2);
  bytes.fill(0xff, at, at + 16_384);
  writeFileSync(path, bytes);
  return bytes;
}

describe('the integrity check at open', () => {
  it('a damaged file is DB_CORRUPT before anything is written, even where a write would succeed', () => {
    const dir = tempDir();
    const path = filledStore(dir);
    const bytes = damage(path);
    // Control: without the check, a write that misses the damaged pages succeeds and changes the file.
    const copy = join(dir, 'copy.db');
    writeFileSync(copy, bytes);
    copyFileSync(anchorPathFor(path), anchorPathFor(copy)); // the journal's anchor goes with it
    const unchecked = MemoryStore.open(copy);
    unchecked.remember({ kind: 'note', key: 'late', value: 'written', source: 'owner_stated' });
    unchecked.close();
    expect(readFileSync(copy).equals(bytes)).toBe(false);

    for (const check of ['full', 'cached'] as const) {
      const err = expectKeelError(
        () => MemoryStore.open(path, { integrity: { check, cacheFile: join(dir, 'c.json') } }),
        'DB_CORRUPT',
      );
      expect(err.message).toContain(path);
      expect(err.message).toContain('keel wrote nothing to it');
      expect(readFileSync(path).equals(bytes)).toBe(true);
      expect(existsSync(`${path}-wal`)).toBe(false);
    }
  });

  it('runs before the migrations: a damaged file of an older schema is not migrated', () => {
    const dir = tempDir();
    const path = filledStore(dir, LATEST_VERSION - 1);
    const bytes = damage(path);
    expectKeelError(() => MemoryStore.open(path, { integrity: { check: 'full' } }), 'DB_CORRUPT');
    expect(readFileSync(path).equals(bytes)).toBe(true);
    const db = openDatabase(path, { readonly: true });
    expect(schemaVersion(db)).toBe(LATEST_VERSION - 1);
    db.close();
  });

  it('caches a sound verdict by the file state; keel writes it vouches for hit, an overwrite misses', () => {
    const dir = tempDir();
    const path = filledStore(dir);
    const cacheFile = join(dir, 'integrity.json');
    const open = () => MemoryStore.open(path, { integrity: { check: 'cached', cacheFile } });

    const first = open();
    expect(first.lastIntegrityCheck?.how).toBe('full');
    expect(first.checkIntegrity().how).toBe('known');
    first.close();
    expect(first.recordSound()).toBe(true);
    const record = JSON.parse(readFileSync(cacheFile, 'utf8'));
    expect(record).toMatchObject({ version: 1, path, state: fileState(path) });

    // A keel process that found it sound writes, closes and vouches: the next open hits.
    const second = open();
    expect(second.lastIntegrityCheck?.how).toBe('cached');
    second.remember({ kind: 'note', key: 'more', value: 'a keel write', source: 'owner_stated' });
    expect(second.checkIntegrity().how).not.toBe('known'); // its own write changed the state
    second.close();
    second.recordSound();
    const third = MemoryStore.open(path);
    expect(third.lastIntegrityCheck).toBeNull(); // opened without the check
    expect(third.checkIntegrity().how).toBe('full'); // and no cache given: it checks
    third.close(); // its open and close changed nothing it would vouch for
    const fourth = open();
    expect(fourth.lastIntegrityCheck?.how).toBe('cached');
    fourth.close();
    fourth.recordSound();

    // Someone else's write to the file (same size, a page overwritten) misses the cache.
    const bytes = damage(path);
    expectKeelError(open, 'DB_CORRUPT');
    expect(readFileSync(path).equals(bytes)).toBe(true);
    expect(existsSync(cacheFile)).toBe(false); // damage clears the cache
  });

  it('a cached verdict expires: a check older than maxAgeMs is run again', () => {
    const dir = tempDir();
    const path = filledStore(dir);
    const cacheFile = join(dir, 'integrity.json');
    let t = T0;
    const open = () =>
      MemoryStore.open(path, {
        now: () => t,
        integrity: { check: 'cached', cacheFile, maxAgeMs: 60_000 },
      });
    const a = open();
    a.close();
    a.recordSound();
    t += 30_000;
    const b = open();
    expect(b.lastIntegrityCheck?.how).toBe('cached');
    b.close();
    b.recordSound();
    expect(JSON.parse(readFileSync(cacheFile, 'utf8')).checked_at).toBe(T0); // vouching keeps it
    t += 31_000;
    const c = open();
    expect(c.lastIntegrityCheck).toMatchObject({ how: 'full', checkedAt: t }); // expired
    c.close();
  });

  it('a store opened without the check can be asked for a cached one', () => {
    const dir = tempDir();
    const path = filledStore(dir);
    const cacheFile = join(dir, 'integrity.json');
    const a = MemoryStore.open(path, { integrity: { check: 'full', cacheFile } });
    a.close();
    a.recordSound();
    const b = MemoryStore.open(path, { integrity: { check: 'cached', cacheFile } });
    expect(b.lastIntegrityCheck?.how).toBe('cached');
    b.close();
  });

  it('damage met later (recordDamage) refuses every later check and vouches for nothing', () => {
    const dir = tempDir();
    const path = filledStore(dir);
    const cacheFile = join(dir, 'integrity.json');
    const store = MemoryStore.open(path, { integrity: { check: 'full', cacheFile } });
    expect(existsSync(cacheFile)).toBe(true);
    store.recordDamage();
    expect(store.damaged).toBe(true);
    expect(existsSync(cacheFile)).toBe(false);
    expectKeelError(() => store.checkIntegrity(), 'DB_CORRUPT');
    store.close();
    expect(store.recordSound()).toBe(false);
    expect(existsSync(cacheFile)).toBe(false);
  });

  it('a file replaced under a running store (a restore) is refused, not vouched for', () => {
    const dir = tempDir();
    const path = filledStore(dir);
    const cacheFile = join(dir, 'integrity.json');
    const store = MemoryStore.open(path, { integrity: { check: 'full', cacheFile } });
    const other = join(dir, 'other.db');
    writeFileSync(other, readFileSync(path));
    renameSync(other, path);
    const err = expectKeelError(() => store.checkIntegrity(), 'INVALID_STATE');
    expect(err.message).toMatch(/was replaced/);
    store.close();
    expect(store.recordSound()).toBe(false);
  });

  it('a store opened without the check still checks in full when asked', () => {
    const dir = tempDir();
    const path = filledStore(dir);
    const store = MemoryStore.open(path);
    try {
      const v = store.checkIntegrity({ full: true });
      expect(v.how).toBe('full');
      expect(dbOf(store).open).toBe(true);
    } finally {
      store.close();
    }
  });
});

describe('the check in a long-running process', () => {
  it('sees a page overwritten under an open store that has it cached', () => {
    const dir = tempDir();
    const path = filledStore(dir);
    const store = MemoryStore.open(path, { integrity: { check: 'full' } });
    try {
      // Read everything: every page is now in the connection's cache.
      expect(store.quickCheck()).toEqual(['ok']);
      damage(path);
      // The store's own handle still answers from its cache ...
      expect(store.quickCheck()).toEqual(['ok']);
      // ... the guard reads what the file holds.
      expectKeelError(() => store.checkIntegrity({ full: true }), 'DB_CORRUPT');
    } finally {
      store.close();
    }
  });
});

describe('closing a store that met damage', () => {
  it('does not fold its WAL into the damaged file', () => {
    const dir = tempDir();
    const path = filledStore(dir);
    const store = MemoryStore.open(path, { integrity: { check: 'full' } });
    store.addEpisode({ channel: 'terminal', role: 'owner', text: 'in the WAL only' });
    const bytes = damage(path);
    store.recordDamage();
    store.close();
    expect(readFileSync(path).equals(bytes)).toBe(true);
    expect(readFileSync(`${path}-wal`).length).toBeGreaterThan(0);
    // Control: a store that met no damage folds it in.
    const ok = MemoryStore.open(path);
    ok.close();
    expect(readFileSync(path).equals(bytes)).toBe(false);
  });
});
