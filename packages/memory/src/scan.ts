/**
 * Deterministic scans the write review runs on every value: secrets are never stored, and text
 * that reads like instructions to a model is refused from any writer but the owner.
 *
 * @module
 */

/**
 * Credential shapes keel refuses to store, with a name for the refusal reason.
 *
 * Also: token prefixes as published by their issuers: GitHub
 * fine-grained personal access tokens (`github_pat_`), GitLab personal access tokens (`glpat-`),
 * Stripe live secret and restricted keys (`sk_live_`, `rk_live_`), Hugging Face user access tokens
 * (`hf_`), npm access tokens (`npm_` + 36); Google API keys as secret scanners such as gitleaks
 * match them (`AIza` + 35). Also an HTTP `Bearer` credential, a password stated with words between
 * ("my password for the bank is …") and a PIN of 4 to 8 digits ("my PIN is 4821").
 */
const SECRET_PATTERNS: readonly [string, RegExp][] = [
  ['api key', /\bsk-(?:ant-|proj-)?[A-Za-z0-9_-]{20,}/],
  ['github token', /\bgh[pousr]_[A-Za-z0-9]{30,}/],
  ['aws access key', /\bAKIA[0-9A-Z]{16}\b/],
  ['slack token', /\bxox[abprs]-[A-Za-z0-9-]{10,}/],
  ['private key', /-----BEGIN [A-Z ]*PRIVATE KEY-----/],
  ['jwt', /\beyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}/],
  ['discord token', /\b[MN][A-Za-z\d]{23,25}\.[\w-]{6}\.[\w-]{27,}/],
  ['password', /\b(?:password|passwd|passcode|pin code|api key|secret key)\s*(?:is|:|=)\s*\S{4,}/i],
  ['github token', /\bgithub_pat_[A-Za-z0-9_]{22,}/],
  ['gitlab token', /\bglpat-[A-Za-z0-9_-]{20,}/],
  ['google api key', /\bAIza[0-9A-Za-z_-]{35}\b/],
  ['stripe key', /\b[sr]k_live_[0-9A-Za-z]{16,}/],
  ['hugging face token', /\bhf_[A-Za-z0-9]{30,}\b/],
  ['npm token', /\bnpm_[A-Za-z0-9]{36}\b/],
  ['bearer token', /\bbearer\s+[A-Za-z0-9._~+/=-]{20,}/i],
  [
    'password',
    /\b(?:password|passwd|passcode|passphrase)\b(?: for [\w .@'-]{1,40}?)? *(?:is|:|=) *["'`]?[^\s"'`]{4,}/i,
  ],
  ['pin', /\bpin(?: code| number)?\b(?: for [\w .@'-]{1,40}?)? *(?:is|:|=) *\d{4,8}\b/i],
];

/** Phrases that try to steer a model from inside stored text. */
const INJECTION_PATTERNS: readonly RegExp[] = [
  /\b(?:ignore|disregard|forget)\s+(?:all\s+|any\s+)?(?:the\s+)?(?:previous|prior|above|earlier|your)\s+(?:instructions|prompts?|rules)/i,
  /\bnew\s+instructions\s*:/i,
  /<\/?\s*(?:system|instructions?|memory|assistant)\s*>/i,
  /\byou\s+are\s+now\s+(?:in\s+)?(?:developer|dan|jailbreak|unrestricted)/i,
  /\b(?:reveal|print|repeat)\s+(?:your|the)\s+system\s+prompt/i,
  /\b(?:ignore|disregard|forget|override|bypass)\s+(?:all\s+|any\s+|of\s+)*(?:the\s+|your\s+|my\s+|these\s+|those\s+)?(?:previous|prior|above|earlier|preceding|system|original|initial)\s+(?:instructions|prompts?|rules|directives|guidelines)/i,
  /\b(?:ignore|disregard|override|bypass)\s+(?:all\s+)?(?:of\s+)?your\s+(?:instructions|rules|guidelines|system prompt|programming)\b/i,
  /\b(?:ignore|disregard)\s+(?:all\s+)?(?:the\s+)?(?:instructions|rules)\s+(?:above|before|given)/i,
  /<\|(?:im_start|im_end|system|user|assistant|endoftext|eot_id|start_header_id|end_header_id)\|>/i,
  /\[\/?INST\]|<<\/?SYS>>/,
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
