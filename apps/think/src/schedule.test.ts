import { parseQuietHours } from '@keel/host';
import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import { isQuiet } from './schedule.js';

/** ms of a wall-clock time in `zone`. */
const at = (iso: string, zone: string) => DateTime.fromISO(iso, { zone }).toMillis();

describe('isQuiet', () => {
  it('honours quiet hours with minutes, in the owner time zone, across midnight', () => {
    const quiet = parseQuietHours('22:30-06:15')!;
    const zone = 'Europe/Berlin';
    expect(isQuiet(at('2026-03-02T22:29', zone), quiet, zone)).toBe(false);
    expect(isQuiet(at('2026-03-02T22:30', zone), quiet, zone)).toBe(true);
    expect(isQuiet(at('2026-03-03T06:14', zone), quiet, zone)).toBe(true);
    expect(isQuiet(at('2026-03-03T06:15', zone), quiet, zone)).toBe(false);
    // The same instant is 21:30 in London: not quiet there.
    expect(isQuiet(at('2026-03-02T22:30', zone), quiet, 'Europe/London')).toBe(false);
  });

  it('on the hour, as 11pm-7am reads; never without quiet hours', () => {
    const quiet = parseQuietHours('11pm-7am')!;
    expect(isQuiet(at('2026-03-02T22:59', 'UTC'), quiet, 'UTC')).toBe(false);
    expect(isQuiet(at('2026-03-02T23:00', 'UTC'), quiet, 'UTC')).toBe(true);
    expect(isQuiet(at('2026-03-03T06:59', 'UTC'), quiet, 'UTC')).toBe(true);
    expect(isQuiet(at('2026-03-03T07:00', 'UTC'), quiet, 'UTC')).toBe(false);
    expect(isQuiet(at('2026-03-03T03:00', 'UTC'), null, 'UTC')).toBe(false);
  });
});
