/**
 * How callers name beliefs: slot keys (a short stable slug per subject, never a timestamp), the
 * `kind/key` form the verbs take, and fact references (`42` or `f42`).
 *
 * @module
 */
import { KeelError } from '@keel/errors';
import { KINDS, type Kind, type Scope, type Slot } from '../types.js';

const SLUG = /^[\p{Ll}\p{Lo}\p{N}][\p{Ll}\p{Lo}\p{N}_.-]*$/u;

/**
 * Normalises a caller's key to a slug: lower case, spaces and slashes to underscores.
 *
 * @throws KeelError `INVALID_INPUT` for an empty key, one with other characters, or a
 *   timestamp-like key (ten or more digits in a row).
 */
export function normalizeKey(key: string): string {
  const k = key
    .normalize('NFKC')
    .trim()
    .toLowerCase()
    .replace(/[\s/]+/g, '_');
  if (!k || k.length > 120 || !SLUG.test(k)) {
    throw new KeelError(
      'INVALID_INPUT',
      `key "${key}" must be a short slug: letters, digits, _ . - (at most 120 characters)`,
    );
  }
  if (/\d{10,}/.test(k)) {
    throw new KeelError(
      'INVALID_INPUT',
      `key "${key}" looks like a timestamp; use a stable subject`,
    );
  }
  return k;
}

/**
 * Parses "kind/key" into a slot.
 *
 * @throws KeelError `INVALID_INPUT` when the kind is unknown or the key is not a slug.
 */
export function parseSlot(ref: string, scope: Scope = 'owner'): Slot {
  const slash = ref.indexOf('/');
  if (slash < 1)
    throw new KeelError(
      'INVALID_INPUT',
      `"${ref}" is not of the form kind/key (e.g. preference/coffee)`,
    );
  const kind = ref.slice(0, slash).toLowerCase();
  if (!KINDS.includes(kind as Kind)) {
    throw new KeelError('INVALID_INPUT', `unknown kind "${kind}"; one of: ${KINDS.join(', ')}`);
  }
  return { scope, kind: kind as Kind, key: normalizeKey(ref.slice(slash + 1)) };
}

/**
 * Parses a fact reference: "42" or "f42".
 *
 * @throws KeelError `INVALID_INPUT`.
 */
export function parseFactId(ref: string | number): number {
  const m = /^f?(\d+)$/i.exec(String(ref).trim());
  if (!m) throw new KeelError('INVALID_INPUT', `"${ref}" is not a fact id (e.g. 42 or f42)`);
  return Number(m[1]);
}
