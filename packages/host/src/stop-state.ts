/**
 * What the owner is told when keel stops writing to its database, worded by the error that stopped
 * it, never by the door that met it. Two states stop every write (`refusesWrites` of
 * `@keel/errors`), with different causes and different ways back:
 *
 * - `DB_CORRUPT`: SQLite reports damaged pages (a failing disk, a tool that overwrote the file):
 *   "keel's database is damaged"; a backup is restored over it.
 * - `JOURNAL_BROKEN`: the pages are sound, but the journal does not end where its anchor beside
 *   the file (`keel.db.anchor`) says keel last wrote it: entries were written outside keel, or cut
 *   off. `keel verify` shows the break; a backup from before it is restored with `--force`.
 *
 * Every door (the terminal, Discord, the think service's DM to the owner) says a stop through
 * {@link stopState} or {@link stopNotice}: what is wrong, the error's code and message, and its
 * one-line fix.
 *
 * @module
 */
import { KeelError, type KeelErrorCode } from '@keel/errors';
import { damageError } from './open.js';

/** What is wrong, per stop state, in the owner's words (no code). */
const WHAT: Partial<Record<KeelErrorCode, string>> = {
  DB_CORRUPT: "keel's database is damaged",
  JOURNAL_BROKEN:
    "keel's journal does not match its anchor (keel.db.anchor): entries were written outside keel or cut off",
};

/** What is wrong when another error stopped a door's writes (the file replaced under it, …). */
const CANNOT_USE = 'keel cannot use its database';

/** A state that stops keel writing, as the owner is told it. */
export interface StopState {
  /** The error: `DB_CORRUPT`, `JOURNAL_BROKEN`, or another that stopped a door's writes. */
  readonly error: KeelError;
  /**
   * What is wrong, without the code: "keel's database is damaged", or "keel's journal does not
   * match its anchor (keel.db.anchor): entries were written outside keel or cut off".
   */
  readonly what: string;
  /** {@link what} with the error's code and message: `… (JOURNAL_BROKEN: the journal does not …)`. */
  readonly said: string;
  /** The error's one-line fix (its own, else its code's). */
  readonly fix: string;
}

/**
 * The stop state `err` says, or null when it says none: a database that takes no writes
 * (`damageError`: `DB_CORRUPT`, SQLite's corruption errors as `DB_CORRUPT`, `JOURNAL_BROKEN`), or
 * another KeelError a door stopped writing on (worded "keel cannot use its database"). Anything
 * else (not a KeelError) is null.
 */
export function stopState(err: unknown): StopState | null {
  const error = damageError(err) ?? (KeelError.isInstance(err) ? err : null);
  if (!error) return null;
  const what = WHAT[error.code] ?? CANNOT_USE;
  return { error, what, said: `${what} (${error.code}: ${error.message})`, fix: error.fix };
}

/**
 * The owner's notice of a stop: what is wrong with the error's code and message, then `doing`
 * (what the door does meanwhile, in its words), then the fix on its own line, e.g.
 * `keel's database is damaged (DB_CORRUPT: …). I have stopped answering …` and `fix: …`.
 *
 * @returns null when `err` says no stop state (see {@link stopState}).
 */
export function stopNotice(err: unknown, doing: string): string | null {
  const s = stopState(err);
  return s && `${s.said}. ${doing}\nfix: ${s.fix}`;
}
