/**
 * The cross-process turn lock: one turn at a time in the owner session, whichever front door or
 * process it comes from.
 *
 * - `<path>.turn.lock/`, proper-lockfile's lock directory (an atomic `mkdir`), refreshed while
 *   held and treated as abandoned `staleMs` after its last refresh;
 * - `<path>.turn.holder`, the holder record `{"pid", "host", "startedAt"}`, written by the process
 *   that took the directory and deleted when it releases it.
 *
 * The record lets a lock left by a killed process be reclaimed at once: when it names a process on
 * this machine that no longer runs, and the lock directory it took (by inode) is still the one
 * there, the lock is stale whatever its directory's age. A live holder
 * (or one whose record is not written yet, or an older keel without records) still blocks, until
 * it releases the lock or stops refreshing it for `staleMs`.
 *
 * @module
 */
import { readFileSync, renameSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { KeelError } from '@keel/errors';
import lockfile from 'proper-lockfile';

/** Who holds the turn lock, as its holder record says. */
export interface TurnLockHolder {
  /** The holder's process id. */
  pid: number;
  /** The machine it runs on (`os.hostname()`). */
  host: string;
  /** When it took the lock, ms since the Unix epoch. */
  startedAt: number;
  /**
   * The inode of the lock directory it took: a record whose directory has since been replaced
   * (taken over by a process that keeps no record, e.g. an older keel's `keel restore`) names no holder.
   */
  lockIno?: number;
}

/** Options for {@link acquireTurnLock}. */
export interface TurnLockOptions {
  /** How long to wait for another turn to finish, ms. Default 10 minutes. */
  waitMs?: number;
  /** A lock not refreshed for this long is treated as abandoned, ms. Default 30000 (at least 2000). */
  staleMs?: number;
  /**
   * Called once when this call has waited `noticeAfterMs` for a live turn, with the holder (null
   * when its record is not there: an older keel, or a holder still writing it).
   */
  onWait?: (holder: TurnLockHolder | null) => void;
  /** How long to wait before `onWait` is told, ms (a turn that ends sooner is not worth a word). Default 1000. */
  noticeAfterMs?: number;
  /** Whether a process id runs on this machine. Injected by tests. Default {@link pidAlive}. */
  isAlive?: (pid: number) => boolean;
}

/**
 * True when a process with this id exists: `process.kill(pid, 0)` succeeds, or fails with EPERM
 * (it exists but belongs to another user). ESRCH means it is gone.
 */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The holder record's path for a session path. */
export function turnHolderPath(path: string): string {
  return `${path}.turn.holder`;
}

/** Parses a holder record; null when the text is not one. */
function parseHolder(text: string): TurnLockHolder | null {
  try {
    const v = JSON.parse(text) as Partial<TurnLockHolder> | null;
    if (
      v &&
      Number.isSafeInteger(v.pid) &&
      (v.pid as number) > 0 &&
      typeof v.host === 'string' &&
      Number.isFinite(v.startedAt)
    ) {
      return {
        pid: v.pid as number,
        host: v.host,
        startedAt: v.startedAt as number,
        ...(Number.isSafeInteger(v.lockIno) ? { lockIno: v.lockIno as number } : {}),
      };
    }
  } catch {
    // not JSON: not a record
  }
  return null;
}

/** The holder record of the session's lock; null when there is none or it cannot be read. */
export function readTurnLockHolder(path: string): TurnLockHolder | null {
  try {
    return parseHolder(readFileSync(turnHolderPath(path), 'utf8'));
  } catch {
    return null;
  }
}

/**
 * Reclaims the lock of a holder that no longer runs: its record is renamed aside first (so two
 * waiters reclaiming at once never both remove a lock), checked to be the one judged, then the
 * lock directory is removed.
 *
 * @returns true when this call removed the stale lock.
 */
function reclaim(path: string, judged: TurnLockHolder): boolean {
  const record = turnHolderPath(path);
  if (judged.lockIno !== undefined && lockIno(path) !== judged.lockIno) return false;
  const aside = `${record}.stale-${process.pid}-${Date.now()}`;
  try {
    renameSync(record, aside);
  } catch {
    return false; // another waiter reclaimed it first, or the holder released it
  }
  let same = false;
  try {
    const moved = parseHolder(readFileSync(aside, 'utf8'));
    same =
      moved !== null &&
      moved.pid === judged.pid &&
      moved.host === judged.host &&
      moved.startedAt === judged.startedAt;
    if (!same) {
      // A new holder's record replaced the judged one meanwhile: put it back.
      renameSync(aside, record);
      return false;
    }
    rmSync(`${path}.turn.lock`, { recursive: true, force: true });
    return true;
  } finally {
    if (same) rmSync(aside, { force: true });
  }
}

/** The inode of the session's lock directory; undefined when there is none. */
function lockIno(path: string): number | undefined {
  try {
    return statSync(`${path}.turn.lock`).ino;
  } catch {
    return undefined;
  }
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Waits for and takes the session's turn lock. A lock whose holder record names a process of this
 * machine that no longer runs (a turn killed mid-way) is reclaimed at once; a live holder is
 * waited for (polling every 10–250 ms), and one that stopped refreshing its lock for `staleMs` is
 * treated as gone.
 *
 * @param path - a path identifying the session (the database file); the lock is `<path>.turn.lock`.
 * @returns a function that releases the lock (and deletes the holder record if it is still ours).
 * @throws KeelError `SESSION_BUSY` when the wait runs out.
 */
export async function acquireTurnLock(
  path: string,
  options: TurnLockOptions = {},
): Promise<() => Promise<void>> {
  const waitMs = options.waitMs ?? 10 * 60_000;
  const staleMs = Math.max(2000, options.staleMs ?? 30_000);
  const isAlive = options.isAlive ?? pidAlive;
  const host = hostname();
  const started = Date.now();
  let told = false;
  let pause = 10;
  for (;;) {
    let unlock: () => Promise<void>;
    try {
      unlock = await lockfile.lock(`${path}.turn`, {
        realpath: false,
        stale: staleMs,
        update: Math.floor(staleMs / 3),
        retries: 0,
        // A compromised lock (its directory removed or taken over) ends nothing abruptly: the
        // turn finishes, and its writes are still serialised by SQLite.
        onCompromised: () => {},
      });
    } catch (err) {
      if ((err as { code?: string }).code !== 'ELOCKED') throw err;
      const holder = readTurnLockHolder(path);
      if (holder && holder.host === host && !isAlive(holder.pid) && reclaim(path, holder)) {
        continue;
      }
      if (Date.now() - started >= waitMs) {
        throw new KeelError(
          'SESSION_BUSY',
          `another turn${holder ? ` (process ${holder.pid})` : ''} held the session for more than ${waitMs} ms`,
          { details: { holder } },
        );
      }
      if (!told && Date.now() - started >= (options.noticeAfterMs ?? 1000)) {
        told = true;
        options.onWait?.(holder);
      }
      await sleep(Math.round(pause * (0.5 + Math.random())));
      pause = Math.min(250, pause * 1.5);
      continue;
    }
    const ino = lockIno(path);
    const mine: TurnLockHolder = {
      pid: process.pid,
      host,
      startedAt: Date.now(),
      ...(ino === undefined ? {} : { lockIno: ino }),
    };
    try {
      writeFileSync(turnHolderPath(path), `${JSON.stringify(mine)}\n`, { mode: 0o600 });
    } catch {
      // Without a record the lock still works; only a quick reclaim after a kill is lost.
    }
    return async () => {
      const now = readTurnLockHolder(path);
      if (now && now.pid === mine.pid && now.startedAt === mine.startedAt) {
        try {
          unlinkSync(turnHolderPath(path));
        } catch {
          // already gone
        }
      }
      await unlock();
    };
  }
}

/**
 * Whether a turn holds the session's lock now, in this process or another (a lock not refreshed
 * for `staleMs`, or whose holder record names a process of this machine that no longer runs, is
 * not held). Never throws: false when it cannot tell. A long-running door asks
 * before doing its idle work, so that work never competes with a reply.
 *
 * @param path - as for {@link acquireTurnLock}.
 */
export function turnUnderWay(path: string, staleMs = 30_000): boolean {
  try {
    if (!lockfile.checkSync(`${path}.turn`, { realpath: false, stale: Math.max(2000, staleMs) })) {
      return false;
    }
    // A lock whose holder (a process of this machine) no longer runs holds no turn.
    const holder = readTurnLockHolder(path);
    return !(holder && holder.host === hostname() && !pidAlive(holder.pid));
  } catch {
    return false;
  }
}
