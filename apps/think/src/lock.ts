/**
 * The think service's single-instance lock: `$KEEL_HOME/think.lock`, a small JSON file with the
 * holder's PID and start time, created with an exclusive open so two services never run at once.
 * A lock whose PID is gone, or a file that is not a lock, is reclaimed (and the log says so).
 *
 * @module
 */

import {
  linkSync,
  mkdirSync,
  readFileSync,
  renameSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { uptime } from 'node:os';
import { dirname, join } from 'node:path';
import { KeelError } from '@keel/errors';

/** The lock file's name inside KEEL_HOME. */
export const LOCK_FILE = 'think.lock';

/** The lock path for a KEEL_HOME. */
export function lockPath(home: string): string {
  return join(home, LOCK_FILE);
}

/** What the lock file holds. */
export interface LockInfo {
  /** The holder's process id. */
  pid: number;
  /** When the holder took the lock, ms since the Unix epoch. */
  startedAt: number;
}

/** A held lock. */
export interface ThinkLock {
  readonly path: string;
  readonly info: LockInfo;
  /**
   * Deletes the lock file if it is still this lock (same PID and start time); idempotent.
   *
   * @returns true when the file was ours and is gone.
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
  /** Whether a PID is alive (tests). Default: `process.kill(pid, 0)` (ESRCH → dead). */
  isAlive?: (pid: number) => boolean;
  /** Also release on the process's `exit` event (default true). */
  releaseOnExit?: boolean;
  /** When the machine last started, ms (tests). Default: now minus `os.uptime()`. */
  bootedAt?: () => number;
}

/** Slack when comparing a lock's start with the machine's boot time, ms (clock adjustments). */
const BOOT_SLACK_MS = 60_000;

/** Paths this process holds, so acquiring twice in one process is refused too. */
const held = new Set<string>();

/** A file younger than this with no valid content may be a lock being written, ms. */
const FRESH_MS = 2000;

/**
 * True when a process with this id exists: `process.kill(pid, 0)` succeeds, or fails with EPERM
 * (it exists but belongs to someone else). ESRCH means it is gone.
 */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Parses a lock file's text; null when it is not a lock. */
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
    // not JSON: garbage
  }
  return null;
}

function readText(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new KeelError('FILE_UNREADABLE', `cannot read ${path}: ${(err as Error).message}`, {
      cause: err,
    });
  }
}

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/**
 * Removes the stale lock at `path` only if it still holds `staleText`: the file is first renamed
 * aside (atomic), so a lock another process created meanwhile is never deleted; such a lock is put
 * back (if the slot is still free) and the caller looks again.
 */
function removeStale(path: string, staleText: string, pid: number): void {
  const aside = `${path}.${pid}.stale`;
  try {
    renameSync(path, aside);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return; // someone else reclaimed it
    throw err;
  }
  const moved = readText(aside);
  if (moved !== staleText) {
    // Not the file we judged: hand it back (a hard link never replaces a lock that took the
    // slot meanwhile).
    try {
      linkSync(aside, path);
    } catch {
      // the slot was taken again: that lock stands
    }
  }
  try {
    unlinkSync(aside);
  } catch {
    // already gone
  }
}

/**
 * Takes `$KEEL_HOME/think.lock` (creating KEEL_HOME if needed). The file is created with an
 * exclusive open (`wx`, mode 0600) and holds `{"pid", "startedAt"}`.
 *
 * An existing lock whose PID is alive (`process.kill(pid, 0)` does not fail with ESRCH) refuses;
 * one whose PID is gone, or a file that is not a lock (after a short wait, in case it is being
 * written), is reclaimed with a log line. A lock naming this very process that this process does
 * not hold is left over from an earlier process with the same PID (a container restart) and is
 * reclaimed too.
 *
 * @param path - the lock file, normally {@link lockPath}(home).
 * @returns the held lock; `release()` deletes the file only while it is still this lock.
 * @throws KeelError `THINK_RUNNING` (details: the holder's {@link LockInfo}) when a live process
 *   holds it; `DB_OPEN_FAILED` when the folder is not writable.
 */
export function acquireThinkLock(path: string, options: LockOptions = {}): ThinkLock {
  const pid = options.pid ?? process.pid;
  const now = options.now ?? Date.now;
  const isAlive = options.isAlive ?? pidAlive;
  const log = options.log ?? (() => {});
  const booted = options.bootedAt ?? (() => Date.now() - uptime() * 1000);
  try {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  } catch (err) {
    throw new KeelError(
      'DB_OPEN_FAILED',
      `cannot create ${dirname(path)}: ${(err as Error).message}`,
      {
        cause: err,
      },
    );
  }
  for (let attempt = 0; attempt < 50; attempt++) {
    const info: LockInfo = { pid, startedAt: now() };
    try {
      writeFileSync(path, `${JSON.stringify(info)}\n`, { flag: 'wx', mode: 0o600 });
      held.add(path);
      return makeLock(path, info, options.releaseOnExit ?? true);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'EEXIST') {
        throw new KeelError('DB_OPEN_FAILED', `cannot create ${path}: ${(err as Error).message}`, {
          cause: err,
        });
      }
    }
    const text = readText(path);
    if (text === null) continue; // released between our open and our read
    const holder = parseLockInfo(text);
    if (holder) {
      const ours = holder.pid === pid;
      // A lock taken before the machine last started is stale even if its PID now belongs to
      // another process (PIDs are reused after a reboot).
      const beforeBoot = holder.startedAt < booted() - BOOT_SLACK_MS;
      if ((ours && held.has(path)) || (!ours && !beforeBoot && isAlive(holder.pid))) {
        throw new KeelError(
          'THINK_RUNNING',
          `keel think is already running (PID ${holder.pid}, since ${new Date(holder.startedAt).toISOString()}; lock ${path})`,
          { details: holder },
        );
      }
      log(
        beforeBoot
          ? `think: reclaiming ${path}: it was taken before the machine last started (PID ${holder.pid})`
          : `think: reclaiming ${path}: its holder PID ${holder.pid} is no longer running${ours ? ' (the PID is now this process)' : ''}`,
      );
    } else {
      let age = Number.POSITIVE_INFINITY;
      try {
        age = now() - statSync(path).mtimeMs;
      } catch {
        continue;
      }
      if (age < FRESH_MS && attempt < 10) {
        sleepSync(50); // maybe another process is between its exclusive open and its write
        continue;
      }
      log(
        `think: reclaiming ${path}: it is not a lock file (${JSON.stringify(text.slice(0, 80))})`,
      );
    }
    removeStale(path, text, pid);
  }
  throw new KeelError('THINK_RUNNING', `could not take ${path}: other processes keep taking it`);
}

function makeLock(path: string, info: LockInfo, releaseOnExit: boolean): ThinkLock {
  let released = false;
  const onExit = () => release();
  const release = (): boolean => {
    if (released) return false;
    released = true;
    held.delete(path);
    process.off('exit', onExit);
    try {
      const current = parseLockInfo(readFileSync(path, 'utf8'));
      if (!current || current.pid !== info.pid || current.startedAt !== info.startedAt) {
        return false; // not ours any more: someone reclaimed it
      }
      unlinkSync(path);
      return true;
    } catch {
      return false; // already gone, or unreadable: leave it
    }
  };
  if (releaseOnExit) process.on('exit', onExit);
  return { path, info, release };
}
