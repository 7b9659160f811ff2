/**
 * Account and identity numbers found by their check digits (`checksums.ts`): a number written in
 * an issuer's layout that passes the issuer's check is withheld wherever it stands when the check
 * is strong, and in a sentence about an account or an identity number when it is a single check
 * digit. A number that fails its check is left to what the sentence says of it (`detect.ts`).
 *
 * Cost: one bounded regex per check, run only on a text that holds an ASCII digit; linear.
 *
 * @module
 */
import { NUMBER_CHECKS } from './checksums.js';
import type { SecretFinding } from './kinds.js';
import { ACCOUNT_CONTEXT } from './vocabulary.js';

const COMPILED = NUMBER_CHECKS.map((c) => ({
  check: c,
  re: new RegExp(`(?:${c.layout})(?![\\p{L}\\p{N}]|[.,/-]\\d)`, 'gu'),
}));
/**
 * What may not come just before a number (it would be part of a longer one, or of a word):
 * checked here rather than by a lookbehind, which keeps the regex from skipping ahead.
 */
const GLUED_BEFORE = /[\p{L}\p{N}.,/+-]/u;

const CONTEXT = new RegExp(ACCOUNT_CONTEXT, 'iu');
/** How far before and after a number its sentence is read for what it is about (characters). */
const BEFORE = 120;
const AFTER = 60;

/**
 * The sentence around `start`..`end`, at most {@link BEFORE} characters before and {@link AFTER}
 * after, cut at a sentence end or a line break.
 */
function sentenceAround(text: string, start: number, end: number): string {
  let from = Math.max(0, start - BEFORE);
  const before = text.slice(from, start);
  const cut = Math.max(before.search(/[.!?\n][^.!?\n]*$/u), -1);
  if (cut >= 0) from += cut + 1;
  let to = Math.min(text.length, end + AFTER);
  const after = text.slice(end, to);
  const stop = after.search(/[.!?](?:\s|$)|\n/u);
  if (stop >= 0) to = end + stop;
  return text.slice(from, start) + text.slice(end, to);
}

/**
 * True when the sentence around a span says it is about a bank account or an identity number
 * ("account", "routing", "IBAN", "Konto", "cuenta", "tax id", "תעודת זהות" … see
 * `ACCOUNT_CONTEXT`).
 */
export function aboutAccountOrId(text: string, start: number, end: number): boolean {
  return CONTEXT.test(sentenceAround(text, start, end));
}

/**
 * Every number in `text` that passes an issuer's check and is a secret there: strong checks
 * anywhere, single check digits in a sentence about an account or an id.
 *
 * @param text - any text (linear time).
 * @returns findings of kind `account number` or `national id`, spans of the number as written.
 */
export function checkedNumbers(text: string): SecretFinding[] {
  if (!/[0-9]/.test(text)) return [];
  const out: SecretFinding[] = [];
  for (const { check, re } of COMPILED) {
    re.lastIndex = 0;
    for (let m = re.exec(text); m; m = re.exec(text)) {
      if (m.index > 0 && GLUED_BEFORE.test(text[m.index - 1]!)) {
        re.lastIndex = m.index + 1; // a later start may stand alone
        continue;
      }
      const span = m[0].replace(/[ -]+$/, '');
      if (!check.valid(span)) continue;
      const end = m.index + span.length;
      if (!check.strong && !aboutAccountOrId(text, m.index, end)) continue;
      out.push({ kind: check.kind, start: m.index, end });
    }
  }
  return out;
}
