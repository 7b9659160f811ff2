/**
 * Reminders the owner asked for ("remind me at five to call the bank"), delivered by the tick on
 * the owner's Discord DM through `deps.notify`, as interrupts are:
 *
 * - a reminder is sent once its time has come (`due_at` ≤ now; no lead time);
 * - at most once: it is claimed (pending → sent) before the send, so a crash mid-send never sends
 *   it twice, and a process that finds it claimed leaves it; a failed send releases it for the
 *   next tick, up to {@link REMINDER_MAX_ATTEMPTS} sends, after which it is `missed`;
 * - never during quiet hours, nor without a way to reach the owner: it waits for the first tick
 *   after them, and then says it is late;
 * - a reminder more than {@link MISSED_AFTER_MS} overdue (keel was not running) is marked
 *   `missed`, not sent: the owner sees it in `keel reminders`.
 *
 * @module
 */
import { whenWords } from '@keel/language';
import type { Reminder } from '@keel/memory';
import { DateTime } from 'luxon';
import { isQuiet } from './schedule.js';
import type { ThinkDeps } from './types.js';

/** Sends of one reminder tried before it is given up as missed. */
export const REMINDER_MAX_ATTEMPTS = 5;
/** A reminder due longer ago than this when a tick finds it is missed, not sent, ms (24 hours). */
export const MISSED_AFTER_MS = 24 * 60 * 60_000;

/** What a delivery pass did with the reminders. */
export interface ReminderDelivery {
  /** Reminders sent. */
  sent: number;
  /** Reminders due but held back (quiet hours, no front door); `heldWhy` says why. */
  held: number;
  heldWhy: string | null;
  /** Reminders whose send failed (released for the next tick, or missed once their tries are spent). */
  failed: number;
  /** Reminders marked missed because they were too late to send. */
  missed: number;
}

/**
 * The message the owner reads: `Reminder: call the bank (asked Tue 14:02)` (`set by keel's model
 * Tue 14:02` for one the model set through its tool), and when it is sent
 * later than its time by more than a tick, when it was due: `… (asked Tue 14:02; due today 05:00,
 * late)`.
 *
 * @param lateAfterMs - how late a send may be and still be on time (a tick's interval).
 */
export function reminderMessage(
  r: Reminder,
  nowMs: number,
  tz: string,
  lateAfterMs: number,
): string {
  const asked = DateTime.fromMillis(r.created_at, { zone: tz }).toFormat('ccc HH:mm');
  const late =
    nowMs - r.due_at > lateAfterMs ? `; due ${whenWords(r.due_at, nowMs, tz)}, late` : '';
  // A reminder the model set (not read from the owner's own words) says so: it is keel's, and the
  // owner can tell it from one they asked for.
  const who = r.created_by === 'model' ? "set by keel's model" : 'asked';
  return `Reminder: ${r.text} (${who} ${asked}${late})`;
}

/**
 * Marks the too-late reminders missed, then sends the due ones (oldest due first) unless it is
 * quiet hours or there is no way to reach the owner. Never throws for a failed send.
 */
export async function deliverReminders(deps: ThinkDeps): Promise<ReminderDelivery> {
  const { store } = deps;
  const now = deps.now();
  const out: ReminderDelivery = { sent: 0, held: 0, heldWhy: null, failed: 0, missed: 0 };
  out.missed = store.reminders.expire(now - MISSED_AFTER_MS).length;
  const due = store.reminders.due(now, REMINDER_MAX_ATTEMPTS);
  if (due.length === 0) return out;
  if (isQuiet(now, deps.config.quietHours, deps.config.tz)) {
    out.held = due.length;
    out.heldWhy = `${due.length} reminder(s) held for quiet hours`;
    return out;
  }
  if (!deps.notify) {
    out.held = due.length;
    out.heldWhy = `${due.length} reminder(s) held: no Discord front door configured (DISCORD_TOKEN, KEEL_DISCORD_OWNER_ID)`;
    return out;
  }
  const lateAfter = deps.config.intervalMin * 60_000;
  for (const r of due) {
    if (!store.reminders.claim(r.id, deps.now())) continue;
    try {
      await deps.notify(reminderMessage(r, deps.now(), deps.config.tz, lateAfter));
      store.reminders.markSent(r.id, deps.now());
      out.sent++;
    } catch (err) {
      out.failed++;
      store.reminders.release(
        r.id,
        err instanceof Error ? err.message : String(err),
        REMINDER_MAX_ATTEMPTS,
      );
    }
  }
  return out;
}
