import { describe, expect, it } from 'vitest';
import { loadConfig } from './config.js';
import {
  describeQuietHours,
  formatQuietHours,
  inQuietHours,
  parseQuietHours,
} from './quiet-hours.js';

describe('parseQuietHours', () => {
  it.each([
    ['23-7', { start: 23, end: 7 }, '23-7'],
    [' 23 - 7 ', { start: 23, end: 7 }, '23-7'],
    ['23:00-07:00', { start: 23, end: 7 }, '23-7'],
    ['11pm-7am', { start: 23, end: 7 }, '23-7'],
    ['11 PM – 7 AM', { start: 23, end: 7 }, '23-7'],
    ['11 p.m. — 7 a.m.', { start: 23, end: 7 }, '23-7'],
    ['11pm to 7am', { start: 23, end: 7 }, '23-7'],
    ['12am-6am', { start: 0, end: 6 }, '0-6'],
    ['1pm-2pm', { start: 13, end: 14 }, '13-14'],
    ['22:30-06:15', { start: 22, end: 6, startMinute: 30, endMinute: 15 }, '22:30-06:15'],
    ['10:30pm-6am', { start: 22, end: 6, startMinute: 30 }, '22:30-06:00'],
    ['9-17', { start: 9, end: 17 }, '9-17'],
  ])('reads %j as %j, kept as %s', (text, quiet, stored) => {
    expect(parseQuietHours(text)).toEqual(quiet);
    expect(formatQuietHours(parseQuietHours(text)!)).toBe(stored);
    // The stored form reads back as the same quiet hours.
    expect(parseQuietHours(stored)).toEqual(quiet);
  });

  it.each([
    '25-7',
    '7',
    'noon-ish',
    '7-7',
    '11pm-23:00',
    '23-7-9',
    '22:60-6',
    '13pm-7am',
    '',
    '23-',
    'night',
  ])('refuses %j', (text) => {
    expect(parseQuietHours(text)).toBeUndefined();
  });
});

describe('the quiet_hours setting', () => {
  it('reads every form through the one schema, environment or file', () => {
    expect(loadConfig({ KEEL_QUIET_HOURS: '11 PM – 7 AM' }).think.quietHours).toEqual({
      start: 23,
      end: 7,
    });
    expect(loadConfig({}, { file: { KEEL_QUIET_HOURS: '22:30-06:15' } }).think.quietHours).toEqual({
      start: 22,
      end: 6,
      startMinute: 30,
      endMinute: 15,
    });
    expect(() => loadConfig({ KEEL_QUIET_HOURS: 'noon-ish' })).toThrow(
      /KEEL_QUIET_HOURS "noon-ish" must be two different times of day as START-END/,
    );
  });
});

describe('inQuietHours', () => {
  const night = parseQuietHours('22:30-06:15')!;
  it.each([
    [22, 29, false],
    [22, 30, true],
    [23, 59, true],
    [0, 0, true],
    [6, 14, true],
    [6, 15, false],
    [12, 0, false],
  ])('22:30-06:15 at %i:%i is %s', (h, m, quiet) => {
    expect(inQuietHours(night, h, m)).toBe(quiet);
  });

  it('on the hour, within one day', () => {
    const day = parseQuietHours('9-17')!;
    expect(inQuietHours(day, 8, 59)).toBe(false);
    expect(inQuietHours(day, 9, 0)).toBe(true);
    expect(inQuietHours(day, 16, 59)).toBe(true);
    expect(inQuietHours(day, 17, 0)).toBe(false);
  });

  it('says them in words', () => {
    expect(describeQuietHours(night)).toBe('22:30 to 06:15');
    expect(describeQuietHours(parseQuietHours('11pm-7am')!)).toBe('23:00 to 07:00');
  });
});
