/**
 * The kinds of secret keel never keeps, how a door names each to the owner, and the placeholder
 * that stands where one was withheld.
 *
 * @module
 */

/**
 * Every kind of secret the scan reports. The list is stable: write refusals name the kind
 * (`secret (password) is never stored`) and doors map it to words with {@link describeSecretKind}.
 *
 * - `password` — passwords and passphrases, credentials inside URLs (`https://user:pass@host`).
 * - `pin` — PINs, passcodes, door and alarm codes, one-time codes.
 * - `api key` — API keys, access keys, client secrets.
 * - `token` — access tokens (GitHub, Slack, npm, JWTs, bearer credentials …).
 * - `private key` — PEM private key blocks, extended private keys, a private key's value.
 * - `recovery code` — recovery and backup codes, recovery and seed phrases.
 * - `security answer` — answers to security questions, a mother's maiden name.
 * - `card number` — payment card numbers (Luhn-checked when unlabelled).
 * - `card security code` — CVV / CVC.
 * - `national id` — social security, national insurance, passport, tax and identity numbers.
 * - `account number` — bank account numbers, IBANs, routing numbers.
 */
export const SECRET_KINDS = [
  'password',
  'pin',
  'api key',
  'token',
  'private key',
  'recovery code',
  'security answer',
  'card number',
  'card security code',
  'national id',
  'account number',
] as const;

/** One of {@link SECRET_KINDS}. */
export type SecretKind = (typeof SECRET_KINDS)[number];

/** A secret found in a text: its kind and the span of the secret itself (UTF-16 offsets). */
export interface SecretFinding {
  kind: SecretKind;
  /** Offset of the secret's first character. */
  start: number;
  /** Offset just past the secret's last character. */
  end: number;
}

/** What replaces a secret in stored text. */
export const SECRET_PLACEHOLDER = '[secret withheld]';

const PLURALS: Record<SecretKind, string> = {
  password: 'passwords',
  pin: 'PINs and passcodes',
  'api key': 'API keys',
  token: 'access tokens',
  'private key': 'private keys',
  'recovery code': 'recovery codes',
  'security answer': 'answers to security questions',
  'card number': 'card numbers',
  'card security code': 'card security codes',
  'national id': 'identity numbers',
  'account number': 'bank account numbers',
};

/**
 * The kind in plain English plural words, for a door's sentence such as
 * `keel does not keep ${describeSecretKind('pin')}` → "keel does not keep PINs and passcodes".
 */
export function describeSecretKind(kind: SecretKind): string {
  return PLURALS[kind];
}

/** True when `value` is one of {@link SECRET_KINDS}. */
export function isSecretKind(value: unknown): value is SecretKind {
  return typeof value === 'string' && (SECRET_KINDS as readonly string[]).includes(value);
}
