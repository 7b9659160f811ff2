/**
 * Output for every verb: JSON with `--json`, readable text otherwise; errors print their code and
 * a one-line fix and exit non-zero (`@keel/host`'s reporter).
 *
 * Every JSON a verb prints goes through {@link emit} (one document) or {@link printJsonLine} (one
 * line of a stream, as the terminal prints), which hold it to keel's one `--json` contract
 * (`@keel/host`'s `formatJson`): snake_case keys at every depth, instants (epoch ms or `Date` in a
 * field named `at`, `*_at`, `since`, `until`, `valid_from`, `valid_to`) as ISO 8601 text in UTC
 * (`2026-12-01T22:30:00.000Z`), durations as whole `*_ms`. A new verb:
 *
 * ```ts
 * .action(action((opts, cmd: Command) => {
 *   const r = doIt();
 *   emit(wantsJson(cmd), { path: r.path, made_at: r.madeAt, copy_ms: r.ms }, () => `made ${r.path}`);
 * }))
 * ```
 *
 * {@link action} prints a thrown error as `error CODE` / `fix:` (and `{"error": {…}}` with
 * `--json`) and sets the exit code. A field with no value is `null`, never left out, so a shape
 * has the same keys every time.
 *
 * @module
 */
import { corruptionError, KeelError } from '@keel/errors';
import {
  formatJson,
  reportError as hostReportError,
  type ReportStreams,
  terminalText,
} from '@keel/host';
import type { Command } from 'commander';
import { asTyped } from './invocation.js';
import { nativeModuleError } from './native.js';

/** The exit codes every keel process shares. */
export { EXIT } from '@keel/host';

/**
 * `@keel/host`'s error printer (`error CODE: message` / `fix: …`, and `{"error": …}` with `json`),
 * with the keel commands its message and fix name written as the owner types keel
 * (`invocation.ts`: `pnpm keel …` from a clone), and a better-sqlite3 that cannot load its native
 * module reported as `DB_OPEN_FAILED` with the rebuild as its fix (`native.ts`). Returns the exit
 * code.
 */
export function reportError(err: unknown, json: boolean, streams?: ReportStreams): number {
  const known =
    nativeModuleError(err) ?? corruptionError(err) ?? (KeelError.isInstance(err) ? err : null);
  const typed =
    known === null
      ? err
      : new KeelError(known.code, asTyped(known.message), {
          fix: asTyped(known.fix),
          details: known.details,
          cause: known,
        });
  return hostReportError(typed, json, streams);
}

/**
 * Prints a result: with `json`, `data` as one indented JSON document under the contract (see the
 * module description); else the human text (nothing when it is empty) through {@link say}.
 *
 * @throws Error when `data` breaks the contract (a bug in keel, reported as `INTERNAL`).
 */
export function emit(json: boolean, data: unknown, human: () => string): void {
  if (json) process.stdout.write(`${formatJson(data, { pretty: true })}\n`);
  else {
    const text = human();
    if (text) say(`${text}\n`);
  }
}

/**
 * Writes text for a person (a reply, a streamed piece of one, a listing) the one way the CLI
 * does: through `@keel/host`'s `terminalText`, so no control character but line feed and tab
 * reaches the terminal (an ESC in a stored belief or a model's reply prints as "␛").
 */
export function say(text: string, out: { write(text: string): unknown } = process.stdout): void {
  out.write(terminalText(text));
}

/**
 * Writes `data` as one line of JSON under the contract, for output that is a stream of records
 * (the terminal's `--json`, one line per reply).
 *
 * @throws Error when `data` breaks the contract (a bug in keel).
 */
export function printJsonLine(
  data: unknown,
  out: { write(text: string): unknown } = process.stdout,
): void {
  out.write(`${formatJson(data)}\n`);
}

/** Whether `--json` was given to the command or the program. */
export function wantsJson(cmd: Command): boolean {
  return Boolean(cmd.optsWithGlobals().json);
}

/**
 * Wraps a commander action: a returned number becomes the exit code, and a thrown error is
 * printed with its code and fix (as JSON with `--json`).
 */
export function action<A extends unknown[]>(fn: (...args: A) => unknown) {
  return async (...args: A): Promise<void> => {
    const cmd = args[args.length - 1] as Command;
    try {
      const code = await fn(...args);
      if (typeof code === 'number') process.exitCode = code;
    } catch (err) {
      process.exitCode = reportError(err, wantsJson(cmd));
    }
  };
}
