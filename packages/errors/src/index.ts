/**
 * `@keel/errors`: keel's one error type, a leaf every other package depends on.
 *
 * - {@link KeelError}: an `Error` with a stable {@link KeelErrorCode} and the one-line fix a door
 *   prints under it; check with `KeelError.isInstance`, never `instanceof` (two copies of this
 *   module may be loaded).
 * - {@link ERROR_FIXES}: the fix line for every code.
 * - {@link isSqliteCorruption} / {@link corruptionError}: SQLite's "the file is damaged" errors as
 *   `DB_CORRUPT`, for every door's error reporter.
 *
 * @module
 */
export {
  corruptionError,
  ERROR_FIXES,
  isSqliteCorruption,
  KeelError,
  type KeelErrorCode,
  refusesWrites,
} from './errors.js';
