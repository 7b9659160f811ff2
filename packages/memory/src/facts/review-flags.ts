/**
 * Review flags: beliefs put in the owner's review queue — by the weekly review (no evidence for a
 * long time: `stale`), or by the model asking to forget one (`forget`: the model proposes, the
 * owner decides). A new sighting, confirm, reject, forget, prune or a merge answers a stale flag;
 * a forget request is answered by the owner forgetting the belief, keeping it, or confirming it.
 *
 * @module
 */
import { KeelError } from '@keel/errors';
import { type StoreContext, stmt } from '../context.js';
import { appendJournal } from '../journal/journal.js';
import { columnHolder, type OwnerTextHolder } from '../redaction.js';
import type { Actor } from '../types.js';
import { factById } from './read.js';

const DAY_MS = 86_400_000;

/** Days without new evidence after which a belief is flagged for the owner's review. */
export const STALE_AFTER_DAYS = 180;

/** Options for {@link flagStaleBeliefs}. */
export interface StaleOptions {
  /** Days (> 0) since the newest evidence after which a belief is stale. Default 180. */
  olderThanDays?: number;
}

/**
 * Clears a fact's open review flags: a confirm, reject, forget, prune, supersession or merge
 * answers all of them (`which: 'all'`); a new sighting answers only a `stale` flag (a request to
 * forget still waits for the owner). Runs inside the caller's transaction.
 *
 * @param now - ms since epoch, recorded as `cleared_at`.
 * @returns how many open flags were cleared (0 when there were none).
 */
export function clearReviewFlags(
  ctx: StoreContext,
  factId: number,
  now: number,
  which: 'all' | 'stale' = 'all',
): number {
  return which === 'all'
    ? stmt(
        ctx.db,
        'UPDATE review_flags SET cleared_at = ? WHERE fact_id = ? AND cleared_at IS NULL',
      ).run(now, factId).changes
    : stmt(
        ctx.db,
        `UPDATE review_flags SET cleared_at = ?
         WHERE fact_id = ? AND reason = 'stale' AND cleared_at IS NULL`,
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
          actor: 'curator',
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

/** A request to forget a belief, waiting for the owner. */
export interface ForgetRequest {
  /** The belief the request names. */
  factId: number;
  /** Why the requester asked, in its words. */
  why: string | null;
  /** When it was asked, ms since epoch. */
  requestedAt: number;
}

/**
 * Records a request to forget a belief (the model proposes; only the owner forgets): an open
 * `forget` review flag with the requester's reason, journaled with who asked and from which
 * episode. Nothing about the belief changes. Asking again while a request is open changes nothing.
 *
 * @returns the open request, and whether this call made it.
 * @throws KeelError `NOT_FOUND` (no such fact), `INVALID_STATE` (not active or pending).
 */
export function requestForget(
  ctx: StoreContext,
  factId: number,
  request: { actor: Actor; why?: string; episodeId?: number },
): { request: ForgetRequest; created: boolean } {
  return ctx.db
    .transaction(() => {
      const fact = factById(ctx, factId);
      if (!fact) throw new KeelError('NOT_FOUND', `no fact ${factId}`, { details: { id: factId } });
      if (fact.status !== 'active' && fact.status !== 'pending') {
        throw new KeelError('INVALID_STATE', `fact ${factId} is ${fact.status}; nothing to forget`);
      }
      const open = openForgetRequest(ctx, factId);
      if (open) return { request: open, created: false };
      const now = ctx.now();
      const why = request.why?.trim() ? request.why.trim().slice(0, 500) : null;
      stmt(
        ctx.db,
        `INSERT INTO review_flags (fact_id, reason, flagged_at, detail) VALUES (?, 'forget', ?, ?)`,
      ).run(factId, now, why);
      appendJournal(ctx.db, {
        at: now,
        actor: request.actor,
        op: 'request_forget',
        entity: 'fact',
        entityId: factId,
        payload: { why, episode_id: request.episodeId ?? null },
      });
      return { request: { factId, why, requestedAt: now }, created: true };
    })
    .immediate();
}

/** The open request to forget a belief, if there is one. */
export function openForgetRequest(ctx: StoreContext, factId: number): ForgetRequest | undefined {
  const row = stmt(
    ctx.db,
    `SELECT fact_id, detail, flagged_at FROM review_flags
     WHERE fact_id = ? AND reason = 'forget' AND cleared_at IS NULL`,
  ).get(factId) as { fact_id: number; detail: string | null; flagged_at: number } | undefined;
  return row && { factId: row.fact_id, why: row.detail, requestedAt: row.flagged_at };
}

/** Every open request to forget, oldest first. */
export function openForgetRequests(ctx: StoreContext): ForgetRequest[] {
  return (
    stmt(
      ctx.db,
      `SELECT fact_id, detail, flagged_at FROM review_flags
       WHERE reason = 'forget' AND cleared_at IS NULL ORDER BY flagged_at, id`,
    ).all() as { fact_id: number; detail: string | null; flagged_at: number }[]
  ).map((r) => ({ factId: r.fact_id, why: r.detail, requestedAt: r.flagged_at }));
}

/**
 * The owner keeps a belief someone asked to forget: the open request is cleared (journaled as the
 * owner's `keep`); the belief is untouched.
 *
 * @returns false when no request was open.
 */
export function declineForget(ctx: StoreContext, factId: number): boolean {
  return ctx.db
    .transaction(() => {
      const now = ctx.now();
      const cleared = stmt(
        ctx.db,
        `UPDATE review_flags SET cleared_at = ?
         WHERE fact_id = ? AND reason = 'forget' AND cleared_at IS NULL`,
      ).run(now, factId).changes;
      if (cleared === 0) return false;
      appendJournal(ctx.db, {
        at: now,
        actor: 'owner',
        op: 'keep',
        entity: 'fact',
        entityId: factId,
        payload: { declined: 'request_forget' },
      });
      return true;
    })
    .immediate();
}

/** The review flags as a holder of the owner's words: a request's reason may quote a turn. */
export function reviewFlagsHolder(ctx: StoreContext): OwnerTextHolder {
  return columnHolder(ctx, 'review_flags', [{ column: 'detail' }]);
}
