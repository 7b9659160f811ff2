/**
 * Windows of time a question names ("yesterday", "last week", "in July 2022", "the past two
 * months", "since March"), read in the owner's zone as whole local days; recall keeps to them.
 *
 * @module
 */
import type * as chrono from 'chrono-node';
import { DateTime } from 'luxon';
import { mayNameDate, results, wallClock } from './dates.js';
import { NUMBER_WORDS } from './number-words.js';

/** A span of time a question names, in the owner's zone: `[from, to)`, ms since the epoch. */
export interface DateWindow {
  /** The first instant in the window. */
  from: number;
  /** The first instant after it (the window never runs past the moment asked, `now + 1`). */
  to: number;
  /** The words that named it, as written ("yesterday", "in July 2022", "since March"). */
  phrase: string;
  /** Where the phrase starts in the text, and its length (the recall leaves these words out). */
  index: number;
  length: number;
}

type Unit = 'day' | 'week' | 'month' | 'year';

const SEASONS: Readonly<Record<string, number>> = {
  spring: 3,
  summer: 6,
  autumn: 9,
  fall: 9,
  winter: 12,
};
/** A count in words: one to twelve, and "a", "an", "a few", "a couple". */
const COUNT_WORDS: Readonly<Record<string, number>> = {
  ...NUMBER_WORDS,
  a: 1,
  an: 1,
  few: 3,
  couple: 2,
};
const EN_UNIT = '(day|week|month|year)s?';
/** "last summer", "this winter", "in the fall", "during the summer", "summer 2022". */
const SEASON =
  /(?<!\bfor\s+)\b(?:(last|this|past)\s+|(?:in|during|over)\s+(?:the\s+)?|the\s+)(spring|summer|autumn|fall|winter)(?:\s+(?:of\s+)?((?:19|20)\d{2}))?\b|\b(spring|summer|autumn|fall|winter)\s+(?:of\s+)?((?:19|20)\d{2})\b/i;
/** "in the last two months", "over the past week", "the past 3 days", "past few weeks". */
const PAST_SPAN = new RegExp(
  String.raw`\b(?:(?:in|during|over|within)\s+)?(?:the\s+)?(?:last|past)\s+(?:(\d+|${Object.keys(COUNT_WORDS).join('|')})\s+(?:of\s+)?)?${EN_UNIT}\b`,
  'i',
);
/** "last week", "this month", "last weekend", "the weekend", "this year". */
const CALENDAR = /\b(last|this)\s+(weekend|week|month|year)\b|\b(the)\s+(weekend)\b/i;
/** "in 2023", "during 2022", "of 2021". */
const YEAR = /\b(?:in|during|of|for)\s+((?:19|20)\d{2})\b/i;
/** A word just before a date that makes it "from then until now", in the languages keel captures. */
const SINCE = /\b(?:since|desde|depuis|seit|sinds|dal|dalla|da)$/i;
/** A relative phrase's unit, by its words in the languages chrono reads. */
const UNIT_WORDS: readonly [Unit, RegExp][] = [
  ['week', /week|semana|semaine|woche|settiman|недел|週|周|星期/i],
  ['month', /month|mes|mois|monat|mese|maand|месяц|月/i],
  ['year', /year|año|ano\b|anos\b|an\b|ans\b|année|jahr|anno|anni|jaar|год|лет|年/i],
];

/** The whole `unit` (ISO week: Monday first) that holds `at`, as `[from, to)`. */
function span(at: DateTime, unit: Unit, count = 1): [DateTime, DateTime] {
  const start = unit === 'week' ? at.startOf('week') : at.startOf(unit);
  return [start, start.plus({ [unit]: count })];
}

/**
 * The span of time the first date expression in a question names, read against `nowMs` in zone
 * `tz` as whole local days: "yesterday" (that day, midnight to midnight where the owner is),
 * "on Tuesday" (the last Tuesday before today), "last week" (the ISO week before this one),
 * "two weeks ago" (the week that day falls in), "in July 2022", "last month", "last year",
 * "in 2023", "last summer" (June to August; December to February for winter), "the past two
 * months" and "since March" (from then to now), and what chrono reads in the other languages keel
 * captures ("ayer", "hier", "gestern", "la semaine dernière", "vor zwei Wochen", "昨日"). A month
 * without a year is the last such month that has begun. Every window is bounded at both ends and
 * ends no later than just after `nowMs`.
 *
 * @returns null when the text names no day, week, month, season or year.
 */
export function resolveWindow(text: string, nowMs: number, tz: string): DateWindow | null {
  const now = DateTime.fromMillis(nowMs, { zone: tz });
  const found: { at: number; length: number; range: [DateTime, DateTime] }[] = [];

  const season = SEASON.exec(text);
  if (season) {
    const which = (season[1] ?? '').toLowerCase();
    const name = (season[2] ?? season[4] ?? '').toLowerCase();
    const year = season[3] ?? season[5];
    const month = SEASONS[name]!;
    const startIn = (y: number) => DateTime.fromObject({ year: y, month, day: 1 }, { zone: tz });
    let start: DateTime;
    if (year) start = startIn(Number(year));
    else {
      // The latest such season that has begun; "last" one that has also ended.
      start = startIn(now.year);
      if (start > now) start = startIn(now.year - 1);
      if ((which === 'last' || which === 'past') && start.plus({ months: 3 }) > now) {
        start = start.minus({ years: 1 });
      }
    }
    found.push({
      at: season.index,
      length: season[0].length,
      range: [start, start.plus({ months: 3 })],
    });
  }
  const past = PAST_SPAN.exec(text);
  if (past && !/^(?:the\s+)?last\s+(?:day|week|month|year)\b/i.test(past[0].trim())) {
    const n = past[1] ? (COUNT_WORDS[past[1].toLowerCase()] ?? Number(past[1])) : 1;
    const unit = past[2]!.toLowerCase() as Unit;
    found.push({
      at: past.index,
      length: past[0].length,
      range: [now.minus({ [unit]: n }), now],
    });
  }
  const calendar = CALENDAR.exec(text);
  if (calendar) {
    const which = (calendar[1] ?? calendar[3]!).toLowerCase();
    const unit = (calendar[2] ?? calendar[4]!).toLowerCase();
    let range: [DateTime, DateTime];
    if (unit === 'weekend') {
      // Saturday and Sunday: the one under way or just past ("the", "this"), or the one before.
      let saturday = now.startOf('week').plus({ days: 5 });
      if (saturday > now && which !== 'this') saturday = saturday.minus({ weeks: 1 });
      if (which === 'last' && now < saturday.plus({ days: 2 }))
        saturday = saturday.minus({ weeks: 1 });
      range = [saturday, saturday.plus({ days: 2 })];
    } else {
      const u = unit as Unit;
      range = span(which === 'last' ? now.minus({ [u]: 1 }) : now, u);
    }
    found.push({ at: calendar.index, length: calendar[0].length, range });
  }
  const year = YEAR.exec(text);
  if (year) {
    const start = DateTime.fromObject({ year: Number(year[1]), month: 1, day: 1 }, { zone: tz });
    found.push({
      at: year.index,
      length: year[0].length,
      range: [start, start.plus({ years: 1 })],
    });
  }

  const ref = wallClock(nowMs, tz);
  const read = mayNameDate(text) ? results(text, ref, false, true) : [];
  for (const { r, foreign } of read) {
    // Not a day: "weekend" on its own, a bare English weekday naming a thing ("Sunday mass"),
    // or a habit ("on Saturday mornings").
    if (/^(?:the\s+)?weekends?$/i.test(r.text)) continue;
    const after = text.slice(r.index + r.text.length);
    if (/^s\b|^\s+(?:mornings|afternoons|evenings|nights)\b/i.test(after)) continue;
    if (
      !foreign &&
      /^[a-z]+$/i.test(r.text) &&
      r.start.isCertain('weekday') &&
      !r.start.isCertain('day')
    )
      continue;
    const range = chronoRange(r, now, tz);
    if (!range) continue;
    found.push({ at: r.index, length: r.text.length, range });
    break;
  }
  if (found.length === 0) return null;
  // The expression written first wins; of two at one place, the longer.
  found.sort((a, b) => a.at - b.at || b.length - a.length);
  let { at, length, range } = found[0]!;
  // "March and April", "from July to October": one window over both.
  const rest = text.slice(at + length);
  const join = /^\s*(?:and|or|to|through|until|till|-|–)\s+/i.exec(rest);
  const next = join ? resolveWindow(rest.slice(join[0].length), nowMs, tz) : null;
  if (join && next && next.index === 0) {
    range = [
      DateTime.min(range[0], DateTime.fromMillis(next.from, { zone: tz })),
      DateTime.max(range[1], DateTime.fromMillis(next.to, { zone: tz })),
    ];
    length += join[0].length + next.length;
  }
  const before = text.slice(0, at);
  const since = SINCE.exec(before.trimEnd());
  const from = range[0];
  let to = range[1];
  if (since) {
    const lead = before.trimEnd().length - since[0].length;
    length += at - lead;
    at = lead;
    to = now;
  }
  if (from > now) return null;
  const end = to.toMillis() >= nowMs ? nowMs + 1 : to.toMillis();
  return {
    from: from.toMillis(),
    to: end,
    phrase: text.slice(at, at + length).trim(),
    index: at,
    length,
  };
}

/** The span a chrono reading names, or null when it names none (a time of day, "this week"). */
function chronoRange(
  r: chrono.ParsedResult,
  now: DateTime,
  tz: string,
): [DateTime, DateTime] | null {
  const s = r.start;
  const local = (d: Date) =>
    DateTime.fromObject(
      { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate() },
      { zone: tz },
    );
  const at = local(s.date());
  if (r.end) {
    const end = local(r.end.date());
    const unit: Unit = r.end.isCertain('day') ? 'day' : r.end.isCertain('month') ? 'month' : 'year';
    return [span(at, s.isCertain('day') ? 'day' : unit)[0], span(end, unit)[1]];
  }
  // "two weeks ago", "vor zwei Wochen", "il y a 3 mois": the unit it counts in.
  const relative = r.tags?.().has('result/relativeDate') ?? false;
  if (relative) {
    const unit = UNIT_WORDS.find(([, re]) => re.test(r.text))?.[0];
    if (unit) return span(at, unit);
  }
  if (s.isCertain('day')) return span(at, 'day');
  if (s.isCertain('weekday') && !s.isCertain('month')) {
    // A weekday on its own: the last such day before today.
    const weekday = s.get('weekday') ?? at.weekday % 7;
    let day = now.startOf('day').minus({ days: 1 });
    while (day.weekday % 7 !== weekday % 7) day = day.minus({ days: 1 });
    return span(day, 'day');
  }
  if (s.isCertain('month')) {
    const month = s.get('month')!;
    if (s.isCertain('year')) return span(at.set({ month }), 'month');
    const year = month <= now.month ? now.year : now.year - 1;
    return span(DateTime.fromObject({ year, month, day: 1 }, { zone: tz }), 'month');
  }
  if (s.isCertain('year')) return span(at, 'year');
  return null;
}
