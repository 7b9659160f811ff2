/**
 * Dates as the owner means them: relative phrases ("yesterday", "ayer", "hier", "gestern",
 * "last Tuesday") resolved against the moment they were said, in the owner's time zone — never
 * against the time keel happens to process them. Parsing is chrono-node's (English first, then
 * the other languages keel captures); zones are Luxon's. Every part of keel that reads a date
 * from words uses this module.
 *
 * chrono is given the local wall-clock time as if it were UTC, and its answer is read back as a
 * wall-clock time in the owner's zone: calendar arithmetic ("yesterday", "2 days ago") then happens
 * on local dates, so a daylight-saving change between the two days cannot shift the answer by a day.
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
  /** True for a phrase relative to when it was said ("yesterday", "next Friday", "3 days ago"). */
  relative: boolean;
}

/**
 * The parsers tried, in order: English, then the languages keel captures and a few more chrono
 * knows well. A phrase another language reads must name a day (a weekday or a date) and be more
 * than two letters, so English words that happen to abbreviate a weekday elsewhere ("Mi") are not
 * read as dates.
 */
const PARSERS: readonly chrono.Chrono[] = [
  chrono.casual,
  chrono.es.casual,
  chrono.fr.casual,
  chrono.de.casual,
  chrono.pt.casual,
  chrono.it.casual,
  chrono.nl.casual,
  chrono.ru.casual,
  chrono.ja.casual,
  chrono.zh.casual,
];

const MONTHS = [
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
];
/** "last March": the most recent March before the month it was said in (chrono reads "March"). */
const LAST_MONTH = new RegExp(`\\blast\\s+(${MONTHS.join('|')})\\b`, 'i');

/** A local wall-clock time as a Date whose UTC fields carry it (chrono's reference). */
function wallClock(ms: number, tz: string): Date {
  const wall = DateTime.fromMillis(ms, { zone: tz });
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
 * True when `phrase` means another day from another reference: it is relative to when it was
 * said. A partial date ("March 3": its year taken from the reference) is not relative: it is a
 * date with a missing part.
 */
function isRelative(parser: chrono.Chrono, phrase: string, ref: Date): boolean {
  const later = new Date(ref.getTime() + 400 * 86_400_000);
  const a = parser.parse(phrase, ref, { forwardDate: false })[0];
  const b = parser.parse(phrase, later, { forwardDate: false })[0];
  if (!a || !b || a.start.date().getTime() === b.start.date().getTime()) return false;
  return !(a.start.isCertain('month') && !a.start.isCertain('year'));
}

/** The phrases of `text` that some parser reads as a date, first parser first. */
function* results(
  text: string,
  ref: Date,
  forwardDate: boolean,
): Generator<{ parser: chrono.Chrono; r: chrono.ParsedResult; foreign: boolean }> {
  for (const [i, parser] of PARSERS.entries()) {
    for (const r of parser.parse(text, { instant: ref, timezone: 0 }, { forwardDate })) {
      if (i > 0 && !foreignDate(r)) continue;
      yield { parser, r, foreign: i > 0 };
    }
  }
}

/**
 * Whether another language's reading names a day plainly enough to trust in text that may be
 * English: a date or relative day ("ayer", "昨日"), or a weekday written out ("martes", "lundi");
 * never a two- or three-letter word that abbreviates a weekday there ("Mi", "Sam", "Mar").
 */
function foreignDate(r: chrono.ParsedResult): boolean {
  const text = r.text.trim();
  const cjk = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u.test(text);
  if (r.start.isCertain('day')) return cjk || text.length >= 3;
  return r.start.isCertain('weekday') && (cjk || text.length >= 5);
}

/**
 * Resolves the first date expression in `text` against the moment `episodeMs` in zone `tz`
 * (e.g. "yesterday" in an episode at 23:50 on the 29th → the 28th, whenever it is processed; "ayer",
 * "hier", "gestern", "ontem" alike). Past readings are preferred for ambiguous weekdays. Only a
 * phrase relative to the episode, or an absolute date that names its day, month and year, is
 * accepted: "March 3" (which year?), "in the morning" or "at 7am" resolve to nothing, so keel never
 * invents a date.
 *
 * @returns null when `text` holds no such date expression.
 */
export function resolveDate(text: string, episodeMs: number, tz: string): ResolvedDate | null {
  const ref = wallClock(episodeMs, tz);
  for (const { parser, r } of results(text, ref, false)) {
    const relative = isRelative(parser, r.text, ref);
    const explicit =
      r.start.isCertain('day') && r.start.isCertain('month') && r.start.isCertain('year');
    const ok = relative
      ? r.start.isCertain('day') || r.start.isCertain('weekday') || /\bago\b/i.test(r.text)
      : explicit;
    if (!ok) continue;
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

/**
 * The moment a question's "as of" phrase names, read against `nowMs` in zone `tz`, as the END of
 * the period it names (what was true then includes the whole day or month): "2026-03-01" → the end
 * of that day; "last March" → the end of March before this month; "yesterday" → the end of
 * yesterday; "3 weeks ago" → the end of that day; an ISO instant → that instant.
 *
 * @returns ms since the Unix epoch, or null when nothing in `text` reads as a date.
 */
export function resolveAsOf(text: string, nowMs: number, tz: string): number | null {
  const trimmed = text.trim();
  if (/^\d{4}-\d{2}-\d{2}T/.test(trimmed) && !Number.isNaN(Date.parse(trimmed))) {
    return Date.parse(trimmed);
  }
  const now = DateTime.fromMillis(nowMs, { zone: tz });
  const month = LAST_MONTH.exec(trimmed);
  if (month) {
    const m = MONTHS.indexOf(month[1]!.toLowerCase()) + 1;
    const year = m < now.month ? now.year : now.year - 1;
    return DateTime.fromObject({ year, month: m, day: 1 }, { zone: tz }).endOf('month').toMillis();
  }
  const ref = wallClock(nowMs, tz);
  for (const { r } of results(trimmed, ref, false)) {
    const at = inZone(r, tz, 12);
    const unit = r.start.isCertain('day') || r.start.isCertain('weekday') ? 'day' : 'month';
    if (r.start.isCertain('hour')) return at.toMillis();
    return at.endOf(unit).toMillis();
  }
  return null;
}

/** `ms` as the owner reads it: `2026-11-29 23:50 (Sun)` in zone `tz`. */
export function localStamp(ms: number, tz: string): string {
  return DateTime.fromMillis(ms, { zone: tz }).toFormat('yyyy-LL-dd HH:mm (ccc)');
}

/** `ms` as an owner-local calendar day, `YYYY-MM-DD`, in zone `tz`. */
export function localDay(ms: number, tz: string): string {
  return DateTime.fromMillis(ms, { zone: tz }).toISODate() ?? '';
}

/**
 * Resolves when a reminder is due: the first date or time expression in `text`, read forward from
 * the episode's moment in zone `tz` ("Friday at 10" → the coming Friday, 10:00; "at 5pm" → 17:00
 * that day or the next; "mañana a las 9" alike). Wall-clock arithmetic as in {@link resolveDate}.
 *
 * @returns ms since the Unix epoch, or null when `text` names no day or time.
 */
export function resolveDue(text: string, episodeMs: number, tz: string): number | null {
  const ref = wallClock(episodeMs, tz);
  for (const { r } of results(text, ref, true)) {
    const s = r.start;
    if (!s.isCertain('day') && !s.isCertain('weekday') && !s.isCertain('hour')) continue;
    return inZone(r, tz, 9).toMillis();
  }
  return null;
}
