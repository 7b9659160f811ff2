/**
 * Requests to be reminded, read from the owner's words: "remind me at five to call the bank",
 * "in two hours remind me to stretch", "set a reminder for Friday at 10: send the invoice",
 * "don't let me forget to buy milk at 6pm".
 *
 * A line is a request when it holds a **reminder verb addressed to keel** — `remind me`, `set a
 * reminder`, `don't let me forget` — standing as an imperative: at the start of its clause, after
 * words that only address or soften ("hey keel,", "please", "can you", "I want you to") or after
 * the time phrase ("in two hours remind me …"). The same verb after a subject ("my mom reminds
 * me", "I set a reminder"), in another tense ("did you remind me?", "she reminded me") or followed
 * by a question word ("remind me what we said") is not a request.
 *
 * The time is chrono-node's reading of the line (English), forward from the moment it was said,
 * in the owner's zone through Luxon (DST-correct: wall-clock fields are read back in the zone):
 *
 * - an hour without am/pm ("at five", "at 7") is the next such time still ahead today (17:00 at
 *   14:02; 05:00 at 03:00), else tomorrow's read as a named day's; with a day named ("tomorrow at
 *   5", "Friday at 10") 1-6 are afternoon hours and 7-12 morning (noon at 12), so "at five" said
 *   at 20:00 is tomorrow 17:00;
 * - a day without a time is {@link DEFAULT_HOURS}: morning 09:00, noon 12:00, afternoon 15:00,
 *   evening 19:00, tonight / night 20:00, a day alone ("on Monday", "next week") 09:00;
 * - a time that has passed is never chosen: a time of day alone moves to the next day; a day that
 *   has passed is no time at all (`dueAt: null`, `reason: 'past'`).
 *
 * What to be reminded of is the request without its verb, its addressing words and its time
 * phrase, and without the words that join them ("to call the bank" → "call the bank", "about the
 * rent" → "the rent", "that the plumber is coming" → "the plumber is coming").
 *
 * @module
 */
import { createRequire } from 'node:module';
import type * as chrono from 'chrono-node';
import { DateTime } from 'luxon';
import { wallClock } from './dates.js';
import { NUMBER_WORDS } from './number-words.js';

/** A request to be reminded, read from the owner's words. */
export interface ReminderRequest {
  /** What to be reminded of ("call the bank"), as the owner wrote it. */
  what: string;
  /** When, ms since the Unix epoch; null when no time could be read ({@link reason} says why). */
  dueAt: number | null;
  /** The owner's words for the time, as written ("at five"); null when none was found. */
  phrase: string | null;
  /** Why `dueAt` is null: no time found (`no-time`), or the time named has passed (`past`). */
  reason?: 'no-time' | 'past';
}

/**
 * The local hour a time of day means when no clock time is said ("tomorrow morning" → 09:00), and
 * the hour of a day named alone (`day`: "on Monday" → 09:00). keel's own choice, said in every
 * confirmation so the owner can correct it.
 */
export const DEFAULT_HOURS = {
  morning: 9,
  noon: 12,
  afternoon: 15,
  evening: 19,
  tonight: 20,
  night: 20,
  day: 9,
} as const;

/** The reminder verbs addressed to keel, as a regular expression over the line (case folded). */
const VERB =
  /\b(?:remind\s+(?:me|us)\b|(?:set|make|create|add|schedule|put\s+in)\s+(?:me\s+|us\s+)?(?:a\s+|an\s+|the\s+)?reminders?\b|(?:don'?t|do\s+not|dont)\s+let\s+(?:me|us)\s+forget\b|make\s+sure\s+(?:i|we)\s+(?:don'?t\s+forget|remember)\b|^\s*reminder\s*[:\-–—])/iu;

/**
 * Words that may stand before the verb in its clause without making it someone's statement:
 * addressing keel, softening, asking politely ("can you", "I want you to").
 */
const OPENERS = new Set(
  [
    ...['hey', 'hi', 'yo', 'ok', 'okay', 'oh', 'so', 'and', 'also', 'then', 'now', 'btw'],
    ...['please', 'pls', 'plz', 'kindly', 'just', 'keel', 'hmm', 'right', 'alright', 'oi'],
    ...['can', 'could', 'would', 'will', 'you', 'u', 'want', 'need', 'like', 'to', "i'd"],
  ].map((w) => w.toLowerCase()),
);
/** "I want you to", "I need you to", "I'd like you to": a subject that asks keel. */
const ASKS_KEEL = /\bi\s+(?:want|need|would\s+like)\s+you\s+to\s*$|\bi'd\s+like\s+you\s+to\s*$/iu;

/** A word that turns "remind me …" into a question about what keel knows. */
const QUESTION_AFTER = /^[\s,:;-]*(?:what|who|whom|whose|where|which|why|how|whether|if)\b/iu;

/** Words that join the verb or the time to what is asked ("to", "that", "about"). */
const JOINERS = /^(?:[\s,:;.\-–—]+|(?:to|that|about|of|for|re|regarding|on|at|in|by)\b)+/iu;
/** A joiner left dangling at the end once the time phrase is cut ("… the bill on"). */
const DANGLING =
  /(?:[\s,:;\-–—]+|\s(?:to|that|about|of|for|on|at|in|by|please|this|next)\b)+[.!?]*\s*$|[.!?]+\s*$/iu;

const MINUTE_WORDS: Record<string, string> = {
  "o'clock": '00',
  oclock: '00',
  fifteen: '15',
  thirty: '30',
  'forty-five': '45',
  'forty five': '45',
};
/** An hour said in words after a time word, or before am/pm or o'clock ("at five", "five pm"). */
const HOUR_WORDS = new RegExp(
  `\\b(?:(at|by|around|until|till)\\s+)?(${Object.keys(NUMBER_WORDS).join('|')})(?:\\s+(${Object.keys(MINUTE_WORDS).join('|')}))?(?:\\s*(am|pm|a\\.m\\.|p\\.m\\.))?\\b`,
  'giu',
);

/** A text rewritten for chrono, and where each of its positions came from in the original. */
interface Rewritten {
  text: string;
  /** The original position of a position of `text` (a boundary inside a rewrite maps to its end). */
  origin: (i: number) => number;
}

/** One rewrite: a pattern and what a match becomes (null: left as it is). */
type Rule = [RegExp, (m: RegExpMatchArray) => string | null];

/** `text` with every rule's matches rewritten, each position traced back to the original. */
function rewrite(text: string, rules: readonly Rule[]): Rewritten {
  const marks: { normStart: number; normEnd: number; origStart: number; origEnd: number }[] = [];
  const found: { start: number; end: number; to: string }[] = [];
  for (const [pattern, to] of rules) {
    for (const m of text.matchAll(pattern)) {
      const next = to(m);
      const start = m.index ?? 0;
      const end = start + m[0].length;
      if (next === null || found.some((f) => start < f.end && f.start < end)) continue;
      found.push({ start, end, to: next });
    }
  }
  let out = '';
  let last = 0;
  for (const f of found.sort((a, b) => a.start - b.start)) {
    out += text.slice(last, f.start);
    marks.push({
      normStart: out.length,
      normEnd: out.length + f.to.length,
      origStart: f.start,
      origEnd: f.end,
    });
    out += f.to;
    last = f.end;
  }
  out += text.slice(last);
  return {
    text: out,
    origin: (i) => {
      let shift = 0;
      for (const mk of marks) {
        if (i >= mk.normEnd) shift = mk.origEnd - mk.normEnd;
        else if (i > mk.normStart) return mk.origEnd;
        else break;
      }
      return i + shift;
    },
  };
}

/** A day of the month said alone ("on the 1st", "the 21st"). */
const DAY_OF_MONTH = /\bthe\s+([12]?\d|3[01])(?:st|nd|rd|th)\b(?!\s+(?:of\s+)?\p{L})/giu;

/**
 * The line as chrono reads it: hours said in words as digits, only where they are plainly a
 * time (after a time word, or with minutes, am/pm or o'clock: "at five" → "at 5", "five thirty
 * pm" → "5:30 pm"), and a day of the month said alone as that day of the month it comes next in
 * ("the 1st" on 8 December → "January 1st").
 */
function forChrono(text: string, now: DateTime): Rewritten {
  return rewrite(text, [
    [
      HOUR_WORDS,
      ([, lead, hour, minutes, meridiem]) =>
        !lead && !minutes && !meridiem
          ? null
          : `${lead ? `${lead} ` : ''}${NUMBER_WORDS[hour!.toLowerCase()]}${minutes ? `:${MINUTE_WORDS[minutes.toLowerCase()]}` : ''}${meridiem ? ` ${meridiem}` : ''}`,
    ],
    [
      DAY_OF_MONTH,
      (m) => {
        const day = Number(m[1]);
        let month = now.day < day ? now : now.plus({ months: 1 }).startOf('month');
        while (month.daysInMonth! < day) month = month.plus({ months: 1 });
        return `${month.toFormat('LLLL')} ${m[1]}${m[0].slice(m[0].indexOf(m[1]!) + m[1]!.length)}`;
      },
    ],
  ]);
}

let english: chrono.Chrono | null = null;
/** chrono's English parser, loaded on first use (see `dates.ts`). */
function parser(): chrono.Chrono {
  english ??= (createRequire(import.meta.url)('chrono-node') as typeof chrono).casual;
  return english;
}

/** True when every word before the verb only addresses, softens or asks keel. */
function addressedToKeel(before: string): boolean {
  if (ASKS_KEEL.test(before)) return true;
  const words = before
    .toLowerCase()
    .split(/[^\p{L}\p{N}']+/u)
    .filter(Boolean);
  // "did you remind me", "will you remind me": a modal asks, an auxiliary of the past reports.
  return words.every((w) => OPENERS.has(w));
}

/** The clause the verb stands in: what precedes it since the last sentence or clause break. */
function clauseBefore(text: string, at: number): string {
  const head = text.slice(0, at);
  const cut = Math.max(...['.', '!', '?', ';', ',', ':', '\n'].map((c) => head.lastIndexOf(c)));
  return head.slice(cut + 1);
}

/** A chrono reading's time of day when it names none: from its words ("morning"), else a day's. */
function defaultHour(phrase: string): number {
  const word = /\b(morning|noon|midday|afternoon|evening|tonight|night)\b/iu.exec(phrase)?.[1];
  if (!word) return DEFAULT_HOURS.day;
  const w = word.toLowerCase();
  return w === 'midday' ? DEFAULT_HOURS.noon : DEFAULT_HOURS[w as keyof typeof DEFAULT_HOURS];
}

/**
 * The instant a chrono reading names, read forward from `nowMs` in `tz` (see the module comment:
 * hours without am/pm, days without a time), or null when it has passed.
 */
function dueOf(r: chrono.ParsedResult, nowMs: number, tz: string): number | null {
  const s = r.start;
  const d = s.date();
  const now = DateTime.fromMillis(nowMs, { zone: tz });
  const dayNamed = s.isCertain('day') || s.isCertain('weekday');
  const at = (day: DateTime, hour: number, minute: number) =>
    DateTime.fromObject(
      { year: day.year, month: day.month, day: day.day, hour, minute },
      { zone: tz },
    );
  const chronoDay = DateTime.fromObject(
    { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate() },
    { zone: tz },
  );
  if (!s.isCertain('hour')) {
    const due = at(chronoDay, defaultHour(r.text), 0);
    return due.toMillis() > nowMs ? due.toMillis() : null;
  }
  const hour = d.getUTCHours();
  const minute = d.getUTCMinutes();
  const ambiguous = !s.isCertain('meridiem') && hour >= 1 && hour <= 12;
  if (!ambiguous) {
    const due = at(dayNamed ? chronoDay : now, hour, minute);
    if (due.toMillis() > nowMs) return due.toMillis();
    return dayNamed ? null : at(now.plus({ days: 1 }), hour, minute).toMillis();
  }
  if (dayNamed && !chronoDay.hasSame(now, 'day')) {
    return at(chronoDay, hour <= 6 ? hour + 12 : hour, minute).toMillis();
  }
  // Today (named or implied): the next of h:mm and (h+12):mm still ahead; else tomorrow, read as
  // a named day is (1-6 afternoon: "at five" said at 20:00 is tomorrow 17:00, not 05:00).
  const h = hour % 12;
  for (const candidate of [at(now, h, minute), at(now, h + 12, minute)]) {
    if (candidate.toMillis() > nowMs) return candidate.toMillis();
  }
  return at(now.plus({ days: 1 }), h === 0 ? 12 : h <= 6 ? h + 12 : h, minute).toMillis();
}

/** `text` with the spans `cuts` (original positions) removed, spaces closed up. */
function without(text: string, cuts: readonly [number, number][]): string {
  let out = '';
  let last = 0;
  for (const [a, b] of [...cuts].sort((x, y) => x[0] - y[0])) {
    if (a < last) continue;
    out += `${text.slice(last, a)} `;
    last = b;
  }
  return (out + text.slice(last))
    .replace(/\s+/g, ' ')
    .replace(/\s+([,;:.!?])/g, '$1')
    .trim();
}

/** What is asked, without its joining words at either end. */
function tidy(text: string): string {
  let t = text.trim();
  for (let i = 0; i < 4; i++) {
    const before = t;
    t = t.replace(JOINERS, '').replace(DANGLING, '').trim();
    if (t === before) break;
  }
  return t;
}

/** The time phrases chrono reads in `line` (see {@link forChrono}), by their original positions. */
function timeReadings(
  line: string,
  nowMs: number,
  tz: string,
): { r: chrono.ParsedResult; start: number; end: number }[] {
  const rewritten = forChrono(line, DateTime.fromMillis(nowMs, { zone: tz }));
  return parser()
    .parse(rewritten.text, { instant: wallClock(nowMs, tz), timezone: 0 }, { forwardDate: true })
    .map((r) => ({
      r,
      start: rewritten.origin(r.index),
      end: rewritten.origin(r.index + r.text.length),
    }));
}

/**
 * Reads a time said alone ("at five", "Friday at 10", "in two hours", "tomorrow morning"), or an
 * ISO 8601 time (without an offset it is the owner's local time), forward from `nowMs` in `tz`
 * with the rules of {@link parseReminderRequest}.
 *
 * @returns the instant (ms since the epoch) and the words read; `dueAt` null with `reason`
 *   (`no-time`: nothing read, `past`: the time has passed).
 */
export function resolveReminderTime(
  phrase: string,
  nowMs: number,
  tz: string,
): { dueAt: number | null; phrase: string | null; reason?: 'no-time' | 'past' } {
  const said = phrase.normalize('NFC').trim();
  if (/^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}/u.test(said)) {
    const iso = DateTime.fromISO(said.replace(' ', 'T'), { zone: tz, setZone: false });
    if (!iso.isValid) return { dueAt: null, phrase: null, reason: 'no-time' };
    return iso.toMillis() > nowMs
      ? { dueAt: iso.toMillis(), phrase: said }
      : { dueAt: null, phrase: said, reason: 'past' };
  }
  const time = timeReadings(said, nowMs, tz)[0];
  if (!time) return { dueAt: null, phrase: null, reason: 'no-time' };
  const words = said.slice(time.start, time.end).trim();
  const dueAt = dueOf(time.r, nowMs, tz);
  return dueAt === null ? { dueAt, phrase: words, reason: 'past' } : { dueAt, phrase: words };
}

/**
 * A time as a confirmation says it, in the owner's zone and relative to `nowMs`: `today 17:00`,
 * `tomorrow 09:00`, `yesterday 17:00`, `Fri 11 Dec 10:00`, and the year when it is not this one
 * (`Fri 1 Jan 2027 09:00`).
 */
export function whenWords(ms: number, nowMs: number, tz: string): string {
  const t = DateTime.fromMillis(ms, { zone: tz });
  const now = DateTime.fromMillis(nowMs, { zone: tz }).startOf('day');
  const days = Math.round(t.startOf('day').diff(now, 'days').days);
  const clock = t.toFormat('HH:mm');
  if (days === 0) return `today ${clock}`;
  if (days === 1) return `tomorrow ${clock}`;
  if (days === -1) return `yesterday ${clock}`;
  return t.toFormat(t.year === now.year ? 'ccc d LLL HH:mm' : 'ccc d LLL yyyy HH:mm');
}

/**
 * Reads a request to be reminded in `text`, said at `nowMs` by an owner in zone `tz` (see the
 * module comment for what counts and how the time is read).
 *
 * @param nowMs - when it was said, ms since the Unix epoch.
 * @param tz - the owner's IANA time zone (e.g. `Europe/Paris`).
 * @returns the request (its `dueAt` null when no time ahead could be read), or null when `text`
 *   asks for no reminder.
 */
export function parseReminderRequest(
  text: string,
  nowMs: number,
  tz: string,
): ReminderRequest | null {
  const line = text.normalize('NFC').replace(/[’‘]/g, "'");
  const verb = VERB.exec(line);
  if (!verb) return null;
  const verbStart = verb.index + (verb[0].length - verb[0].trimStart().length);
  const verbEnd = verb.index + verb[0].length;
  const after = line.slice(verbEnd);
  if (QUESTION_AFTER.test(after)) return null;

  const readings = timeReadings(line, nowMs, tz).filter(
    (x) => x.end <= verbStart || x.start >= verbEnd,
  );
  const time = readings[0] ?? null;

  // Before the verb: only words that address keel, and the time phrase ("in two hours remind me").
  const clause = clauseBefore(line, verbStart);
  const clauseStart = verbStart - clause.length;
  const beforeWords =
    time && time.end <= verbStart && time.start >= clauseStart
      ? `${line.slice(clauseStart, time.start)} ${line.slice(time.end, verbStart)}`
      : clause;
  if (!addressedToKeel(beforeWords)) return null;

  const cuts: [number, number][] = [[0, verbEnd]];
  if (time) cuts.push([time.start, time.end]);
  let what = tidy(without(line, cuts));
  // "Dentist at 9 tomorrow, remind me": what is asked stands before the verb.
  if (!what) what = tidy(without(line.slice(0, clauseStart), []));
  if (/^(?:of)\b/iu.test(after.trim()) && !time) return null;
  const phrase = time ? line.slice(time.start, time.end).trim() : null;
  if (!time) return { what, dueAt: null, phrase: null, reason: 'no-time' };
  const dueAt = dueOf(time.r, nowMs, tz);
  return dueAt === null ? { what, dueAt, phrase, reason: 'past' } : { what, dueAt, phrase };
}
