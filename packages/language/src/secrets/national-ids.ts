/**
 * Identity numbers checked by the `stdnum` library (https://github.com/koblas/stdnum-js, a port
 * of python-stdnum), which keeps each issuer's rules: dates inside the number, reserved ranges,
 * check digits and letters. Each with its written layout and whether the check alone is enough
 * (`strong`), as in {@link NUMBER_CHECKS}, which lists them after the hand-written ones.
 *
 * @module
 */
import { stdnum } from 'stdnum';
import type { NumberCheck } from './checksums.js';

/**
 * The verdict of the `stdnum` library's validator `country`.`name` (a port of python-stdnum).
 * A validator the library does not have is a programming error, thrown at load.
 */
function stdnumCheck(country: string, name: string): (s: string) => boolean {
  const validator = stdnum[country]?.[name];
  if (!validator) throw new Error(`stdnum has no ${country}.${name} validator`);
  return (s: string): boolean => {
    try {
      return validator.validate(s).isValid;
    } catch {
      return false; // stdnum throws on input it cannot read: not a valid number
    }
  };
}

/** The identity numbers stdnum checks, for {@link NUMBER_CHECKS}. */
export const STDNUM_CHECKS: readonly NumberCheck[] = [
  {
    name: 'US SSN',
    kind: 'national id',
    // Dashed 3-2-4 is the SSN's own layout (a phone number is 3-3-4); stdnum refuses the
    // ranges never issued (000, 666, 9xx; group 00; serial 0000).
    layout: '\\d{3}-\\d{2}-\\d{4}',
    valid: stdnumCheck('US', 'ssn'),
    strong: true,
  },
  {
    name: 'UK National Insurance number',
    kind: 'national id',
    layout: '[A-Z]{2}[ ]?\\d{2}[ ]?\\d{2}[ ]?\\d{2}[ ]?[A-D]',
    valid: stdnumCheck('GB', 'nino'),
    strong: true,
  },
  {
    name: 'Italian codice fiscale',
    kind: 'national id',
    layout: '[A-Z]{6}[0-9LMNPQRSTUV]{2}[A-Z][0-9LMNPQRSTUV]{2}[A-Z][0-9LMNPQRSTUV]{3}[A-Z]',
    valid: stdnumCheck('IT', 'codicefiscale'),
    strong: true,
  },
  {
    name: 'Swedish personnummer',
    kind: 'national id',
    layout: '(?:\\d{2})?\\d{6}[-+]\\d{4}',
    valid: stdnumCheck('SE', 'personnummer'),
    strong: true,
  },
  {
    name: 'Belgian national number',
    kind: 'national id',
    layout: '\\d{2}\\.\\d{2}\\.\\d{2}-\\d{3}\\.\\d{2}',
    valid: stdnumCheck('BE', 'nn'),
    strong: true,
  },
  {
    name: 'Finnish HETU',
    kind: 'national id',
    layout: '\\d{6}[-+A-F]\\d{3}[0-9A-Y]',
    valid: stdnumCheck('FI', 'hetu'),
    strong: true,
  },
  {
    name: 'Dutch BSN',
    kind: 'national id',
    layout: '\\d{4}[. ]?\\d{2}[. ]?\\d{3}',
    valid: stdnumCheck('NL', 'bsn'),
    strong: false,
  },
  {
    name: 'Portuguese NIF',
    kind: 'national id',
    layout: '\\d{3}[ ]?\\d{3}[ ]?\\d{3}',
    valid: stdnumCheck('PT', 'nif'),
    strong: false,
  },
  {
    name: 'Canadian SIN',
    kind: 'national id',
    layout: '\\d{3}[ -]?\\d{3}[ -]?\\d{3}',
    valid: stdnumCheck('CA', 'sin'),
    strong: false,
  },
  {
    name: 'Polish PESEL',
    kind: 'national id',
    layout: '\\d{11}',
    valid: stdnumCheck('PL', 'pesel'),
    strong: false,
  },
  {
    name: 'Turkish identity number',
    kind: 'national id',
    layout: '\\d{11}',
    valid: stdnumCheck('TR', 'tckimlik'),
    strong: false,
  },
  {
    name: 'Norwegian fødselsnummer',
    kind: 'national id',
    layout: '\\d{6}[ ]?\\d{5}',
    valid: stdnumCheck('NO', 'fodselsnummer'),
    strong: false,
  },
  {
    name: 'Danish CPR',
    kind: 'national id',
    layout: '\\d{6}-?\\d{4}',
    valid: stdnumCheck('DK', 'cpr'),
    strong: false,
  },
  {
    name: 'Indian Aadhaar',
    kind: 'national id',
    layout: '\\d{4}[ ]?\\d{4}[ ]?\\d{4}',
    valid: stdnumCheck('IN', 'aadhaar'),
    strong: false,
  },
];
