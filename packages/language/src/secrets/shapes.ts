/**
 * Secrets recognised by their shape alone, wherever they stand: issuers' token formats, private
 * key blocks, credentials inside URLs, payment card numbers that pass the Luhn check, and national
 * id numbers whose format is distinctive (US SSN, UK National Insurance number, Brazilian CPF).
 *
 * Every regex here has bounded repetition or a single unbounded run with no alternatives inside
 * it, so each scan is linear in the text's length. Numbers glued to letters (inside a hex hash, an
 * id like "a4111111111111111b") are not read as cards or ids.
 *
 * @module
 */
import { cpfValid, luhnValid } from './checksums.js';
import type { SecretFinding, SecretKind } from './kinds.js';
import { vendorFindings } from './vendor/scan.js';

export { luhnValid };

/** A shape: where it matches, and (optionally) which part of the match is the secret and whether it holds. */
interface Shape {
  kind: SecretKind;
  /** A global regex. When it has a group named `secret`, only that group is withheld. */
  re: RegExp;
  /** A check on the secret's text (a checksum); a match that fails it is not a secret. */
  valid?: (secret: string) => boolean;
  /** Text every match contains (lower-case when `re` ignores case): without it the regex is not run. */
  needs?: string;
  /** Every match holds an ASCII digit: in a text without one the regex is not run. */
  digits?: true;
}

/** A card number standing alone: 13 to 19 digits, a plausible issuer prefix (2–6), the Luhn check. */
function cardValid(secret: string): boolean {
  const digits = secret.replace(/\D/g, '');
  return digits.length >= 13 && digits.length <= 19 && /^[2-6]/.test(digits) && luhnValid(digits);
}

/** A credential after "Bearer" or "Basic", not an English word ("a basic understanding"). */
function notAWord(secret: string): boolean {
  return /[0-9+/=._~-]/.test(secret) || (/[a-z]/.test(secret) && /[A-Z].*[A-Z]/.test(secret));
}

/**
 * Issuer formats, as the issuers publish them: OpenAI and Anthropic keys (`sk-`, `sk-ant-`),
 * GitHub tokens (`ghp_` … and fine-grained `github_pat_`), GitLab personal access tokens
 * (`glpat-`), AWS access key ids (`AKIA` + 16), Slack tokens (`xox?-`), JSON Web Tokens, Discord
 * bot tokens, Google API keys as secret scanners such as gitleaks match them (`AIza` + 35), Stripe
 * secret and restricted keys (`sk_live_`, `rk_test_` …), Hugging Face tokens (`hf_`), npm tokens
 * (`npm_` + 36), SendGrid keys (`SG.`), Telegram bot tokens, an HTTP `Bearer` or `Basic`
 * credential, and BIP-32 extended private keys (`xprv`).
 *
 * Kept beside the vendored gitleaks rules (`vendor/`), which add some 200 other issuers' formats:
 * for these issuers gitleaks reads more narrowly (exact lengths, an entropy floor, documentation
 * examples allowed), and keel would rather withhold a short or placeholder-looking token than keep
 * a real one (docs/decisions/2026-12-04-vendor-key-rules.md).
 */
const SHAPES: readonly Shape[] = [
  { kind: 'api key', re: /\bsk-(?:ant-|proj-)?[A-Za-z0-9_-]{20,}/g, needs: 'sk-' },
  { kind: 'token', re: /\bgh[pousr]_[A-Za-z0-9]{30,}/g, needs: 'gh' },
  { kind: 'token', re: /\bgithub_pat_[A-Za-z0-9_]{22,}/g, needs: 'github_pat_' },
  { kind: 'token', re: /\bglpat-[A-Za-z0-9_-]{20,}/g, needs: 'glpat-' },
  { kind: 'api key', re: /\bAKIA[0-9A-Z]{16}\b/g, needs: 'AKIA' },
  { kind: 'token', re: /\bxox[abprs]-[A-Za-z0-9-]{10,}/g, needs: 'xox' },
  {
    kind: 'token',
    re: /\beyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}/g,
    needs: 'eyJ',
  },
  { kind: 'token', re: /\b[MN][A-Za-z\d]{23,25}\.[\w-]{6}\.[\w-]{27,}/g, needs: '.' },
  { kind: 'api key', re: /\bAIza[0-9A-Za-z_-]{35}\b/g, needs: 'AIza' },
  { kind: 'api key', re: /\b[sr]k_(?:live|test)_[0-9A-Za-z]{16,}/g, needs: 'k_' },
  { kind: 'token', re: /\bhf_[A-Za-z0-9]{30,}\b/g, needs: 'hf_' },
  { kind: 'token', re: /\bnpm_[A-Za-z0-9]{36}\b/g, needs: 'npm_' },
  { kind: 'api key', re: /\bSG\.[\w-]{20,24}\.[\w-]{40,46}\b/g, needs: 'SG.' },
  { kind: 'token', re: /(?<![\d:])\d{8,10}:AA[A-Za-z0-9_-]{33}\b/g, needs: ':AA' },
  {
    kind: 'token',
    re: /\bbearer\s+(?<secret>[A-Za-z0-9._~+/=-]{20,})/gi,
    needs: 'bearer',
    valid: notAWord,
  },
  {
    kind: 'password',
    re: /\bbasic\s+(?<secret>[A-Za-z0-9+/]{12,}={0,2})(?![A-Za-z0-9+/=])/gi,
    needs: 'basic',
    valid: notAWord,
  },
  { kind: 'private key', re: /\b[xt]prv[1-9A-HJ-NP-Za-km-z]{100,112}\b/g, needs: 'prv' },
  // A password by its shape alone, wherever it stands ("it's the same as my gmail one:
  // Pebble&Rook1988"): 8 to 64 characters with a lower-case letter, a capital, a digit and a
  // symbol a password takes inside it, and nothing a URL, a path, code or a hashtag holds.
  {
    kind: 'password',
    re: /(?<![^\s"'“«(])(?<secret>(?=[^\s]*\p{Ll})(?=[^\s]*\p{Lu})(?=[^\s]*\d)[\p{L}\d][\p{L}\d!#$%&*+?@^~_-]{6,62}[\p{L}\d!#$%&*?])(?=$|[\s"'”»),;:!?]|\.(?:\s|$))/gu,
    valid: passwordShaped,
    digits: true,
  },
  // A URL's user information: the password after "user:" is withheld, the user name kept.
  {
    kind: 'password',
    re: /\b[a-z][a-z0-9+.-]{1,30}:\/\/[^\s/?#@:]{1,256}:(?<secret>[^\s/?#@]{1,256})@/gi,
    needs: '://',
  },
  {
    kind: 'card number',
    re: /(?<![\p{L}\p{N}.,+-])(?:\d{4}(?:[ -]?\d{4}){2}(?:[ -]?\d{1,4}){1,2}|\d{4}[ -]?\d{6}[ -]?\d{5}|\d{13,19})(?![\p{L}\p{N}])/gu,
    valid: cardValid,
    digits: true,
  },
  {
    kind: 'national id',
    re: /(?<![\p{L}\p{N}-])(?!000|666|9\d\d)\d{3}-(?!00)\d{2}-(?!0000)\d{4}(?![\p{L}\p{N}-])/gu,
    digits: true,
  },
  {
    kind: 'national id',
    re: /(?<![A-Za-z0-9])(?!BG|GB|KN|NK|NT|TN|ZZ)[A-CEGHJ-PR-TW-Z][A-CEGHJ-NPR-TW-Z] ?\d{2} ?\d{2} ?\d{2} ?[A-D](?![A-Za-z0-9])/g,
    digits: true,
  },
  {
    kind: 'national id',
    re: /(?<![\p{L}\p{N}.])\d{3}\.\d{3}\.\d{3}-\d{2}(?![\p{L}\p{N}])/gu,
    valid: cpfValid,
    digits: true,
  },
];

const PEM_BEGIN = /-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----/g;

/**
 * Private key blocks (PEM, OpenSSH, PGP): from the BEGIN line to the END line, or to the end of
 * the text when the block is cut off, so the key's body goes with its header.
 */
function privateKeyBlocks(text: string, out: SecretFinding[]): void {
  PEM_BEGIN.lastIndex = 0;
  for (let m = PEM_BEGIN.exec(text); m; m = PEM_BEGIN.exec(text)) {
    const endAt = text.indexOf('-----END ', m.index + m[0].length);
    let end = text.length;
    if (endAt >= 0) {
      const close = text.indexOf('-----', endAt + 9);
      end = close >= 0 && close - endAt < 80 ? close + 5 : endAt;
    }
    out.push({ kind: 'private key', start: m.index, end });
    PEM_BEGIN.lastIndex = end;
  }
}

/** {@link SHAPES} compiled once with match indices (`d`), so a named `secret` group has its span. */
const COMPILED: readonly Shape[] = SHAPES.map((s) => ({
  ...s,
  re: new RegExp(s.re.source, `${s.re.flags.replace('d', '')}d`),
}));

/** The first four digit groups of a grouped card number followed by more digits ("… 1111 2024"). */
const FIRST_FOUR_GROUPS = /^\d{4}[ -]?\d{4}[ -]?\d{4}[ -]?\d{4}/;

const ASCII_DIGIT = /[0-9]/;

/**
 * Every secret `text` holds by shape alone, the vendored rules' included, in no particular order
 * (spans may overlap). A shape's
 * regex runs only on a text that holds what every match holds (`needs`, an ASCII digit); with
 * `prefilter` false the digit check is skipped (the same findings either way, measured in
 * `detect.test.ts`).
 */
/**
 * Whether a token has a password's shape, not code's, markup's or a version's: a symbol of
 * {@link PASSWORD_SYMBOLS} between two letters or digits ("Pebble&Rook1988"), no underscore (an
 * identifier's), no "@" before a version ("AzureCLI@2"), at most two hyphens, and no symbol
 * twice apart ("1%stH%-100" is a format). Measured on the shared conversation data (55 MB of
 * LoCoMo and LongMemEval text) before it was kept.
 */
export function passwordShaped(token: string): boolean {
  if (token.includes('_') || /[@^]\d+$/u.test(token)) return false;
  if ((token.match(/-/gu) ?? []).length > 2) return false;
  const inner = new RegExp(`[\\p{L}\\d][${PASSWORD_SYMBOLS}]+[\\p{L}\\d]`, 'u');
  if (!inner.test(token)) return false;
  for (const c of PASSWORD_SYMBOLS) {
    const at = token.indexOf(c);
    if (at >= 0 && token.indexOf(c, at + 1) > at + 1) return false;
  }
  return true;
}

/** The symbols inside a password by its shape ({@link passwordShaped}). */
const PASSWORD_SYMBOLS = '#$%&*+@^~';

export function shapeFindings(text: string, prefilter = true): SecretFinding[] {
  const out: SecretFinding[] = vendorFindings(text);
  if (text.includes('-----BEGIN ')) privateKeyBlocks(text, out);
  let lower: string | undefined;
  let digit: boolean | undefined;
  for (const shape of COMPILED) {
    if (prefilter && shape.digits) {
      digit ??= ASCII_DIGIT.test(text);
      if (!digit) continue;
    }
    if (shape.needs) {
      if (shape.re.ignoreCase && lower === undefined) lower = text.toLowerCase();
      const haystack = shape.re.ignoreCase ? lower! : text;
      if (!haystack.includes(shape.needs)) continue;
    }
    shape.re.lastIndex = 0;
    for (const m of text.matchAll(shape.re)) {
      const span = m.indices?.groups?.secret ?? m.indices?.[0];
      if (!span) continue;
      const start = span[0];
      let end = span[1];
      if (end <= start) continue;
      if (shape.valid && !shape.valid(text.slice(start, end))) {
        // A card number followed by another group of digits (a date, a year) is still a card.
        const head = shape.kind === 'card number' ? FIRST_FOUR_GROUPS.exec(m[0]) : null;
        if (!head || !shape.valid(head[0])) continue;
        end = start + head[0].length;
      }
      out.push({ kind: shape.kind, start, end });
    }
  }
  return out;
}
