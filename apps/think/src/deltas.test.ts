// Reading a model's output into deltas, resolving relative dates, and naming slots.

import { resolveDate, resolveDue } from '@keel/language';
import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import { slotKey } from './apply.js';
import { parseModelOutput } from './deltas.js';

const delta = {
  op: 'add',
  kind: 'preference',
  subject: 'owner',
  key: 'coffee_order',
  value: 'oat flat white',
  episodes: [3],
};

describe('parseModelOutput', () => {
  it('keeps each valid delta and records each invalid one as rejected, never throwing', () => {
    const out = parseModelOutput(
      `Here you go:\n\`\`\`json\n${JSON.stringify({
        deltas: [
          delta,
          { ...delta, kind: 'mood' },
          { ...delta, episodes: [] },
          { op: 'retract', kind: 'profile', subject: 'owner', key: 'employer', episodes: [4] },
          { ...delta, value: undefined },
        ],
        urgent: [{ item: 'x', episodes: [3] }],
      })}\n\`\`\``,
    );
    expect(out.deltas).toHaveLength(2);
    expect(out.deltas[0]).toMatchObject({ key: 'coffee_order' });
    // A model's claim about the source is not read as one: keel decides it (apply.ts).
    expect(out.deltas[0]!.stated).toBeUndefined();
    expect(out.deltas[1]).toMatchObject({ op: 'retract' });
    expect(out.rejected.map((r) => r.where)).toEqual([
      'delta[1]',
      'delta[2]',
      'delta[4]',
      'urgent[0]',
    ]);
    expect(out.rejected[2]!.reason).toMatch(/value is required/);
  });

  it('rejects output that is not JSON or not the expected shape as a whole', () => {
    expect(parseModelOutput('I could not find anything.')).toMatchObject({
      deltas: [],
      rejected: [{ where: 'output' }],
    });
    expect(parseModelOutput('{"deltas": "none"}').rejected[0]!.where).toBe('output');
    // Control: an empty but valid answer is not a rejection.
    expect(parseModelOutput('{"deltas": []}')).toEqual({ deltas: [], urgent: [], rejected: [] });
  });
});

describe('resolveDate', () => {
  const tz = 'Europe/Berlin';
  const ep = DateTime.fromISO('2026-03-29T00:30', { zone: tz }).toMillis();

  it('resolves against the episode instant in the owner zone, across a DST change', () => {
    expect(resolveDate('yesterday', ep, tz)).toMatchObject({
      date: '2026-03-28',
      phrase: 'yesterday',
    });
    expect(resolveDate('I saw her last Tuesday', ep, tz)!.date).toBe('2026-03-24');
    expect(resolveDate('yesterday', ep, tz)!.startMs).toBe(
      DateTime.fromISO('2026-03-28T00:00', { zone: tz }).toMillis(),
    );
    // The same instant read in UTC is still the 28th at 23:30: the zone decides the day.
    expect(resolveDate('yesterday', ep, 'UTC')!.date).toBe('2026-03-27');
    expect(resolveDate('I like tea', ep, tz)).toBeNull();
  });

  it('does calendar arithmetic on local dates, so a DST change between the days shifts nothing', () => {
    const ny = 'America/New_York';
    const after = DateTime.fromISO('2026-03-09T00:30', { zone: ny }).toMillis();
    expect(resolveDate('yesterday', after, ny)!.date).toBe('2026-03-08');
    const fallBack = DateTime.fromISO('2026-11-02T23:30', { zone: ny }).toMillis();
    expect(resolveDate('2 days ago', fallBack, ny)!.date).toBe('2026-10-31');
    expect(resolveDate('tomorrow at 9', fallBack, ny)!.instantMs).toBe(
      DateTime.fromISO('2026-11-03T09:00', { zone: ny }).toMillis(),
    );
  });

  it('never invents a date: partial dates and times of day resolve to nothing, a full date does', () => {
    for (const text of [
      'prefers meetings in the morning',
      'works 9 to 5',
      'flat white at 7am every day',
      "Sam's birthday is March 3",
    ]) {
      expect(resolveDate(text, ep, tz)).toBeNull();
    }
    expect(resolveDate('moved here on 3 March 2024', ep, tz)).toMatchObject({
      date: '2024-03-03',
      relative: false,
    });
  });
});

describe('slotKey', () => {
  it("names the owner's attributes alone and others' as subject.attribute", () => {
    expect(slotKey('owner', 'Coffee Order')).toBe('coffee_order');
    expect(slotKey('me', 'allergy')).toBe('allergy');
    expect(slotKey('Sam', 'employer')).toBe('sam.employer');
    expect(slotKey("Sam's team", 'size')).toBe('sams_team.size');
    expect(() => slotKey('owner', '!!!')).toThrow(/slug/);
  });
});

describe('resolveDue', () => {
  const tz = 'Europe/Berlin';
  const sunday = DateTime.fromISO('2026-11-29T20:00', { zone: tz }).toMillis();
  const at = (iso: string) => DateTime.fromISO(iso, { zone: tz }).toMillis();

  it('reads a reminder forward from the episode, in the owner zone', () => {
    expect(resolveDue('Friday at 10', sunday, tz)).toBe(at('2026-12-04T10:00'));
    expect(resolveDue('tomorrow at 9', sunday, tz)).toBe(at('2026-11-30T09:00'));
    expect(resolveDue('at 5pm', sunday, tz)).toBe(at('2026-11-30T17:00'));
    expect(resolveDue('on Friday', sunday, tz)).toBe(at('2026-12-04T09:00'));
    // Control: no day or time named.
    expect(resolveDue('soon', sunday, tz)).toBeNull();
  });
});
