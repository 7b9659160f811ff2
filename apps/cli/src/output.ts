/**
 * Output for every verb: JSON with `--json`, readable text otherwise; errors print their code and
 * a one-line fix and exit non-zero.
 *
 * @module
 */
import { corruptionError, KeelError } from '@keel/errors';
import type { Command } from 'commander';

/** Exit codes. */
export const EXIT = { ok: 0, failed: 1, error: 2 } as const;

/** Prints a result: JSON when asked, else the human text. */
export function emit(json: boolean, data: unknown, human: () => string): void {
  if (json) process.stdout.write(`${JSON.stringify(data, null, 2)}\n`);
  else {
    const text = human();
    if (text) process.stdout.write(`${text}\n`);
  }
}

/**
 * Prints an error (code and fix) and returns the exit code. Unexpected errors are reported as
 * INTERNAL with their message.
 */
export function reportError(err: unknown, json: boolean): number {
  // SQLite found damage while reading: the database, not keel, is at fault.
  err = corruptionError(err) ?? err;
  const e = KeelError.isInstance(err)
    ? err.toJSON()
    : {
        code: 'INTERNAL',
        message: err instanceof Error ? err.message : String(err),
        fix: 'This is a bug in keel; please report it with the command you ran.',
      };
  if (json) process.stdout.write(`${JSON.stringify({ error: e }, null, 2)}\n`);
  else process.stderr.write(`error ${e.code}: ${e.message}\nfix: ${e.fix}\n`);
  return EXIT.error;
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
