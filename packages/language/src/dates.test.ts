// Dates as the owner means them: relative phrases in the languages keel captures, resolved in
// the owner's zone against the moment they were said; "as of" phrases as the end of the period.

import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type * as Chrono from 'chrono-node';
import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import { resolveWindow } from './date-windows.js';
import {
  localStamp,
  mayNameDate,
  namesPresent,
  resolveAsOf,
  resolveDate,
  resolveStart,
} from './dates.js';
import { splitTimePhrase } from './time-phrases.js';

const tz = 'America/Los_Angeles';
const at = (iso: string) => DateTime.fromISO(iso, { zone: tz }).toMillis();

describe('resolveDate in other languages', () => {
  // 23:30 on the 29th in the owner's zone (already the 30th in UTC).
  const said = at('2026-11-29T23:30');

  it.each([
    ['ayer fui al dentista', 'ayer'],
    ['hier je suis allé chez le dentiste', 'hier'],
    ['gestern war ich beim Zahnarzt', 'gestern'],
    ['ontem fui ao dentista', 'ontem'],
    ['昨日歯医者に行った', '昨日'],
    ['I went to the dentist yesterday', 'yesterday'],
  ])('"%s" is the 28th, the day before it was said in the owner’s zone', (text, phrase) => {
    expect(resolveDate(text, said, tz)).toMatchObject({
      date: '2026-11-28',
      startMs: at('2026-11-28T00:00'),
      phrase,
      relative: true,
    });
  });

  it.each([
    'Mi hermana se llama Lucía',
    "Sam's birthday is March 3",
    'Sam loves hiking',
    'prefers meetings in the morning',
  ])('"%s" names no day: nothing is invented', (text) => {
    expect(resolveDate(text, said, tz)).toBeNull();
  });
});

describe('resolveAsOf', () => {
  const now = at('2026-11-29T12:00');

  it('reads an "as of" phrase as the end of the period it names, in the owner’s zone', () => {
    expect(resolveAsOf('2026-03-01', now, tz)).toBe(at('2026-03-01T23:59:59.999'));
    expect(resolveAsOf('last March', now, tz)).toBe(at('2026-03-31T23:59:59.999'));
    expect(resolveAsOf('yesterday', now, tz)).toBe(at('2026-11-28T23:59:59.999'));
    expect(resolveAsOf('3 weeks ago', now, tz)).toBe(at('2026-11-08T23:59:59.999'));
    expect(resolveAsOf('2025-07-04T10:00:00Z', now, tz)).toBe(Date.parse('2025-07-04T10:00:00Z'));
  });

  it('"last March" said in February is the March of the year before', () => {
    expect(resolveAsOf('last March', at('2026-02-10T12:00'), tz)).toBe(
      at('2025-03-31T23:59:59.999'),
    );
  });

  it('nothing that reads as a date is null', () => {
    expect(resolveAsOf('whenever', now, tz)).toBeNull();
  });
});

describe("resolveWindow: a question's date as whole days in the owner's zone", () => {
  // Tuesday 1 December 2026, 10:00 in a UTC-7 zone (17:00 UTC).
  const phx = 'America/Phoenix';
  const now = DateTime.fromISO('2026-12-01T10:00', { zone: phx }).toMillis();
  const local = (iso: string, zone = phx) => DateTime.fromISO(iso, { zone }).toMillis();
  const window = (text: string, zone = phx, at = now) => {
    const w = resolveWindow(text, at, zone);
    return (
      w && {
        from: new Date(w.from).toISOString(),
        to: new Date(w.to).toISOString(),
        phrase: w.phrase,
      }
    );
  };

  it('"yesterday" is midnight to midnight where the owner is, not in UTC', () => {
    const w = resolveWindow('What did I tell you yesterday?', now, phx)!;
    expect(w.from).toBe(local('2026-11-30T00:00'));
    expect(w.to).toBe(local('2026-12-01T00:00'));
    expect(new Date(w.from).toISOString()).toBe('2026-11-30T07:00:00.000Z');
    expect(w.phrase).toBe('yesterday');
    // In UTC the same words name another span.
    expect(window('What did I tell you yesterday?', 'UTC')).toMatchObject({
      from: '2026-11-30T00:00:00.000Z',
      to: '2026-12-01T00:00:00.000Z',
    });
  });

  it.each([
    ['what did we discuss last week', '2026-11-23T00:00', '2026-11-30T00:00', 'last week'],
    ['what did I say on Tuesday', '2026-11-24T00:00', '2026-11-25T00:00', 'on Tuesday'],
    [
      'Where did Joanna travel to in July 2022?',
      '2022-07-01T00:00',
      '2022-08-01T00:00',
      'July 2022',
    ],
    ['what did we do last summer', '2026-06-01T00:00', '2026-09-01T00:00', 'last summer'],
    ['the plan from two weeks ago', '2026-11-16T00:00', '2026-11-23T00:00', 'two weeks ago'],
    ['what have I eaten since March', '2026-03-01T00:00', null, 'since March'],
    ['books I read in 2023', '2023-01-01T00:00', '2024-01-01T00:00', 'in 2023'],
    ['what did I buy last month', '2026-11-01T00:00', '2026-12-01T00:00', 'last month'],
    ['runs in the past two weeks', '2026-11-17T10:00', null, 'in the past two weeks'],
    ['flights in March and April', '2026-03-01T00:00', '2026-05-01T00:00', 'March and April'],
    ['what did I do last weekend', '2026-11-28T00:00', '2026-11-30T00:00', 'last weekend'],
  ])('%s → [%s, %s)', (text, from, to, phrase) => {
    const w = resolveWindow(text, now, phx)!;
    expect(w.from).toBe(local(from));
    // Bounded at both ends: a window reaching the present ends just after it.
    expect(w.to).toBe(to === null ? now + 1 : local(to));
    expect(w.phrase).toBe(phrase);
  });

  it('in the other languages keel captures', () => {
    const day = { from: '2026-11-30T07:00:00.000Z', to: '2026-12-01T07:00:00.000Z' };
    for (const text of [
      '¿Qué te dije ayer?',
      "qu'est-ce que je t'ai dit hier",
      'was habe ich gestern gesagt',
      '昨日何を言った',
    ]) {
      expect(window(text)).toMatchObject(day);
    }
    expect(window('was war letzte Woche')).toMatchObject({
      from: '2026-11-23T07:00:00.000Z',
      to: '2026-11-30T07:00:00.000Z',
    });
    expect(window('la semaine dernière')).toMatchObject({ from: '2026-11-23T07:00:00.000Z' });
    expect(window('vor zwei Wochen')).toMatchObject({ from: '2026-11-16T07:00:00.000Z' });
    expect(window('en julio de 2022')).toMatchObject({ from: '2022-07-01T07:00:00.000Z' });
  });

  it('a day across a daylight-saving change is 23 hours long', () => {
    const berlin = 'Europe/Berlin';
    const w = resolveWindow('yesterday', local('2026-03-30T12:00', berlin), berlin)!;
    expect(w.from).toBe(local('2026-03-29T00:00', berlin));
    expect(w.to - w.from).toBe(23 * 3_600_000);
  });

  it('names no window for words that are not a span of days', () => {
    for (const text of [
      'what is my wifi password',
      'I go to Sunday mass',
      'What time do I wake up on Saturday mornings?',
      'ideas for a theme park weekend',
      'plans for the summer',
      'what is on next week', // the future holds nothing said
    ]) {
      expect(resolveWindow(text, now, phx)).toBeNull();
    }
  });
});

describe('mayNameDate: chrono runs only on text that can name a date', () => {
  const chrono = createRequire(import.meta.url)('chrono-node') as typeof Chrono;
  const parsers = [chrono.casual, chrono.es.casual, chrono.fr.casual, chrono.de.casual];
  parsers.push(chrono.pt.casual, chrono.it.casual, chrono.nl.casual, chrono.ru.casual);
  parsers.push(chrono.ja.casual, chrono.zh.casual);
  const now = DateTime.fromISO('2026-12-01T10:00', { zone: 'UTC' }).toMillis();
  /** What chrono reads in `text` that recall's window would consider (as `dates.ts` filters it). */
  const readings = (text: string) =>
    parsers.flatMap((p, i) =>
      p
        .parse(text, { instant: new Date(now), timezone: 0 }, { forwardDate: false })
        .filter((r) => {
          if (i === 0) return true;
          const cjk = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u.test(r.text);
          const length = r.text.trim().length;
          if (r.start.isCertain('day')) return cjk || length >= 3;
          if (r.start.isCertain('month') && r.start.isCertain('year') && length >= 5) return true;
          return r.start.isCertain('weekday') && (cjk || length >= 5);
        })
        .map((r) => r.text),
    );

  it('says yes to the date phrases of every language recall reads', () => {
    for (const text of [
      'What did I tell you yesterday?',
      'what did we discuss last week',
      'what did I say on Tuesday',
      'the plan from two weeks ago',
      'what have I eaten since March',
      'what did I do last weekend',
      'what happened this morning',
      'books I read in 2023',
      '¿Qué te dije ayer?',
      'hace dos semanas',
      'en julio de 2022',
      "qu'est-ce que je t'ai dit hier",
      'la semaine dernière',
      'il y a un an',
      'was habe ich gestern gesagt',
      'vor zwei Wochen',
      'was war letzte Woche',
      'o que eu disse ontem',
      'cosa ti ho detto ieri',
      'wat zei ik gisteren',
      'что я сказал вчера',
      '昨日何を言った',
      '我昨天说了什么',
    ]) {
      expect(mayNameDate(text), text).toBe(true);
    }
  });

  it('a text it says no to holds nothing chrono reads as a date (fixture questions and turns)', () => {
    const root = join(import.meta.dirname, '../../../tests/fixtures/data');
    const locomo = JSON.parse(readFileSync(join(root, 'locomo/conv-26.json'), 'utf8')) as {
      qa: { question: string }[];
      conversation: Record<string, unknown>;
    }[];
    const texts = [
      ...locomo[0]!.qa.map((q) => q.question),
      ...Object.entries(locomo[0]!.conversation).flatMap(([k, v]) =>
        /^session_\d+$/.test(k) ? (v as { text: string }[]).map((t) => t.text) : [],
      ),
    ];
    for (const f of readdirSync(join(root, 'longmemeval'))) {
      const q = JSON.parse(readFileSync(join(root, 'longmemeval', f), 'utf8')) as {
        question: string;
        haystack_sessions: { content: string }[][];
      };
      texts.push(q.question, ...q.haystack_sessions.flat().map((t) => t.content.slice(0, 300)));
    }
    const skipped = texts.filter((t) => !mayNameDate(t));
    // Most turns and questions never reach chrono (control: some do).
    expect(skipped.length).toBeGreaterThan(texts.length / 3);
    expect(skipped.length).toBeLessThan(texts.length);
    expect(skipped.flatMap((t) => readings(t).map((r) => `${r} ← ${t.slice(0, 60)}`))).toEqual([]);
  });

  it('titles chrono misreads as today are no window', () => {
    // chrono reads "In the Heights" (the musical) as a time today; the hint never asks it.
    expect(readings('Who wrote In the Heights?').length).toBeGreaterThan(0);
    expect(mayNameDate('Who wrote In the Heights?')).toBe(false);
    expect(resolveWindow('Who wrote In the Heights?', now, 'UTC')).toBeNull();
  });
});

describe('chrono is loaded on first use', () => {
  it('a question without a date word never loads it; one with a date does', () => {
    // A fresh process (this one has loaded chrono for the tests above).
    const script = `
      import { createRequire } from 'node:module';
      const { resolveWindow } = await import(${JSON.stringify(join(import.meta.dirname, 'date-windows.ts'))});
      const loaded = () => Object.keys(createRequire(import.meta.url).cache).some((k) => k.includes('chrono-node'));
      const now = Date.parse('2026-12-01T10:00:00Z');
      const a = [loaded(), resolveWindow('what is my favourite colour', now, 'UTC'), loaded()];
      const b = resolveWindow('what did I say yesterday', now, 'UTC');
      console.log(JSON.stringify([...a, b !== null, loaded()]));`;
    const out = execFileSync(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', script],
      {
        cwd: import.meta.dirname,
        encoding: 'utf8',
      },
    );
    expect(JSON.parse(out)).toEqual([false, null, false, true, true]);
  });
});

describe('splitTimePhrase: the time phrase a stated value ends with', () => {
  it.each([
    ['Porto in March', 'Porto', 'in March'],
    ['Acme since 2024', 'Acme', 'since 2024'],
    ['Acme since last year', 'Acme', 'since last year'],
    ['Google yesterday', 'Google', 'yesterday'],
    ['Lisbon two weeks ago', 'Lisbon', 'two weeks ago'],
    ['Porto on 3 May 2024.', 'Porto', 'on 3 May 2024'],
    ['Porto, since January 2025', 'Porto', 'since January 2025'],
    ['Oporto desde ayer', 'Oporto', 'desde ayer'],
    ['Lyon depuis hier', 'Lyon', 'depuis hier'],
    ['Berlin seit gestern', 'Berlin', 'seit gestern'],
    ['Lisboa desde ontem', 'Lisboa', 'desde ontem'],
    ['in Cardiff since May', 'in Cardiff', 'since May'], // "May" alone, which chrono does not read
    ['me mudé a Sevilla el mes pasado', 'me mudé a Sevilla', 'el mes pasado'],
    ['mudei para Braga há dois anos', 'mudei para Braga', 'há dois anos'],
    [
      'ich bin nach Hamburg umgezogen letztes Jahr',
      'ich bin nach Hamburg umgezogen',
      'letztes Jahr',
    ],
  ])('%j → %j + %j', (value, rest, phrase) => {
    expect(splitTimePhrase(value)).toEqual({ rest, phrase });
  });

  it.each([
    'Porto',
    'I moved to March', // a town, not introduced as a time
    'Sunday River',
    'the Monday club',
    'coffee in the morning', // a habit's time of day, not a date
    'tea at 5pm',
    'in March', // nothing would be left
    'Porto until last year', // when it stopped, not when it began
    'Sevilla hasta ayer',
    'juego al pádel los martes', // a habit, not a day
    'yoga every Monday',
    'I volunteer on Saturdays',
  ])('leaves %j whole', (value) => {
    expect(splitTimePhrase(value)).toBeNull();
  });
});

describe('splitTimePhrase: a time phrase wherever the statement puts it', () => {
  it.each([
    ['since 2024 I work at Acme', 'I work at Acme', 'since 2024'],
    ['Since 2024, I work at Acme', 'I work at Acme', 'Since 2024'],
    ['on 12 May 2025 I moved to Porto', 'I moved to Porto', 'on 12 May 2025'],
    ['on March 3rd I moved to Porto', 'I moved to Porto', 'on March 3rd'],
    ['yesterday I moved to Porto', 'I moved to Porto', 'yesterday'],
    [
      'I moved to Ghent 3 days ago, still no internet',
      'I moved to Ghent, still no internet',
      '3 days ago',
    ],
    ['desde ayer vivo en Sevilla', 'vivo en Sevilla', 'desde ayer'],
    ['el 12 de mayo de 2025 me mudé a Oporto', 'me mudé a Oporto', 'el 12 de mayo de 2025'],
    ['depuis hier j’habite à Lyon', 'j’habite à Lyon', 'depuis hier'],
    ['le 12 mai 2025 j’ai déménagé à Lyon', 'j’ai déménagé à Lyon', 'le 12 mai 2025'],
    ['ich seit gestern bei Siemens arbeite', 'ich bei Siemens arbeite', 'seit gestern'],
    ['ich arbeite seit gestern bei Siemens', 'ich arbeite bei Siemens', 'seit gestern'],
    ['desde ontem moro em Lisboa', 'moro em Lisboa', 'desde ontem'],
    // a phrase that names only the present loses to one that names a day
    [
      'started at Initech on the 3rd of March, so almost a year now',
      'started at Initech, so almost a year now',
      'on the 3rd of March',
    ],
    ['ahora trabajo en BBVA desde el 3 de marzo', 'ahora trabajo en BBVA', 'desde el 3 de marzo'],
    [
      'desde el lunes trabajo en Mercadona, turno de mañana',
      'trabajo en Mercadona, turno de mañana',
      'desde el lunes',
    ],
    [
      'Last Tuesday I signed up for a Spanish class',
      'I signed up for a Spanish class',
      'Last Tuesday',
    ],
    [
      'em 12 de maio de 2025 mudei-me para o Porto',
      'mudei-me para o Porto',
      'em 12 de maio de 2025',
    ],
  ])('%j → %j + %j', (value, rest, phrase) => {
    expect(splitTimePhrase(value)).toEqual({ rest, phrase });
  });

  it('a weekday or month that names something, away from the end, is not a time; an introduced one is', () => {
    expect(splitTimePhrase('Sunday River is my favourite ski area')).toBeNull();
    expect(splitTimePhrase('the Monday club meets at the library')).toBeNull();
    expect(splitTimePhrase('March is my favourite month')).toBeNull();
    // Controls: introduced by a time word, the same names are times.
    expect(splitTimePhrase('on Sunday I went to the river')).toEqual({
      rest: 'I went to the river',
      phrase: 'on Sunday',
    });
    expect(splitTimePhrase('in March I moved to Porto')).toEqual({
      rest: 'I moved to Porto',
      phrase: 'in March',
    });
  });
});

describe('resolveStart: the day a time phrase says something began', () => {
  const tz = 'America/Los_Angeles';
  /** Said at 00:30 on 2 December 2026 in Los Angeles (08:30 UTC). */
  const said = Date.UTC(2026, 11, 2, 8, 30);
  it.each([
    ['on March 3rd', '2026-03-03'],
    ['el 3 de marzo', '2026-03-03'],
    ['le 3 mars', '2026-03-03'],
    ['am 3. März', '2026-03-03'],
    ['on December 25', '2025-12-25'], // not yet this year: the most recent one
    ['on 12 May 2025', '2025-05-12'],
    ['yesterday', '2026-12-01'],
  ])('%j → %s, in the owner’s zone', (phrase, date) => {
    const r = resolveStart(phrase, said, tz)!;
    expect(r.date).toBe(date);
    // The start of that day where the owner is (PST or PDT), not in UTC.
    expect(localStamp(r.startMs, tz)).toMatch(new RegExp(`^${date} 00:00`));
  });

  it('a month or a year alone names no day; a day does', () => {
    for (const phrase of ['in March', 'since 2024', 'since last year', 'seit 2021']) {
      expect(resolveStart(phrase, said, tz)).toBeNull();
    }
    expect(resolveStart('on March 3rd', said, tz)?.date).toBe('2026-03-03');
  });

  it('"now" says when it was said, not when it began; "today" names the day', () => {
    for (const phrase of ['now', 'right now', 'ahora', 'maintenant', 'jetzt', 'agora']) {
      expect(resolveStart(phrase, said, tz)).toBeNull();
    }
    expect(resolveStart('today', said, tz)?.date).toBe('2026-12-02');
  });

  it('for a stop said in the past, a weekday alone is the most recent one at or before the line', () => {
    // 2 December 2026 is a Wednesday in Los Angeles.
    const past = { pastWeekday: true };
    expect(resolveStart('on Friday', said, tz, past)?.date).toBe('2026-11-27');
    expect(resolveStart('am Freitag', said, tz, past)?.date).toBe('2026-11-27');
    expect(resolveStart('on Wednesday', said, tz, past)?.date).toBe('2026-12-02');
    expect(resolveStart('last Friday', said, tz, past)?.date).toBe('2026-11-27');
    // control: without it, a weekday ahead is read as ahead (the caller refuses it as a start)
    expect(resolveStart('on Friday', said, tz)?.date).toBe('2026-12-04');
  });
});

describe('a day of the month named alone', () => {
  const said = at('2026-03-10T07:00');
  it.each([
    ['on the 3rd', '2026-03-03'],
    ['on the 23rd', '2026-02-23'], // after the line this month: last month's
    ['el día 2', '2026-03-02'],
    ['no dia 2', '2026-03-02'],
    ['le 3', '2026-03-03'],
    ['am 3.', '2026-03-03'],
  ])('%j → %s, the most recent such day at or before the line', (phrase, date) => {
    expect(resolveStart(phrase, said, tz)?.date).toBe(date);
  });

  it('is split off a statement; "the 3rd of March" stays whole, and a house number is no day', () => {
    expect(splitTimePhrase('left Mombasa on the 3rd')).toEqual({
      rest: 'left Mombasa',
      phrase: 'on the 3rd',
    });
    expect(splitTimePhrase('vendí el Ibiza el día 2')?.phrase).toBe('el día 2');
    expect(splitTimePhrase('started at Initech on the 3rd of March')?.phrase).toBe(
      'on the 3rd of March',
    );
    expect(splitTimePhrase('I live at number 3')).toBeNull();
  });
});

describe('namesPresent', () => {
  it('is true of a phrase that names only the present, false of a day', () => {
    for (const p of ['now', 'ahora', 'jetzt', 'agora', 'maintenant'])
      expect(namesPresent(p)).toBe(true);
    for (const p of ['tomorrow', 'in March', 'last week']) expect(namesPresent(p)).toBe(false);
  });
});

describe('a time counted in months or years names no day', () => {
  const said = at('2026-03-10T07:00');
  it.each([
    'two years ago',
    'last month',
    'vor drei Jahren',
    'hace dos años',
    'il y a trois mois',
    'há dois anos',
    'a few weeks ago',
    'a couple of days ago',
    'hace unas semanas',
    'il y a quelques jours',
    'vor ein paar Wochen',
  ])('%j → start unknown (control: "3 days ago" is a day)', (phrase) => {
    expect(resolveStart(phrase, said, tz)).toBeNull();
    expect(resolveStart('3 days ago', said, tz)?.date).toBe('2026-03-07');
  });
});

describe('a month of another language named alone after its time word', () => {
  it.each([
    ['trabajo en Mercadona desde marzo', 'trabajo en Mercadona', 'desde marzo'],
    ['je travaille chez Airbus depuis mars', 'je travaille chez Airbus', 'depuis mars'],
    ['ich arbeite seit März bei Bosch', 'ich arbeite bei Bosch', 'seit März'],
    ['trabalho na Natura desde março', 'trabalho na Natura', 'desde março'],
  ])('%j → %j + %j, no day', (line, rest, phrase) => {
    expect(splitTimePhrase(line)).toEqual({ rest, phrase });
    expect(resolveStart(phrase, at('2026-06-10T12:00'), tz)).toBeNull();
  });

  it('a place with a month’s name after "en" stays a place', () => {
    expect(splitTimePhrase('vivo en Mayo')).toBeNull();
  });
});

describe('a weekday made the last one by the word after it', () => {
  // Friday 29 May 2026: the last Tuesday is the 26th, the last Monday the 25th.
  const said = at('2026-05-29T16:00');
  it.each([
    [
      'desde el martes pasado estoy en Cabify',
      'desde el martes pasado',
      'estoy en Cabify',
      '2026-05-26',
    ],
    ['estou no Nubank desde terça passada', 'desde terça passada', 'estou no Nubank', '2026-05-26'],
    [
      'je suis chez Sopra depuis lundi dernier',
      'depuis lundi dernier',
      'je suis chez Sopra',
      '2026-05-25',
    ],
  ])('%j → %j, the rest %j, %s', (line, phrase, rest, day) => {
    expect(splitTimePhrase(line)).toEqual({ phrase, rest });
    expect(resolveStart(phrase, said, tz)?.date).toBe(day);
  });

  it('a phrase cut from the middle keeps the comma after it', () => {
    expect(
      splitTimePhrase("je suis chez sopra steria depuis lundi, capgemini c'est derrière moi"),
    ).toEqual({
      phrase: 'depuis lundi',
      rest: "je suis chez sopra steria, capgemini c'est derrière moi",
    });
  });
});
