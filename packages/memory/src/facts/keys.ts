/**
 * How callers name beliefs: slot keys (a short stable slug per subject, never a timestamp), the
 * `kind/key` form the verbs take, and fact references (`42` or `f42`).
 *
 * @module
 */
import { KeelError } from '@keel/errors';
import { KINDS, type Kind, type Scope, type Slot } from '../types.js';

/** A slug: a letter or digit, then letters, combining marks, digits, `_`, `.` and `-`. */
const SLUG = /^[\p{L}\p{N}][\p{L}\p{M}\p{N}_.-]*$/u;
/** The most characters (code points) a key may have. */
export const KEY_MAX_CHARS = 120;
/**
 * Unicode's Default_Ignorable_Code_Point characters (soft hyphen, zero-width joiners and
 * spaces, bidi controls, variation selectors, tags …): invisible, so a key never depends on them.
 */
const IGNORABLE = /\p{Default_Ignorable_Code_Point}/gu;

/**
 * Folds text the way slot keys compare: Unicode NFKC, then full case folding (Unicode's
 * `CaseFolding.txt`, statuses C and F, default rather than Turkic), then NFKC again — the
 * `toNFKC_Casefold` of Unicode's identifier rules without the removal of ignorables. So
 * "Straße", "STRASSE" and "strasse" are one key, "ΟΔΟΣ", "οδος" and "οδοσ" are one key (every
 * sigma folds to σ), and full-width or compatibility forms ("ＫＥＥＬ", "ﬁ") fold to plain ones.
 *
 * The dotted and dotless I are folded locale-independently, on purpose: a key must not depend on
 * the language of the machine or of the sentence. So "I" → "i", "İ" → "i̇" (i followed by U+0307
 * COMBINING DOT ABOVE) and "ı" stays "ı": "İstanbul" and "istanbul" are different keys, as are
 * "kır" and "kir" — the Turkic folding (İ → i, I → ı) would merge English words instead.
 *
 * JavaScript has no case-folding function; `toLowerCase` differs from folding only where fixed
 * here (ß → ss, final ς → σ, iota subscript → ι, the old Cyrillic letter variants U+1C80–U+1C88,
 * and Cherokee, whose folding goes to capitals). The result equals Python's `str.casefold()`
 * between NFKC passes for every assigned code point of Unicode 14.
 */
export function foldKey(text: string): string {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[\u1C80-\u1C88]/g, (c) => c.toUpperCase().toLowerCase())
    .replace(/[\u13F8-\u13FD\uAB70-\uABBF]/g, (c) => c.toUpperCase())
    .normalize('NFD')
    .replace(/ß/g, 'ss')
    .replace(/ς/g, 'σ')
    .replace(/\u0345/g, 'ι')
    .normalize('NFKC');
}

/**
 * Normalises a caller's key to a slug: {@link foldKey} (NFKC and full case folding), invisible
 * characters dropped, runs of spaces and slashes to one underscore. Any script's letters and
 * combining marks are kept (the vowel signs of Devanagari, Bengali or Thai are marks), so
 * "मेरी_बहन_दिल्ली" and "Straße" are keys.
 *
 * @returns the key, at most {@link KEY_MAX_CHARS} code points.
 * @throws KeelError `INVALID_INPUT` for an empty key, one with other characters (punctuation,
 *   symbols, emoji) or starting with a mark, `_`, `.` or `-`, one longer than
 *   {@link KEY_MAX_CHARS}, or a timestamp-like key (ten or more digits in a row, in any script).
 */
export function normalizeKey(key: string): string {
  const k = foldKey(key)
    .replace(IGNORABLE, '')
    .trim()
    .replace(/[\s/]+/gu, '_');
  if (!k || [...k].length > KEY_MAX_CHARS || !SLUG.test(k)) {
    throw new KeelError(
      'INVALID_INPUT',
      `key "${key}" must be a short slug: letters, marks, digits, _ . - (at most ${KEY_MAX_CHARS} characters)`,
    );
  }
  if (/\p{Nd}{10,}/u.test(k)) {
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

/**
 * Parses a question reference: "q7" (the `q` is required, so a question is never taken for a
 * fact).
 *
 * @returns the question id, or null when `ref` is not a question reference.
 */
export function parseQuestionId(ref: string): number | null {
  const m = /^q(\d{1,15})$/i.exec(String(ref).trim());
  return m ? Number(m[1]) : null;
}

/**
 * Parses the owner's answer to a question: yes (y, confirm, si, sí, oui, ja, sim) or no (n,
 * reject, non, nein, não, nao).
 *
 * @throws KeelError `INVALID_INPUT` for anything else.
 */
export function parseAnswer(word: string): 'yes' | 'no' {
  const w = String(word).trim().toLowerCase();
  if (/^(?:y|yes|confirm|si|sí|oui|ja|sim)$/u.test(w)) return 'yes';
  if (/^(?:n|no|reject|non|nein|não|nao)$/u.test(w)) return 'no';
  throw new KeelError('INVALID_INPUT', `"${word}" is not an answer: say yes or no`);
}
