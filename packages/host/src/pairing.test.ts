import { KeelError } from '@keel/errors';
import { describe, expect, it } from 'vitest';
import {
  formatPairingCode,
  newPairingCode,
  PAIRING_ALPHABET,
  PAIRING_TTL_MS,
  Pairing,
  readPairingCode,
} from './pairing.js';

describe('pairing codes', () => {
  it('are six characters with no 0, O, 1, I or L (any case), shown as ABC-DEF', () => {
    expect(PAIRING_ALPHABET).not.toMatch(/[0O1IL]/i);
    const codes = Array.from({ length: 500 }, () => newPairingCode());
    for (const code of codes) expect(code).toMatch(/^[A-HJKMNP-Z2-9]{6}$/);
    // Drawn, not fixed: 500 codes are (almost surely) all different.
    expect(new Set(codes).size).toBeGreaterThan(495);
    expect(formatPairingCode('ABCDEF')).toBe('ABC-DEF');
  });

  it('are read back without regard to case, spaces or dashes; other text is not a code', () => {
    expect(readPairingCode(' abc-def ')).toBe('ABCDEF');
    expect(readPairingCode('ABC DEF')).toBe('ABCDEF');
    expect(readPairingCode('hello')).toBeNull();
    expect(readPairingCode('hello there')).toBeNull();
    expect(readPairingCode('ABC-DEF!')).toBeNull();
  });
});

describe('a pairing attempt', () => {
  it('pairs on the right code, once', () => {
    const p = new Pairing({ code: 'ABCDEF' });
    expect(p.offer('abc-def')).toEqual({ kind: 'paired' });
    expect(p.state).toBe('paired');
    expect(p.offer('ABCDEF')).toEqual({ kind: 'closed' });
    expect(p.failure()).toBeNull();
  });

  it('ignores what is not a code, counts wrong codes and stops at the third', () => {
    const p = new Pairing({ code: 'ABCDEF' });
    expect(p.offer('hi, is this keel?')).toEqual({ kind: 'ignored' });
    expect(p.offer('ABCDEG')).toEqual({ kind: 'wrong', triesLeft: 2 });
    expect(p.offer('ZZZ-ZZZ')).toEqual({ kind: 'wrong', triesLeft: 1 });
    expect(p.offer('OOOOOO')).toEqual({ kind: 'stopped' });
    expect(p.state).toBe('too_many_tries');
    // The right code after the stop changes nothing.
    expect(p.offer('ABCDEF')).toEqual({ kind: 'closed' });
    const err = p.failure();
    expect(KeelError.isInstance(err) && err.code).toBe('PAIRING_FAILED');
    expect(err?.details).toEqual({ reason: 'too_many_tries' });
    expect(err?.message).toContain('pairing stopped');
  });

  it('refuses the right code once it has expired (10 minutes by default)', () => {
    let now = 1_000_000;
    const p = new Pairing({ code: 'ABCDEF', now: () => now });
    expect(p.expiresAt).toBe(1_000_000 + PAIRING_TTL_MS);
    now += PAIRING_TTL_MS - 1;
    expect(p.state).toBe('open');
    now += 1;
    expect(p.offer('ABCDEF')).toEqual({ kind: 'expired' });
    expect(p.state).toBe('expired');
    expect(p.failure()?.details).toEqual({ reason: 'expired' });
    // Control: the same code one millisecond before the expiry pairs.
    let t = 0;
    const q = new Pairing({ code: 'ABCDEF', now: () => t });
    t = PAIRING_TTL_MS - 1;
    expect(q.offer('ABCDEF')).toEqual({ kind: 'paired' });
  });

  it('refuses nonsense options', () => {
    expect(() => new Pairing({ code: 'nope' })).toThrow(/not a pairing code/);
    expect(() => new Pairing({ maxTries: 0 })).toThrow(/positive/);
  });
});
