/**
 * Relative dates ("yesterday", "last Tuesday") resolved against the source episode's own time, in
 * the owner's time zone — never against the time a tick happens to process it. Parsing is
 * chrono-node's; zones are Luxon's.
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
  /** The words that were resolved, as written. */
  phrase: string;
}

/**
 * Resolves the first date expression in `text` against the moment `episodeMs` in zone `tz`
 * (e.g. "yesterday" in an episode at 23:50 on the 29th → the 28th, whenever it is processed).
 * Past readings are preferred for ambiguous weekdays ("on Friday" in a statement about what
 * happened).
 *
 * @returns null when `text` holds no date expression.
 */
export function resolveDate(text: string, episodeMs: number, tz: string): ResolvedDate | null {
  const at = DateTime.fromMillis(episodeMs, { zone: tz });
  const results = chrono.parse(
    text,
    { instant: at.toJSDate(), timezone: at.offset },
    { forwardDate: false },
  );
  const first = results[0];
  if (!first) return null;
  const day = DateTime.fromJSDate(first.start.date(), { zone: tz }).startOf('day');
  return { date: day.toISODate() ?? '', startMs: day.toMillis(), phrase: first.text };
}

/** `ms` as the owner reads it: `2026-11-29 23:50 (Sun)` in zone `tz`. */
export function localStamp(ms: number, tz: string): string {
  return DateTime.fromMillis(ms, { zone: tz }).toFormat('yyyy-LL-dd HH:mm (ccc)');
}
