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
 * chrono is loaded on first use (loading it and its first parse cost a process 150-250 ms), and
 * recall asks it only about a question with a word that can name a date ({@link mayNameDate}):
 * most questions never load it.
 *
 * @module
 */
import { createRequire } from 'node:module';
import type * as chrono from 'chrono-node';
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
function parsers(): readonly chrono.Chrono[] {
  if (!loaded) {
    const c = createRequire(import.meta.url)('chrono-node') as typeof chrono;
    loaded = [
      c.casual,
      c.es.casual,
      c.fr.casual,
      c.de.casual,
      c.pt.casual,
      c.it.casual,
      c.nl.casual,
      c.ru.casual,
      c.ja.casual,
      c.zh.casual,
    ];
  }
  return loaded;
}
let loaded: readonly chrono.Chrono[] | null = null;

/**
 * Words that can start a date expression chrono reads, in the languages of {@link parsers}: the
 * names of days and months (and their abbreviations), the relative days ("yesterday", "ayer",
 * "hier", "gestern", "ontem", "ieri", "gisteren"), the units a span counts in, "ago" and its
 * translations, and times of day. Checked at the start of a word, case folded; generous on
 * purpose (a false alarm costs one chrono parse, a miss a date unread), and checked against chrono
 * on real questions and turns in `dates.test.ts`.
 */
const DATE_WORDS: readonly string[] = [
  // English
  ...['today', 'tonight', 'tomorrow', 'yesterday', 'ago', 'now', 'noon', 'midnight', 'morning'],
  ...['afternoon', 'evening', 'night', 'day', 'week', 'fortnight', 'month', 'year', 'hour'],
  ...['minute', 'second', 'weekend', 'quarter', 'decade', 'jan', 'feb', 'mar\\b', 'march', 'apr'],
  ...['may\\b', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec\\b', 'december', 'mon\\b'],
  ...['monday', 'tue', 'wed', 'thu', 'fri\\b', 'friday', 'sat\\b', 'saturday', 'sun\\b'],
  ...['sunday', 'christmas', 'eve\\b', 'midday', 'dawn', 'dusk'],
  // Spanish
  ...['hoy', 'mañana', 'manana', 'ayer', 'anoche', 'anteayer', 'semana', 'mes\\b', 'meses'],
  ...['año', 'ano\\b', 'anos\\b', 'día', 'dia', 'lunes', 'martes', 'miércoles', 'miercoles'],
  ...['jueves', 'viernes', 'sábado', 'sabado', 'domingo', 'ene\\b', 'enero', 'febrero', 'marzo'],
  ...['abr', 'mayo', 'junio', 'julio', 'agosto', 'septiembre', 'setiembre', 'octubre'],
  ...['noviembre', 'dic\\b', 'diciembre', 'hace\\b', 'pasad', 'próxim', 'proxim', 'noche'],
  ...['tarde', 'mediodía', 'ahora'],
  // French
  ...['aujourd', 'demain', 'hier', 'avant-hier', 'semaine', 'mois', 'an\\b', 'ans\\b', 'année'],
  ...['annee', 'jour', 'lun\\b', 'lundi', 'mardi', 'mer\\b', 'mercredi', 'jeu\\b', 'jeudi'],
  ...['ven\\b', 'vendredi', 'sam\\b', 'samedi', 'dim\\b', 'dimanche', 'janv', 'févr', 'fevr'],
  ...['mars', 'avr', 'mai\\b', 'juin', 'juil', 'août', 'aout', 'déc', 'dernier', 'dernière'],
  ...['derniere', 'prochain', 'soir', 'matin', 'minuit', 'midi', 'maintenant', 'il y a'],
  // German
  ...['heute', 'morgen', 'gestern', 'vorgestern', 'übermorgen', 'uebermorgen', 'woche', 'monat'],
  ...['jahr', 'tag', 'montag', 'dienstag', 'mittwoch', 'donnerstag', 'freitag', 'samstag'],
  ...['sonntag', 'sonnabend', 'januar', 'februar', 'märz', 'maerz', 'juni', 'juli', 'okt'],
  ...['dez\\b', 'dezember', 'vor\\b', 'letzt', 'nächst', 'naechst', 'abend', 'nacht', 'mittag'],
  ...['jetzt', 'vormittag', 'nachmittag'],
  // Portuguese
  ...['hoje', 'amanhã', 'amanha', 'ontem', 'anteontem', 'mês', 'segunda', 'terça', 'terca'],
  ...['quarta', 'quinta', 'sexta', 'janeiro', 'fevereiro', 'março', 'marco', 'abril', 'maio'],
  ...['junho', 'julho', 'setembro', 'outubro', 'novembro', 'dezembro', 'fev\\b', 'set\\b'],
  ...['out\\b', 'dez\\b', 'atrás', 'atras', 'passad', 'noite', 'manhã', 'agora'],
  // Italian
  ...['oggi', 'domani', 'ieri', 'settiman', 'mese', 'anno', 'anni', 'giorn'],
  ...['lunedì', 'lunedi', 'martedì', 'martedi', 'mercoledì', 'mercoledi', 'giovedì', 'giovedi'],
  ...['venerdì', 'venerdi', 'sabato', 'domenica', 'gennaio', 'febbraio', 'aprile', 'maggio'],
  ...['giugno', 'luglio', 'settembre', 'ottobre', 'dicembre', 'gen\\b', 'mag\\b', 'giu\\b'],
  ...['lug\\b', 'ott\\b', 'fa\\b', 'scors', 'prossim', 'sera', 'notte', 'mattin', 'pomeriggio'],
  ...['adesso', 'ora\\b'],
  // Dutch
  ...['vandaag', 'gisteren', 'eergisteren', 'overmorgen', 'maand', 'jaar', 'dag', 'maandag'],
  ...['dinsdag', 'woensdag', 'donderdag', 'vrijdag', 'zaterdag', 'zondag', 'januari'],
  ...['februari', 'maart', 'mei\\b', 'augustus', 'oktober', 'geleden', 'vorig', 'volgend'],
  ...['avond', 'middag', 'nu\\b'],
];
/** Any digit, a CJK or Cyrillic letter, or one of {@link DATE_WORDS} at the start of a word. */
const DATE_HINT = new RegExp(
  `\\p{N}|[\\p{Script=Han}\\p{Script=Hiragana}\\p{Script=Katakana}\\p{Script=Hangul}\\p{Script=Cyrillic}]|(?<![\\p{L}\\p{M}])(?:${DATE_WORDS.join('|')})`,
  'iu',
);

/**
 * Whether `text` can hold a date expression chrono reads: a cheap check (one regular expression)
 * before the parsers run. False means none of them would find one.
 */
export function mayNameDate(text: string): boolean {
  return DATE_HINT.test(text.normalize('NFC'));
}

/** The English month names, lower case, January first (index + 1 is the month number). */
export const ENGLISH_MONTHS = [
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
] as const;
const MONTHS: readonly string[] = ENGLISH_MONTHS;
/** "last March": the most recent March before the month it was said in (chrono reads "March"). */
const LAST_MONTH = new RegExp(`\\blast\\s+(${MONTHS.join('|')})\\b`, 'i');

/** A local wall-clock time as a Date whose UTC fields carry it (chrono's reference). */
export function wallClock(ms: number, tz: string): Date {
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
export function isRelative(parser: chrono.Chrono, phrase: string, ref: Date): boolean {
  const later = new Date(ref.getTime() + 400 * 86_400_000);
  const a = parser.parse(phrase, ref, { forwardDate: false })[0];
  const b = parser.parse(phrase, later, { forwardDate: false })[0];
  if (!a || !b || a.start.date().getTime() === b.start.date().getTime()) return false;
  return !(a.start.isCertain('month') && !a.start.isCertain('year'));
}

/** The phrases of `text` that some parser reads as a date, first parser first. */
export function* results(
  text: string,
  ref: Date,
  forwardDate: boolean,
  months = false,
): Generator<{ parser: chrono.Chrono; r: chrono.ParsedResult; foreign: boolean }> {
  for (const [i, parser] of parsers().entries()) {
    for (const r of parser.parse(text, { instant: ref, timezone: 0 }, { forwardDate })) {
      // In statements (`months`), another language's month or year is a time too ("letztes
      // Jahr", "le mois dernier"), when it is more than a short word.
      const period = months && r.start.isCertain('year');
      if (i > 0 && !foreignDate(r) && !(period && r.text.trim().length >= 5)) continue;
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
 * A day of the month named alone, after its time word ("on the 3rd", "el día 2", "no dia 2", "le
 * 3", "am 3."), which chrono does not read without a month: found here as a span, resolved to the
 * most recent such day at or before the line ({@link resolveStart}).
 */
export const DAY_OF_MONTH =
  /(?<![\p{L}\p{M}\p{N}])(?:on the\s+(?<en>\d{1,2})(?:st|nd|rd|th)(?!\s+of\s|\s+\p{Lu})|(?:el\s+)?día\s+(?<es>\d{1,2})|(?:no\s+)?dia\s+(?<pt>\d{1,2})|le\s+(?<fr>\d{1,2})(?:er)?(?=\s*(?:[,.;!?]|$))|am\s+(?<de>\d{1,2})\.(?!\s*\p{L}))(?![\p{L}\p{M}\p{N}])/giu;

/** A word that makes a weekday the last one, before or after it. */
export const LAST_WORD =
  /(?<![\p{L}\p{M}])(?:last|pasad[oa]|passad[oa]|derni(?:er|ère)|letzte[nmrs]?|vergangene[nmrs]?)(?![\p{L}\p{M}])/iu;

/**
 * A weekday named alone ("on Friday", "am Freitag") as a start or a stop: the most recent such day
 * at or before the line, never the coming one chrono may read.
 */
function lastSuchWeekday(
  day: ResolvedDate,
  phrase: string,
  episodeMs: number,
  tz: string,
): ResolvedDate {
  const said = DateTime.fromMillis(episodeMs, { zone: tz }).startOf('day');
  if (day.startMs <= said.toMillis()) return day;
  const ref = wallClock(episodeMs, tz);
  const first = results(phrase, ref, false).next().value;
  if (!first?.r.start.isCertain('weekday') || first.r.start.isCertain('day')) return day;
  const back = DateTime.fromMillis(day.startMs, { zone: tz }).minus({ days: 7 });
  return {
    ...day,
    date: back.toISODate() ?? day.date,
    startMs: back.toMillis(),
    instantMs: back.set({ hour: 12 }).toMillis(),
  };
}

/** Whether `phrase`'s first date is the very moment `ref` ("now", "ahora", "jetzt"). */
function namesOnlyThePresent(phrase: string, ref: Date): boolean {
  for (const { r } of results(phrase, ref, false)) {
    return r.start.isCertain('minute') && r.start.date().getTime() === ref.getTime();
  }
  return false;
}

/**
 * A day of the month named alone ({@link DAY_OF_MONTH}: "on the 3rd"): the most recent such day
 * at or before the line in `tz` (this month's, else last month's), or null when `phrase` is not
 * one.
 */
function dayOfMonthAlone(phrase: string, episodeMs: number, tz: string): ResolvedDate | null {
  DAY_OF_MONTH.lastIndex = 0;
  const m = DAY_OF_MONTH.exec(phrase.trim());
  DAY_OF_MONTH.lastIndex = 0;
  const g = m?.groups;
  const day = Number(g?.en ?? g?.es ?? g?.pt ?? g?.fr ?? g?.de);
  if (m?.index !== 0 || m[0].length !== phrase.trim().length || !day || day > 31) return null;
  const said = DateTime.fromMillis(episodeMs, { zone: tz });
  const months = [said, said.minus({ months: 1 })];
  return latestDay(
    months.map((mo) => DateTime.fromObject({ year: mo.year, month: mo.month, day }, { zone: tz })),
    said,
    m[0],
  );
}

/**
 * A time before the line counted in months or years ("two years ago", "last month", "hace dos
 * años", "il y a trois mois", "vor drei Jahren", "letztes Jahr", "há dois anos"): it names a month
 * or a year, not a day, however a parser would pick one; a start or an end it says stays unknown.
 */
const COARSE_RELATIVE =
  /(?<![\p{L}\p{M}])(?:(?:\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|a few|few|several|a couple of|couple of)\s+(?:months?|years?|decades?)\s+ago|last\s+(?:month|year|decade)|(?:hace|há|faz)\s+\S+(?:\s+\S+)?\s+(?:mes|meses|año|años|mês|meses|ano|anos)|(?:el|la|o|a|no|na)\s+(?:mes|año|mês|ano)\s+(?:pasad[oa]|passad[oa])|il y a\s+\S+\s+(?:mois|ans|années)|(?:le mois|l['’]année|l['’]an)\s+derni(?:er|ère)|vor\s+\S+\s+(?:Monat|Monaten|Jahr|Jahren)|letzten\s+Monat|letztes\s+Jahr)(?![\p{L}\p{M}])/iu;

/**
 * A time before the line counted vaguely in days or weeks ("a few weeks ago", "a couple of days
 * ago", "hace unas semanas", "il y a quelques jours", "vor ein paar Wochen", "há umas semanas"): no
 * day in particular, so a start or an end it says stays unknown.
 */
const VAGUE_RELATIVE =
  /(?<![\p{L}\p{M}])(?:(?:a few|few|several|a couple of|couple of|some)\s+(?:days?|weeks?)\s+ago|(?:hace|há|faz)\s+(?:unos|unas|algunos|algunas|uns|umas|alguns|algumas|poucos|poucas|pocos|pocas)\s+(?:días|semanas|dias)|il y a\s+(?:quelques|plusieurs)\s+(?:jours|semaines)|vor\s+(?:ein paar|einigen|mehreren)\s+(?:Tagen|Wochen))(?![\p{L}\p{M}])/iu;

/** A fixed moment to read a phrase against when only its kind matters, not its day. */
const ANY_MOMENT = new Date(Date.UTC(2001, 5, 15, 12));

/**
 * Whether a time phrase names only the present ("now", "these days", "at the moment", "ahora",
 * "jetzt", "agora"): a state said with it holds now and says nothing of when it began.
 */
export function namesPresent(phrase: string): boolean {
  return namesOnlyThePresent(phrase, ANY_MOMENT);
}

/**
 * The day a statement's time phrase says it began, read against the moment the statement was
 * said (`episodeMs`) in zone `tz`: what {@link resolveDate} reads (a relative day, or a date with
 * its day, month and year: "on 12 May 2025" → that day), and also a day and month without a year
 * ("on March 3rd", "el 3 de marzo", "am 3. März") → the most recent such day at or before the
 * line; with `pastWeekday` (a stop, said in the past: "I left Zillow on Friday"), a weekday alone →
 * the most recent one at or before the line ("I work at Globex on Saturday" is no start); a day of the
 * month alone ("on the 3rd") → the most recent such day. A month or a year alone ("in March", "since
 * 2024"), or a time counted in months or years ("two years ago", "last month") names no day, and "now" ("ahora",
 * "jetzt") names when it was said, not when it began: null, the start unknown rather than guessed. A day after the line is returned as read; the caller decides (a start is
 * never in the future).
 *
 * @returns the day, or null when the phrase names none.
 */
export function resolveStart(
  phrase: string,
  episodeMs: number,
  tz: string,
  options: { pastWeekday?: boolean } = {},
): ResolvedDate | null {
  if (namesOnlyThePresent(phrase, wallClock(episodeMs, tz))) return null;
  if (COARSE_RELATIVE.test(phrase) || VAGUE_RELATIVE.test(phrase)) return null;
  const dayOfMonth = dayOfMonthAlone(phrase, episodeMs, tz);
  if (dayOfMonth) return dayOfMonth;
  const known = resolveDate(phrase, episodeMs, tz);
  // "el martes pasado", "lundi dernier", "letzten Dienstag" name the last such day, said or not.
  const past = options.pastWeekday || LAST_WORD.test(phrase);
  if (known) return past ? lastSuchWeekday(known, phrase, episodeMs, tz) : known;
  const ref = wallClock(episodeMs, tz);
  const said = DateTime.fromMillis(episodeMs, { zone: tz });
  for (const { r } of results(phrase, ref, false)) {
    const s = r.start;
    if (!s.isCertain('day') || !s.isCertain('month') || s.isCertain('year')) continue;
    const month = s.get('month')!;
    const day = s.get('day')!;
    const years = [said.year, said.year - 1];
    const found = latestDay(
      years.map((year) => DateTime.fromObject({ year, month, day }, { zone: tz })),
      said,
      r.text,
    );
    if (found) return found;
  }
  return null;
}

/**
 * The first of `candidates` (newest first) that is a real day at or before `said`, as a
 * {@link ResolvedDate} of its start, or null.
 */
function latestDay(
  candidates: readonly DateTime[],
  said: DateTime,
  phrase: string,
): ResolvedDate | null {
  for (const at of candidates) {
    if (!at.isValid || at.startOf('day') > said) continue;
    const start = at.startOf('day');
    return {
      date: start.toISODate() ?? '',
      startMs: start.toMillis(),
      instantMs: start.set({ hour: 12 }).toMillis(),
      phrase,
      relative: false,
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
