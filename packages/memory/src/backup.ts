/**
 * Copies of the database: {@link backupDatabase} (SQLite's online backup API, safe while other
 * processes read and write the file) and {@link inspectDatabase} (is a file a keel database this
 * code can open, and is it sound?), which `keel backup` and `keel restore` are built on.
 *
 * @module
 */
import { chmodSync, closeSync, openSync, rmSync, statSync } from 'node:fs';
import { isSqliteCorruption, KeelError } from '@keel/errors';
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
 * Copies the database at `source` to `dest` with SQLite's online backup API (it copies a
 * consistent snapshot, WAL included, and starts over when another process writes meanwhile), turns
 * the copy into a single self-contained file (rollback journal, no WAL beside it), and runs
 * `PRAGMA quick_check` on it. `dest` is created with mode 0600 and must not exist; a copy that
 * fails is deleted.
 *
 * @throws KeelError `INVALID_INPUT` (`dest` exists), `DB_OPEN_FAILED`, `DB_CORRUPT` (the copy does
 *   not pass the check: the source is damaged).
 */
export async function backupDatabase(source: string, dest: string): Promise<BackupResult> {
  try {
    closeSync(openSync(dest, 'wx', 0o600));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') {
      throw new KeelError('INVALID_INPUT', `${dest} exists already; name another file`, {
        details: { path: dest },
      });
    }
    throw new KeelError('DB_OPEN_FAILED', `cannot create ${dest}: ${(err as Error).message}`, {
      cause: err,
      details: { path: dest },
    });
  }
  let kept = false;
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
      pages = (await src.backup(dest)).totalPages;
    } catch (err) {
      throw openFailed(source, err);
    } finally {
      src.close();
    }
    const copyMs = performance.now() - copyStarted;
    chmodSync(dest, 0o600);
    const checkStarted = performance.now();
    const copy = new Database(dest, { fileMustExist: true });
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
    const result: BackupResult = {
      path: dest,
      bytes: statSync(dest).size,
      pages,
      copyMs,
      checkMs: performance.now() - checkStarted,
    };
    kept = true;
    return result;
  } finally {
    if (!kept) {
      for (const f of [dest, `${dest}-journal`, `${dest}-wal`, `${dest}-shm`]) {
        rmSync(f, { force: true });
      }
    }
  }
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
