/**
 * Output for every verb: JSON with `--json`, readable text otherwise; errors print their code and
 * a one-line fix and exit non-zero (`@keel/host`'s reporter).
 *
 * @module
 */
import { reportError } from '@keel/host';
import type { Command } from 'commander';

/** The exit codes and the error printer every keel process shares. */
export { EXIT, reportError } from '@keel/host';

/** Prints a result: JSON when asked, else the human text. */
export function emit(json: boolean, data: unknown, human: () => string): void {
  if (json) process.stdout.write(`${JSON.stringify(data, null, 2)}\n`);
  else {
    const text = human();
    if (text) process.stdout.write(`${text}\n`);
  }
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
