/**
 * Deterministic scans the write review runs on every value: secrets are never stored, and text
 * that reads like instructions to a model is refused from any writer but the owner.
 *
 * @module
 */

/** Credential shapes keel refuses to store, with a name for the refusal reason. */
const SECRET_PATTERNS: readonly [string, RegExp][] = [
  ['api key', /\bsk-(?:ant-|proj-)?[A-Za-z0-9_-]{20,}/],
  ['github token', /\bgh[pousr]_[A-Za-z0-9]{30,}/],
  ['aws access key', /\bAKIA[0-9A-Z]{16}\b/],
  ['slack token', /\bxox[abprs]-[A-Za-z0-9-]{10,}/],
  ['private key', /-----BEGIN [A-Z ]*PRIVATE KEY-----/],
  ['jwt', /\beyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}/],
  ['discord token', /\b[MN][A-Za-z\d]{23,25}\.[\w-]{6}\.[\w-]{27,}/],
  ['password', /\b(?:password|passwd|passcode|pin code|api key|secret key)\s*(?:is|:|=)\s*\S{4,}/i],
];

/** Phrases that try to steer a model from inside stored text. */
const INJECTION_PATTERNS: readonly RegExp[] = [
  /\b(?:ignore|disregard|forget)\s+(?:all\s+|any\s+)?(?:the\s+)?(?:previous|prior|above|earlier|your)\s+(?:instructions|prompts?|rules)/i,
  /\bnew\s+instructions\s*:/i,
  /<\/?\s*(?:system|instructions?|memory|assistant)\s*>/i,
  /\byou\s+are\s+now\s+(?:in\s+)?(?:developer|dan|jailbreak|unrestricted)/i,
  /\b(?:reveal|print|repeat)\s+(?:your|the)\s+system\s+prompt/i,
];

/** The kind of secret found in `text`, or null. */
export function findSecret(text: string): string | null {
  for (const [name, re] of SECRET_PATTERNS) if (re.test(text)) return name;
  return null;
}

/** True when `text` reads like an instruction aimed at a model (prompt injection). */
export function looksLikeInjection(text: string): boolean {
  return INJECTION_PATTERNS.some((re) => re.test(text));
}

/** What replaces a secret in stored text. */
export const SECRET_PLACEHOLDER = '[secret withheld]';

/**
 * Replaces every credential-shaped span in `text` with {@link SECRET_PLACEHOLDER}. Episodes are
 * stored through this, so a secret typed into a conversation never reaches the database.
 */
export function redactSecrets(text: string): string {
  let out = text;
  for (const [, re] of SECRET_PATTERNS) {
    if (re.test(out)) out = out.replace(new RegExp(re.source, `${re.flags}g`), SECRET_PLACEHOLDER);
  }
  return out;
}
