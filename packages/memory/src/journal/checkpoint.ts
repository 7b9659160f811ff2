/**
 * The journal check's checkpoint: the newest entry a whole check of the store found intact, and
 * when, kept beside the database as `<db>.checked` (e.g. `keel.db.checked`).
 *
 * `keel doctor` checks incrementally from it: the entries after it are hashed again, the ones
 * before it only checked for what SQL can tell without hashing (none gone or added, each still
 * linked to the one before). Everything else the journal check does (the anchor, the schema's
 * triggers, replay of every current row against the journal, the store's invariants) runs in full
 * each time. A checkpoint older than {@link FULL_CHECK_EVERY_MS}, one whose entry is no longer
 * there with its hash (a restore of an older file, or a change), or none at all makes the check a
 * whole one, which writes a new checkpoint when it passes.
 *
 * The file is a speed-up, not a proof: someone who can write the database can write it too, as
 * with the anchor; what they could hide by it (an old entry's payload edited without its hash) is
 * found by the next whole check, which `keel verify` always is.
 *
 * @module
 */
import { readFileSync, rmSync } from 'node:fs';
import { writeRaw } from './atomic-file.js';

/** The checkpoint file of a database file: `<db>.checked`. */
export function checkpointPathFor(dbPath: string): string {
  return `${dbPath}.checked`;
}

/** A whole check older than this makes the next incremental one whole again: one day, ms. */
export const FULL_CHECK_EVERY_MS = 24 * 60 * 60 * 1000;

/** The newest entry a whole check found intact, and when it ran. */
export interface JournalCheckpoint {
  /** The entry's seq (0: an empty journal). */
  seq: number;
  /** The entry's hash. */
  hash: string;
  /** When the whole check ran, ms since epoch. */
  at: number;
}

/**
 * Reads a checkpoint file.
 *
 * @returns the checkpoint; null when the file is missing or is not a checkpoint (a whole check
 *   then runs, and writes it again).
 */
export function readCheckpoint(file: string): JournalCheckpoint | null {
  try {
    const c = JSON.parse(readFileSync(file, 'utf8')) as Partial<JournalCheckpoint>;
    if (
      Number.isSafeInteger(c.seq) &&
      (c.seq as number) >= 0 &&
      typeof c.hash === 'string' &&
      typeof c.at === 'number' &&
      Number.isFinite(c.at)
    ) {
      return { seq: c.seq as number, hash: c.hash, at: c.at };
    }
  } catch {
    // missing, unreadable or not JSON: no checkpoint
  }
  return null;
}

/**
 * Writes a checkpoint file atomically (mode 0600). A file that cannot be written leaves the next
 * check whole: the error is swallowed, as a checkpoint is only a speed-up.
 */
export function writeCheckpoint(file: string, checkpoint: JournalCheckpoint): void {
  try {
    writeRaw(file, `${JSON.stringify(checkpoint)}\n`, false);
  } catch {
    // the next check is a whole one
  }
}

/** Removes a checkpoint (a restore: the file beside it is another one now). */
export function dropCheckpoint(dbPath: string): void {
  rmSync(checkpointPathFor(dbPath), { force: true });
}
