/**
 * The one error reporter every door uses, and the one exit-code policy.
 *
 * An error is printed as `error CODE: message` and `fix: …` on stderr (as terminal text: no
 * control character but line feed and tab, see `terminal-text.ts`); with `--json` it is also
 * printed as one line `{"error": {"code", "message", "fix", "details"?}}` on stdout, under the one
 * JSON contract (`json.ts`: snake_case keys, ISO instants). SQLite's "the file is
 * damaged" errors are reported as `DB_CORRUPT`; anything that is not a KeelError is `INTERNAL`
 * (a bug: its stack follows on stderr).
 *
 * Exit codes ({@link EXIT}): 0 done; 2 an error with a code (the owner's to fix: configuration,
 * input, state, another service running; systemd does not restart a service on it); 1 anything
 * else (a check that found problems, or an unexpected error: a service is restarted).
 *
 * @module
 */
import { corruptionError, KeelError, type KeelErrorCode } from '@keel/errors';
import { toJsonContract } from './json.js';
import { escapeJsonControls, terminalText } from './terminal-text.js';

/** Exit codes: see the module description. */
export const EXIT = { ok: 0, failed: 1, error: 2 } as const;

/** The fix line of an error that is not a KeelError. */
export const INTERNAL_FIX = 'This is a bug in keel; please report it with the command you ran.';

/** An error as a door prints it. */
export interface ErrorReport {
  /** A KeelError's code, or `INTERNAL`. */
  code: KeelErrorCode | 'INTERNAL';
  message: string;
  fix: string;
  /** A KeelError's structured context, when it has one. */
  details?: unknown;
}

/** Where {@link reportError} writes (default `process`). */
export interface ReportStreams {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
}

/** `err` as a KeelError when it is one or SQLite reports damage; else null. */
function known(err: unknown): KeelError | null {
  const corrupt = corruptionError(err);
  if (corrupt) return corrupt;
  return KeelError.isInstance(err) ? err : null;
}

/** What {@link reportError} prints for `err`. */
export function toErrorReport(err: unknown): ErrorReport {
  const k = known(err);
  if (k) return k.toJSON();
  return {
    code: 'INTERNAL',
    message: err instanceof Error ? err.message : String(err),
    fix: INTERNAL_FIX,
  };
}

/** The exit code for a failure: {@link EXIT}.error for an error with a code, else `failed`. */
export function exitCodeFor(err: unknown): number {
  return known(err) ? EXIT.error : EXIT.failed;
}

/**
 * Prints `err` (see the module description) and returns the exit code to end with.
 *
 * @param json - also print `{"error": …}` as one JSON line on stdout.
 */
export function reportError(err: unknown, json: boolean, streams: ReportStreams = process): number {
  const e = toErrorReport(err);
  const stack = e.code === 'INTERNAL' && err instanceof Error && err.stack ? `${err.stack}\n` : '';
  streams.stderr.write(terminalText(`error ${e.code}: ${e.message}\nfix: ${e.fix}\n${stack}`));
  if (json) {
    streams.stdout.write(`${escapeJsonControls(JSON.stringify(toJsonContract({ error: e })))}\n`);
  }
  return exitCodeFor(err);
}
