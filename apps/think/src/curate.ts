/**
 * The nightly curator. It fails closed: the whole night is one unit of work.
 *
 * 1. Plan (model calls, nothing written): the pending-beliefs queue not yet curated goes to the
 *    frontier model in batches; each answer is validated. Any model error fails the night here,
 *    before anything was written.
 * 2. Apply (one IMMEDIATE transaction): every delta through the write review; the queue rows
 *    marked curated; decay; prune (to tombstones); dedupe over active rows; journal compaction;
 *    the static index block refreshed; the night's diary row. An error anywhere rolls all of it
 *    back, so memory is exactly as before and the night is retried on a later tick.
 *
 * Without a model the queue waits (and the diary says so) while the rest of the night still runs.
 *
 * @module
 */
import type { Decision, Episode } from '@keel/memory';
import { buildStaticBlock, STANDING_KINDS } from '@keel/prompt';
import { applyDelta } from './apply.js';
import { consult } from './consult.js';
import { CURATOR_SYSTEM, type Delta, type Rejected } from './deltas.js';
import { episodesById } from './reflect.js';
import type { CuratedCounts, ThinkDeps } from './types.js';

/** Turns consolidated in one request. */
export const CURATE_BATCH = 25;
/** Most queued turns one night takes (the rest wait for the next night). */
export const CURATE_MAX_TURNS = 500;
/** Journal entries older than this are compacted, ms (30 days). */
export const COMPACT_AFTER_MS = 30 * 86_400_000;
/** The `meta` key holding the static index block the curator refreshes each night. */
export const STATIC_INDEX_KEY = 'index.static';
/** Beliefs the static index considers. */
export const STATIC_INDEX_CANDIDATES = 200;

/** The static index block as stored in `meta`. */
export interface StaticIndex {
  /** When it was built, ms since epoch. */
  at: number;
  text: string;
  factIds: number[];
}

/** What a night did. */
export interface Night extends CuratedCounts {
  night: string;
  turns: number;
  proposed: number;
  written: number;
  rejected: Rejected[];
  deduped: number;
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
  const rows = store.db
    .prepare(
      `SELECT id, episode_id FROM belief_queue WHERE state = 'believed' AND curated_at IS NULL
       ORDER BY id LIMIT ?`,
    )
    .all(CURATE_MAX_TURNS) as { id: number; episode_id: number }[];

  // 1. Plan: every model call before any write.
  const plans: { deltas: Delta[]; allowed: Map<number, Episode> }[] = [];
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
      if (allowed.size === 0) continue;
      const answer = await consult(
        deps.model,
        CURATOR_SYSTEM,
        store,
        [...allowed.values()],
        deps.config.tz,
        deps.signal,
      );
      rejected.push(...answer.rejected);
      plans.push({ deltas: answer.deltas, allowed });
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
      ignore: 0,
    };
    let proposed = 0;
    let written = 0;
    for (const plan of plans) {
      for (const [i, d] of plan.deltas.entries()) {
        proposed++;
        const r = applyDelta(store, d, plan.allowed, deps.config.tz);
        for (const dec of r.decisions) tally[dec]++;
        if (r.outcome === 'written') written++;
        if (r.outcome === 'rejected') rejected.push({ at: `delta[${i}]`, reason: r.reason });
      }
    }
    if (!waiting) {
      const mark = store.db.prepare('UPDATE belief_queue SET curated_at = ? WHERE id = ?');
      for (const r of rows) mark.run(now, r.id);
    }
    const decayed = store.decay().length;
    const pruned = store.prune().length;
    const deduped = store.dedupe().length;
    const compacted = store.compactJournal({ before: now - COMPACT_AFTER_MS }).compacted;
    refreshStaticIndex(deps, now);
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
      (waiting ?? `${rows.length} queued turn(s) consolidated`) +
      `; ${decayed} belief(s) decayed; ${compacted} journal entr${compacted === 1 ? 'y' : 'ies'} compacted.`;
    store.db
      .prepare(
        `INSERT INTO curator_diary
             (night, run_id, added, corroborated, superseded, conflicts, pruned, text, written_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
           ON CONFLICT (night) DO UPDATE SET run_id = excluded.run_id,
             added = added + excluded.added, corroborated = corroborated + excluded.corroborated,
             superseded = superseded + excluded.superseded,
             conflicts = conflicts + excluded.conflicts, pruned = pruned + excluded.pruned,
             text = excluded.text, written_at = excluded.written_at`,
      )
      .run(
        night,
        runId,
        counts.added,
        counts.corroborated,
        counts.superseded,
        counts.conflicts,
        counts.pruned,
        diary,
        now,
      );
    return {
      ...counts,
      night,
      turns: waiting ? 0 : rows.length,
      proposed,
      written,
      rejected,
      deduped,
      decayed,
      compacted,
      waiting,
      diary,
    };
  });
}

/**
 * Rebuilds the static index block (the owner's strongest standing beliefs, as the prompt shows
 * them) and stores it in `meta` in the same transaction as the night's changes.
 */
export function refreshStaticIndex(deps: ThinkDeps, now: number): StaticIndex {
  const facts = deps.store.strongestFacts('owner', STANDING_KINDS, STATIC_INDEX_CANDIDATES);
  const block = buildStaticBlock(facts);
  const index: StaticIndex = { at: now, text: block.text, factIds: block.factIds };
  deps.store.db
    .prepare(
      `INSERT INTO meta (key, value) VALUES (?, ?)
       ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
    )
    .run(STATIC_INDEX_KEY, JSON.stringify(index));
  return index;
}

/** The newest night with a diary row, or null. */
export function lastCuratedNight(deps: Pick<ThinkDeps, 'store'>): string | null {
  const row = deps.store.db.prepare('SELECT max(night) AS n FROM curator_diary').get() as {
    n: string | null;
  };
  return row.n;
}
