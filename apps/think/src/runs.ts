/**
 * Every run of the think service and its outcome, recorded through the store's
 * `thinkRuns` repository: a row is written `running` when a run starts and finished `ok` or
 * `failed` with its JSON summary, so a crash mid-run is visible as a row that never finished.
 *
 * @module
 */
import type { MemoryStore, RunKind, RunOutcome } from '@keel/memory';

export type { RunKind } from '@keel/memory';

/** Starts a run row. @returns its id. */
export function startRun(store: MemoryStore, kind: RunKind, now: number, period?: string): number {
  return store.thinkRuns.start(kind, now, period);
}

/** Finishes a run row with its outcome and summary (any JSON-serialisable value). */
export function finishRun(store: MemoryStore, id: number, now: number, outcome: RunOutcome): void {
  store.thinkRuns.finish(id, now, outcome);
}

/** The newest period of `kind` that finished ok (a night `YYYY-MM-DD`, a week `YYYY-Www`). */
export function lastPeriod(store: MemoryStore, kind: RunKind): string | null {
  return store.thinkRuns.lastPeriod(kind);
}

/** When the newest run of `kind` failed, if the newest finished run of that kind failed. */
export function lastFailure(store: MemoryStore, kind: RunKind): number | null {
  return store.thinkRuns.lastFailure(kind);
}
