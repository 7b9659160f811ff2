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

/** {@link SECRET_PATTERNS}, each compiled once to find every match. */
const SECRET_PATTERNS_GLOBAL: readonly RegExp[] = SECRET_PATTERNS.map(
  ([, re]) => new RegExp(re.source, `${re.flags.replace('g', '')}g`),
);

/**
 * One pass over text that holds no placeholder: every match of every pattern is found on the
 * same text, overlapping and touching spans are merged, and each merged span is replaced by one
 * placeholder. (Replacing pattern by pattern let a later pattern match across an earlier
 * placeholder: "api key: sk-ant-…" became "[secret withheld] withheld]".)
 */
function redactOnce(text: string): string {
  const spans: [number, number][] = [];
  for (const re of SECRET_PATTERNS_GLOBAL) {
    for (const m of text.matchAll(re)) {
      if (m[0].length > 0) spans.push([m.index, m.index + m[0].length]);
    }
  }
  if (spans.length === 0) return text;
  spans.sort((a, b) => a[0] - b[0] || b[1] - a[1]);
  let out = '';
  let at = 0;
  let [start, end] = spans[0]!;
  for (const [s, e] of spans.slice(1)) {
    if (s <= end) {
      end = Math.max(end, e);
      continue;
    }
    out += text.slice(at, start) + SECRET_PLACEHOLDER;
    at = end;
    [start, end] = [s, e];
  }
  return out + text.slice(at, start) + SECRET_PLACEHOLDER + text.slice(end);
}

/**
 * Replaces every credential-shaped span in `text` with {@link SECRET_PLACEHOLDER}, once per span.
 * Episodes are stored through this, so a secret typed into a conversation never reaches the
 * database.
 *
 * A placeholder already in `text` is kept as it is and never read as part of a secret (so
 * "password: [secret withheld]" is not withheld again): the text between placeholders is redacted
 * piece by piece, until nothing more matches. So `redactSecrets(redactSecrets(x))` equals
 * `redactSecrets(x)`.
 */
export function redactSecrets(text: string): string {
  const pieces = text.split(SECRET_PLACEHOLDER);
  return pieces
    .map((piece) => {
      // Each pass takes text out of the piece, so this ends; a second pass is rarely needed.
      let prev = piece;
      let next = redactOnce(piece);
      while (next !== prev) {
        prev = next;
        next = next.split(SECRET_PLACEHOLDER).map(redactOnce).join(SECRET_PLACEHOLDER);
      }
      return next;
    })
    .join(SECRET_PLACEHOLDER);
}
