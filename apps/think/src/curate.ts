/**
 * The nightly curator. It fails closed: the whole night is one unit of work.
 *
 * 1. Plan (model calls, nothing written): only the believed turns no tick reflected on (the
 *    backlog: a model that was down, more than a tick takes) go to the frontier model, in
 *    batches; each answer is validated. A turn a tick already reflected on is never sent again.
 *    Any model error fails the night here, before anything was written.
 * 2. Apply (one IMMEDIATE transaction): every delta through the write review; the backlog's queue
 *    rows marked reflected; decay; prune (to tombstones); dedupe over active rows; journal
 *    compaction; the full-text indexes optimized; the night's diary row. An error anywhere rolls
 *    all of it back, so memory is exactly as before and the night is retried on a later tick.
 *
 * Without a model the queue waits (and the diary says so) while the rest of the night still runs.
 *
 * @module
 */

import type { Decision, Episode } from '@keel/memory';
import { applyDelta } from './apply.js';
import { consult } from './consult.js';
import { CURATOR_SYSTEM, type Delta, type Rejected, type Urgent } from './deltas.js';
import { recordUrgent } from './interrupt.js';
import { episodesById } from './reflect.js';
import type { CuratedCounts, ThinkDeps } from './types.js';

/** Turns consolidated in one request. */
export const CURATE_BATCH = 25;
/** Most queued turns one night takes (the rest wait for the next night). */
export const CURATE_MAX_TURNS = 2000;
/** Journal entries older than this are compacted, ms (30 days). */
export const COMPACT_AFTER_MS = 30 * 86_400_000;

/** What a night did. */
export interface Night extends CuratedCounts {
  night: string;
  turns: number;
  proposed: number;
  written: number;
  rejected: Rejected[];
  deduped: number;
  /** Urgent items recorded from the backlog's turns (reminders the owner asked for). */
  urgent: number;
  /** Sightings the write review refused. */
  ignored: number;
  decayed: number;
  compacted: number;
  /** Why the queue was not consolidated (no model), when it was not. */
  waiting: string | null;
  diary: string;
}

/**
 * Runs the curator for `night` (`YYYY-MM-DD`), recording the diary row against `runId`.
 *
 * @throws KeelError from the model (`MODEL_*`, `CANCELLED`) or the store: the night failed and
 *   nothing it did was kept.
 */
export async function curateNight(deps: ThinkDeps, night: string, runId: number): Promise<Night> {
  const { store } = deps;
  const rows = store.beliefQueue.awaitingReflection(CURATE_MAX_TURNS);

  // 1. Plan: every model call before any write.
  const plans: {
    deltas: Delta[];
    urgent: Urgent[];
    allowed: Map<number, Episode>;
    rowIds: number[];
  }[] = [];
  let unusable = 0;
  const rejected: Rejected[] = [];
  let waiting: string | null = null;
  if (rows.length > 0 && !deps.model) {
    waiting = `${rows.length} queued turn(s) wait for a model (none configured)`;
  } else if (deps.model) {
    for (let i = 0; i < rows.length; i += CURATE_BATCH) {
      const batch = rows.slice(i, i + CURATE_BATCH);
      const allowed = episodesById(
        deps,
        batch.map((r) => r.episode_id),
      );
      if (allowed.size === 0) {
        // Nothing left to show (redacted or refused by the screen): consumed as it is.
        plans.push({ deltas: [], urgent: [], allowed, rowIds: batch.map((r) => r.id) });
        continue;
      }
      const answer = await consult(
        deps.model,
        CURATOR_SYSTEM,
        store,
        [...allowed.values()],
        deps.config.tz,
        deps.signal,
      );
      rejected.push(...answer.rejected);
      if (answer.unusable) {
        // Nothing usable came back for this batch: its turns stay queued for the next night.
        unusable += batch.length;
        continue;
      }
      plans.push({
        deltas: answer.deltas,
        urgent: answer.urgent,
        allowed,
        rowIds: batch.map((r) => r.id),
      });
    }
  }

  // 2. Apply: one unit of work.
  return store.transaction((): Night => {
    const now = deps.now();
    const tally: Record<Decision, number> = {
      create: 0,
      corroborate: 0,
      update: 0,
      conflict: 0,
      history: 0,
      withheld: 0,
      ignore: 0,
    };
    let proposed = 0;
    let written = 0;
    let urgent = 0;
    for (const plan of plans) {
      for (const [i, d] of plan.deltas.entries()) {
        proposed++;
        const r = applyDelta(store, d, plan.allowed, deps.config.tz, 'curator');
        for (const dec of r.decisions) tally[dec]++;
        if (r.outcome === 'written') written++;
        if (r.outcome === 'rejected') rejected.push({ where: `delta[${i}]`, reason: r.reason });
      }
      for (const [i, u] of plan.urgent.entries()) {
        const source = u.episodes.map((id) => plan.allowed.get(id)).find((e) => e !== undefined);
        if (!source)
          rejected.push({ where: `urgent[${i}]`, reason: 'cites no episode that was shown' });
        else if (recordUrgent(store, u, source, deps.config.tz, now)) urgent++;
      }
    }
    store.beliefQueue.markReflected(
      plans.flatMap((p) => p.rowIds),
      now,
      'curator',
    );
    const decayed = store.decay().length;
    const pruned = store.prune().length;
    const deduped = store.dedupe().length;
    const compacted = store.compactJournal({ before: now - COMPACT_AFTER_MS }).compacted;
    store.optimizeIndexes();
    const counts: CuratedCounts = {
      added: tally.create,
      corroborated: tally.corroborate,
      superseded: tally.update + deduped,
      conflicts: tally.conflict,
      pruned,
    };
    const diary =
      `Night of ${night}: ${counts.added} added, ${counts.corroborated} corroborated, ` +
      `${counts.superseded} superseded, ${counts.conflicts} conflict(s) raised, ` +
      `${counts.pruned} pruned; ` +
      (waiting ?? `${rows.length - unusable} queued turn(s) consolidated`) +
      (unusable ? ` (${unusable} wait for the next night: the model's answer was unusable)` : '') +
      `; ${decayed} belief(s) decayed; ${compacted} journal entr${compacted === 1 ? 'y' : 'ies'} compacted.`;
    store.diary.record(night, runId, counts, diary, now);
    return {
      ...counts,
      night,
      turns: waiting ? 0 : rows.length - unusable,
      proposed,
      written,
      rejected,
      deduped,
      urgent,
      ignored: tally.ignore,
      decayed,
      compacted,
      waiting,
      diary,
    };
  });
}
