// Requests to be reminded, read from the owner's words: the development half of the cases is read
// right whole; the held-out half (never tuned on) at the rate the reader reached, its failures
// named below; and the time rules on their own (an hour without am/pm, a day without a time, a
// time that has passed, a daylight-saving change).

import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import {
  CASES_NOW,
  CASES_TZ,
  DEV_CASES,
  HELD_OUT_CASES,
  type ReminderCase,
} from './reminders.fixture.js';
import { parseReminderRequest, resolveReminderTime, whenWords } from './reminders.js';

const NOW = DateTime.fromISO(CASES_NOW, { zone: CASES_TZ }).toMillis();
const local = (ms: number, tz = CASES_TZ) =>
  DateTime.fromMillis(ms, { zone: tz }).toFormat('yyyy-LL-dd HH:mm');

/** Null when the reader reads `c` as written; else what it read instead. */
function misread(c: ReminderCase): string | null {
  const r = parseReminderRequest(c.text, NOW, CASES_TZ);
  if (!c.request) return r === null ? null : `read a request: ${JSON.stringify(r)}`;
  if (r === null) return 'read no request';
  const due = r.dueAt === null ? null : local(r.dueAt);
  if (r.what !== c.what || due !== c.due) return `read ${JSON.stringify({ what: r.what, due })}`;
  return null;
}

describe('parseReminderRequest: the cases', () => {
  it('reads every development case as written', () => {
    const wrong = DEV_CASES.flatMap((c) => {
      const m = misread(c);
      return m ? [`${c.text} → ${m}`] : [];
    });
    expect(wrong).toEqual([]);
    // Both kinds are in the half: requests and lines that ask for none.
    expect(DEV_CASES.filter((c) => c.request).length).toBeGreaterThan(5);
    expect(DEV_CASES.filter((c) => !c.request).length).toBeGreaterThan(5);
  });

  it('reads the held-out cases at the rate measured', () => {
    // Held-out failures when the rate was measured (HELD_OUT_MISSES lists them).
    const wrong = HELD_OUT_CASES.filter((c) => misread(c) !== null).map((c) => c.text);
    expect(wrong).toEqual(HELD_OUT_MISSES);
  });
});

/**
 * The held-out cases the reader gets wrong, measured once and not tuned on: 20 of 21 read right
 * (95%); the development half reads 21 of 21.
 * - "in 2 days …": read as 09:00 that day (a day without a time), not 14:02 (two days from now).
 */
const HELD_OUT_MISSES: string[] = ['in 2 days remind me to follow up with the landlord'];

describe('parseReminderRequest: the time', () => {
  const at = (iso: string, tz = CASES_TZ) => DateTime.fromISO(iso, { zone: tz }).toMillis();

  it('reads an hour without am/pm as the next one ahead, never one in the past (tomorrow: 1-6 pm)', () => {
    const afternoon = at('2026-12-08T14:02');
    expect(
      local(parseReminderRequest('remind me at five to call', afternoon, CASES_TZ)!.dueAt!),
    ).toBe('2026-12-08 17:00');
    const evening = at('2026-12-08T18:30');
    expect(
      local(parseReminderRequest('remind me at five to call', evening, CASES_TZ)!.dueAt!),
    ).toBe('2026-12-09 17:00');
    // the control: an hour of the morning passed today is tomorrow morning's
    expect(
      local(
        parseReminderRequest('remind me at 8 to call', at('2026-12-08T21:00'), CASES_TZ)!.dueAt!,
      ),
    ).toBe('2026-12-09 08:00');
    const night = at('2026-12-08T03:00');
    expect(local(parseReminderRequest('remind me at five to call', night, CASES_TZ)!.dueAt!)).toBe(
      '2026-12-08 05:00',
    );
  });

  it('a day that has passed is no time (past), a line with no time says so', () => {
    expect(
      parseReminderRequest('remind me yesterday to call the bank', NOW, CASES_TZ),
    ).toMatchObject({
      dueAt: null,
      reason: 'past',
    });
    expect(parseReminderRequest('remind me to call the bank', NOW, CASES_TZ)).toEqual({
      what: 'call the bank',
      dueAt: null,
      phrase: null,
      reason: 'no-time',
    });
  });

  it('is correct across a daylight-saving change in the owner zone', () => {
    // New York moves its clocks on 2026-03-08 at 02:00: Saturday 10:00 EST to Monday 09:00 EDT.
    const tz = 'America/New_York';
    const saturday = at('2026-03-07T10:00', tz);
    const r = parseReminderRequest('remind me on Monday to file taxes', saturday, tz)!;
    expect(local(r.dueAt!, tz)).toBe('2026-03-09 09:00');
    expect(r.dueAt! - saturday).toBe((2 * 24 - 1 - 1) * 3_600_000);
    expect(r.phrase).toMatch(/Monday/);
  });

  it('keeps the owner phrase as written', () => {
    expect(parseReminderRequest('remind me at five to call the bank', NOW, CASES_TZ)?.phrase).toBe(
      'at five',
    );
  });
});

describe('resolveReminderTime and whenWords', () => {
  it('reads a phrase alone or an ISO time in the owner zone, and refuses a past or unreadable one', () => {
    expect(local(resolveReminderTime('Friday at 10', NOW, CASES_TZ).dueAt!)).toBe(
      '2026-12-11 10:00',
    );
    expect(local(resolveReminderTime('in two hours', NOW, CASES_TZ).dueAt!)).toBe(
      '2026-12-08 16:02',
    );
    expect(local(resolveReminderTime('2026-12-09T08:15', NOW, CASES_TZ).dueAt!)).toBe(
      '2026-12-09 08:15',
    );
    expect(local(resolveReminderTime('2026-12-09T08:15Z', NOW, CASES_TZ).dueAt!)).toBe(
      '2026-12-09 09:15',
    );
    expect(resolveReminderTime('2026-12-01T08:15', NOW, CASES_TZ)).toMatchObject({
      dueAt: null,
      reason: 'past',
    });
    expect(resolveReminderTime('whenever', NOW, CASES_TZ)).toMatchObject({
      dueAt: null,
      reason: 'no-time',
    });
  });

  it('says a time relative to today, in the owner zone', () => {
    const at = (iso: string) => DateTime.fromISO(iso, { zone: CASES_TZ }).toMillis();
    expect(whenWords(at('2026-12-08T17:00'), NOW, CASES_TZ)).toBe('today 17:00');
    expect(whenWords(at('2026-12-09T09:00'), NOW, CASES_TZ)).toBe('tomorrow 09:00');
    expect(whenWords(at('2026-12-07T09:00'), NOW, CASES_TZ)).toBe('yesterday 09:00');
    expect(whenWords(at('2026-12-11T10:00'), NOW, CASES_TZ)).toBe('Fri 11 Dec 10:00');
    expect(whenWords(at('2027-01-01T09:00'), NOW, CASES_TZ)).toBe('Fri 1 Jan 2027 09:00');
  });
});

describe('parseReminderRequest: what is asked', () => {
  it('closes the gap the time phrase leaves before a comma', () => {
    expect(
      parseReminderRequest('remind me to call Ana tomorrow, she moved to Porto', NOW, CASES_TZ)
        ?.what,
    ).toBe('call Ana, she moved to Porto');
  });
});
