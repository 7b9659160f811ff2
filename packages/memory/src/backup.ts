/**
 * Copies of the database: {@link backupDatabase} (SQLite's online backup API, safe while other
 * processes read and write the file) and {@link inspectDatabase} (is a file a keel database this
 * code can open, and is it sound?), which `keel backup` and `keel restore` are built on.
 *
 * @module
 */
import {
  chmodSync,
  closeSync,
  existsSync,
  linkSync,
  openSync,
  readSync,
  renameSync,
  rmSync,
  statSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { isSqliteCorruption, KeelError, type KeelErrorCode } from '@keel/errors';
import Database from 'better-sqlite3';
import { damaged, quickCheck } from './integrity.js';
import { anchorPathFor, carryAnchor, readAnchor } from './journal/anchor.js';
import { LATEST_VERSION, schemaVersion } from './schema/index.js';

/** What {@link backupDatabase} made. */
export interface BackupResult {
  /** The copy. */
  path: string;
  /** Its size, bytes. */
  bytes: number;
  /** Pages copied. */
  pages: number;
  /** Time the copy took, ms. */
  copyMs: number;
  /** Time the copy's quick check took, ms. */
  checkMs: number;
}

/** What {@link inspectDatabase} found in a file. */
export interface DatabaseInfo {
  path: string;
  /** Its schema version. */
  version: number;
  /** The newest version this code knows. */
  latest: number;
  /** Its size, bytes. */
  bytes: number;
  /** Episodes and facts in it. */
  episodes: number;
  facts: number;
}

/** What a purge did to one of keel's backups (see {@link ReachBackups}). */
export interface BackupReach {
  /** The backup. */
  path: string;
  /** Rows erased from it (0: it held nothing purged). */
  reached: number;
  /** Why it could not be reached (a damaged or foreign file; left as it was), or null. */
  error: { code: KeelErrorCode; message: string } | null;
}

/**
 * Carries the purges made so far into keel's backups: each backup that still holds a purged value
 * is rewritten without it, one {@link BackupReach} per backup, by name (`purgeBackups` of
 * `@keel/host`, which its `openStore` gives every store it opens on a KEEL_HOME as
 * `StoreOptions.backups`). Never rejects: a backup it cannot reach is listed with its error.
 */
export type ReachBackups = () => Promise<BackupReach[]>;

/** Tables every keel database has. */
const KEEL_TABLES = ['schema_migrations', 'episodes', 'facts', 'journal'] as const;

function openFailed(path: string, err: unknown): KeelError {
  if (isSqliteCorruption(err)) {
    return new KeelError(
      'DB_CORRUPT',
      `${path} is not a usable database: ${(err as Error).message}`,
      {
        cause: err,
        details: { path },
      },
    );
  }
  if (KeelError.isInstance(err)) return err;
  return new KeelError('DB_OPEN_FAILED', `cannot open ${path}: ${(err as Error).message}`, {
    cause: err,
    details: { path },
  });
}

/**
 * The name a copy is written under until it is verified: hidden, in `dest`'s folder (so the rename
 * stays on one file system), ending in `.partial-<pid>` (never `.db`), so a copy killed midway
 * never looks like a backup.
 */
export function partialName(dest: string, pid: number = process.pid): string {
  return join(dirname(dest), `.${basename(dest)}.partial-${pid}`);
}

/** The pid in a {@link partialName}, or null when `name` (a base name) is not one. */
export function partialPid(name: string): number | null {
  const m = /^\..+\.partial-(\d+)$/u.exec(name);
  return m ? Number(m[1]) : null;
}

/**
 * The pid of the process writing the temporary copy `name` (a base name) belongs to: a
 * {@link partialName}, or a file SQLite or keel keeps beside one while it is written (`-journal`,
 * `-wal`, `-shm`, `.anchor`); also the `keel.db.restoring-<pid>` an older keel's restore wrote.
 * Null for any other name: a backup, a database, the owner's own files. Once that process no
 * longer runs, the file is left over from a copy killed midway: never a backup, only space to free.
 */
export function temporaryCopyPid(name: string): number | null {
  const base = name.replace(/(-journal|-wal|-shm|\.anchor)$/u, '');
  const restoring = /^.+\.db\.restoring-(\d+)$/u.exec(base);
  return partialPid(base) ?? (restoring ? Number(restoring[1]) : null);
}

/** The 16 bytes every SQLite database file starts with. */
const SQLITE_HEADER = Buffer.from('SQLite format 3\0', 'latin1');

/**
 * Whether `path` is a file that starts as a SQLite database does (its 16-byte header): a cheap
 * test that an empty or cut-off file fails; {@link inspectDatabase} checks the whole file.
 */
export function isSqliteFile(path: string): boolean {
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    const head = Buffer.alloc(SQLITE_HEADER.length);
    return readSync(fd, head, 0, head.length, 0) === head.length && head.equals(SQLITE_HEADER);
  } catch {
    return false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** `dest` must not exist yet. */
function refuseExisting(dest: string): void {
  if (existsSync(dest)) {
    throw new KeelError('INVALID_INPUT', `${dest} exists already; name another file`, {
      details: { path: dest },
    });
  }
}

/**
 * Gives the verified copy at `temp` its name `dest`, never replacing a file: a hard link (which
 * fails when `dest` exists) then the temporary name removed; where the file system has no hard
 * links, a rename after the check that `dest` is free.
 */
function publish(temp: string, dest: string): void {
  try {
    linkSync(temp, dest);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') refuseExisting(dest);
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EXDEV') {
      throw new KeelError('DB_OPEN_FAILED', `cannot create ${dest}: ${(err as Error).message}`, {
        cause: err,
        details: { path: dest },
      });
    }
    refuseExisting(dest);
    renameSync(temp, dest);
    return;
  }
  rmSync(temp, { force: true });
}

/**
 * Copies the database at `source` to `dest` with SQLite's online backup API (it copies a
 * consistent snapshot, WAL included, and starts over when another process writes meanwhile), turns
 * the copy into a single self-contained file (rollback journal, no WAL beside it), and runs
 * `PRAGMA quick_check` on it. The copy is written under a temporary name ({@link partialName},
 * mode 0600) and takes the name `dest` only once it passed the check, so `dest` is either a
 * verified backup or absent, even when the process is killed midway. `dest` must not exist; a
 * copy that fails is deleted.
 *
 * @param hooks - `copied`: runs on the temporary copy after the online copy, before the check
 *   (fault injection in tests).
 * @throws KeelError `INVALID_INPUT` (`dest` exists), `DB_OPEN_FAILED`, `DB_CORRUPT` (the copy does
 *   not pass the check: the source is damaged).
 */
export async function backupDatabase(
  source: string,
  dest: string,
  hooks: { copied?: (temp: string) => void | Promise<void> } = {},
): Promise<BackupResult> {
  refuseExisting(dest);
  const temp = partialName(dest);
  rmSync(temp, { force: true });
  try {
    closeSync(openSync(temp, 'wx', 0o600));
  } catch (err) {
    throw new KeelError('DB_OPEN_FAILED', `cannot create ${dest}: ${(err as Error).message}`, {
      cause: err,
      details: { path: dest },
    });
  }
  try {
    let src: Database.Database;
    try {
      src = new Database(source, { readonly: true, fileMustExist: true, timeout: 15_000 });
    } catch (err) {
      throw openFailed(source, err);
    }
    const anchorBefore = readAnchor(anchorPathFor(source));
    const copyStarted = performance.now();
    let pages: number;
    try {
      pages = (await src.backup(temp)).totalPages;
    } catch (err) {
      throw openFailed(source, err);
    } finally {
      src.close();
    }
    const copyMs = performance.now() - copyStarted;
    chmodSync(temp, 0o600);
    await hooks.copied?.(temp);
    const checkStarted = performance.now();
    const copy = new Database(temp, { fileMustExist: true });
    let problems: string[];
    try {
      copy.pragma('journal_mode = DELETE');
      problems = quickCheck(copy, 5);
      if (problems[0] === 'ok') carryAnchor(copy, source, anchorBefore);
    } catch (err) {
      throw openFailed(dest, err);
    } finally {
      copy.close();
    }
    if (problems[0] !== 'ok') {
      throw new KeelError(
        'DB_CORRUPT',
        `${source} is damaged: its copy fails the quick check (${problems.slice(0, 3).join('; ')}); no backup was kept`,
        { details: { path: source, problems } },
      );
    }
    const checkMs = performance.now() - checkStarted;
    publish(temp, dest);
    return { path: dest, bytes: statSync(dest).size, pages, copyMs, checkMs };
  } finally {
    for (const f of [temp, `${temp}-journal`, `${temp}-wal`, `${temp}-shm`]) {
      rmSync(f, { force: true });
    }
  }
}

/**
 * Makes the database at `path` (closed by every other connection) one self-contained file again,
 * as a backup is (rollback journal, no WAL beside it), and runs `PRAGMA quick_check` on it: what a
 * backup rewritten in place of itself (a purge reaching it) passes before it takes its name.
 *
 * @throws KeelError `DB_OPEN_FAILED`, `DB_CORRUPT` (the check fails).
 */
export function sealDatabase(path: string): void {
  let db: Database.Database;
  try {
    db = new Database(path, { fileMustExist: true, timeout: 15_000 });
  } catch (err) {
    throw openFailed(path, err);
  }
  let problems: string[];
  try {
    db.pragma('journal_mode = DELETE');
    problems = quickCheck(db, 5);
  } catch (err) {
    throw openFailed(path, err);
  } finally {
    db.close();
  }
  if (problems[0] !== 'ok') throw damaged(path, problems);
  chmodSync(path, 0o600);
}

/**
 * Opens `path` read-only and says whether it is a keel database this code can use: a SQLite file
 * with keel's tables, a schema version no newer than {@link LATEST_VERSION}, that passes
 * `PRAGMA quick_check`. Nothing is written to it.
 *
 * @throws KeelError `FILE_UNREADABLE` (missing), `DB_CORRUPT` (not SQLite, or damaged),
 *   `INVALID_INPUT` (a SQLite file that is not a keel database), `SCHEMA_FROM_FUTURE`.
 */
export function inspectDatabase(path: string): DatabaseInfo {
  let bytes: number;
  try {
    const s = statSync(path);
    if (!s.isFile()) throw new Error('not a file');
    bytes = s.size;
  } catch (err) {
    throw new KeelError('FILE_UNREADABLE', `cannot read ${path}: ${(err as Error).message}`, {
      details: { path },
    });
  }
  let db: Database.Database;
  try {
    db = new Database(path, { readonly: true, fileMustExist: true, timeout: 15_000 });
  } catch (err) {
    throw openFailed(path, err);
  }
  try {
    const tables = new Set(
      (
        db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table'`).all() as {
          name: string;
        }[]
      ).map((r) => r.name),
    );
    const missing = KEEL_TABLES.filter((t) => !tables.has(t));
    if (missing.length > 0) {
      throw new KeelError(
        'INVALID_INPUT',
        `${path} is a SQLite file but not a keel database (no ${missing.join(', ')} table)`,
        { details: { path, missing } },
      );
    }
    const version = schemaVersion(db);
    if (version > LATEST_VERSION) {
      throw new KeelError(
        'SCHEMA_FROM_FUTURE',
        `${path} has schema version ${version}, newer than this keel knows (${LATEST_VERSION})`,
        { details: { path, databaseVersion: version, codeVersion: LATEST_VERSION } },
      );
    }
    const problems = quickCheck(db, 5);
    if (problems[0] !== 'ok') throw damaged(path, problems);
    const count = (table: string) =>
      (db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
    return {
      path,
      version,
      latest: LATEST_VERSION,
      bytes,
      episodes: count('episodes'),
      facts: count('facts'),
    };
  } catch (err) {
    throw openFailed(path, err);
  } finally {
    db.close();
  }
}
