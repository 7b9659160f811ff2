/**
 * The belief gate's step of a tick: a watermark over episodes so a tick only looks at what is
 * new, the pending-beliefs queue (`belief_queue`), and the gate's decisions on it.
 *
 * Only the owner's own conversation turns are input: mechanism and command episodes, keel's own
 * replies, other speakers and imported archives never are (the watermark query filters on
 * kind, role and channel), and keel's recalled-memory text is stripped by `screenTurn`. A turn
 * holding a secret or an injection is dismissed before any gate sees it, and so is a turn the
 * owner's explicit "remember that …" already made a belief of.
 *
 * @module
 */

import { KeelError } from '@keel/errors';
import { type BeliefGate, type GateVerdict, judgeByPattern, screenTurn } from '@keel/gate';
import { type MemoryStore, WATERMARK_KEY } from '@keel/memory';

/** The `meta` key holding the id of the newest episode the gate step has looked at. */
export { WATERMARK_KEY };
/** Queue rows judged per tick (the rest wait for the next tick). */
export const GATE_BATCH = 200;
/** After this many undecided verdicts the pattern gate decides the turn (it always decides). */
export const MAX_GATE_ATTEMPTS = 5;
/** Undecided verdicts in a row after which a tick stops asking (the model is down or too slow). */
export const UNDECIDED_STREAK_LIMIT = 3;

/** What the gate step did. */
export interface GateStep {
  /** Turns the gate looked at (screened or judged). */
  examined: number;
  /** Turns put in the pending-beliefs queue (gate said yes). */
  queued: number;
  /** Turns the gate said no to, or the screen refused. */
  dismissed: number;
  /**
   * Turns whose explicit "remember that …" the turn path already stored as the owner's word:
   * dismissed without asking a gate, so nothing re-derives them.
   */
  captured: number;
  /** Turns with no decision this time (retried next tick). */
  undecided: number;
  /** Why turns were dismissed by the screen, e.g. `{ secret: 1 }`. */
  screened: Record<string, number>;
  /** True when the tick stopped asking after {@link UNDECIDED_STREAK_LIMIT} undecided in a row. */
  stoppedEarly: boolean;
}

/** The watermark (0 before the first tick). */
export function watermark(store: MemoryStore): number {
  return store.beliefQueue.watermark();
}

/**
 * Moves the watermark over every episode written since the last tick, putting the owner's new
 * turns in the queue as `new` (turns the agent already queued are kept as they are).
 *
 * @returns how many turns were added to the queue.
 */
export function advanceWatermark(store: MemoryStore, now: number): number {
  return store.beliefQueue.advanceWatermark(now);
}

/**
 * What the queue keeps of a verdict: its category and decision, never the gate's free-text
 * reason (which may quote the turn), so no copy of the owner's words is made here.
 */
function why(verdict: GateVerdict): string {
  return verdict.category ? `${verdict.decision}: ${verdict.category}` : verdict.decision;
}

/**
 * Judges the queue's `new` and retryable `undecided` turns with `gate`: yes → `believed` (the
 * pending-beliefs queue reflection reads), no → `dismissed`, no decision → `undecided` with one
 * more attempt. A turn whose explicit "remember that …" was already stored as the owner's word is
 * dismissed without asking (`captured`). Each decision is written as soon as it is made, so a
 * shutdown mid-step loses nothing.
 *
 * @throws KeelError `CANCELLED` when `signal` aborts.
 */
export async function judgeQueue(
  store: MemoryStore,
  gate: BeliefGate,
  now: () => number,
  signal?: AbortSignal,
): Promise<GateStep> {
  const step: GateStep = {
    examined: 0,
    queued: 0,
    dismissed: 0,
    captured: 0,
    undecided: 0,
    screened: {},
    stoppedEarly: false,
  };
  const rows = store.beliefQueue.forGate(MAX_GATE_ATTEMPTS, GATE_BATCH);
  const decide = (
    id: number,
    state: 'believed' | 'dismissed' | 'undecided',
    gate: string,
    reason: string,
    decidedAt: number | null,
    attempt: 0 | 1,
  ) => store.beliefQueue.decide(id, { state, gate, reason, decidedAt, attempt });
  let streak = 0;
  for (const row of rows) {
    if (signal?.aborted) throw new KeelError('CANCELLED', 'the think run was stopped');
    step.examined++;
    if (row.captured) {
      step.dismissed++;
      step.captured++;
      decide(row.id, 'dismissed', 'capture', 'captured explicitly', now(), 0);
      continue;
    }
    // The screen also refuses a turn whose secret the store already withheld (its placeholder).
    const screen = screenTurn(row.text);
    if (!screen.ok) {
      step.dismissed++;
      step.screened[screen.reason] = (step.screened[screen.reason] ?? 0) + 1;
      decide(row.id, 'dismissed', 'screen', screen.reason, now(), 0);
      continue;
    }
    let verdict = await gate.judge(screen.text, signal ? { signal } : {});
    let by: string = gate.name;
    if (verdict.decision === 'undecided' && row.attempts + 1 >= MAX_GATE_ATTEMPTS) {
      // The local model never decided this turn: the pattern gate does, so no turn is lost.
      verdict = judgeByPattern(screen.text);
      by = 'pattern';
    }
    if (verdict.decision === 'yes') {
      streak = 0;
      step.queued++;
      decide(row.id, 'believed', by, why(verdict), now(), 1);
    } else if (verdict.decision === 'no') {
      streak = 0;
      step.dismissed++;
      decide(row.id, 'dismissed', by, why(verdict), now(), 1);
    } else {
      step.undecided++;
      decide(row.id, 'undecided', by, why(verdict), null, 1);
      if (++streak >= UNDECIDED_STREAK_LIMIT) {
        step.stoppedEarly = true;
        break;
      }
    }
  }
  return step;
}
