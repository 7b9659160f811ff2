/**
 * A purge reaches keel's backups, and no restore brings a purged value back.
 *
 * Every purge appends the value's hashes (never the value) to `$KEEL_HOME/purged.jsonl`, the purge
 * ledger (`@keel/memory`'s `facts/ledger.ts`). {@link applyPurgeLedger} applies it to a database
 * file: for each entry, the phrases of the file that say the purged value are purged by mention,
 * the same mechanism as the owner's purge. {@link purgeBackups} runs it on every backup in
 * `$KEEL_HOME/backups` after a purge (each rewritten through a verified copy that replaces it in
 * one rename), and `restoreHome` on the copy it restores before it takes `keel.db`'s name — so a
 * backup copied elsewhere and restored later gives up the value too.
 *
 * Whichever door purges (`keel purge`, `keel forget --purge`, `/purge` and `/forget --purge` in the
 * terminal or on Discord), the purge reaches the backups the same way: `openStore` gives every
 * store it opens the rewrite of its home's backups ({@link reachHomeBackups}, the store's
 * `backups` option), and the purge verbs every door shares (`purgeText` and `forgetAndPurge` of
 * `@keel/tools`) run it once the purge is done and put what it did in their receipt.
 *
 * @module
 */
import { existsSync, readdirSync, renameSync, rmSync, statSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { KeelError } from '@keel/errors';
import {
  anchorPathFor,
  anchorRestored,
  type BackupReach,
  backupDatabase,
  carryOwnAnchor,
  MemoryStore,
  PURGE_LEDGER_FILE,
  type PurgeLedgerEntry,
  parsePurgeLedger,
  partialName,
  type ReachBackups,
  sealDatabase,
} from '@keel/memory';
import { backupsPath, isBackup, removeStaleCopies } from './backups.js';
import { readTextIfPresent } from './files.js';

export type { BackupReach } from '@keel/memory';

/** The purge ledger of a KEEL_HOME (`$KEEL_HOME/purged.jsonl`). */
export function purgeLedgerPath(home: string): string {
  return join(home, PURGE_LEDGER_FILE);
}

/** A KEEL_HOME's purge ledger: its entries, oldest first, and the lines that could not be read. */
export function readPurgeLedger(home: string): { entries: PurgeLedgerEntry[]; unreadable: number } {
  const text = readTextIfPresent(purgeLedgerPath(home));
  return text === null ? { entries: [], unreadable: 0 } : parsePurgeLedger(text);
}

/** What {@link applyPurgeLedger} did to one database file. */
export interface LedgerApplied {
  /** Ledger entries applied. */
  entries: number;
  /** Of them, the purges that found the value in the file (it held what was purged since). */
  found: number;
  /** Rows changed over every place. */
  reached: number;
  /** Ledger lines that could not be read (skipped). */
  unreadable: number;
}

/**
 * Applies the purge ledger of `home` to the database at `file` (opened as a store, migrated if
 * older; its own purges are not appended to the ledger): every purged value the file still holds
 * is purged from it by mention, unless the owner said it again in that file after the purge
 * (`MemoryStore.saidAgainSince`: their word is the one way back). Nothing is changed when it holds
 * none.
 *
 * @throws KeelError as `MemoryStore.open` (`DB_OPEN_FAILED`, `DB_CORRUPT`, `SCHEMA_FROM_FUTURE`).
 */
export function applyPurgeLedger(file: string, home: string): LedgerApplied {
  const { entries, unreadable } = readPurgeLedger(home);
  const done: LedgerApplied = { entries: entries.length, found: 0, reached: 0, unreadable };
  if (entries.length === 0) return done;
  // The copy is written as keel writes its own file: under the anchor it carries, which it
  // carries again, moved to its new head, once the ledger is applied.
  anchorRestored(file, Date.now());
  let store: MemoryStore;
  try {
    store = MemoryStore.open(file, { purgeLedger: null });
  } catch (err) {
    rmSync(anchorPathFor(file), { force: true });
    throw err;
  }
  try {
    for (const e of entries) {
      if (store.saidAgainSince(e)) continue; // the owner's word since is the one way back
      const { receipt } = store.purgeContent(e.content, e.value_hash, { actor: 'owner' });
      if (receipt) {
        done.found++;
        done.reached += receipt.total;
      }
    }
  } finally {
    store.close();
    carryOwnAnchor(file);
  }
  for (const f of [`${file}-wal`, `${file}-shm`]) rmSync(f, { force: true });
  return done;
}

/** The {@link purgeBackups} under way in this process, by folder: one at a time in each. */
const rewriting = new Map<string, Promise<unknown>>();

/**
 * Applies the purge ledger to every backup in `$KEEL_HOME/backups` (`isBackup`: a `.db` SQLite
 * file, never a temporary copy): a backup that holds a purged value (read first without writing)
 * is copied ({@link backupDatabase}, verified), the ledger applied to the copy, the copy checked
 * again and renamed over the backup (its modification time kept); one that holds none is left
 * untouched. A backup that cannot be opened is listed with its error and left as it was. What a
 * killed copy left in the folder is removed first (`removeStaleCopies`). Calls in one process run
 * one after another (each rewrites through the same temporary names); another process's run is
 * safe beside it (each writes its own copy and renames it over the backup whole).
 *
 * What every purge runs once it is done, whichever door made it ({@link reachHomeBackups}).
 *
 * @param folder - the backups folder (`backupsPath(home)`).
 * @returns one line per backup, by name; never rejects (a backup it cannot reach is listed with
 *   its error: `DB_CORRUPT`, `DB_OPEN_FAILED`, `SCHEMA_FROM_FUTURE`, `FILE_UNREADABLE` for a
 *   ledger that cannot be read).
 */
export function purgeBackups(home: string, folder: string): Promise<BackupReach[]> {
  const before = rewriting.get(folder) ?? Promise.resolve();
  const run = before.then(() => rewriteBackups(home, folder));
  const settled = run.catch(() => {});
  rewriting.set(folder, settled);
  void settled.then(() => {
    if (rewriting.get(folder) === settled) rewriting.delete(folder);
  });
  return run;
}

/**
 * The rewrite of `home`'s backups after a purge ({@link purgeBackups} of `$KEEL_HOME/backups`),
 * as `openStore` gives it to every store it opens (`StoreOptions.backups` of `@keel/memory`).
 */
export function reachHomeBackups(home: string): ReachBackups {
  return () => purgeBackups(home, backupsPath(home));
}

/** {@link purgeBackups}, once the calls before it in this process are done. */
async function rewriteBackups(home: string, folder: string): Promise<BackupReach[]> {
  removeStaleCopies(folder);
  let names: string[];
  try {
    names = readdirSync(folder).sort();
  } catch {
    return [];
  }
  const out: BackupReach[] = [];
  for (const name of names) {
    const path = join(folder, name);
    if (!isBackup(folder, name)) continue;
    try {
      out.push({ path, reached: await purgeOneBackup(path, home), error: null });
    } catch (err) {
      const e = KeelError.isInstance(err)
        ? err
        : new KeelError('DB_OPEN_FAILED', `cannot rewrite ${path}: ${(err as Error).message}`);
      out.push({ path, reached: 0, error: { code: e.code, message: e.message } });
    }
  }
  return out;
}

/**
 * Whether the backup at `path` may hold a purged value of the ledger, read without writing: false
 * only when it opens read-only and no entry finds a phrase in it (then it is not copied at all).
 */
function mayHoldPurged(path: string, home: string): boolean {
  const { entries } = readPurgeLedger(home);
  if (entries.length === 0) return false;
  let store: MemoryStore;
  try {
    store = MemoryStore.open(path, { readonly: true });
  } catch {
    return true; // the copy says why (an older schema is migrated there)
  }
  try {
    return entries.some(
      (e) => !store.saidAgainSince(e) && store.purgedPhrases(e.content).length > 0,
    );
  } catch {
    return true;
  } finally {
    store.close();
  }
}

/** {@link purgeBackups} for one backup: the rows it erased (0: the backup is untouched). */
async function purgeOneBackup(path: string, home: string): Promise<number> {
  if (!mayHoldPurged(path, home)) return 0;
  const copy = partialName(path);
  rmSync(copy, { force: true });
  await backupDatabase(path, copy);
  try {
    const applied = applyPurgeLedger(copy, home);
    if (applied.reached === 0) return 0;
    sealDatabase(copy);
    // It keeps its time: the newest backup stays the one made last (`newestBackup`).
    const made = statSync(path);
    utimesSync(copy, made.atime, made.mtime);
    renameSync(copy, path);
    return applied.reached;
  } finally {
    // Renamed over the backup, or left over from a rewrite that failed: nothing stays beside it.
    for (const f of [copy, `${copy}-wal`, `${copy}-shm`, `${copy}-journal`, anchorPathFor(copy)]) {
      if (existsSync(f)) rmSync(f, { force: true });
    }
  }
}
