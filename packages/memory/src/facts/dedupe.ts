/**
 * Dedupe, run by the nightly curator: duplicate current beliefs (the same value under different
 * keys of one scope and kind) are merged into the strongest. Runs in one IMMEDIATE transaction of
 * its own, or as a savepoint inside a caller's unit of work (`MemoryStore.transaction`), so a night
 * that fails keeps nothing half-done.
 *
 * @module
 */

import { normalizeValue } from '@keel/language';
import { type StoreContext, stmt } from '../context.js';
import { appendJournal } from '../journal/journal.js';
import { addEpisode } from '../repos/episodes.js';
import type { Fact, Kind, Scope } from '../types.js';
import { isOwnerSource } from './evidence-gate.js';
import { factById } from './read.js';
import { clearReviewFlags } from './review-flags.js';
import { mergeInto } from './transitions.js';

/**
 * The fewest words (after value normalisation) a value needs before two keys holding it count as
 * duplicates. A short value ("blue", "on", "3") takes its meaning from its key: "car colour" and
 * "favourite colour" can both be "blue" and are still two beliefs.
 */
export const DEDUPE_MIN_WORDS = 3;

/** The reason recorded on a duplicate merged by {@link dedupeActive} (journal and status_reason). */
export const DEDUPE_REASON = 'the same value under another key: merged into the stronger belief';

/** One duplicate merged by {@link dedupeActive}. */
export interface DedupeChange {
  /** The duplicate, now `superseded` with `superseded_by_id` = {@link keptId}. */
  id: number;
  /** The belief kept. */
  keptId: number;
  scope: Scope;
  kind: Kind;
  /** The duplicate's key. */
  key: string;
  /** The kept belief's key. */
  keptKey: string;
  /** Episodes newly counted as the kept belief's evidence (those it already had are not repeated). */
  movedEvidence: number[];
  /** The kept belief's confidence (0..1) and evidence count after the merge. */
  confidence: number;
  evidenceCount: number;
}

/** Owner source first, then confidence, evidence, the older row, the lower id. */
function stronger(a: Fact, b: Fact): number {
  return (
    Number(isOwnerSource(b.source)) - Number(isOwnerSource(a.source)) ||
    b.confidence - a.confidence ||
    b.evidence_count - a.evidence_count ||
    a.created_at - b.created_at ||
    a.id - b.id
  );
}

/**
 * Merges duplicate current beliefs: active facts of the same scope and kind whose values are the
 * same after normalisation (same `value_hash`) under different keys.
 *
 * Rules:
 * - Only `active` rows are read or changed; pending, superseded, retracted and rejected rows are
 *   never touched. Scopes and kinds are never mixed.
 * - Values of fewer than {@link DEDUPE_MIN_WORDS} words are never merged (their meaning is in the key).
 * - The keeper is the strongest row: an owner source first, then confidence, evidence count, the
 *   older `created_at`.
 * - The owner's word is never retired by a mechanism: a duplicate that is owner_stated or
 *   owner_confirmed stays active even when another owner row is kept (two owner statements under
 *   two keys are both kept). Only non-owner duplicates are merged.
 * - A merged duplicate becomes `superseded` with `superseded_by_id` → the keeper (no tombstone: the
 *   value is still believed, under the keeper's key); its open review flags are cleared.
 * - Its evidence episodes are added to the keeper (`fact_evidence` is append-only; an episode the
 *   keeper already has is not counted twice). The keeper's `evidence_count` is recounted and its
 *   confidence rises by `REPEAT_STEP` per newly counted episode, never past the evidence
 *   gate's ceiling and never lowered; `last_seen_at` becomes the later of the two.
 * - Each merge is journaled (`dedupe`, actor think) with {@link DEDUPE_REASON}; a run that merged
 *   anything records one mechanism episode.
 *
 * Idempotent: a second run finds nothing to merge.
 *
 * @returns one change per duplicate merged, in the order merged.
 */
export function dedupeActive(ctx: StoreContext): DedupeChange[] {
  return ctx.db
    .transaction((): DedupeChange[] => {
      const now = ctx.now();
      const rows = stmt(
        ctx.db,
        `SELECT * FROM active_facts WHERE (scope, kind, value_hash) IN (
           SELECT scope, kind, value_hash FROM active_facts
           GROUP BY scope, kind, value_hash HAVING count(*) > 1)
         ORDER BY scope, kind, value_hash, id`,
      ).all() as Fact[];
      const groups = new Map<string, Fact[]>();
      for (const r of rows) {
        if (normalizeValue(r.value).split(' ').length < DEDUPE_MIN_WORDS) continue;
        const k = `${r.scope}\u001f${r.kind}\u001f${r.value_hash}`;
        groups.set(k, [...(groups.get(k) ?? []), r]);
      }
      const changes: DedupeChange[] = [];
      for (const group of groups.values()) {
        if (group.length < 2) continue;
        group.sort(stronger);
        let keeper = group[0]!;
        for (const dup of group.slice(1)) {
          if (isOwnerSource(dup.source)) continue;
          const change = merge(ctx, keeper, dup, now);
          changes.push(change);
          keeper = factById(ctx, keeper.id)!;
        }
      }
      if (changes.length > 0) {
        addEpisode(ctx, {
          kind: 'mechanism',
          channel: 'keel',
          role: 'keel',
          text: `dedupe merged ${changes.length} duplicate belief(s)`,
          actor: 'curator',
        });
      }
      return changes;
    })
    .immediate();
}

function merge(ctx: StoreContext, keeper: Fact, dup: Fact, now: number): DedupeChange {
  const { moved, confidence, evidenceCount } = mergeInto(ctx, keeper, dup, {
    now,
    reason: `${DEDUPE_REASON} (f${keeper.id})`,
  });
  clearReviewFlags(ctx, dup.id, now);
  appendJournal(ctx.db, {
    at: now,
    actor: 'curator',
    op: 'dedupe',
    entity: 'fact',
    entityId: dup.id,
    payload: {
      scope: dup.scope,
      kind: dup.kind,
      key: dup.key,
      value_hash: dup.value_hash,
      reason: DEDUPE_REASON,
      kept: { id: keeper.id, key: keeper.key },
      before: {
        status: dup.status,
        source: dup.source,
        confidence: dup.confidence,
        evidence_count: dup.evidence_count,
      },
      after: { status: 'superseded', superseded_by_id: keeper.id },
      keeper: {
        before: { confidence: keeper.confidence, evidence_count: keeper.evidence_count },
        after: { confidence, evidence_count: evidenceCount },
      },
      moved_evidence: moved,
    },
  });
  return {
    id: dup.id,
    keptId: keeper.id,
    scope: dup.scope,
    kind: dup.kind,
    key: dup.key,
    keptKey: keeper.key,
    movedEvidence: moved,
    confidence,
    evidenceCount,
  };
}
