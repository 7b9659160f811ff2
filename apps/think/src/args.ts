/**
 * The think service's command line. Its settings come from `@keel/host`'s `readConfig` (the
 * environment over `$KEEL_HOME/config.toml`), like every app's.
 *
 * @module
 */
import { KeelError } from '@keel/errors';

/** The command line of `keel think` (and of `apps/think/dist/main.js`). */
export interface ThinkArgs {
  /** Run one tick and exit instead of ticking every interval. */
  once: boolean;
  /** With `once`: run the nightly curator now, due or not. */
  curate: boolean;
  /** Print each run's report as one JSON line on stdout (errors too, as `{"error": …}`). */
  json: boolean;
}

/**
 * Parses the arguments after the script: `--once`, `--curate` (only with `--once`), `--json`.
 *
 * @throws KeelError `INVALID_INPUT` for anything else, or `--curate` without `--once`.
 */
export function parseThinkArgs(argv: readonly string[]): ThinkArgs {
  const args: ThinkArgs = { once: false, curate: false, json: false };
  for (const a of argv) {
    if (a === '--once') args.once = true;
    else if (a === '--curate') args.curate = true;
    else if (a === '--json') args.json = true;
    else {
      throw new KeelError(
        'INVALID_INPUT',
        `unknown argument "${a}"; keel think takes --once, --curate (with --once) and --json`,
      );
    }
  }
  if (args.curate && !args.once) {
    throw new KeelError(
      'INVALID_INPUT',
      '--curate runs the nightly curator once: use it with --once (keel think --once --curate)',
    );
  }
  return args;
}
