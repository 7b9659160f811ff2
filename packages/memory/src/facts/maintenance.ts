/**
 * Decay and prune, run by the think service. Only beliefs with a single piece of evidence and not
 * from the owner decay; use slows decay (log1p of the access count is subtracted from the idle
 * weeks); decay writes `last_decayed_at` and never `last_seen_at`. Prune retracts with a tombstone;
 * nothing is ever hard-deleted.
 *
 * @module
 */
import { type StoreContext, stmt } from '../context.js';
import { appendJournal } from '../journal/journal.js';
import { addEpisode } from '../repos/episodes.js';
import type { Fact } from '../types.js';
import { round } from './evidence-gate.js';
import { retireBelief } from './owner.js';
import { decayTo } from './transitions.js';

const WEEK_MS = 7 * 86_400_000;
/** Idle weeks (after the access credit) before a belief starts to decay. */
export const DECAY_GRACE_WEEKS = 4;
/** Confidence lost per idle week past the grace period. */
export const DECAY_PER_WEEK = 0.02;
/** Decayable beliefs below this confidence are pruned. */
export const PRUNE_BELOW = 0.3;

/** One belief lowered by decay. */
export interface DecayChange {
  id: number;
  before: number;
  after: number;
}

/**
 * Lowers the confidence of idle single-evidence, non-owner beliefs. Idempotent over time: a second
 * run at the same instant changes nothing, because each run decays only the time since
 * `last_decayed_at`.
 *
 * @returns the beliefs changed.
 */
export function decay(ctx: StoreContext): DecayChange[] {
  return ctx.db
    .transaction(() => {
      const now = ctx.now();
      const rows = stmt(
        ctx.db,
        `SELECT * FROM active_facts
         WHERE evidence_count = 1 AND source NOT IN ('owner_stated', 'owner_confirmed') AND confidence > 0`,
      ).all() as Fact[];
      const changes: DecayChange[] = [];
      for (const f of rows) {
        const credit = Math.log1p(f.access_count);
        const decayStarts = f.last_seen_at + (DECAY_GRACE_WEEKS + credit) * WEEK_MS;
        const from = Math.max(decayStarts, f.last_decayed_at ?? 0);
        if (now <= from) continue;
        const after = Math.max(0, round(f.confidence - (DECAY_PER_WEEK * (now - from)) / WEEK_MS));
        if (after === f.confidence) continue;
        decayTo(ctx, f.id, after, now);
        changes.push({ id: f.id, before: f.confidence, after });
      }
      if (changes.length > 0) {
        const ep = addEpisode(ctx, {
          kind: 'mechanism',
          channel: 'keel',
          role: 'keel',
          text: `decay lowered ${changes.length} belief(s)`,
          actor: 'curator',
        });
        appendJournal(ctx.db, {
          at: now,
          actor: 'curator',
          op: 'decay',
          entity: 'store',
          entityId: ep.id,
          payload: { changes },
        });
      }
      return changes;
    })
    .immediate();
}

/**
 * Retracts decayable beliefs whose confidence fell below {@link PRUNE_BELOW}, each with a
 * tombstone so reflection cannot re-derive them.
 *
 * @returns the ids pruned.
 */
export function prune(ctx: StoreContext, below = PRUNE_BELOW): number[] {
  return ctx.db
    .transaction(() => {
      const rows = stmt(
        ctx.db,
        `SELECT id FROM active_facts
         WHERE evidence_count = 1 AND source NOT IN ('owner_stated', 'owner_confirmed') AND confidence < ?`,
      ).all(below) as { id: number }[];
      for (const r of rows) {
        retireBelief(ctx, r.id, {
          status: 'retracted',
          reason: 'pruned',
          actor: 'curator',
          why: `pruned: confidence below ${below}`,
        });
      }
      if (rows.length > 0) {
        addEpisode(ctx, {
          kind: 'mechanism',
          channel: 'keel',
          role: 'keel',
          text: `prune retracted ${rows.length} belief(s)`,
          actor: 'curator',
        });
      }
      return rows.map((r) => r.id);
    })
    .immediate();
}
