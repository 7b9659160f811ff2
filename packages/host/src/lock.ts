/**
 * The services' single-instance locks (one `keel think` and one `keel discord` per KEEL_HOME), on
 * proper-lockfile (the library the agent's turn lock uses), with a record of its holder beside
 * each. For the think service:
 *
 * - `$KEEL_HOME/think.lock.lock/`, proper-lockfile's lock directory (an atomic `mkdir`), refreshed
 *   every few seconds while held and treated as abandoned {@link STALE_MS} after its last refresh;
 * - `$KEEL_HOME/think.lock`, the holder record `{"pid", "startedAt"}` (mode 0600), created
 *   exclusively by the process that holds the directory.
 *
 * The record says who holds the lock (a second service names that PID; `keel doctor` reads it
 * with {@link readLockHolder}) and lets a lock be reclaimed at once, with a log line, when its
 * holder is gone: its PID no longer runs, it was taken before the machine last started (PIDs are
 * reused after a reboot), or it names this process without this process holding it (a restart
 * that reused the PID). A record naming another live process is respected even without its
 * directory (a holder whose refresh was held up, or an older keel). Reclaiming renames the stale
 * record aside first and checks it is the one judged, so two services reclaiming at once never
 * both win.
 *
 * @module
 */
import {
  linkSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { uptime } from 'node:os';
import { dirname, join } from 'node:path';
import { KeelError } from '@keel/errors';
import lockfile from 'proper-lockfile';
import { ensureHome, readTextIfPresent } from './files.js';
import { pidAlive } from './process.js';

/** The holder record's name inside KEEL_HOME (proper-lockfile's directory is `think.lock.lock`). */
export const LOCK_FILE = 'think.lock';

/** The services that hold a lock: one of each runs per KEEL_HOME. */
export type Service = 'think' | 'discord';

/** A lock directory not refreshed for this long is abandoned, ms (proper-lockfile's default). */
export const STALE_MS = 10_000;

/** The think lock's holder record path for a KEEL_HOME. */
export function lockPath(home: string): string {
  return join(home, LOCK_FILE);
}

/** A service's holder record path for a KEEL_HOME: `think.lock`, `discord.lock`. */
export function serviceLockPath(home: string, service: Service): string {
  return service === 'think' ? lockPath(home) : join(home, `${service}.lock`);
}

/** What the holder record holds. */
export interface LockInfo {
  /** The holder's process id. */
  pid: number;
  /** When the holder took the lock, ms since the Unix epoch. */
  startedAt: number;
}

/** A held lock. */
export interface ThinkLock {
  /** The holder record's path. */
  readonly path: string;
  readonly info: LockInfo;
  /**
   * Deletes the holder record if it is still this lock's (same PID and start time) and frees the
   * lock directory; idempotent.
   *
   * @returns true when the record was ours and is gone.
   */
  release(): boolean;
}

/** Options for {@link acquireThinkLock}. */
export interface LockOptions {
  /** Where reclaiming a stale lock is reported. */
  log?: (line: string) => void;
  /** This process's id (tests). Default `process.pid`. */
  pid?: number;
  /** The clock for `startedAt`, ms. Default `Date.now`. */
  now?: () => number;
  /** Whether a PID is alive (tests). Default {@link pidAlive}. */
  isAlive?: (pid: number) => boolean;
  /** Also release on the process's `exit` event (default true). */
  releaseOnExit?: boolean;
  /** When the machine last started, ms (tests). Default: now minus `os.uptime()`. */
  bootedAt?: () => number;
}

/** Slack when comparing a lock's start with the machine's boot time, ms (clock adjustments). */
const BOOT_SLACK_MS = 60_000;
/** A record younger than this that is not a lock may be one being written, ms. */
const FRESH_MS = 2000;
/** Looks (50 ms apart) given to a holder between taking the directory and writing its record. */
const WAIT_LOOKS = 10;
/** Attempts before giving up when other processes keep taking the lock. */
const MAX_ATTEMPTS = 50;

/** Records this process holds, so acquiring twice in one process is refused too. */
const held = new Set<string>();

/** Parses a holder record's text; null when it is not a lock. */
export function parseLockInfo(text: string): LockInfo | null {
  try {
    const v = JSON.parse(text) as Partial<LockInfo> | null;
    if (
      v &&
      typeof v === 'object' &&
      Number.isSafeInteger(v.pid) &&
      (v.pid as number) > 0 &&
      Number.isFinite(v.startedAt)
    ) {
      return { pid: v.pid as number, startedAt: v.startedAt as number };
    }
  } catch {
    // not JSON: not a lock
  }
  return null;
}

/** Who holds the lock, as `keel doctor` shows it. */
export interface LockHolder extends LockInfo {
  /** Whether the holder still runs (and took the lock since the machine last started). */
  alive: boolean;
}

/**
 * The holder recorded in `$KEEL_HOME/think.lock` (or the lock of another `service`), or null when
 * there is no record (nobody holds the lock), it is not one, or it cannot be read. Never throws
 * (`keel doctor` reports with it).
 */
export function readLockHolder(
  home: string,
  isAlive: (pid: number) => boolean = pidAlive,
  service: Service = 'think',
): LockHolder | null {
  let text: string | null;
  try {
    text = readTextIfPresent(serviceLockPath(home, service));
  } catch {
    return null; // unreadable: nobody this process can name
  }
  const info = text === null ? null : parseLockInfo(text);
  if (!info) return null;
  const beforeBoot = info.startedAt < Date.now() - uptime() * 1000 - BOOT_SLACK_MS;
  return { ...info, alive: !beforeBoot && isAlive(info.pid) };
}

function ageMs(path: string, now: number): number {
  try {
    return now - statSync(path).mtimeMs;
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/**
 * Takes the stale record at `path` out of the way only if it still holds `staleText`: it is
 * renamed aside (atomic), so a record another process wrote meanwhile is never deleted; such a
 * record is put back (if the slot is still free).
 *
 * @returns true when the record judged stale was ours to remove (and is gone).
 */
function claimStale(path: string, staleText: string, pid: number): boolean {
  const aside = `${path}.${pid}.stale`;
  try {
    renameSync(path, aside);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false; // another reclaimed it
    throw err;
  }
  const moved = readTextIfPresent(aside);
  let ours = true;
  if (moved !== staleText) {
    ours = false;
    try {
      linkSync(aside, path); // a hard link never replaces a record that took the slot meanwhile
    } catch {
      // the slot was taken again: that record stands
    }
  }
  try {
    unlinkSync(aside);
  } catch {
    // already gone
  }
  return ours;
}

/**
 * Takes the think lock: {@link acquireServiceLock} for `think`.
 *
 * @throws KeelError `THINK_RUNNING` (details: the holder's {@link LockInfo}) when a live process
 *   holds it; `DB_OPEN_FAILED` when the folder is not writable.
 */
export function acquireThinkLock(path: string, options: LockOptions = {}): ThinkLock {
  return acquireServiceLock(path, 'think', options);
}

/**
 * Takes a service's lock (creating KEEL_HOME if needed): proper-lockfile's directory beside `path`,
 * then the holder record `path`, created exclusively with `{"pid", "startedAt"}` (mode 0600).
 *
 * A record naming another live process refuses. A stale one (its PID gone, taken before the
 * machine last started, naming this process that does not hold it, or not a lock once it is no
 * longer fresh) is reclaimed at once with a log line, even while its directory still looks fresh.
 * A held directory without a record is given half a second for its record, then reclaimed.
 *
 * @param path - the holder record, normally {@link serviceLockPath}(home, service).
 * @returns the held lock; `release()` deletes the record only while it is still this lock's.
 * @throws KeelError `THINK_RUNNING` for think, `SERVICE_RUNNING` for another service (details:
 *   the holder's {@link LockInfo}) when a live process holds it; `DB_OPEN_FAILED` when the folder
 *   is not writable.
 */
export function acquireServiceLock(
  path: string,
  service: Service,
  options: LockOptions = {},
): ThinkLock {
  const code = service === 'think' ? 'THINK_RUNNING' : 'SERVICE_RUNNING';
  const pid = options.pid ?? process.pid;
  const now = options.now ?? Date.now;
  const isAlive = options.isAlive ?? pidAlive;
  const log = options.log ?? (() => {});
  const bootedAt = options.bootedAt ?? (() => Date.now() - uptime() * 1000);
  const dir = `${path}.lock`;
  const cannot = (what: string, err: unknown) =>
    new KeelError('DB_OPEN_FAILED', `cannot create ${what}: ${(err as Error).message}`, {
      cause: err,
    });
  try {
    ensureHome(dirname(path));
  } catch (err) {
    throw cannot(dirname(path), err);
  }
  /** Why the record `text` no longer holds the lock; null while its holder does. */
  const staleBecause = (holder: LockInfo | null, text: string): string | null => {
    if (!holder) return `it is not a lock file (${JSON.stringify(text.slice(0, 80))})`;
    if (holder.pid === pid && held.has(path)) return null;
    if (holder.startedAt < bootedAt() - BOOT_SLACK_MS) {
      return `it was taken before the machine last started (PID ${holder.pid})`;
    }
    if (holder.pid === pid) {
      return `its holder PID ${holder.pid} is no longer running (the PID is now this process)`;
    }
    return isAlive(holder.pid) ? null : `its holder PID ${holder.pid} is no longer running`;
  };
  const running = (holder: LockInfo | null) =>
    new KeelError(
      code,
      holder
        ? `keel ${service} is already running (PID ${holder.pid}, since ${new Date(holder.startedAt).toISOString()}; lock ${path})`
        : `keel ${service} is already running (lock ${dir} is held and its holder names no PID)`,
      { details: holder },
    );

  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    let unlock: (() => void) | null = null;
    try {
      unlock = lockfile.lockSync(path, {
        realpath: false,
        stale: STALE_MS,
        onCompromised: (err) => log(`${service}: the lock ${dir} was lost: ${err.message}`),
      });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ELOCKED') throw cannot(dir, err);
      // The directory is fresh: its holder runs, or died moments ago (its record says which).
    }
    const free = () => {
      try {
        unlock?.();
      } catch {
        // already gone
      }
    };
    const text = readTextIfPresent(path);
    const holder = text === null ? null : parseLockInfo(text);
    const waiting = attempt < WAIT_LOOKS;
    if (text === null && !unlock && waiting) {
      sleepSync(50); // the holder may be between taking the directory and writing its record
      continue;
    }
    if (text !== null && !holder && waiting && ageMs(path, now()) < FRESH_MS) {
      free();
      sleepSync(50); // maybe a record being written
      continue;
    }
    if (text === null && !unlock) {
      log(`${service}: reclaiming ${dir}: its holder never wrote ${path}`);
      rmSync(dir, { recursive: true, force: true });
      continue;
    }
    if (text !== null) {
      const reason = staleBecause(holder, text);
      if (reason === null) {
        free();
        throw running(holder);
      }
      if (!claimStale(path, text, pid)) {
        free(); // another process reclaimed it first
        continue;
      }
      log(`${service}: reclaiming ${path}: ${reason}`);
      if (!unlock) {
        rmSync(dir, { recursive: true, force: true });
        continue;
      }
    }
    const info: LockInfo = { pid, startedAt: now() };
    try {
      writeFileSync(path, `${JSON.stringify(info)}\n`, { flag: 'wx', mode: 0o600 });
    } catch (err) {
      free();
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') continue; // another took it first
      throw cannot(path, err);
    }
    held.add(path);
    return makeLock(path, info, unlock!, options.releaseOnExit ?? true);
  }
  throw new KeelError(code, `could not take ${path}: other processes keep taking it`);
}

function makeLock(
  path: string,
  info: LockInfo,
  unlock: () => void,
  releaseOnExit: boolean,
): ThinkLock {
  let released = false;
  const onExit = () => release();
  const release = (): boolean => {
    if (released) return false;
    released = true;
    held.delete(path);
    process.off('exit', onExit);
    let ours = false;
    try {
      const current = parseLockInfo(readFileSync(path, 'utf8'));
      if (current && current.pid === info.pid && current.startedAt === info.startedAt) {
        unlinkSync(path);
        ours = true;
      }
    } catch {
      // already gone, or unreadable: leave it
    }
    try {
      unlock();
    } catch {
      // the directory is gone already (lost, or removed at exit)
    }
    return ours;
  };
  if (releaseOnExit) process.on('exit', onExit);
  return { path, info, release };
}
