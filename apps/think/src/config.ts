/**
 * The think service's configuration, parsed from an environment the caller passes in (only
 * `main.ts` reads `process.env`).
 *
 * @module
 */
import { DEFAULT_OLLAMA_HOST } from '@keel/agent';
import { KeelError } from '@keel/errors';
import { DEFAULT_GATE_MODEL } from '@keel/gate';
import { parseQuietHours, validateZone } from './schedule.js';
import type { ThinkConfig } from './types.js';

/** Minutes between ticks when KEEL_THINK_INTERVAL_MIN is unset. */
export const DEFAULT_INTERVAL_MIN = 15;
/** The longest interval accepted, minutes (one day: the nightly curator needs a tick a night). */
export const MAX_INTERVAL_MIN = 1440;
/** The local hour the nightly curator runs at when KEEL_CURATE_AT is unset. */
export const DEFAULT_CURATE_AT = 3;

/** The machine's IANA time zone (UTC when the runtime does not know it). */
export function machineZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}

/** A whole number within [min, max] from `raw`, or a KeelError naming the variable and the fix. */
function wholeNumber(
  name: string,
  raw: string | undefined,
  fallback: number,
  min: number,
  max: number,
  example: string,
): number {
  const t = raw?.trim() ?? '';
  if (!t) return fallback;
  const n = /^\d+$/.test(t) ? Number(t) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max) {
    throw new KeelError(
      'CONFIG_INVALID',
      `${name} "${t}" must be a whole number from ${min} to ${max}, e.g. ${example}`,
    );
  }
  return n;
}

/** OLLAMA_HOST with the scheme the agent adds (`host:port` → `http://host:port`), checked. */
function ollamaHost(raw: string | undefined): string {
  let host = raw?.trim() || DEFAULT_OLLAMA_HOST;
  if (!/^https?:\/\//i.test(host)) host = `http://${host}`;
  try {
    new URL(host);
  } catch {
    throw new KeelError(
      'CONFIG_INVALID',
      `OLLAMA_HOST "${raw?.trim()}" is not an address; use e.g. http://127.0.0.1:11434`,
    );
  }
  return host;
}

/**
 * Reads the service's configuration from `env`:
 *
 * - `KEEL_THINK_INTERVAL_MIN`: minutes between ticks, a whole number 1..1440 (default 15);
 * - `KEEL_QUIET_HOURS`: `START-END` hours in the owner's zone when nobody is messaged, e.g. `23-7`
 *   (default: never quiet);
 * - `KEEL_TZ`: the owner's IANA time zone (default the machine's, via `Intl`);
 * - `KEEL_CURATE_AT`: the local hour 0..23 at or after which the nightly curator runs (default 3);
 * - `OLLAMA_HOST`: the Ollama server for the belief gate (default `http://127.0.0.1:11434`, the
 *   agent's; a bare `host:port` gets `http://`);
 * - `KEEL_GATE_MODEL`: the gate's Ollama model (default `DEFAULT_GATE_MODEL` of `@keel/gate`).
 *
 * Empty values count as unset.
 *
 * @param env - the process environment (or any name → value map).
 * @throws KeelError `CONFIG_INVALID` naming the variable, its value and the expected form (bad
 *   command-line arguments are `INVALID_INPUT`, see {@link parseThinkArgs}).
 */
export function loadThinkConfig(env: Record<string, string | undefined>): ThinkConfig {
  return {
    intervalMin: wholeNumber(
      'KEEL_THINK_INTERVAL_MIN',
      env.KEEL_THINK_INTERVAL_MIN,
      DEFAULT_INTERVAL_MIN,
      1,
      MAX_INTERVAL_MIN,
      '15',
    ),
    quietHours: parseQuietHours(env.KEEL_QUIET_HOURS),
    tz: validateZone(env.KEEL_TZ?.trim() || machineZone()),
    curateAt: wholeNumber('KEEL_CURATE_AT', env.KEEL_CURATE_AT, DEFAULT_CURATE_AT, 0, 23, '3'),
    ollamaHost: ollamaHost(env.OLLAMA_HOST),
    gateModel: env.KEEL_GATE_MODEL?.trim() || DEFAULT_GATE_MODEL,
  };
}

/**
 * `KEEL_PARENT_PID`, which the `keel` CLI sets to its own PID when it spawns the service (so the
 * service stops when the CLI is gone): a positive whole number, or null when unset, empty or not a
 * PID (then nothing is watched; the variable is internal, not a setting).
 */
export function parseParentPid(raw: string | undefined): number | null {
  const t = raw?.trim() ?? '';
  const n = /^\d+$/.test(t) ? Number(t) : Number.NaN;
  return Number.isSafeInteger(n) && n > 0 ? n : null;
}

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
