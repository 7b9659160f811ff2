/**
 * Time in the owner's zone: quiet hours, the night a curation belongs to, the week a review covers.
 * All inputs are ms since the Unix epoch; zones are IANA names (Luxon).
 *
 * @module
 */
import { KeelError } from '@keel/errors';
import { DateTime, IANAZone } from 'luxon';
import type { QuietHours } from './types.js';

/**
 * Parses `KEEL_QUIET_HOURS`: `23-7` (23:00 to 07:00, wrapping midnight), `13-14`; empty → null.
 *
 * @throws KeelError `CONFIG_INVALID` for anything else (hours must be 0..23 and differ).
 */
export function parseQuietHours(text: string | undefined): QuietHours | null {
  const t = text?.trim() ?? '';
  if (!t) return null;
  const m = /^(\d{1,2})\s*-\s*(\d{1,2})$/.exec(t);
  const start = m ? Number(m[1]) : Number.NaN;
  const end = m ? Number(m[2]) : Number.NaN;
  if (!m || start > 23 || end > 23 || start === end) {
    throw new KeelError(
      'CONFIG_INVALID',
      `KEEL_QUIET_HOURS "${t}" must be two different hours 0..23 as START-END, e.g. 23-7`,
    );
  }
  return { start, end };
}

/**
 * Checks an IANA time zone name.
 *
 * @throws KeelError `CONFIG_INVALID` for an unknown zone.
 */
export function validateZone(tz: string): string {
  if (!IANAZone.isValidZone(tz)) {
    throw new KeelError(
      'CONFIG_INVALID',
      `KEEL_TZ "${tz}" is not a time zone name (use an IANA name such as Europe/Berlin)`,
    );
  }
  return tz;
}

/** The wall-clock time of `ms` in `tz`. */
export function local(ms: number, tz: string): DateTime {
  return DateTime.fromMillis(ms, { zone: tz });
}

/** True when `ms` falls inside the quiet hours (in `tz`); always false without quiet hours. */
export function isQuiet(ms: number, quiet: QuietHours | null, tz: string): boolean {
  if (!quiet) return false;
  const h = local(ms, tz).hour;
  return quiet.start < quiet.end
    ? h >= quiet.start && h < quiet.end
    : h >= quiet.start || h < quiet.end;
}

/**
 * The night a curation at `ms` belongs to: the owner-local date on which that night began, so a
 * run at 03:00 on the 2nd curates the night of the 1st. Hours at or after `curateAt` belong to the
 * current date's night; earlier hours to the previous date's.
 *
 * @returns `YYYY-MM-DD`.
 */
export function nightOf(ms: number, tz: string, curateAt: number): string {
  const t = local(ms, tz);
  const day = t.hour >= curateAt ? t.minus({ days: 1 }) : t.minus({ days: 2 });
  return day.toISODate() ?? '';
}

/**
 * Whether the curator should run at `ms`: the local hour has reached `curateAt` and the night it
 * would curate has not been completed yet (`lastNight` is the newest night completed). A night
 * missed while the machine was off is caught up on the first tick after `curateAt` the next day.
 */
export function curationDue(
  ms: number,
  tz: string,
  curateAt: number,
  lastNight: string | null,
): boolean {
  if (local(ms, tz).hour < curateAt) return false;
  const night = nightOf(ms, tz, curateAt);
  return lastNight === null || lastNight < night;
}

/** The ISO week `ms` falls in, in `tz`, as `YYYY-Www` (e.g. `2026-W48`). */
export function isoWeek(ms: number, tz: string): string {
  return local(ms, tz).toFormat("kkkk-'W'WW");
}

/** The start (Monday 00:00 local) of the ISO week before the one `ms` falls in, and its end. */
export function previousWeek(ms: number, tz: string): { from: number; to: number; week: string } {
  const start = local(ms, tz).startOf('week').minus({ weeks: 1 });
  const end = start.plus({ weeks: 1 });
  return { from: start.toMillis(), to: end.toMillis(), week: start.toFormat("kkkk-'W'WW") };
}
