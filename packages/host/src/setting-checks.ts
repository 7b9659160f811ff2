/**
 * How a setting's raw text is checked (each returns the typed value, or undefined when the text is
 * not acceptable) and turned into a schema field ({@link field}): the building blocks of
 * `SETTINGS` in `settings.ts`.
 *
 * @module
 */

import { validateOwnerId } from '@keel/outbound';
import { POLICIES, type Policy } from '@keel/tools';
import { z } from 'zod';
import { parseQuietHours, type QuietHours } from './quiet-hours.js';

/** keel's built-in action tools, as the owner names them in `tools.enabled`. */
export const BUILTIN_TOOLS = [
  'shell',
  'read_file',
  'write_file',
  'list_files',
  'fetch_url',
  'remind',
] as const;
/** One of {@link BUILTIN_TOOLS}. */
export type BuiltinTool = (typeof BUILTIN_TOOLS)[number];
/**
 * `OLLAMA_HOST` as a URL: a bare `host:port` gets `http://`, the scheme is matched and written in
 * lower case, the rest is kept as given. Null when it is not an http(s) address.
 */
export function normalizeOllamaHost(raw: string): string | null {
  const scheme = /^(https?):\/\//i.exec(raw);
  const host = scheme
    ? `${scheme[1]!.toLowerCase()}://${raw.slice(scheme[0].length)}`
    : `http://${raw}`;
  try {
    const url = new URL(host);
    return url.hostname ? host : null;
  } catch {
    return null;
  }
}

/** A validation step: the typed value, or undefined when `raw` is not acceptable. */
export type Check<T> = (raw: string) => T | undefined;

/** A schema field: trimmed, non-empty text checked by `check`; `form` says what is expected. */
export function field<T>(form: string, check: Check<T>) {
  return z
    .string()
    .transform((raw, ctx) => {
      const value = check(raw);
      if (value === undefined) {
        ctx.addIssue({ code: 'custom', message: form });
        return z.NEVER;
      }
      return value;
    })
    .optional();
}

const CONTROL = /[\u0000-\u001f\u007f]/;
export const plainText: Check<string> = (v) => (CONTROL.test(v) ? undefined : v);
export const oneWord: Check<string> = (v) => (/\s/.test(v) || CONTROL.test(v) ? undefined : v);
export const httpUrl: Check<string> = (v) => {
  try {
    return /^https?:$/.test(new URL(v).protocol) ? v : undefined;
  } catch {
    return undefined;
  }
};
export const wholeNumber =
  (min: number, max: number): Check<number> =>
  (v) => {
    const n = /^\d+$/.test(v) ? Number(v) : Number.NaN;
    return Number.isSafeInteger(n) && n >= min && n <= max ? n : undefined;
  };
export const oneOf =
  <T extends string>(choices: readonly T[]): Check<T> =>
  (v) => {
    const lower = v.toLowerCase();
    return choices.find((c) => c === lower);
  };
export const quietHours: Check<QuietHours> = (v) => parseQuietHours(v);
export const timeZone: Check<string> = (v) => {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: v });
    return v;
  } catch {
    return undefined;
  }
};
export const ownerId: Check<string> = (v) => {
  try {
    return validateOwnerId(v);
  } catch {
    return undefined;
  }
};
export const modelName = (example: string) => ({
  form: `must be a model name without spaces, e.g. ${example}`,
  check: oneWord,
});
export const address = (example: string) => ({
  form: `must be an http(s) address, e.g. ${example}`,
  check: httpUrl,
});
/** A comma-separated list of built-in tools, or `none`. */
export const toolList: Check<BuiltinTool[]> = (v) => {
  if (v.trim().toLowerCase() === 'none') return [];
  const names = v
    .split(',')
    .map((n) => n.trim().toLowerCase())
    .filter(Boolean);
  const known = new Set<string>(BUILTIN_TOOLS);
  return names.length > 0 && names.every((n) => known.has(n))
    ? [...new Set(names as BuiltinTool[])]
    : undefined;
};
/** Folder paths separated by `:` (as `PATH` is). */
export const pathList: Check<string[]> = (v) => {
  const paths = v
    .split(':')
    .map((p) => p.trim())
    .filter(Boolean);
  return paths.length > 0 && paths.every((p) => !CONTROL.test(p)) ? paths : undefined;
};
/**
 * `name=policy` pairs separated by commas: a tool's name (`shell`), an MCP server
 * (`mcp:<server>`) or one of its tools (`mcp:<server>/<tool>`), and `allow`, `ask` or `deny`.
 */
export const policyList: Check<Record<string, Policy>> = (v) => {
  const out: Record<string, Policy> = {};
  for (const pair of v
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const m = /^([A-Za-z0-9_:/-]{1,140})\s*=\s*([a-z]+)$/i.exec(pair);
    const policy = m?.[2]?.toLowerCase() as Policy | undefined;
    if (!m || !policy || !(POLICIES as readonly string[]).includes(policy)) return undefined;
    out[m[1]!] = policy;
  }
  return Object.keys(out).length > 0 ? out : undefined;
};
export const secretText = (what: string) => ({
  form: `must be ${what} in one piece (no spaces or line breaks inside: check what was pasted)`,
  check: oneWord,
  secret: true,
});
