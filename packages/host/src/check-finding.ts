/**
 * How a live check says what it found (see `checks.ts`): passed, skipped, or a problem with its
 * `KeelError` code and one-line fix.
 *
 * @module
 */
import { ERROR_FIXES, type KeelErrorCode } from '@keel/errors';
import type { CheckFinding } from './checks.js';
import { INTERNAL_FIX } from './report.js';

/** A check that passed, saying what it found. */
export const ok = (detail: string): CheckFinding => ({ status: 'ok', detail });
/** A check with nothing to check. */
export const skip = (detail: string): CheckFinding => ({ status: 'skip', detail });
/** A check that found a problem: its code and fix (the code's own fix unless one is given). */
export const problem = (
  status: 'warn' | 'fail',
  code: KeelErrorCode | 'INTERNAL',
  detail: string,
  fix: string = code === 'INTERNAL' ? INTERNAL_FIX : ERROR_FIXES[code],
): CheckFinding => ({ status, detail, code, fix });
