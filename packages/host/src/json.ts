/**
 * keel's one `--json` contract, shared by every door that prints JSON (the CLI's verbs and
 * terminal, `keel think`, `keel discord`, and the error reporter):
 *
 * - every key is snake_case, at every depth ({@link SNAKE_CASE}); a lowerCamel key from a library
 *   type (`runId`, `schemaVersion`) is written snake_case (`run_id`, `schema_version`);
 * - an instant is an ISO 8601 string in UTC with milliseconds and the `Z` offset
 *   (`2026-12-01T22:30:00.000Z`, {@link ISO_TIME}); a field is an instant when its name is `at`,
 *   ends in `_at`, or is `since`, `until`, `valid_from` or `valid_to` ({@link isTimeField}), and
 *   keel's epoch milliseconds (or a `Date`) in such a field are written as that string;
 * - a duration is a whole number of milliseconds in a field ending in `_ms` (`copy_ms`, `age_ms`);
 * - a calendar day or week is a label, never an instant: `2026-11-30`, `2026-W48`, in a field not
 *   named as an instant (`night`, `week`);
 * - an error is `{"error": {"code", "message", "fix", "details"?}}` on one line.
 *
 * {@link formatJson} converts a value and checks it ({@link contractProblems}); a value that still
 * breaks the contract (a key it cannot make snake_case, a time field holding text that is not an
 * instant) is a bug in keel and throws. See `docs/decisions/2026-12-02-one-json-contract.md`.
 *
 * @module
 */
import { escapeJsonControls } from './terminal-text.js';

/** A snake_case key: lower-case words of letters and digits joined by `_`. */
export const SNAKE_CASE = /^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$/;

/** An instant as keel prints it: ISO 8601 with a date, a time and an offset (`Z` or `±hh:mm`). */
export const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:Z|[+-]\d{2}:\d{2})$/;

/** The field names besides `at` and `*_at` that hold an instant. */
const TIME_FIELDS: ReadonlySet<string> = new Set(['since', 'until', 'valid_from', 'valid_to']);

/** A lowerCamel key (`runId`, `fileSha256`), which {@link toJsonContract} makes snake_case. */
const LOWER_CAMEL = /^[a-z][a-zA-Z0-9]*$/;

/** True when a field of this (snake_case) name holds an instant: `at`, `*_at`, `since`, … */
export function isTimeField(key: string): boolean {
  return key === 'at' || key.endsWith('_at') || TIME_FIELDS.has(key);
}

/** `runId` → `run_id`, `fileSha256` → `file_sha256`; any other key is returned as it is. */
export function snakeKey(key: string): string {
  if (!LOWER_CAMEL.test(key)) return key;
  return key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

/**
 * An instant (ms since the Unix epoch, or a `Date`) as keel prints it: `2026-12-01T22:30:00.000Z`;
 * null for null, undefined or a time that is not finite.
 */
export function isoTime(time: number | Date | null | undefined): string | null {
  if (time === null || time === undefined) return null;
  const ms = time instanceof Date ? time.getTime() : time;
  return Number.isFinite(ms) ? new Date(ms).toISOString() : null;
}

/**
 * `value` as the contract writes it (see the module description): keys made snake_case, instants
 * in time fields (epoch ms or `Date`) made ISO strings, `Date`s anywhere made ISO strings,
 * `undefined` properties dropped. Never throws; {@link contractProblems} says what it could not
 * fix.
 */
export function toJsonContract(value: unknown): unknown {
  return convert(value, null);
}

function convert(value: unknown, key: string | null): unknown {
  if (value instanceof Date) return isoTime(value);
  if (key !== null && isTimeField(key) && typeof value === 'number') return isoTime(value);
  if (Array.isArray(value)) return value.map((v) => convert(v, null));
  if (value !== null && typeof value === 'object') {
    const source =
      typeof (value as { toJSON?: unknown }).toJSON === 'function'
        ? (value as { toJSON: () => unknown }).toJSON()
        : value;
    if (source !== value) return convert(source, key);
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      if (v === undefined || typeof v === 'function') continue;
      const name = snakeKey(k);
      out[name] = convert(v, name);
    }
    return out;
  }
  return value;
}

/**
 * Where `value` (as it will be printed) breaks the contract: a key that is not snake_case, or a
 * time field that holds neither null nor an ISO instant with an offset. Each problem names its path
 * (`$.versions[0].valid_from`). Empty when it keeps it.
 */
export function contractProblems(value: unknown, path = '$'): string[] {
  const problems: string[] = [];
  const walk = (v: unknown, at: string, key: string | null): void => {
    if (
      key !== null &&
      isTimeField(key) &&
      v !== null &&
      !(typeof v === 'string' && ISO_TIME.test(v))
    ) {
      problems.push(`${at} is a time field but holds ${JSON.stringify(v)}, not an ISO instant`);
    }
    if (Array.isArray(v)) {
      for (const [i, x] of v.entries()) walk(x, `${at}[${i}]`, null);
    } else if (v !== null && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) {
        if (!SNAKE_CASE.test(k)) problems.push(`${at}.${k}: the key is not snake_case`);
        walk(x, `${at}.${k}`, k);
      }
    }
  };
  walk(value, path, null);
  return problems;
}

/** Options for {@link formatJson}. */
export interface FormatJsonOptions {
  /** Indent with two spaces (one document per command); default false: one line (a stream). */
  pretty?: boolean;
}

/**
 * `value` converted to the contract ({@link toJsonContract}), checked, and serialised: one line,
 * or indented with `pretty`. Without a trailing newline, and without a raw control character
 * (DEL and C1 are escaped as `JSON.stringify` escapes C0: {@link escapeJsonControls}).
 *
 * @throws Error naming every problem when the value still breaks the contract (a bug in keel: a
 *   key that is not snake_case, text in a time field that is not an instant).
 */
export function formatJson(value: unknown, options: FormatJsonOptions = {}): string {
  const converted = toJsonContract(value);
  const problems = contractProblems(converted);
  if (problems.length > 0) {
    throw new Error(`keel's --json output breaks its contract: ${problems.join('; ')}`);
  }
  return escapeJsonControls(JSON.stringify(converted, null, options.pretty ? 2 : undefined));
}
