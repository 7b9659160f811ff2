/**
 * `keel backup` and `keel restore` as operations on a KEEL_HOME.
 *
 * {@link backupHome} copies `keel.db` with SQLite's online backup API (safe while the services
 * run) to `$KEEL_HOME/backups/keel-<time>.db` or a named file, and verifies the copy.
 *
 * {@link restoreHome} puts a backup in `keel.db`'s place: the file must be a keel database that
 * passes the quick check and is not from a newer schema; it refuses while the think or Discord
 * service holds its lock or a turn holds the session lock (it holds that lock itself while it
 * works); a sound `keel.db` is replaced only when asked (`force`). The current file is never
 * deleted: it is kept beside as `keel.db.damaged-<time>` (or `keel.db.replaced-<time>` when it was
 * sound), its WAL beside it, and the copy takes its name in one atomic rename. Before that, the
 * purge ledger is applied to the copy (`purge-ledger.ts`): what was purged since the backup was
 * made is purged from it again, so a restore never brings a purged value back. A KEEL_HOME that
 * does not exist yet is made.
 *
 * Each copy is written under a hidden temporary name (`partialName` of `@keel/memory`) until it is
 * verified; what a backup or a restore killed midway left is removed by the next one
 * (`removeStaleCopies` in `backups.ts`) and is never taken for a backup.
 *
 * @module
 */
import {
  copyFileSync,
  existsSync,
  linkSync,
  mkdirSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
} from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { acquireTurnLock } from '@keel/agent';
import { KeelError } from '@keel/errors';
import {
  anchorRestored,
  type BackupResult,
  backupDatabase,
  type DatabaseInfo,
  inspectDatabase,
  partialName,
} from '@keel/memory';
import { backupsPath, isBackup, removeStaleCopies } from './backups.js';
import type { KeelConfig } from './config.js';
import { ensureHome } from './files.js';
import { readLockHolder, type Service } from './lock.js';
import { INTEGRITY_CACHE_FILE } from './open.js';
import { applyPurgeLedger, type LedgerApplied, purgeLedgerPath } from './purge-ledger.js';
import { fileStamp, pendingRecovery } from './recovery.js';

/**
 * Copies the database to `file` (default `$KEEL_HOME/backups/keel-<time>.db`, the folder created
 * with mode 0700), mode 0600, verified with the quick check. What a copy killed midway left in
 * that folder is removed first (`removeStaleCopies`).
 *
 * @throws KeelError `NOT_FOUND` (no database yet), `INVALID_INPUT` (`file` exists),
 *   `DB_CORRUPT` (the database is damaged: no copy is kept), `DB_OPEN_FAILED`.
 */
export async function backupHome(
  config: KeelConfig,
  file?: string,
  now: () => number = Date.now,
): Promise<BackupResult> {
  if (!existsSync(config.paths.db)) {
    throw new KeelError('NOT_FOUND', `there is no database at ${config.paths.db} yet`, {
      details: { path: config.paths.db },
    });
  }
  let dest: string;
  if (file) dest = resolve(file);
  else {
    const dir = backupsPath(config.home);
    ensureHome(config.home);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    dest = join(dir, `keel-${fileStamp(now())}.db`);
  }
  removeStaleCopies(dirname(dest));
  return backupDatabase(config.paths.db, dest);
}

/**
 * The newest backup in `$KEEL_HOME/backups`, or null (for `keel doctor`): a file `isBackup` takes
 * for one (a `.db` SQLite file under its own name: a backup is only given its name once verified;
 * a temporary copy a killed backup, restore or purge left, or an empty or cut-off file left by an
 * older keel, is never named).
 */
export function newestBackup(home: string): { path: string; at: number } | null {
  const dir = backupsPath(home);
  let best: { path: string; at: number } | null = null;
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return null;
  }
  for (const name of names) {
    if (!isBackup(dir, name)) continue;
    try {
      const at = statSync(join(dir, name)).mtimeMs;
      if (!best || at > best.at) best = { path: join(dir, name), at };
    } catch {
      // gone meanwhile
    }
  }
  return best;
}

/** What {@link restoreHome} did. */
export interface RestoreResult {
  /** The backup restored. */
  from: string;
  /** What it holds. */
  info: DatabaseInfo;
  /** The database file it now is. */
  database: string;
  /** What the replaced file was: damaged, sound (replaced with `force`), or absent. */
  previous: 'damaged' | 'sound' | 'absent';
  /** Where the replaced file was kept (its WAL beside it, `-wal`), or null when there was none. */
  keptAs: string | null;
  /** Lines waiting in the recovery file (`keel recover` stores them). */
  recoveryLines: number;
  /**
   * The purge ledger applied to the restored copy before it took the database's name: the purges
   * made since the backup are made again in it (a restore never brings a purged value back).
   */
  purges: LedgerApplied & { ledger: string };
}

/** Options for {@link restoreHome}. */
export interface RestoreOptions {
  /** Replace a sound database too (it is kept aside all the same). Default false. */
  force?: boolean;
  /** The clock for the names of the kept files, ms. */
  now?: () => number;
  /** Whether a PID runs (tests). */
  isAlive?: (pid: number) => boolean;
}

/**
 * Restores a backup into `keel.db` (see the module description).
 *
 * @throws KeelError from {@link inspectDatabase} for the backup (`FILE_UNREADABLE`, `DB_CORRUPT`,
 *   `INVALID_INPUT`: not a keel database, `SCHEMA_FROM_FUTURE`); `SERVICE_RUNNING` (think or
 *   Discord holds its lock); `SESSION_BUSY` (a turn holds the session lock); `INVALID_STATE` (the
 *   current database is sound and `force` was not given; or `file` is the database itself);
 *   from the purge ledger's application (`FILE_UNREADABLE`: the ledger cannot be read;
 *   `DB_OPEN_FAILED`): nothing is replaced then.
 */
export async function restoreHome(
  config: KeelConfig,
  file: string,
  options: RestoreOptions = {},
): Promise<RestoreResult> {
  const now = options.now ?? Date.now;
  const db = config.paths.db;
  const from = resolve(file);
  if (from === resolve(db)) {
    throw new KeelError('INVALID_STATE', `${from} is the database itself; name a backup`);
  }
  const info = inspectDatabase(from);
  ensureHome(config.home); // a new KEEL_HOME: the backup is its first database
  for (const service of ['think', 'discord'] as const satisfies readonly Service[]) {
    const holder = readLockHolder(config.home, options.isAlive, service);
    if (holder?.alive) {
      throw new KeelError(
        'SERVICE_RUNNING',
        `keel ${service} is running (PID ${holder.pid}) and has the database open; stop it before restoring`,
        { details: { service, pid: holder.pid } },
      );
    }
  }
  const unlock = await lockSession(db, options.isAlive);
  try {
    let previous: RestoreResult['previous'] = 'absent';
    if (existsSync(db)) {
      previous = 'damaged';
      try {
        inspectDatabase(db);
        previous = 'sound';
      } catch {
        // damaged, unreadable or not keel's: replaced without asking, and kept
      }
    }
    if (previous === 'sound' && !options.force) {
      throw new KeelError(
        'INVALID_STATE',
        `${db} is sound (it passes the quick check): restoring ${from} would drop what was written since; add --force to replace it anyway (it is kept as ${db}.replaced-<time>)`,
        { details: { path: db } },
      );
    }
    const stamp = fileStamp(now());
    // What a restore killed midway left beside the database goes first (its writer is gone).
    removeStaleCopies(config.home, options.isAlive);
    const incoming = partialName(db);
    rmSync(incoming, { force: true });
    await backupDatabase(from, incoming);
    let purges: LedgerApplied;
    try {
      purges = applyPurgeLedger(incoming, config.home);
    } catch (err) {
      for (const f of [incoming, `${incoming}-wal`, `${incoming}-shm`, `${incoming}.anchor`]) {
        rmSync(f, { force: true });
      }
      throw err;
    }
    let keptAs: string | null = null;
    try {
      if (previous !== 'absent') {
        keptAs = `${db}.${previous === 'sound' ? 'replaced' : 'damaged'}-${stamp}`;
        try {
          linkSync(db, keptAs); // the name keeps the old file; the rename below replaces keel.db
        } catch {
          copyFileSync(db, keptAs);
        }
        if (existsSync(`${db}-wal`)) renameSync(`${db}-wal`, `${keptAs}-wal`);
        if (existsSync(`${db}.anchor`)) copyFileSync(`${db}.anchor`, `${keptAs}.anchor`);
      }
      rmSync(`${db}-shm`, { force: true });
      renameSync(incoming, db);
      anchorRestored(db, now()); // the anchor the backup carried goes beside it
    } finally {
      rmSync(incoming, { force: true });
    }
    rmSync(join(config.home, INTEGRITY_CACHE_FILE), { force: true });
    return {
      from,
      info,
      database: db,
      previous,
      keptAs,
      recoveryLines: pendingRecovery(config.home).lines,
      purges: { ...purges, ledger: purgeLedgerPath(config.home) },
    };
  } finally {
    await unlock();
  }
}

/**
 * Takes the session's turn lock the way a turn does ({@link acquireTurnLock}: the lock directory
 * and the holder record naming this process), without waiting: a restore killed mid-way then
 * leaves a lock the next turn reclaims at once instead of one that blocks it for 30 s.
 *
 * @throws KeelError `SESSION_BUSY` (a live turn holds the lock), `DB_OPEN_FAILED` (the lock cannot
 *   be taken).
 */
async function lockSession(
  db: string,
  isAlive: ((pid: number) => boolean) | undefined,
): Promise<() => Promise<void>> {
  try {
    return await acquireTurnLock(db, { waitMs: 0, ...(isAlive ? { isAlive } : {}) });
  } catch (err) {
    if (KeelError.isInstance(err) && err.code === 'SESSION_BUSY') {
      throw new KeelError(
        'SESSION_BUSY',
        'a turn is in progress in the owner session; restore once it has finished',
        { cause: err, details: err.details },
      );
    }
    throw new KeelError('DB_OPEN_FAILED', `cannot lock ${db}: ${(err as Error).message}`, {
      cause: err,
    });
  }
}
