/**
 * The time phrase of a statement ("I moved to Porto in March", "desde ayer vivo en Sevilla",
 * "ich arbeite seit gestern bei Siemens"), split off wherever the language puts it, so the rest
 * is the value kept and the phrase its start ({@link splitTimePhrase}).
 *
 * @module
 */
import { DAY_OF_MONTH, ENGLISH_MONTHS, isRelative, mayNameDate, results } from './dates.js';

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
