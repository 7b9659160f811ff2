/**
 * Account and identity numbers recognised by their check digits: a number that passes its
 * issuer's checksum is very unlikely to be an order number, a phone number or a postcode that
 * happens to have its shape, so keel withholds it; one that fails is read as what else it may be.
 *
 * Each check says how strong it is: `strong` checks (a distinctive layout and a check that a
 * random number passes at most about 1 time in 23) withhold the number wherever it stands; the
 * others (a single check digit: 1 time in 10) only when the sentence is about an account or an
 * identity number (`detect.ts` decides that).
 *
 * Every function takes the number as written (spaces, dots and hyphens allowed) and returns
 * whether it passes; none throws.
 *
 * @module
 */
import { STDNUM_CHECKS } from './national-ids.js';

/** Keeps digits and ASCII letters, upper-cased. */
function compact(s: string): string {
  return s.replace(/[^0-9A-Za-z]/g, '').toUpperCase();
}

/** Digit `i` of `d` as a number. */
function at(d: string, i: number): number {
  return d.charCodeAt(i) - 48;
}

/**
 * The Luhn checksum (ISO/IEC 7812-1, annex B), as payment card numbers carry it.
 *
 * @param digits - the number's digits, nothing else.
 */
export function luhnValid(digits: string): boolean {
  let sum = 0;
  let double = false;
  for (let i = digits.length - 1; i >= 0; i--) {
    let d = digits.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return false;
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    double = !double;
  }
  return digits.length > 0 && sum % 10 === 0;
}

/**
 * Lengths of the IBAN of each country that issues one (SWIFT's IBAN registry, release 99,
 * 2024). A country not listed is not an IBAN.
 */
const IBAN_LENGTHS: Readonly<Record<string, number>> = {
  AD: 24,
  AE: 23,
  AL: 28,
  AT: 20,
  AZ: 28,
  BA: 20,
  BE: 16,
  BG: 22,
  BH: 22,
  BI: 27,
  BR: 29,
  BY: 28,
  CH: 21,
  CR: 22,
  CY: 28,
  CZ: 24,
  DE: 22,
  DJ: 27,
  DK: 18,
  DO: 28,
  EE: 20,
  EG: 29,
  ES: 24,
  FI: 18,
  FK: 18,
  FO: 18,
  FR: 27,
  GB: 22,
  GE: 22,
  GI: 23,
  GL: 18,
  GR: 27,
  GT: 28,
  HR: 21,
  HU: 28,
  IE: 22,
  IL: 23,
  IQ: 23,
  IS: 26,
  IT: 27,
  JO: 30,
  KW: 30,
  KZ: 20,
  LB: 28,
  LC: 32,
  LI: 21,
  LT: 20,
  LU: 20,
  LV: 21,
  LY: 25,
  MC: 27,
  MD: 24,
  ME: 22,
  MK: 19,
  MN: 20,
  MR: 27,
  MT: 31,
  MU: 30,
  NI: 28,
  NL: 18,
  NO: 15,
  OM: 23,
  PK: 24,
  PL: 28,
  PS: 29,
  PT: 25,
  QA: 29,
  RO: 24,
  RS: 22,
  RU: 33,
  SA: 24,
  SC: 31,
  SD: 18,
  SE: 24,
  SI: 19,
  SK: 24,
  SM: 27,
  SO: 23,
  ST: 25,
  SV: 28,
  TL: 23,
  TN: 24,
  TR: 26,
  UA: 29,
  VA: 22,
  VG: 24,
  XK: 20,
  YE: 30,
};

/**
 * An IBAN (ISO 13616-1): a known country code, that country's length, and the mod-97 check
 * (ISO 7064 MOD 97-10: the number with its first four characters moved to the end, letters as
 * 10–35, leaves 1). Strong.
 */
export function ibanValid(s: string): boolean {
  const iban = compact(s);
  if (!/^[A-Z]{2}\d{2}[A-Z0-9]+$/.test(iban)) return false;
  if (IBAN_LENGTHS[iban.slice(0, 2)] !== iban.length) return false;
  const moved = iban.slice(4) + iban.slice(0, 4);
  let rest = 0;
  for (const c of moved) {
    const v = c <= '9' ? c.charCodeAt(0) - 48 : c.charCodeAt(0) - 55;
    rest = (v > 9 ? rest * 100 + v : rest * 10 + v) % 97;
  }
  return rest === 1;
}

const DNI_LETTERS = 'TRWAGMYFPDXBNJZSQVHLCKE';

/**
 * A Spanish DNI (8 digits and a letter) or NIE (X, Y or Z, 7 digits and a letter): the letter is
 * the number mod 23 in the Ministry of the Interior's table (NIE: X, Y, Z read as 0, 1, 2). Strong.
 */
export function dniNieValid(s: string): boolean {
  const v = compact(s);
  const m = /^([XYZ]?)(\d{7,8})([A-Z])$/.exec(v);
  if (!m) return false;
  const [, prefix, digits, letter] = m;
  if (prefix ? digits!.length !== 7 : digits!.length !== 8) return false;
  const n = Number(`${prefix ? 'XYZ'.indexOf(prefix) : ''}${digits}`);
  return DNI_LETTERS[n % 23] === letter;
}

/** The two check digits of a Brazilian CPF (Receita Federal's modulus-11 rule). Strong. */
export function cpfValid(s: string): boolean {
  const d = s.replace(/\D/g, '');
  if (d.length !== 11 || /^(\d)\1{10}$/.test(d)) return false;
  const check = (len: number) => {
    let sum = 0;
    for (let i = 0; i < len; i++) sum += at(d, i) * (len + 1 - i);
    const r = (sum * 10) % 11;
    return r === 10 ? 0 : r;
  };
  return check(9) === at(d, 9) && check(10) === at(d, 10);
}

/**
 * A French social security number (NIR, "numéro INSEE"): sex 1/2, year, month 01–12 (or 20+ /
 * unknown), department (2A/2B for Corsica), commune, order number, and a key equal to 97 minus
 * the first 13 digits mod 97 (INSEE). Strong.
 */
export function nirValid(s: string): boolean {
  const v = compact(s);
  const m = /^([12]\d{4})(\d{2}|2A|2B)(\d{6})(\d{2})$/.exec(v);
  if (!m) return false;
  const month = Number(v.slice(3, 5));
  if (month < 1 || (month > 12 && month < 20) || month > 99) return false;
  const dept = m[2] === '2A' ? '19' : m[2] === '2B' ? '18' : m[2]!;
  const body = BigInt(`${m[1]}${dept}${m[3]}`);
  return Number(97n - (body % 97n)) === Number(m[4]);
}

/**
 * The German tax id (Steuerliche Identifikationsnummer): 11 digits, no leading zero, among the
 * first ten one digit twice or three times (and the rest once), and the check digit of ISO 7064
 * MOD 11,10. One check digit: not strong.
 */
export function steuerIdValid(s: string): boolean {
  const d = s.replace(/\D/g, '');
  if (d.length !== 11 || d[0] === '0') return false;
  const counts = new Map<string, number>();
  for (const c of d.slice(0, 10)) counts.set(c, (counts.get(c) ?? 0) + 1);
  const repeats = [...counts.values()].filter((n) => n > 1);
  if (repeats.length !== 1 || repeats[0]! > 3) return false;
  let product = 10;
  for (let i = 0; i < 10; i++) {
    let sum = (at(d, i) + product) % 10;
    if (sum === 0) sum = 10;
    product = (sum * 2) % 11;
  }
  const check = (11 - product) % 10;
  return check === at(d, 10);
}

/**
 * A US bank routing number (ABA RTN): 9 digits, the first two a Federal Reserve district (00–12,
 * 21–32, 61–72, 80), and 3·(d1+d4+d7) + 7·(d2+d5+d8) + (d3+d6+d9) ≡ 0 mod 10. Not strong.
 */
export function abaValid(s: string): boolean {
  const d = s.replace(/\D/g, '');
  if (d.length !== 9) return false;
  const p = Number(d.slice(0, 2));
  if (!(p <= 12 || (p >= 21 && p <= 32) || (p >= 61 && p <= 72) || p === 80)) return false;
  let sum = 0;
  for (let i = 0; i < 9; i += 3) sum += 3 * at(d, i) + 7 * at(d, i + 1) + at(d, i + 2);
  return sum % 10 === 0;
}

/**
 * A Russian SNILS (insurance number): 9 digits and 2 check digits, the weighted sum of the nine
 * (weights 9..1) mod 101, 100 read as 00 (Pension Fund of Russia). Strong in its written layout
 * "123-456-789 01".
 */
export function snilsValid(s: string): boolean {
  const d = s.replace(/\D/g, '');
  if (d.length !== 11) return false;
  let sum = 0;
  for (let i = 0; i < 9; i++) sum += at(d, i) * (9 - i);
  let check = sum % 101;
  if (check === 100) check = 0;
  return check === Number(d.slice(9));
}

/** An Israeli identity number (Teudat Zehut): 9 digits, a Luhn-like check. Not strong. */
export function israeliIdValid(s: string): boolean {
  const d = s.replace(/\D/g, '');
  if (d.length < 5 || d.length > 9) return false;
  const p = d.padStart(9, '0');
  let sum = 0;
  for (let i = 0; i < 9; i++) {
    let v = at(p, i) * ((i % 2) + 1);
    if (v > 9) v -= 9;
    sum += v;
  }
  return sum % 10 === 0;
}

/**
 * A Chinese resident identity number (GB 11643-1999): 17 digits with a birth date (YYYYMMDD) at
 * 7–14, and a check character of ISO 7064 MOD 11-2 (0–9 or X). Strong.
 */
export function chineseIdValid(s: string): boolean {
  const v = compact(s);
  if (!/^\d{17}[\dX]$/.test(v)) return false;
  const y = Number(v.slice(6, 10));
  const mo = Number(v.slice(10, 12));
  const da = Number(v.slice(12, 14));
  if (y < 1900 || y > 2100 || mo < 1 || mo > 12 || da < 1 || da > 31) return false;
  const weights = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2];
  let sum = 0;
  for (let i = 0; i < 17; i++) sum += at(v, i) * weights[i]!;
  return '10X98765432'[sum % 11] === v[17];
}

/**
 * A Japanese My Number (個人番号): 12 digits, the last a check digit over the first eleven
 * (weights 6,5,4,3,2,7,6,5,4,3,2; 11 − sum mod 11, 0 when that is 10 or 11). Not strong.
 */
export function myNumberValid(s: string): boolean {
  const d = s.replace(/\D/g, '');
  if (d.length !== 12) return false;
  const weights = [6, 5, 4, 3, 2, 7, 6, 5, 4, 3, 2];
  let sum = 0;
  for (let i = 0; i < 11; i++) sum += at(d, i) * weights[i]!;
  const r = sum % 11;
  return (r <= 1 ? 0 : 11 - r) === at(d, 11);
}

/** What a number that passes a check is, and whether the check alone is enough. */
export interface NumberCheck {
  /** The check's name (for tests and reports). */
  name: string;
  kind: 'account number' | 'national id';
  /** A regex source for the number's written layout (bounded; no flags). */
  layout: string;
  valid: (s: string) => boolean;
  /** True: withheld wherever it stands. False: only in a sentence about an account or an id. */
  strong: boolean;
}

/**
 * The numbers keel recognises by their check digits, each with its written layout. Card numbers
 * (Luhn) stay with the shapes (`shapes.ts`), which also know issuers' prefixes.
 */
export const NUMBER_CHECKS: readonly NumberCheck[] = [
  {
    name: 'IBAN',
    kind: 'account number',
    layout: '[A-Z]{2}\\d{2}(?:[ -]?[A-Z0-9]{1,4}){3,8}',
    valid: ibanValid,
    strong: true,
  },
  {
    name: 'DNI/NIE',
    kind: 'national id',
    layout: '[XYZ]?[ -]?\\d{7,8}[ -]?[A-Z]',
    valid: dniNieValid,
    strong: true,
  },
  {
    name: 'NIR',
    kind: 'national id',
    layout: '[12][ ]?\\d{2}[ ]?\\d{2}[ ]?(?:\\d{2}|2A|2B)[ ]?\\d{3}[ ]?\\d{3}[ ]?\\d{2}',
    valid: nirValid,
    strong: true,
  },
  {
    name: 'SNILS',
    kind: 'national id',
    layout: '\\d{3}-\\d{3}-\\d{3}[ -]\\d{2}',
    valid: snilsValid,
    strong: true,
  },
  {
    name: 'Chinese resident id',
    kind: 'national id',
    layout: '\\d{17}[\\dX]',
    valid: chineseIdValid,
    strong: true,
  },
  {
    name: 'Steuer-ID',
    kind: 'national id',
    layout: '\\d{2}[ ]?\\d{3}[ ]?\\d{3}[ ]?\\d{3}',
    valid: steuerIdValid,
    strong: false,
  },
  {
    name: 'ABA routing number',
    kind: 'account number',
    layout: '\\d{9}',
    valid: abaValid,
    strong: false,
  },
  {
    name: 'Israeli id',
    kind: 'national id',
    layout: '\\d{9}',
    valid: israeliIdValid,
    strong: false,
  },
  {
    name: 'My Number',
    kind: 'national id',
    layout: '\\d{4}[ ]?\\d{4}[ ]?\\d{4}',
    valid: myNumberValid,
    strong: false,
  },
  ...STDNUM_CHECKS,
];
