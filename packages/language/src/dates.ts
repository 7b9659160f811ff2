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
 * Words that introduce when something began or happened, in the languages capture reads ("in
 * March", "since last year", "desde ayer", "depuis hier", "seit gestern", "desde ontem"), with
 * the article a day may take after them ("on the 3rd of March", "desde el 3 de marzo").
 */
const TIME_PREPOSITION =
  /(?:^|\s)(?:(?:in|since|on|from|as of|starting|en|desde|a partir de|depuis|à partir de|dès|seit|ab|em)(?:\s+(?:the|el|la|le|du|dem|den|der|o|a))?|el|le|im|am|no|na|vom)$/iu;
/** Words that end a span ("until last year"): such a phrase is when it stopped, not began. */
const UNTIL = /(?:^|\s)(?:until|till|up to|hasta|jusqu['’]à|jusqu['’]en|bis|até)$/iu;
/** A bare year after such a word ("since 2024", "desde 2019"): chrono does not read it alone. */
const YEAR_PHRASE =
  /(?<![\p{L}\p{M}\p{N}])(?:in|since|from|as of|en|desde|depuis|dès|seit|ab|im|em)\s+(?:19|20)\d{2}(?![\p{L}\p{M}\p{N}])/giu;
/**
 * The months of Spanish, French, German and Portuguese, lower case, as the platform names them
 * (`Intl.DateTimeFormat`): "marzo", "mars", "März", "março".
 */
function foreignMonths(): string[] {
  const names = new Set<string>();
  for (const locale of ['es', 'fr', 'de', 'pt']) {
    const f = new Intl.DateTimeFormat(locale, { month: 'long', timeZone: 'UTC' });
    for (let m = 0; m < 12; m++) names.add(f.format(new Date(Date.UTC(2001, m, 15))).toLowerCase());
  }
  return [...names];
}

/**
 * A month named alone after a time word ("since May", "in May", "desde marzo", "depuis mars",
 * "seit März", "em março"): chrono does not read "May" alone (it is also a verb), nor the other
 * languages' months, so the phrase is found here; like a bare year, it names no day.
 */
const MONTH_PHRASE = new RegExp(
  `(?<![\\p{L}\\p{M}\\p{N}])(?:since|from|as of|in|starting)\\s+(?:${ENGLISH_MONTHS.join('|')})(?![\\p{L}\\p{M}\\p{N}])(?!\\s+\\d|\\s+\\p{Lu})|(?<![\\p{L}\\p{M}\\p{N}])(?:desde|a partir de|depuis|dès|à partir de|seit|ab)\\s+(?:(?:el mes de|le mois de|o mês de|mes de)\\s+)?(?:${foreignMonths().join('|')})(?![\\p{L}\\p{M}\\p{N}])(?!\\s+(?:de\\s+)?\\d)`,
  'giu',
);
/**
 * Words that make a weekday a habit, not a day ("los martes", "every Monday", "tous les lundis",
 * "jeden Freitag"); a weekday written in the plural ("on Saturdays") is one too.
 */
const HABIT =
  /(?:^|\s)(?:los|las|les|os|as|every|each|cada|chaque|jeden|jede|alle|todos los|todas las|tous les|toutes les)$/iu;
/**
 * A period before the line named relative to it in Spanish and Portuguese ("el mes pasado", "la
 * semana pasada", "no ano passado", "hace dos años", "há três meses"), which chrono does not read:
 * found here as a span; like a month or a year alone, it names no day.
 */
const RELATIVE_PERIOD =
  /(?<![\p{L}\p{M}\p{N}])(?:(?:(?:el|la|no|na|o|a|en el|en la)\s+)?(?:mes|semana|año|verano|invierno|mês|ano|verão|inverno)\s+(?:pasad[oa]|passad[oa]|anterior)|(?:hace|há|faz)\s+(?:\p{L}+|\d+)\s+(?:días|semanas|meses|años|dias|anos))(?![\p{L}\p{M}\p{N}])/giu;
/**
 * A day of the month named alone, after its time word ("on the 3rd", "el día 2", "no dia 2", "le
 * 3", "am 3."), which chrono does not read without a month: found here as a span, resolved to the
 * most recent such day at or before the line ({@link resolveStart}).
 */
const DAY_OF_MONTH =
  /(?<![\p{L}\p{M}\p{N}])(?:on the\s+(?<en>\d{1,2})(?:st|nd|rd|th)(?!\s+of\s|\s+\p{Lu})|(?:el\s+)?día\s+(?<es>\d{1,2})|(?:no\s+)?dia\s+(?<pt>\d{1,2})|le\s+(?<fr>\d{1,2})(?:er)?(?=\s*(?:[,.;!?]|$))|am\s+(?<de>\d{1,2})\.(?!\s*\p{L}))(?![\p{L}\p{M}\p{N}])/giu;

/** Punctuation and dashes a cut leaves dangling at either end of what remains. */
const DANGLING = /^[\s,;:–—-]+|[\s,;:–—-]+$/gu;

/** A time phrase found in a statement: `[start, end)` in the text searched. */
interface TimeSpan {
  start: number;
  end: number;
  /** Introduced by a time word ("since", "desde", "am"), or a phrase of its own ("since 2024"). */
  introduced?: boolean;
  /** The phrase names the moment it was said ("now", "ahora", "jetzt"), no day of its own. */
  present?: boolean;
}

/**
 * The time phrases of `text` that say when something began or happened: a bare year after a
 * time word ("since 2024"), and each date chrono reads that names a day, weekday, month or year
 * (not a time of day alone), is not a span's end ("until last year"), and is introduced by a time
 * word ("in", "since", "on", "desde", "seit", "am" …: {@link TIME_PREPOSITION}) or is relative to
 * when it was said ("yesterday", "last year"). Away from the end of the statement, a date must be
 * introduced, or relative and more than a weekday's name: "Sunday River" and "the Monday club"
 * are names, "yesterday I moved" is a time.
 */
function timeSpans(text: string): TimeSpan[] {
  const spans: TimeSpan[] = [];
  for (const re of [YEAR_PHRASE, MONTH_PHRASE, RELATIVE_PERIOD, DAY_OF_MONTH]) {
    for (const m of text.matchAll(re)) {
      spans.push({ start: m.index, end: m.index + m[0].length, introduced: true });
    }
  }
  if (!mayNameDate(text)) return spans;
  const ref = new Date();
  for (const { parser, r } of results(text, ref, false, true)) {
    const dated = ['day', 'weekday', 'month', 'year'] as const;
    if (!dated.some((part) => r.start.isCertain(part))) continue;
    const before = text.slice(0, r.index).trimEnd();
    if (UNTIL.test(before) || UNTIL.test(r.text.split(/\s+/u)[0] ?? '')) continue;
    if (HABIT.test(before) || /^s(?![\p{L}])/u.test(text.slice(r.index + r.text.length))) continue;
    const end = r.index + r.text.length;
    const present = r.start.isCertain('minute') && r.start.date().getTime() === ref.getTime();
    const word = TIME_PREPOSITION.exec(before);
    if (word) {
      spans.push({
        start: word.index + (/^\s/u.test(word[0]) ? 1 : 0),
        end,
        present,
        introduced: true,
      });
      continue;
    }
    const introduced = TIME_PREPOSITION.test(r.text.split(/\s+/u)[0] ?? '');
    const relative = isRelative(parser, r.text, ref);
    const atEnd = end === text.length;
    // "last Tuesday" is a day; "Sunday River" and "the Monday club" hold a weekday's name alone.
    const moreThanWeekday =
      ['day', 'month', 'year'].some((p) => r.start.isCertain(p as 'day' | 'month' | 'year')) ||
      /\s/u.test(r.text.trim());
    if (introduced || (relative && (atEnd || moreThanWeekday))) {
      spans.push({ start: r.index, end, present, introduced });
    }
  }
  return spans.map((x) => widened(text, x));
}

/**
 * A word after a weekday that makes it the last one ("el martes pasado", "terça passada", "lundi
 * dernier"), which chrono leaves out of the phrase it reads.
 */
const PAST_AFTER = /^\s+(?:pasad[oa]|passad[oa]|derni(?:er|ère)|anterior)(?![\p{L}\p{M}])/iu;

/** A word that makes a weekday the last one, before or after it. */
const LAST_WORD =
  /(?<![\p{L}\p{M}])(?:last|pasad[oa]|passad[oa]|derni(?:er|ère)|letzte[nmrs]?|vergangene[nmrs]?)(?![\p{L}\p{M}])/iu;

/**
 * A span with the past word after it taken in ({@link PAST_AFTER}), and the punctuation at its
 * end left out ("depuis lundi," keeps the comma in the text around it).
 */
function widened(text: string, span: TimeSpan): TimeSpan {
  let end = span.end;
  const past = PAST_AFTER.exec(text.slice(end));
  if (past) end += past[0].length;
  while (end > span.start && /[\s,;:]/u.test(text[end - 1]!)) end--;
  return end === span.end ? span : { ...span, end };
}

/**
 * Splits off the time phrase of a statement, wherever the language puts it: at its end ("I moved
 * to Porto in March", "Acme since 2024", "Lisbon two weeks ago"), at its start ("since 2024 I
 * work at Acme", "on 12 May 2025 I moved to Porto", "desde ayer vivo en Sevilla"), or between its
 * parts ("dass ich seit gestern bei Siemens arbeite", "ich arbeite seit gestern bei Siemens").
 * Which phrases count is {@link timeSpans}'s rule (a day, month or year, introduced by a time
 * word or relative to when it was said; never a span's end, never a time of day alone: "coffee in
 * the morning" stays whole, "I moved to March" keeps the town). When several do, the one at the
 * end wins, then the one at the start, then the first; a phrase that names only the present
 * ("now") loses to one that names a day, month or year ("started at Initech on the 3rd of March,
 * so almost a year now" → "on the 3rd of March"). The rest is the statement without it, the
 * punctuation the cut leaves dangling dropped ("Since 2024, I work at Acme" → "I work at Acme";
 * "I moved to Ghent 3 days ago, still no internet" → "I moved to Ghent, still no internet").
 *
 * @returns the statement without the phrase and the phrase as written (to resolve with
 *   {@link resolveStart}), or null when it holds none or nothing else would be left.
 */
export function splitTimePhrase(value: string): { rest: string; phrase: string } | null {
  const text = value.trim().replace(/[.!]+$/u, '');
  const found = timeSpans(text);
  if (found.length === 0) return null;
  // A date that names a day beats "now"; one a time word introduces beats one that stands alone
  // ("desde el lunes trabajo en Mercadona, turno de mañana": the shift is in the morning).
  const dated = found.filter((x) => !x.present);
  const named = dated.length > 0 ? dated : found;
  const introduced = named.filter((x) => x.introduced);
  const spans = introduced.length > 0 ? introduced : named;
  const chosen =
    spans.find((x) => x.end === text.length) ??
    spans.find((x) => text.slice(0, x.start).trim() === '') ??
    [...spans].sort((a, b) => a.start - b.start)[0]!;
  const rest = `${text.slice(0, chosen.start).trimEnd()} ${text.slice(chosen.end).trimStart()}`
    .replace(/\s+([,;:])/gu, '$1')
    .replace(/([,;:])(?:[\s,;:]*[,;:])+/gu, '$1')
    .replace(DANGLING, '')
    .replace(/\s+/gu, ' ');
  if (!/[\p{L}\p{N}]/u.test(rest)) return null;
  return { rest, phrase: text.slice(chosen.start, chosen.end).trim() };
}

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
const NUMBER_WORDS: Readonly<Record<string, number>> = {
  a: 1,
  an: 1,
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  eleven: 11,
  twelve: 12,
  few: 3,
  couple: 2,
};
const EN_UNIT = '(day|week|month|year)s?';
/** "last summer", "this winter", "in the fall", "during the summer", "summer 2022". */
const SEASON =
  /(?<!\bfor\s+)\b(?:(last|this|past)\s+|(?:in|during|over)\s+(?:the\s+)?|the\s+)(spring|summer|autumn|fall|winter)(?:\s+(?:of\s+)?((?:19|20)\d{2}))?\b|\b(spring|summer|autumn|fall|winter)\s+(?:of\s+)?((?:19|20)\d{2})\b/i;
/** "in the last two months", "over the past week", "the past 3 days", "past few weeks". */
const PAST_SPAN = new RegExp(
  String.raw`\b(?:(?:in|during|over|within)\s+)?(?:the\s+)?(?:last|past)\s+(?:(\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|few|couple)\s+(?:of\s+)?)?${EN_UNIT}\b`,
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
    const n = past[1] ? (NUMBER_WORDS[past[1].toLowerCase()] ?? Number(past[1])) : 1;
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
