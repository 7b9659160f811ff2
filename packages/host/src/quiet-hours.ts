/**
 * Quiet hours as people write them: `23-7`, `23:00-07:00`, `11pm-7am`, `11 PM – 7 AM`,
 * `22:30-06:15`. Each end is read by Luxon's `DateTime.fromFormat` with the usual clock forms (24
 * hours with or without minutes, 12 hours with am/pm), and the result is kept in one stored form
 * ({@link formatQuietHours}): `23-7` on the hour, `22:30-06:15` with minutes.
 *
 * @module
 */
import { DateTime } from 'luxon';

/**
 * Quiet hours in the owner's time zone, from `start` to `end` (end exclusive, may wrap past
 * midnight): hours 0..23, each with its minute 0..59 (absent: on the hour).
 */
export interface QuietHours {
  start: number;
  end: number;
  /** The minute of the start hour; absent: 0. */
  startMinute?: number;
  /** The minute of the end hour; absent: 0. */
  endMinute?: number;
}

/** The clock forms one end may take, tried in order (Luxon tokens). */
const CLOCK_FORMS = ['H', 'H:mm', 'h a', 'ha', 'h:mm a', 'h:mma'] as const;

/** Between the two ends: a hyphen, an en or em dash, or the word "to". */
const SEPARATOR = /\s*(?:-|\u2013|\u2014|\bto\b)\s*/i;

/** One end (`23`, `07:00`, `11pm`, `7 A.M.`) as hour and minute, or undefined. */
function parseClock(text: string): { hour: number; minute: number } | undefined {
  const plain = text.trim().replace(/\b([ap])\.?\s*m\.?(?=\s|$)/i, '$1m');
  // Luxon reads `13pm` as 13:00; on a 12-hour clock the hour is 1 to 12.
  const twelve = /^(\d{1,2})(?::\d\d)?\s*[ap]m$/i.exec(plain);
  if (twelve && !(Number(twelve[1]) >= 1 && Number(twelve[1]) <= 12)) return undefined;
  for (const form of CLOCK_FORMS) {
    const t = DateTime.fromFormat(plain, form, { locale: 'en-US' });
    if (t.isValid) return { hour: t.hour, minute: t.minute };
  }
  return undefined;
}

/**
 * Reads quiet hours written as `START-END` in any of the common clock forms: `23-7`,
 * `23:00-07:00`, `11pm-7am`, `11 PM – 7 AM` (en dash, spaces), `22:30-06:15`, `11pm to 7am`.
 *
 * @returns the quiet hours, or undefined when `text` is not two different times of day (`25-7`,
 *   `7`, `noon-ish`, `7-7`).
 */
export function parseQuietHours(text: string): QuietHours | undefined {
  const ends = text.trim().split(SEPARATOR);
  if (ends.length !== 2) return undefined;
  const from = parseClock(ends[0] ?? '');
  const to = parseClock(ends[1] ?? '');
  if (!from || !to) return undefined;
  if (from.hour === to.hour && from.minute === to.minute) return undefined;
  return {
    start: from.hour,
    end: to.hour,
    ...(from.minute ? { startMinute: from.minute } : {}),
    ...(to.minute ? { endMinute: to.minute } : {}),
  };
}

/**
 * The stored form of quiet hours: `23-7` when both ends are on the hour, else `22:30-06:15`
 * (what `config.toml` holds and keel shows).
 */
export function formatQuietHours(quiet: QuietHours): string {
  const sm = quiet.startMinute ?? 0;
  const em = quiet.endMinute ?? 0;
  if (sm === 0 && em === 0) return `${quiet.start}-${quiet.end}`;
  const two = (n: number) => String(n).padStart(2, '0');
  return `${two(quiet.start)}:${two(sm)}-${two(quiet.end)}:${two(em)}`;
}

/** Quiet hours in words on a 24-hour clock: `23:00 to 07:00`. */
export function describeQuietHours(quiet: QuietHours): string {
  const two = (n: number) => String(n).padStart(2, '0');
  return `${two(quiet.start)}:${two(quiet.startMinute ?? 0)} to ${two(quiet.end)}:${two(quiet.endMinute ?? 0)}`;
}

/**
 * Whether a wall-clock time (hour, minute) falls inside the quiet hours: from the start, up to
 * and not including the end, across midnight when the end comes first.
 */
export function inQuietHours(quiet: QuietHours, hour: number, minute: number): boolean {
  const at = hour * 60 + minute;
  const start = quiet.start * 60 + (quiet.startMinute ?? 0);
  const end = quiet.end * 60 + (quiet.endMinute ?? 0);
  return start < end ? at >= start && at < end : at >= start || at < end;
}
