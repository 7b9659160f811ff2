/**
 * Time in the owner's zone: quiet hours, the night a curation belongs to, the week a review covers.
 * All inputs are ms since the Unix epoch; zones are IANA names (Luxon).
 *
 * @module
 */
import { inQuietHours } from '@keel/host';
import { DateTime } from 'luxon';
import type { QuietHours } from './types.js';

/** The wall-clock time of `ms` in `tz`. */
export function local(ms: number, tz: string): DateTime {
  return DateTime.fromMillis(ms, { zone: tz });
}

/** True when `ms` falls inside the quiet hours (in `tz`); always false without quiet hours. */
export function isQuiet(ms: number, quiet: QuietHours | null, tz: string): boolean {
  if (!quiet) return false;
  const t = local(ms, tz);
  return inQuietHours(quiet, t.hour, t.minute);
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
