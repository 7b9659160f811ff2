// Dates as the owner means them: relative phrases in the languages keel captures, resolved in
// the owner's zone against the moment they were said; "as of" phrases as the end of the period.

import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import { resolveAsOf, resolveDate } from './dates.js';

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
