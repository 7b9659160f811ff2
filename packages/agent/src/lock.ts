/**
 * The cross-process turn lock: one turn at a time in the owner session, whichever front door or
 * process it comes from. A lock directory next to the database (proper-lockfile), refreshed while
 * held and reclaimed when its holder died.
 *
 * @module
 */
import { KeelError } from '@keel/errors';
import lockfile from 'proper-lockfile';

/** Options for {@link acquireTurnLock}. */
export interface TurnLockOptions {
  /** How long to wait for another turn to finish, ms. Default 10 minutes. */
  waitMs?: number;
  /** A lock not refreshed for this long is treated as abandoned, ms. Default 30000. */
  staleMs?: number;
}

/**
 * Waits for and takes the session's turn lock.
 *
 * @param path - a path identifying the session (the database file); the lock is `<path>.turn.lock`.
 * @returns a function that releases the lock.
 * @throws KeelError `SESSION_BUSY` when the wait runs out.
 */
export async function acquireTurnLock(
  path: string,
  options: TurnLockOptions = {},
): Promise<() => Promise<void>> {
  const waitMs = options.waitMs ?? 10 * 60_000;
  const staleMs = Math.max(2000, options.staleMs ?? 30_000);
  const started = Date.now();
  for (;;) {
    try {
      return await lockfile.lock(`${path}.turn`, {
        realpath: false,
        stale: staleMs,
        update: Math.floor(staleMs / 3),
        // About five seconds of polling per round (quick at first, then every 250 ms).
        retries: { retries: 25, factor: 1.5, minTimeout: 10, maxTimeout: 250, randomize: true },
        // A compromised lock (its directory removed or taken over) ends nothing abruptly: the
        // turn finishes, and its writes are still serialised by SQLite.
        onCompromised: () => {},
      });
    } catch (err) {
      if ((err as { code?: string }).code !== 'ELOCKED') throw err;
      if (Date.now() - started >= waitMs) {
        throw new KeelError(
          'SESSION_BUSY',
          `another turn held the session for more than ${waitMs} ms`,
        );
      }
    }
  }
}

/**
 * Whether a turn holds the session's lock now, in this process or another (a lock not refreshed
 * for `staleMs` is not held). Never throws: false when it cannot tell. A long-running door asks
 * before doing its idle work, so that work never competes with a reply.
 *
 * @param path - as for {@link acquireTurnLock}.
 */
export function turnUnderWay(path: string, staleMs = 30_000): boolean {
  try {
    return lockfile.checkSync(`${path}.turn`, { realpath: false, stale: Math.max(2000, staleMs) });
  } catch {
    return false;
  }
}
