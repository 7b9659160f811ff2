/**
 * The integrity guard: a damaged database is found before keel writes to it.
 *
 * The check is SQLite's `PRAGMA quick_check` (every page of every b-tree is read: O(file size),
 * about 25 ms for 10k turns and 0.3 s for 100k on a laptop; `bench/integrity.ts` prints the
 * figures). A one-shot verb should not pay that every time, so a sound verdict is cached in a small
 * JSON file, keyed by the *state* of the database file and its WAL: device, inode, size, mtime and
 * ctime of each ({@link fileState}). Writing the file through anything but keel changes that state
 * (ctime cannot be set back from user space), so an overwritten page always misses the cache and is
 * checked in full. What the cache cannot see is a page that rots on the disk without its metadata
 * changing; a cached verdict therefore expires ({@link DEFAULT_MAX_AGE_MS} after the last full
 * check), and the services check in full on their schedule regardless.
 *
 * A process that found the file sound and then wrote to it itself records the new state as sound
 * ({@link IntegrityGuard.recordSound}, after each turn and when the store is closed), keeping the
 * time of the last *full* check, so the next verb finds its state in the cache. A process that
 * meets damage ({@link IntegrityGuard.recordDamage}) clears the cache and never vouches again.
 *
 * @module
 */
import { randomBytes } from 'node:crypto';
import { readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { isSqliteCorruption, KeelError } from '@keel/errors';
import Database from 'better-sqlite3';
import type { Clock } from './context.js';

/** A cached verdict older than this (since its last full check) is checked again, ms: 24 hours. */
export const DEFAULT_MAX_AGE_MS = 24 * 60 * 60_000;

/** How the file is checked when a store opens. */
export interface IntegrityOptions {
  /**
   * `full`: `PRAGMA quick_check` now; `cached`: unless the cache (or this process) vouches for the
   * file's current state.
   */
  check: 'full' | 'cached';
  /** The JSON file verdicts are cached in (`$KEEL_HOME/integrity.json`); none: nothing cached. */
  cacheFile?: string;
  /** A verdict whose last full check is older than this is checked again, ms. Default 24 h. */
  maxAgeMs?: number;
}

/** What a check found (damage throws instead). */
export interface IntegrityVerdict {
  /**
   * `full`: quick_check ran now; `cached`: the cache file vouched for this state; `known`: this
   * process vouched for it already.
   */
  how: 'full' | 'cached' | 'known';
  /** Time the check took, ms. */
  ms: number;
  /** When the last full check behind this verdict ran, ms since epoch. */
  checkedAt: number;
}

/** One cached verdict, as stored in the cache file. */
interface CacheRecord {
  version: 1;
  /** The database file the verdict is about. */
  path: string;
  /** {@link fileState} when it was recorded. */
  state: string;
  /** When the last full check behind it ran, ms since epoch. */
  checked_at: number;
  /** When it was recorded, ms since epoch. */
  recorded_at: number;
}

function statPart(path: string, emptyIsMissing = false): string {
  try {
    const s = statSync(path, { bigint: true });
    if (emptyIsMissing && s.size === 0n) return '-';
    return `${s.dev}:${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return '-';
    throw err;
  }
}

/**
 * The state of a database file and its WAL, as the cache keys verdicts: `dev:ino:size:mtime:ctime`
 * of `path` and of `path-wal` (`-` for a missing file, and for an empty WAL: it holds nothing, and
 * SQLite creates one whenever a connection opens). The shared-memory file is not part of it (it
 * is rebuilt from the WAL).
 */
export function fileState(path: string): string {
  return `${statPart(path)}|${statPart(`${path}-wal`, true)}`;
}

/** The device and inode of `path` (which file the name points at), or null when it is missing. */
function identity(path: string): string | null {
  const part = statPart(path);
  return part === '-' ? null : part.split(':').slice(0, 2).join(':');
}

/**
 * Runs `PRAGMA quick_check` on an open handle.
 *
 * @returns `["ok"]` for a sound file, else what is damaged (SQLite's corruption errors included).
 */
export function quickCheck(db: Database.Database, limit = 1): string[] {
  try {
    return (
      db.pragma(`quick_check(${Math.max(1, Math.floor(limit))})`) as { quick_check: string }[]
    ).map((r) => r.quick_check);
  } catch (err) {
    if (isSqliteCorruption(err)) return [(err as Error).message];
    throw err;
  }
}

/** `DB_CORRUPT` for `path`, naming what is damaged (each problem on one line). */
export function damaged(path: string, problems: readonly string[], cause?: unknown): KeelError {
  const lines = problems
    .slice(0, 5)
    .map((p) => p.replace(/\*\*\* in database \w+ \*\*\*\s*/g, '').replace(/\s*\n\s*/g, ' '));
  return new KeelError(
    'DB_CORRUPT',
    `${path} is damaged (${lines.slice(0, 3).join('; ') || 'no answer'}); keel wrote nothing to it`,
    { details: { path, problems: lines }, ...(cause ? { cause } : {}) },
  );
}

/** The integrity guard of one open store (see the module description). */
export class IntegrityGuard {
  readonly #path: string;
  readonly #cacheFile: string | null;
  readonly #maxAgeMs: number;
  readonly #now: Clock;
  /** The file this process opened (device and inode), once known. */
  #identity: string | null = null;
  /** The state this process found sound (or made itself), and its last full check. */
  #sound: { state: string; checkedAt: number } | null = null;
  #damaged = false;
  #last: IntegrityVerdict | null = null;

  constructor(path: string, options: Omit<IntegrityOptions, 'check'> = {}, now: Clock = Date.now) {
    this.#path = path;
    this.#cacheFile = path === ':memory:' ? null : (options.cacheFile ?? null);
    this.#maxAgeMs = options.maxAgeMs ?? DEFAULT_MAX_AGE_MS;
    this.#now = now;
  }

  /** The newest check's verdict (null before the first, and after damage). */
  get last(): IntegrityVerdict | null {
    return this.#last;
  }

  /** Whether this process met damage in the file (it then never vouches for it). */
  get damaged(): boolean {
    return this.#damaged;
  }

  /**
   * Remembers which file the handle is on (called once the database is open), so a file replaced
   * under a running process (`keel restore`) is noticed.
   */
  opened(): void {
    if (this.#path !== ':memory:') this.#identity = identity(this.#path);
  }

  /**
   * Checks the file: in full, or (`full: false`) only when neither this process nor the cache
   * vouches for its current state. `fresh`: `db` has read nothing yet (at open), so its pages are
   * the file's; otherwise the check reads through a connection of its own.
   *
   * @throws KeelError `DB_CORRUPT` (the cache is cleared); `INVALID_STATE` when the file was
   *   replaced since this process opened it.
   */
  check(db: Database.Database, full: boolean, fresh = false): IntegrityVerdict {
    this.#last = null;
    this.#last = this.#check(db, full, fresh);
    return this.#last;
  }

  /**
   * The quick check on what the file holds now. A handle that has been reading keeps pages in its
   * cache, and SQLite drops them only when another connection commits, not when the file is
   * overwritten under it: a long-running process checks through a connection of its own.
   */
  #quickCheck(db: Database.Database, fresh: boolean): string[] {
    if (fresh || this.#path === ':memory:') return quickCheck(db);
    let own: Database.Database;
    try {
      own = new Database(this.#path, { readonly: true, fileMustExist: true, timeout: 15_000 });
    } catch (err) {
      if (isSqliteCorruption(err)) return [(err as Error).message];
      throw err;
    }
    try {
      return quickCheck(own);
    } finally {
      own.close();
    }
  }

  #check(db: Database.Database, full: boolean, fresh: boolean): IntegrityVerdict {
    const started = performance.now();
    const elapsed = () => performance.now() - started;
    if (this.#damaged) throw damaged(this.#path, ['damage was found earlier in this process']);
    if (this.#path === ':memory:') {
      const problems = this.#quickCheck(db, true);
      if (problems[0] !== 'ok') throw damaged(this.#path, problems);
      return { how: 'full', ms: elapsed(), checkedAt: this.#now() };
    }
    if (this.#identity !== null && identity(this.#path) !== this.#identity) {
      throw new KeelError(
        'INVALID_STATE',
        `${this.#path} was replaced since this process opened it (keel restore?); start keel again`,
        { details: { path: this.#path } },
      );
    }
    const state = fileState(this.#path);
    const now = this.#now();
    const young = (checkedAt: number) => now - checkedAt < this.#maxAgeMs;
    if (!full) {
      if (this.#sound?.state === state && young(this.#sound.checkedAt)) {
        return { how: 'known', ms: elapsed(), checkedAt: this.#sound.checkedAt };
      }
      const cached = this.#read();
      if (cached && cached.state === state && young(cached.checked_at)) {
        this.#sound = { state, checkedAt: cached.checked_at };
        return { how: 'cached', ms: elapsed(), checkedAt: cached.checked_at };
      }
    }
    const problems = this.#quickCheck(db, fresh);
    if (problems[0] !== 'ok') {
      this.recordDamage();
      throw damaged(this.#path, problems);
    }
    // The state seen *before* the check is the one vouched for: a change made during it misses.
    this.#sound = { state, checkedAt: now };
    this.#write(state, now);
    return { how: 'full', ms: elapsed(), checkedAt: now };
  }

  /**
   * Records the file's current state as sound: this process found it sound and has written to it
   * since (its own writes go through SQLite). Works on a closed store too (closing the last
   * connection folds the WAL into the file, which changes its state).
   *
   * @returns whether a verdict was recorded (not when this process never found the file sound, or
   *   met damage).
   */
  recordSound(): boolean {
    if (this.#damaged || !this.#sound || this.#path === ':memory:') return false;
    if (this.#identity !== null && identity(this.#path) !== this.#identity) return false;
    let state: string;
    try {
      state = fileState(this.#path);
    } catch {
      return false;
    }
    if (state === this.#sound.state) return true;
    this.#sound = { state, checkedAt: this.#sound.checkedAt };
    this.#write(state, this.#sound.checkedAt);
    return true;
  }

  /** This process met damage: the cache is cleared and nothing is vouched for again. */
  recordDamage(): void {
    this.#damaged = true;
    this.#sound = null;
    if (this.#cacheFile) rmSync(this.#cacheFile, { force: true });
  }

  #read(): CacheRecord | null {
    if (!this.#cacheFile) return null;
    try {
      const r = JSON.parse(readFileSync(this.#cacheFile, 'utf8')) as Partial<CacheRecord>;
      if (
        r.version === 1 &&
        r.path === this.#path &&
        typeof r.state === 'string' &&
        typeof r.checked_at === 'number'
      ) {
        return r as CacheRecord;
      }
    } catch {
      // missing or unreadable: no verdict
    }
    return null;
  }

  /** Writes the cache atomically (a temporary file renamed over it); a failure only costs a check. */
  #write(state: string, checkedAt: number): void {
    if (!this.#cacheFile) return;
    const record: CacheRecord = {
      version: 1,
      path: this.#path,
      state,
      checked_at: checkedAt,
      recorded_at: this.#now(),
    };
    const tmp = `${this.#cacheFile}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    try {
      writeFileSync(tmp, `${JSON.stringify(record)}\n`, { mode: 0o600 });
      renameSync(tmp, this.#cacheFile);
    } catch {
      rmSync(tmp, { force: true });
    }
  }
}
