/**
 * The pending-beliefs queue (`belief_queue`): owner turns waiting for the belief gate, and the
 * turns it said hold a durable fact waiting for reflection. Each thing happens once:
 *
 * - one producer, {@link BeliefQueueRepo.advanceWatermark}: a watermark over episodes that queues
 *   the owner's own conversation turns written since the last tick (`new`);
 * - the gate decides each turn once (`believed`, `dismissed`, or `undecided` and retried); a turn
 *   the owner's explicit "remember that …" already captured is dismissed, never re-derived;
 * - a believed turn is reflected on once — by a tick, or by the nightly curator when no tick
 *   could — and becomes `reflected` ({@link BeliefQueueRepo.markReflected}).
 *
 * A row keeps the gate's decision and category, never text quoted from the turn.
 *
 * @module
 */

import { type StoreContext, stmt } from '../context.js';
import { columnHolder, type OwnerTextHolder, storedText } from '../redaction.js';
import { getMeta, setMeta } from './meta.js';

/** The `meta` key holding the id of the newest episode the gate step has looked at. */
export const WATERMARK_KEY = 'think.watermark';

/**
 * What makes an episode gate input: the owner's own words in a conversation (never keel's
 * replies, mechanism or command records, other speakers, imported archives, or redacted text).
 */
const OWNER_TURN = `kind = 'conversation' AND role = 'owner' AND channel NOT LIKE 'import:%'
  AND redacted_at IS NULL`;

/** A queue state. */
export type QueueState = 'new' | 'believed' | 'dismissed' | 'undecided' | 'reflected';

/** A turn waiting for the gate, with its text. */
export interface GateInput {
  id: number;
  episode_id: number;
  attempts: number;
  text: string;
  /** 1 when the owner's explicit "remember that …" in this turn was already stored as their word. */
  captured: 0 | 1;
}

/** A queued turn the gate believed. */
export interface QueuedTurn {
  id: number;
  episode_id: number;
}

/** The belief queue. */
export class BeliefQueueRepo {
  constructor(private readonly ctx: StoreContext) {}

  /** The watermark: the newest episode id the producer has looked at (0 before the first tick). */
  watermark(): number {
    return Number(getMeta(this.ctx.db, WATERMARK_KEY) ?? 0);
  }

  /**
   * Moves the watermark over every episode written since the last call, queueing the owner's new
   * turns as `new` (a turn already queued is kept as it is). One transaction.
   *
   * @param now - ms since epoch, recorded as `queued_at`.
   * @returns how many turns were queued.
   */
  advanceWatermark(now: number): number {
    const db = this.ctx.db;
    return db
      .transaction(() => {
        const from = this.watermark();
        const hi = (stmt(db, 'SELECT max(id) AS id FROM episodes').get() as { id: number | null })
          .id;
        if (hi === null || hi <= from) return 0;
        const added = stmt(
          db,
          `INSERT OR IGNORE INTO belief_queue (episode_id, queued_at)
             SELECT id, ? FROM episodes WHERE id > ? AND id <= ? AND ${OWNER_TURN}`,
        ).run(now, from, hi).changes;
        setMeta(db, WATERMARK_KEY, String(hi));
        return added;
      })
      .immediate();
  }

  /**
   * The turns the gate should judge: `new` ones and `undecided` ones with fewer than
   * `maxAttempts` tries, that are still the owner's unredacted conversation, oldest first.
   */
  forGate(maxAttempts: number, limit: number): GateInput[] {
    return stmt(
      this.ctx.db,
      `SELECT q.id, q.episode_id, q.attempts, e.text,
              EXISTS (SELECT 1 FROM fact_evidence fe
                      WHERE fe.episode_id = q.episode_id AND fe.source = 'owner_stated') AS captured
         FROM belief_queue q JOIN episodes e ON e.id = q.episode_id
         WHERE (q.state = 'new' OR (q.state = 'undecided' AND q.attempts < ?))
           AND e.kind = 'conversation' AND e.role = 'owner' AND e.redacted_at IS NULL
         ORDER BY q.id LIMIT ?`,
    ).all(maxAttempts, limit) as GateInput[];
  }

  /**
   * Records a gate decision on a queued turn.
   *
   * @param decision.decidedAt - ms since epoch; null for `undecided`.
   * @param decision.attempt - 1 when a gate was asked, 0 when the screen refused the turn.
   */
  decide(
    id: number,
    decision: {
      state: 'believed' | 'dismissed' | 'undecided';
      gate: string;
      reason: string;
      decidedAt: number | null;
      attempt: 0 | 1;
    },
  ): void {
    stmt(
      this.ctx.db,
      `UPDATE belief_queue SET state = ?, gate = ?, reason = ?, decided_at = ?,
         attempts = attempts + ? WHERE id = ?`,
    ).run(
      decision.state,
      decision.gate,
      storedText(decision.reason, this.ctx.ledger),
      decision.decidedAt,
      decision.attempt,
      id,
    );
  }

  /** How many believed turns wait for reflection. */
  countAwaitingReflection(): number {
    return (
      stmt(
        this.ctx.db,
        `SELECT count(*) AS n FROM belief_queue WHERE state = 'believed'`,
      ).get() as {
        n: number;
      }
    ).n;
  }

  /** Believed turns not reflected on yet, oldest first. */
  awaitingReflection(limit: number): QueuedTurn[] {
    return stmt(
      this.ctx.db,
      `SELECT id, episode_id FROM belief_queue WHERE state = 'believed' ORDER BY id LIMIT ?`,
    ).all(limit) as QueuedTurn[];
  }

  /**
   * Marks believed turns reflected on: they become `reflected` and are never sent to the model
   * again. `by: 'curator'` also records the night that consumed them (`curated_at`).
   */
  markReflected(ids: readonly number[], now: number, by: 'tick' | 'curator' = 'tick'): void {
    const mark = stmt(
      this.ctx.db,
      `UPDATE belief_queue SET state = 'reflected', reflected_at = ?, curated_at = ?
       WHERE id = ? AND state = 'believed'`,
    );
    for (const id of ids) mark.run(now, by === 'curator' ? now : null, id);
  }

  /** What waits: turns for the gate (new or undecided) and believed turns for reflection. */
  counts(): { waiting: number; believed: number } {
    return stmt(
      this.ctx.db,
      `SELECT coalesce(sum(state IN ('new', 'undecided')), 0) AS waiting,
              coalesce(sum(state = 'believed'), 0) AS believed
       FROM belief_queue`,
    ).get() as { waiting: number; believed: number };
  }

  /** The queue as a holder of the owner's words: a decision's reason. */
  holder(): OwnerTextHolder {
    return columnHolder(this.ctx, 'belief_queue', [{ column: 'reason' }]);
  }
}
