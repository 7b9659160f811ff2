// The check digits of account and identity numbers: each check passes a number its issuer would
// issue and fails the same number with one digit changed; and a number is withheld by its check
// only where the check is strong or the sentence is about an account or an id.

import { describe, expect, it } from 'vitest';
import {
  abaValid,
  chineseIdValid,
  cpfValid,
  dniNieValid,
  ibanValid,
  israeliIdValid,
  luhnValid,
  myNumberValid,
  nirValid,
  snilsValid,
  steuerIdValid,
} from './checksums.js';
import { redactSecrets } from './redact.js';

describe('the checks', () => {
  it.each([
    ['IBAN', ibanValid, 'GB82 WEST 1234 5698 7654 32', 'GB82 WEST 1234 5698 7654 33'],
    [
      'IBAN (France, letters inside)',
      ibanValid,
      'FR14 2004 1010 0505 0001 3M02 606',
      'FR14 2004 1010 0505 0001 3M02 607',
    ],
    ['DNI', dniNieValid, '12345678Z', '12345678A'],
    ['NIE', dniNieValid, 'X1234567L', 'X1234567M'],
    ['CPF', cpfValid, '529.982.247-25', '529.982.247-26'],
    ['NIR', nirValid, '1 85 05 78 006 084 91', '1 85 05 78 006 084 92'],
    ['Steuer-ID', steuerIdValid, '86095742719', '86095742718'],
    ['ABA routing number', abaValid, '021000021', '021000022'],
    ['SNILS', snilsValid, '112-233-445 95', '112-233-445 96'],
    ['Israeli id', israeliIdValid, '312345671', '312345672'],
    ['Chinese resident id', chineseIdValid, '11010519491231002X', '110105194912310021'],
    ['My Number', myNumberValid, '123456789018', '123456789017'],
    ['Luhn', luhnValid, '4111111111111111', '4111111111111112'],
  ])('%s: passes a valid number and fails one digit changed', (_, check, valid, changed) => {
    expect(check(valid)).toBe(true);
    expect(check(changed)).toBe(false);
  });

  it('reads an IBAN only with its country and that country’s length', () => {
    expect(ibanValid('GB82 WEST 1234 5698 7654')).toBe(false);
    expect(ibanValid('QQ82 WEST 1234 5698 7654 32')).toBe(false);
  });
});

describe('numbers withheld by their checks', () => {
  it('withholds a strong check anywhere, and keeps a number that fails it', () => {
    expect(redactSecrets('send it to GB82 WEST 1234 5698 7654 32 please')).toBe(
      'send it to [secret withheld] please',
    );
    // Control: one digit off, and it is just letters and digits.
    expect(redactSecrets('send it to GB82 WEST 1234 5698 7654 33 please')).toBe(
      'send it to GB82 WEST 1234 5698 7654 33 please',
    );
  });

  it('withholds a single check digit only in a sentence about an account or an id', () => {
    expect(redactSecrets('the routing for my bank is 021000021')).toBe(
      'the routing for my bank is [secret withheld]',
    );
    // Control: the same valid number in a sentence about something else.
    expect(redactSecrets('parcel 021000021 arrives on Monday')).toBe(
      'parcel 021000021 arrives on Monday',
    );
  });

  it('keeps order, flight and phone numbers, postcodes and years', () => {
    for (const text of [
      'my order number for the sofa is 203-5512093-7718342',
      'flight LH 2027 leaves at 9',
      'text me at +44 7700 900123',
      'the postcode is 28013',
      'born in 1987, moved in 2019',
      'my favourite number is 7',
    ])
      expect(redactSecrets(text)).toBe(text);
    // Control: an account number stated as one is withheld.
    expect(redactSecrets('my account number is 55102938')).toBe(
      'my account number is [secret withheld]',
    );
  });
});
