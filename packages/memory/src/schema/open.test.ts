// Opening the database file (`db.ts`), which applies this schema: a file that is not a database,
// the file's permissions, and the connection's settings.

import { randomBytes } from 'node:crypto';
import { chmodSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { dbOf } from '../internal.js';
import { DB_FILENAME, MemoryStore } from '../store.js';
import { expectKeelError, T0, tempDir } from '../test-helpers.js';

describe('opening the database file', () => {
  it('a file of random bytes is DB_CORRUPT and its bytes are kept', async () => {
    const path = join(tempDir(), DB_FILENAME);
    const bytes = randomBytes(8192);
    bytes.write('not sqlite', 0); // never the 16-byte SQLite header, whatever the random bytes
    writeFileSync(path, bytes);
    const err = expectKeelError(() => MemoryStore.open(path), 'DB_CORRUPT');
    expect(err.message).toContain(path);
    expect(readFileSync(path).equals(bytes)).toBe(true);
  });

  it('the database file (and its WAL side files) have mode 0600', async () => {
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

  it('opens with WAL and foreign keys on', async () => {
    const path = join(tempDir(), DB_FILENAME);
    const store = MemoryStore.open(path, { now: () => T0 });
    try {
      expect(dbOf(store).pragma('journal_mode', { simple: true })).toBe('wal');
      expect(dbOf(store).pragma('foreign_keys', { simple: true })).toBe(1);
    } finally {
      store.close();
    }
  });
});
