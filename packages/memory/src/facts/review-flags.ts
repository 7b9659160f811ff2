/**
 * Review flags: beliefs put in the owner's review queue by the weekly review (no evidence for a
 * long time: `stale`). A new sighting, confirm, reject, forget, prune or a merge answers them.
 *
 * @module
 */
import { KeelError } from '@keel/errors';
import { type StoreContext, stmt } from '../context.js';
import { appendJournal } from '../journal/journal.js';

const DAY_MS = 86_400_000;

/** Days without new evidence after which a belief is flagged for the owner's review. */
export const STALE_AFTER_DAYS = 180;

/** Options for {@link flagStaleBeliefs}. */
export interface StaleOptions {
  /** Days (> 0) since the newest evidence after which a belief is stale. Default 180. */
  olderThanDays?: number;
}

/**
 * Clears a fact's open review flags (e.g. `stale`): a new sighting, confirm, reject, forget, prune
 * or a merge has answered them. Runs inside the caller's transaction.
 *
 * @param now - ms since epoch, recorded as `cleared_at`.
 * @returns how many open flags were cleared (0 when there were none).
 */
export function clearReviewFlags(ctx: StoreContext, factId: number, now: number): number {
  return stmt(
    ctx.db,
    'UPDATE review_flags SET cleared_at = ? WHERE fact_id = ? AND cleared_at IS NULL',
  ).run(now, factId).changes;
}

/**
 * The weekly review's re-validation: flags every active belief (the owner's included) whose newest
 * evidence is older than `olderThanDays` with an open `stale` review flag, once. The age of a piece
 * of evidence is when its episode occurred (`episodes.occurred_at`: for an import, when it was
 * said, not when it was imported). A belief with an open flag is not flagged again; after the
 * flag is cleared (a new sighting, confirm, reject, forget, prune) it can be flagged again once it
 * is stale again. The flags are listed as `ReviewQueue.stale`. A run that flagged anything is
 * journaled (`flag_stale`, actor think).
 *
 * @returns the ids of the facts flagged by this run, ascending.
 * @throws KeelError `INVALID_INPUT` when `olderThanDays` is not a positive number.
 */
export function flagStaleBeliefs(ctx: StoreContext, options: StaleOptions = {}): number[] {
  const days = options.olderThanDays ?? STALE_AFTER_DAYS;
  if (typeof days !== 'number' || !Number.isFinite(days) || days <= 0) {
    throw new KeelError('INVALID_INPUT', 'olderThanDays must be a positive number of days');
  }
  return ctx.db
    .transaction((): number[] => {
      const now = ctx.now();
      const cutoff = now - days * DAY_MS;
      const ids = (
        stmt(
          ctx.db,
          `SELECT f.id FROM active_facts f
           WHERE (SELECT max(e.occurred_at) FROM fact_evidence fe
                  JOIN episodes e ON e.id = fe.episode_id WHERE fe.fact_id = f.id) < ?
             AND NOT EXISTS (SELECT 1 FROM review_flags r
                             WHERE r.fact_id = f.id AND r.reason = 'stale' AND r.cleared_at IS NULL)
           ORDER BY f.id`,
        ).all(cutoff) as { id: number }[]
      ).map((r) => r.id);
      const insert = stmt(
        ctx.db,
        `INSERT INTO review_flags (fact_id, reason, flagged_at) VALUES (?, 'stale', ?)`,
      );
      for (const id of ids) insert.run(id, now);
      if (ids.length > 0) {
        appendJournal(ctx.db, {
          at: now,
          actor: 'think',
          op: 'flag_stale',
          entity: 'store',
          entityId: null,
          payload: { older_than_days: days, cutoff, ids },
        });
      }
      return ids;
    })
    .immediate();
}
