/**
 * Interrupts: things a tick found that the owner should hear about now (a deadline, a reminder
 * they asked for). Each item is recorded once (its key is unique), sent at most once — it is
 * claimed before the send, so a crash mid-send never sends it twice — and never during quiet
 * hours: it waits for the first tick after them.
 *
 * @module
 */
import { createHash } from 'node:crypto';
import type { Episode, MemoryStore } from '@keel/memory';
import * as chrono from 'chrono-node';
import { DateTime } from 'luxon';
import type { Urgent } from './deltas.js';
import { isQuiet } from './schedule.js';
import type { ThinkDeps } from './types.js';

/** Sends of one item tried before it is given up. */
export const MAX_SEND_ATTEMPTS = 5;

/** The key that makes an item unique: its normalised name. */
export function itemKey(item: string): string {
  const norm = item.normalize('NFKC').toLowerCase().replace(/\s+/g, ' ').trim();
  return createHash('sha256').update(norm).digest('hex').slice(0, 32);
}

/**
 * Records an urgent item from reflection (ignored when the same item was recorded before).
 *
 * @param source - the cited episode the due date is resolved against.
 * @returns true when the item is new.
 */
export function recordUrgent(
  store: MemoryStore,
  urgent: Urgent,
  source: Episode,
  tz: string,
  now: number,
): boolean {
  let dueAt: number | null = null;
  if (urgent.due) {
    const at = DateTime.fromMillis(source.occurred_at, { zone: tz });
    const d = chrono.parseDate(urgent.due, { instant: at.toJSDate(), timezone: at.offset });
    dueAt = d ? d.getTime() : null;
  }
  return (
    store.db
      .prepare(
        `INSERT OR IGNORE INTO interrupts (item_key, text, episode_id, due_at, created_at)
         VALUES (?, ?, ?, ?, ?)`,
      )
      .run(itemKey(urgent.item), urgent.message, source.id, dueAt, now).changes === 1
  );
}

/** What a delivery pass did. */
export interface Delivery {
  sent: number;
  /** Why items were held back (quiet hours, no front door), when they were. */
  held: string | null;
  failed: number;
}

/**
 * Sends the unsent items, oldest first, unless it is quiet hours or there is no way to reach the
 * owner (then they wait and `held` says why).
 */
export async function deliverInterrupts(deps: ThinkDeps): Promise<Delivery> {
  const { store } = deps;
  const pending = store.db
    .prepare(`SELECT id, text FROM interrupts WHERE sent_at IS NULL AND attempts < ? ORDER BY id`)
    .all(MAX_SEND_ATTEMPTS) as { id: number; text: string }[];
  const out: Delivery = { sent: 0, held: null, failed: 0 };
  if (pending.length === 0) return out;
  if (isQuiet(deps.now(), deps.config.quietHours, deps.config.tz)) {
    out.held = `${pending.length} message(s) held for quiet hours`;
    return out;
  }
  if (!deps.notify) {
    out.held = `${pending.length} message(s) held: no Discord front door configured (DISCORD_TOKEN, KEEL_DISCORD_OWNER_ID)`;
    return out;
  }
  const claim = store.db.prepare(
    'UPDATE interrupts SET sent_at = ?, attempts = attempts + 1 WHERE id = ? AND sent_at IS NULL',
  );
  const release = store.db.prepare(
    'UPDATE interrupts SET sent_at = NULL, last_error = ? WHERE id = ?',
  );
  for (const item of pending) {
    if (claim.run(deps.now(), item.id).changes !== 1) continue;
    try {
      await deps.notify(item.text);
      out.sent++;
    } catch (err) {
      out.failed++;
      release.run(err instanceof Error ? err.message : String(err), item.id);
    }
  }
  return out;
}
