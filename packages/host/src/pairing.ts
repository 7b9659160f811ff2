/**
 * Pairing: how keel learns who its owner is on a door without the owner looking up an id. keel
 * makes a short one-time code ({@link newPairingCode}) and shows it on the owner's terminal; the
 * owner sends it to keel from their own account; the author of the message that carries the right
 * code becomes the owner. {@link Pairing} is one attempt's state, the same for every door (Discord
 * today; iMessage once its door exists): it knows the code, when it expires and how many wrong
 * codes it has seen, and nothing about who sent what: the door keeps the author of the message
 * that paired.
 *
 * The code is {@link PAIRING_CODE_LENGTH} characters from {@link PAIRING_ALPHABET} (digits and
 * capitals without 0, O, 1, I and L, which read alike), drawn with `crypto.randomInt`; it is
 * shown as `ABC-DEF` and read back without regard to case, spaces or dashes. It lasts
 * {@link PAIRING_TTL_MS} (10 minutes), and {@link PAIRING_MAX_TRIES} (3) wrong codes stop the
 * attempt. Only a message shaped like a code counts as a try, so "hi" costs nothing; 31^6 ≈ 887
 * million codes against three guesses. Codes are compared in constant time.
 *
 * @module
 */
import { randomInt, timingSafeEqual } from 'node:crypto';
import { KeelError } from '@keel/errors';

/** The characters a code is made of: digits and capitals without 0, O, 1, I and L. */
export const PAIRING_ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';
/** Characters in a code. */
export const PAIRING_CODE_LENGTH = 6;
/** How long a code lasts, ms: 10 minutes. */
export const PAIRING_TTL_MS = 10 * 60_000;
/** Wrong codes that stop an attempt. */
export const PAIRING_MAX_TRIES = 3;

/**
 * A new one-time code of `length` characters from {@link PAIRING_ALPHABET}.
 *
 * @param random - `randomInt(max)` returning a whole number in [0, max) (tests); default
 *   `crypto.randomInt`, a cryptographic source.
 */
export function newPairingCode(
  length = PAIRING_CODE_LENGTH,
  random: (max: number) => number = randomInt,
): string {
  let code = '';
  for (let i = 0; i < length; i++) code += PAIRING_ALPHABET[random(PAIRING_ALPHABET.length)];
  return code;
}

/** A code as it is shown: `ABC-DEF` (halves joined by a dash). */
export function formatPairingCode(code: string): string {
  const half = Math.ceil(code.length / 2);
  return `${code.slice(0, half)}-${code.slice(half)}`;
}

/**
 * The code a message carries, upper-cased with spaces and dashes removed, or null when the text
 * is not shaped like a code (letters and digits only, {@link PAIRING_CODE_LENGTH} of them; wrong
 * characters such as `O` still count as a try).
 */
export function readPairingCode(text: string, length = PAIRING_CODE_LENGTH): string | null {
  const bare = text.replace(/[\s\-–—]+/g, '').toUpperCase();
  return bare.length === length && /^[A-Z0-9]+$/.test(bare) ? bare : null;
}

/** Why an attempt ended without an owner. */
export type PairingFailure = 'expired' | 'too_many_tries';

/** What one message did to a {@link Pairing}. */
export type PairingVerdict =
  /** The right code, in time: its author is the owner. */
  | { kind: 'paired' }
  /** A wrong code; `triesLeft` more are allowed. */
  | { kind: 'wrong'; triesLeft: number }
  /** A wrong code and the last allowed: the attempt stopped. */
  | { kind: 'stopped' }
  /** The code has expired: the attempt is over (said of every message after the expiry). */
  | { kind: 'expired' }
  /** Not shaped like a code: no try, nothing changes. */
  | { kind: 'ignored' }
  /** The attempt was already over (paired or stopped): nothing changes. */
  | { kind: 'closed' };

/** Options for {@link Pairing}. */
export interface PairingOptions {
  /** How long the code lasts, ms. Default {@link PAIRING_TTL_MS}. */
  ttlMs?: number;
  /** Wrong codes that stop the attempt. Default {@link PAIRING_MAX_TRIES}. */
  maxTries?: number;
  /** The clock, ms since the epoch. Default `Date.now`. */
  now?: () => number;
  /** The code to use (tests). Default {@link newPairingCode}. */
  code?: string;
}

/** One pairing attempt: a code, its expiry, and the wrong codes seen. */
export class Pairing {
  /** The code, bare (`ABCDEF`); show it with {@link formatPairingCode}. */
  readonly code: string;
  /** When the code stops working, ms since the epoch. */
  readonly expiresAt: number;
  /** How long the code lasts, ms. */
  readonly ttlMs: number;
  readonly maxTries: number;
  /** Wrong codes seen so far. */
  wrongTries = 0;
  #state: 'open' | 'paired' | PairingFailure = 'open';
  readonly #now: () => number;

  /** @throws KeelError `INVALID_INPUT` when `ttlMs` or `maxTries` is not positive, or `code` is not a code. */
  constructor(options: PairingOptions = {}) {
    this.#now = options.now ?? Date.now;
    this.ttlMs = options.ttlMs ?? PAIRING_TTL_MS;
    this.maxTries = options.maxTries ?? PAIRING_MAX_TRIES;
    if (!(this.ttlMs > 0) || !Number.isSafeInteger(this.maxTries) || this.maxTries < 1) {
      throw new KeelError('INVALID_INPUT', 'a pairing needs a positive ttlMs and maxTries');
    }
    const code = options.code === undefined ? newPairingCode() : readPairingCode(options.code);
    if (!code) throw new KeelError('INVALID_INPUT', `"${options.code}" is not a pairing code`);
    this.code = code;
    this.expiresAt = this.#now() + this.ttlMs;
  }

  /** `open` while it waits for the code; else how it ended. */
  get state(): 'open' | 'paired' | PairingFailure {
    if (this.#state === 'open' && this.#now() >= this.expiresAt) this.#state = 'expired';
    return this.#state;
  }

  /**
   * Judges one message's text. The right code in time pairs; a wrong one counts (the last allowed
   * stops the attempt); text not shaped like a code changes nothing.
   */
  offer(text: string): PairingVerdict {
    const state = this.state;
    if (state === 'expired') return { kind: 'expired' };
    if (state !== 'open') return { kind: 'closed' };
    const given = readPairingCode(text, this.code.length);
    if (given === null) return { kind: 'ignored' };
    if (timingSafeEqual(Buffer.from(given), Buffer.from(this.code))) {
      this.#state = 'paired';
      return { kind: 'paired' };
    }
    this.wrongTries++;
    if (this.wrongTries >= this.maxTries) {
      this.#state = 'too_many_tries';
      return { kind: 'stopped' };
    }
    return { kind: 'wrong', triesLeft: this.maxTries - this.wrongTries };
  }

  /** The `PAIRING_FAILED` error for an attempt that ended without an owner; null otherwise. */
  failure(): KeelError | null {
    const state = this.state;
    if (state === 'open' || state === 'paired') return null;
    return pairingError(state, this.ttlMs, this.maxTries);
  }
}

/**
 * The `PAIRING_FAILED` error for an attempt that ended without an owner (`details.reason`:
 * `expired` or `too_many_tries`).
 */
export function pairingError(
  reason: PairingFailure,
  ttlMs = PAIRING_TTL_MS,
  maxTries = PAIRING_MAX_TRIES,
): KeelError {
  return reason === 'expired'
    ? new KeelError(
        'PAIRING_FAILED',
        `the pairing code expired (a code lasts ${Math.round(ttlMs / 60_000) || 1} minute(s)); nobody was paired`,
        { details: { reason } },
      )
    : new KeelError(
        'PAIRING_FAILED',
        `${maxTries} wrong code(s) were sent: pairing stopped and nobody was paired`,
        { details: { reason } },
      );
}
