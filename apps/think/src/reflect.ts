/**
 * Reflection, each tick: the turns the belief gate queued since the last reflection go to the
 * frontier model once, with keel's related beliefs; its deltas go through the store's write
 * review and its urgent items to the interrupts. A model failure leaves the turns for the next
 * tick; invalid output is recorded as rejected, never thrown.
 *
 * @module
 */

import { KeelError } from '@keel/errors';
import { screenTurn } from '@keel/gate';
import type { Episode } from '@keel/memory';
import { applyDelta } from './apply.js';
import { consult } from './consult.js';
import { REFLECTION_SYSTEM, type Rejected } from './deltas.js';
import { recordUrgent } from './interrupt.js';
import type { ThinkDeps } from './types.js';

/** Turns reflected on in one request. */
export const REFLECT_BATCH = 20;
/** Requests per tick at most; a larger backlog continues on the next tick (the curator also reads it). */
export const REFLECT_MAX_BATCHES = 5;

/** What reflection did. */
export interface ReflectionStep {
  /** Turns reflected on. */
  turns: number;
  proposed: number;
  written: number;
  conflicts: number;
  ignored: number;
  rejected: Rejected[];
  urgent: number;
  /** Why reflection did not run or stopped, when it did not complete. */
  skipped: string | null;
}

/**
 * The owner episodes of `episodeIds` that pass the screen, by id: the only ones a delta may cite.
 * Each carries its screened text (keel's own recalled memory cut out), which is all a model or
 * recall ever reads of it.
 */
export function episodesById(deps: ThinkDeps, episodeIds: number[]): Map<number, Episode> {
  const map = new Map<number, Episode>();
  for (const id of episodeIds) {
    const e = deps.store.episode(id);
    if (e?.kind !== 'conversation' || e.role !== 'owner' || e.redacted_at !== null) continue;
    const screened = screenTurn(e.text);
    if (screened.ok) map.set(id, { ...e, text: screened.text });
  }
  return map;
}

/**
 * Reflects on the queued turns not reflected on yet (one request per {@link REFLECT_BATCH}).
 *
 * @throws KeelError `CANCELLED` on shutdown; store errors. Model errors are returned in `skipped`.
 */
export async function reflect(deps: ThinkDeps): Promise<ReflectionStep> {
  const step: ReflectionStep = {
    turns: 0,
    proposed: 0,
    written: 0,
    conflicts: 0,
    ignored: 0,
    rejected: [],
    urgent: 0,
    skipped: null,
  };
  const { store } = deps;
  const pendingCount = store.beliefQueue.countAwaitingReflection();
  if (pendingCount === 0) return step;
  if (!deps.model) {
    step.skipped = `reflection: no model configured (${pendingCount} turn(s) wait for the curator or a model)`;
    return step;
  }
  for (let batch = 0; batch < REFLECT_MAX_BATCHES; batch++) {
    const rows = store.beliefQueue.awaitingReflection(REFLECT_BATCH);
    if (rows.length === 0) break;
    const allowed = episodesById(
      deps,
      rows.map((r) => r.episode_id),
    );
    let answer: Awaited<ReturnType<typeof consult>>;
    try {
      answer = await consult(
        deps.model,
        REFLECTION_SYSTEM,
        store,
        [...allowed.values()],
        deps.config.tz,
        deps.signal,
      );
    } catch (err) {
      if (KeelError.isInstance(err) && err.code === 'CANCELLED') throw err;
      const code = KeelError.isInstance(err) ? err.code : 'INTERNAL';
      const message = err instanceof Error ? err.message : String(err);
      step.skipped = `reflection: the model failed (${code}: ${message}); the turns wait for the next tick`;
      return step;
    }
    step.turns += rows.length;
    step.proposed += answer.deltas.length;
    step.rejected.push(...answer.rejected);
    const now = deps.now();
    store.transaction(() => {
      for (const [i, d] of answer.deltas.entries()) {
        const r = applyDelta(store, d, allowed, deps.config.tz);
        if (r.outcome === 'written') step.written++;
        else if (r.outcome === 'conflict') step.conflicts++;
        else if (r.outcome === 'ignored') step.ignored++;
        else step.rejected.push({ where: `delta[${i}]`, reason: r.reason });
      }
      for (const [i, u] of answer.urgent.entries()) {
        const source = u.episodes.map((id) => allowed.get(id)).find((e) => e !== undefined);
        if (!source) {
          step.rejected.push({ where: `urgent[${i}]`, reason: 'cites no episode that was shown' });
          continue;
        }
        if (recordUrgent(store, u, source, deps.config.tz, now)) step.urgent++;
      }
      store.beliefQueue.markReflected(
        rows.map((r) => r.id),
        now,
      );
    });
  }
  return step;
}
