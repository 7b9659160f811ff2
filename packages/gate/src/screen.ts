/**
 * Screening of an owner turn before the belief gate may judge it or the pending-beliefs queue may
 * hold it: a turn carrying a credential or a prompt injection is refused whole, and keel's own
 * memory text pasted back by the owner is cut out, so keel never re-learns what it already said.
 *
 * The secret and injection scans are `findSecret` and `looksLikeInjection` from `@keel/language`
 * (the same ones the store's write review and episode redaction use), plus a forged gate verdict.
 * A credential is judged by what the sentence is about, in every language the scan knows: "my
 * wifi password is sunshine" and "mi PIN es 4821" are refused, "I changed my password
 * yesterday" and "the password manager I use is 1Password" are judged.
 * keel's memory text is recognised by `stripMemoryText` from `@keel/prompt`, which reads it with
 * the same grammar the prompt's blocks are written with.
 *
 * @module
 */

import { KeelError } from '@keel/errors';
import { findSecret, looksLikeInjection, SECRET_PLACEHOLDER } from '@keel/language';
import { stripMemoryText } from '@keel/prompt';

/** The result of {@link screenTurn}. */
export type ScreenResult = { ok: true; text: string } | { ok: false; reason: ScreenRefusal };

/**
 * Why a turn was refused: `secret` (a credential), `injection` (text steering a model),
 * `empty` (nothing left once keel's own memory text is removed).
 */
export type ScreenRefusal = 'secret' | 'injection' | 'empty';

/** A belief-gate verdict written into a turn to steer the gate (the generic shapes are `looksLikeInjection`'s). */
const GATE_INJECTION_PATTERNS: readonly RegExp[] = [/["']decision["']\s*:\s*["'](?:yes|no)["']/i];

/**
 * The kind of secret in `text` (`@keel/language`'s scan, then the gate's own shapes), or null.
 * Stored episodes have their credentials replaced by `SECRET_PLACEHOLDER` already; a turn that
 * carries the placeholder held a secret and is refused the same way.
 */
function secretIn(text: string): string | null {
  if (text.includes(SECRET_PLACEHOLDER)) return 'redacted secret';
  const found = findSecret(text);
  if (found) return found;
  return null;
}

function injectionIn(text: string): boolean {
  return looksLikeInjection(text) || GATE_INJECTION_PATTERNS.some((re) => re.test(text));
}

/**
 * Screens a turn before it may be judged or queued: credentials (every kind in `@keel/language`'s
 * `SECRET_KINDS`: passwords, PINs, keys and tokens, card and id numbers …) and prompt injection are
 * refused; keel's own recalled-memory text is stripped.
 *
 * Secrets are looked for in the whole turn, pasted memory included (a credential anywhere keeps
 * the turn out of the queue); so is `@keel/language`'s `SECRET_PLACEHOLDER`, which stands where a
 * stored episode's credential was redacted. Injection is looked for in the whole turn too: a
 * memory fence is easy to forge, and whatever is inside one would still reach a model. The returned text
 * has line endings normalised to `\n`, control characters other than tab and newline removed,
 * runs of blank lines collapsed, and is trimmed.
 *
 * @param text - one owner turn, any length.
 * @returns `{ ok: true, text }` with the text to judge, or `{ ok: false, reason }`.
 * @throws KeelError `INVALID_INPUT` when `text` is not a string.
 */
export function screenTurn(
  text: string,
): { ok: true; text: string } | { ok: false; reason: 'secret' | 'injection' | 'empty' } {
  if (typeof text !== 'string') {
    throw new KeelError('INVALID_INPUT', 'screenTurn expects the turn as a string', {
      details: { type: typeof text },
    });
  }
  const clean = text.replace(/\r\n?/g, '\n').replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, '');
  if (secretIn(clean)) return { ok: false, reason: 'secret' };
  // The whole turn: a memory fence is easy to forge, and text inside one still reaches a model.
  if (injectionIn(clean)) return { ok: false, reason: 'injection' };
  const stripped = stripMemoryText(clean)
    .replace(/[ \t]+\n/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
  if (!/[\p{L}\p{N}]/u.test(stripped)) return { ok: false, reason: 'empty' };
  return { ok: true, text: stripped };
}
