/**
 * Relative dates ("yesterday", "last Tuesday") resolved against the source episode's own time, in
 * the owner's time zone — never against the time a tick happens to process it. Parsing is
 * chrono-node's; zones are Luxon's.
 *
 * chrono is given the episode's local wall-clock time as if it were UTC, and its answer is read
 * back as a wall-clock time in the owner's zone: calendar arithmetic ("yesterday", "2 days ago")
 * then happens on local dates, so a daylight-saving change between the two days cannot shift the
 * answer by a day.
 *
 * @module
 */
import * as chrono from 'chrono-node';
import { DateTime } from 'luxon';

/** A resolved date: the owner-local calendar day a phrase points at. */
export interface ResolvedDate {
  /** `YYYY-MM-DD` in the owner's zone. */
  date: string;
  /** The start of that day in the owner's zone, ms since the Unix epoch. */
  startMs: number;
  /** The instant the phrase names (its time of day when it gives one, else 12:00), ms. */
  instantMs: number;
  /** The words that were resolved, as written. */
  phrase: string;
  /** True for a phrase relative to the episode ("yesterday", "next Friday", "3 days ago"). */
  relative: boolean;
}

/** Words that make a date phrase relative to when it was said. */
const RELATIVE =
  /\b(?:yesterday|today|tonight|tomorrow|ago|last|next|this|coming|past|previous|later|earlier)\b/i;

/** The episode's local wall-clock time as a Date whose UTC fields carry it (chrono's reference). */
function wallClock(episodeMs: number, tz: string): Date {
  const wall = DateTime.fromMillis(episodeMs, { zone: tz });
  return new Date(
    Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute, wall.second),
  );
}

/** A chrono result (wall clock in UTC fields) read back in zone `tz`; `hour` when no time was given. */
function inZone(r: chrono.ParsedResult, tz: string, hour: number): DateTime {
  const d = r.start.date();
  const timed = r.start.isCertain('hour');
  return DateTime.fromObject(
    {
      year: d.getUTCFullYear(),
      month: d.getUTCMonth() + 1,
      day: d.getUTCDate(),
      hour: timed ? d.getUTCHours() : hour,
      minute: timed ? d.getUTCMinutes() : 0,
    },
    { zone: tz },
  );
}

/**
 * Resolves the first date expression in `text` against the moment `episodeMs` in zone `tz`
 * (e.g. "yesterday" in an episode at 23:50 on the 29th → the 28th, whenever it is processed).
 * Past readings are preferred for ambiguous weekdays. Only a phrase relative to the episode, or
 * an absolute date that names its day, month and year, is accepted: "March 3" (which year?),
 * "in the morning" or "at 7am" resolve to nothing, so keel never invents a date.
 *
 * @returns null when `text` holds no such date expression.
 */
export function resolveDate(text: string, episodeMs: number, tz: string): ResolvedDate | null {
  const ref = wallClock(episodeMs, tz);
  for (const r of chrono.parse(text, { instant: ref, timezone: 0 }, { forwardDate: false })) {
    const relative = RELATIVE.test(r.text);
    const explicit =
      r.start.isCertain('day') && r.start.isCertain('month') && r.start.isCertain('year');
    const namesADay = relative
      ? r.start.isCertain('day') || r.start.isCertain('weekday') || /\bago\b/i.test(r.text)
      : explicit;
    if (!namesADay) continue;
    const at = inZone(r, tz, 12);
    const day = at.startOf('day');
    return {
      date: day.toISODate() ?? '',
      startMs: day.toMillis(),
      instantMs: at.toMillis(),
      phrase: r.text,
      relative,
    };
  }
  return null;
}

/** `ms` as the owner reads it: `2026-11-29 23:50 (Sun)` in zone `tz`. */
export function localStamp(ms: number, tz: string): string {
  return DateTime.fromMillis(ms, { zone: tz }).toFormat('yyyy-LL-dd HH:mm (ccc)');
}

/**
 * Resolves when a reminder is due: the first date or time expression in `text`, read forward from
 * the episode's moment in zone `tz` ("Friday at 10" → the coming Friday, 10:00; "at 5pm" → 17:00
 * that day or the next). Wall-clock arithmetic as in {@link resolveDate}.
 *
 * @returns ms since the Unix epoch, or null when `text` names no day or time.
 */
export function resolveDue(text: string, episodeMs: number, tz: string): number | null {
  const ref = wallClock(episodeMs, tz);
  const r = chrono.parse(text, { instant: ref, timezone: 0 }, { forwardDate: true })[0];
  if (!r) return null;
  const s = r.start;
  if (!s.isCertain('day') && !s.isCertain('weekday') && !s.isCertain('hour')) return null;
  return inZone(r, tz, 9).toMillis();
}
