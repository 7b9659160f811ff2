/**
 * Interrupts: things a tick found that the owner should hear about now (a deadline, a reminder
 * they asked for). Each item is recorded once (its key is unique), sent at most once — it is
 * claimed before the send, so a crash mid-send never sends it twice — and never during quiet
 * hours: it waits for the first tick after them.
 *
 * @module
 */
import { createHash } from 'node:crypto';
import { resolveDue } from '@keel/language';
import type { Episode, MemoryStore } from '@keel/memory';
import type { Urgent } from './deltas.js';
import { isQuiet } from './schedule.js';
import type { ThinkDeps } from './types.js';

/** Sends of one item tried before it is given up. */
export const MAX_SEND_ATTEMPTS = 5;
/** A reminder with a due time is sent this long before it, ms (1 hour). */
export const REMINDER_LEAD_MS = 60 * 60_000;
/** A reminder whose due time passed longer ago than this is dropped, not sent late, ms (6 hours). */
export const EXPIRE_AFTER_MS = 6 * 60 * 60_000;
/** Two items due within this of each other are the same reminder, ms (5 minutes). */
export const SAME_DUE_MS = 5 * 60_000;

/** The key that makes an item unique: its normalised name. */
export function itemKey(item: string): string {
  const norm = item.normalize('NFKC').toLowerCase().replace(/\s+/g, ' ').trim();
  return createHash('sha256').update(norm).digest('hex').slice(0, 32);
}

/**
 * Records an urgent item from reflection. The same item is recorded once: the same name, or any
 * item due within {@link SAME_DUE_MS} of it (a reminder restated in other words). An item whose
 * due time has already passed by more than {@link EXPIRE_AFTER_MS} is not recorded, nor one from a
 * turn that set a reminder already (the owner's own words, read at capture).
 *
 * @param source - the cited episode the due date is resolved against (in the owner's zone).
 * @returns true when the item is new.
 */
export function recordUrgent(
  store: MemoryStore,
  urgent: Urgent,
  source: Episode,
  tz: string,
  now: number,
): boolean {
  // A reminder the owner asked for in words was set when the turn was captured: it is theirs
  // (sent at its time, listed, cancellable), not an interrupt sent an hour early besides it.
  if (store.reminders.fromEpisode(source.id).length > 0) return false;
  const dueAt = urgent.due ? resolveDue(urgent.due, source.occurred_at, tz) : null;
  if (dueAt !== null && dueAt < now - EXPIRE_AFTER_MS) return false;
  if (dueAt !== null && store.interrupts.anyDueBetween(dueAt - SAME_DUE_MS, dueAt + SAME_DUE_MS)) {
    return false;
  }
  return store.interrupts.record({
    itemKey: itemKey(urgent.item),
    text: urgent.message,
    episodeId: source.id,
    dueAt,
    now,
  });
}

/** What a delivery pass did. */
export interface Delivery {
  sent: number;
  /** Why items were held back (quiet hours, no front door, not due yet), when they were. */
  held: string | null;
  failed: number;
  /** Items dropped because their time had passed. */
  expired: number;
}

/**
 * Sends the unsent items that are due (no due time, or within {@link REMINDER_LEAD_MS} of it),
 * oldest first, unless it is quiet hours or there is no way to reach the owner (then they wait
 * and `held` says why). Items whose time passed long ago are dropped, never sent late.
 */
export async function deliverInterrupts(deps: ThinkDeps): Promise<Delivery> {
  const { store } = deps;
  const now = deps.now();
  const out: Delivery = { sent: 0, held: null, failed: 0, expired: 0 };
  out.expired = store.interrupts.expire(now - EXPIRE_AFTER_MS, MAX_SEND_ATTEMPTS);
  const pending = store.interrupts.due(MAX_SEND_ATTEMPTS, now + REMINDER_LEAD_MS);
  if (pending.length === 0) return out;
  if (isQuiet(deps.now(), deps.config.quietHours, deps.config.tz)) {
    out.held = `${pending.length} message(s) held for quiet hours`;
    return out;
  }
  if (!deps.notify) {
    out.held = `${pending.length} message(s) held: no Discord front door configured (DISCORD_TOKEN, KEEL_DISCORD_OWNER_ID)`;
    return out;
  }
  for (const item of pending) {
    if (!store.interrupts.claim(item.id, deps.now())) continue;
    try {
      await deps.notify(item.text);
      out.sent++;
    } catch (err) {
      out.failed++;
      store.interrupts.release(item.id, err instanceof Error ? err.message : String(err));
    }
  }
  return out;
}
