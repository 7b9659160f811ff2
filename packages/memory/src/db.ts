/**
 * Opening keel's one SQLite file: WAL, foreign keys, busy timeout, secure delete, file mode 0600,
 * the SQL functions the triggers call (`keel_fold`, `keel_sha256`), and the migrations.
 *
 * @module
 */
import { chmodSync, closeSync, mkdirSync, openSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { isSqliteCorruption, KeelError } from '@keel/errors';
import { foldForIndex, sha256 } from '@keel/language';
import Database from 'better-sqlite3';
import { migrate } from './schema/index.js';

/** Options for {@link openDatabase}. */
export interface OpenOptions {
  /** How long a writer waits for another process's lock, in ms. Default 15000. */
  busyTimeoutMs?: number;
  /** Open without applying migrations (used by tests that migrate step by step). */
  migrate?: boolean;
  /** Clock for `applied_at`; ms since epoch. */
  now?: () => number;
  /** Open read-only (no migrations, no writes). */
  readonly?: boolean;
}

/**
 * Gives `path` mode 0600 unless it has it already (a needless chmod would change the file's ctime,
 * which the integrity cache keys on).
 */
function privateMode(path: string): void {
  if ((statSync(path).mode & 0o777) !== 0o600) chmodSync(path, 0o600);
}

/** Registers the SQL functions the schema's triggers rely on. */
export function registerFunctions(db: Database.Database): void {
  db.function('keel_fold', { deterministic: true }, (text: unknown) =>
    typeof text === 'string' ? foldForIndex(text) : '',
  );
  // The journal's triggers: a payload or an episode's text changes only to the hash its
  // redaction entry recorded (hex sha256 of the UTF-8 text; NULL for anything but text).
  db.function('keel_sha256', { deterministic: true }, (text: unknown) =>
    typeof text === 'string' ? sha256(text) : null,
  );
}

/**
 * Switches a connection to WAL. Two processes opening a new file at once both ask for the switch;
 * SQLite answers the loser SQLITE_BUSY at once (it does not run the busy handler for it), so the
 * switch is retried until `timeoutMs` has passed.
 */
function walMode(db: Database.Database, timeoutMs: number): void {
  const until = Date.now() + timeoutMs;
  for (let wait = 5; ; wait = Math.min(wait * 2, 100)) {
    try {
      db.pragma('journal_mode = WAL');
      return;
    } catch (err) {
      if ((err as { code?: unknown }).code !== 'SQLITE_BUSY' || Date.now() >= until) throw err;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, wait);
    }
  }
}

/**
 * Opens (creating if needed) a keel database file and brings its schema up to date.
 *
 * @param path - the database file; its folder is created with mode 0700 and the file with 0600.
 * @param beforeMigrate - runs on the open handle before any migration can write (the store's
 *   integrity check); what it throws is thrown, with the handle closed.
 * @throws KeelError `DB_OPEN_FAILED` (cannot create or open), `DB_CORRUPT` (not a SQLite file or
 *   damaged), `FTS5_UNAVAILABLE`, `SCHEMA_FROM_FUTURE` (written by a newer keel).
 */
export function openDatabase(
  path: string,
  options: OpenOptions = {},
  beforeMigrate?: (db: Database.Database) => void,
): Database.Database {
  const now = options.now ?? Date.now;
  let db: Database.Database;
  try {
    if (path !== ':memory:' && !options.readonly) {
      mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
      closeSync(openSync(path, 'a', 0o600));
      privateMode(path);
    }
    db = new Database(path, {
      readonly: options.readonly ?? false,
      fileMustExist: options.readonly ?? false,
      timeout: options.busyTimeoutMs ?? 15_000,
    });
  } catch (err) {
    throw new KeelError('DB_OPEN_FAILED', `cannot open ${path}: ${(err as Error).message}`, {
      cause: err,
      details: { path },
    });
  }
  try {
    if (!options.readonly) walMode(db, options.busyTimeoutMs ?? 15_000);
    db.pragma('foreign_keys = ON');
    db.pragma('synchronous = NORMAL');
    db.pragma('secure_delete = ON');
    registerFunctions(db);
    const fts = db.prepare(`SELECT sqlite_compileoption_used('ENABLE_FTS5') AS on_`).get() as {
      on_: number;
    };
    if (!fts.on_) throw new KeelError('FTS5_UNAVAILABLE', 'this SQLite build has no FTS5');
    beforeMigrate?.(db);
    if (options.migrate !== false && !options.readonly) migrate(db, now());
    else db.prepare('SELECT count(*) FROM sqlite_master').get();
  } catch (err) {
    db.close();
    if (KeelError.isInstance(err)) throw err;
    if (isSqliteCorruption(err)) {
      throw new KeelError(
        'DB_CORRUPT',
        `${path} is not a usable keel database: ${(err as Error).message}`,
        {
          cause: err,
          details: { path },
        },
      );
    }
    throw new KeelError('DB_OPEN_FAILED', `cannot open ${path}: ${(err as Error).message}`, {
      cause: err,
      details: { path },
    });
  }
  if (path !== ':memory:' && !options.readonly) {
    // WAL and shared-memory side files hold the same data: keep them private too.
    for (const side of [`${path}-wal`, `${path}-shm`]) {
      try {
        privateMode(side);
      } catch {
        // not created yet; SQLite creates them with the main file's mode.
      }
    }
  }
  return db;
}
