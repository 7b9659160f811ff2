/**
 * Every run of the think service and its outcome, recorded in `think_runs`: a row is written
 * `running` when a run starts and finished `ok` or `failed` with its JSON summary, so a crash
 * mid-run is visible as a row that never finished.
 *
 * @module
 */

import type { MemoryStore } from '@keel/memory';
import { stmt } from '@keel/memory';

/** The kinds of run. */
export type RunKind = 'tick' | 'curate' | 'weekly';

/** Starts a run row. @returns its id. */
export function startRun(store: MemoryStore, kind: RunKind, now: number, period?: string): number {
  return Number(
    stmt(
      store.db,
      `INSERT INTO think_runs (kind, status, started_at, period) VALUES (?, 'running', ?, ?)`,
    ).run(kind, now, period ?? null).lastInsertRowid,
  );
}

/** Finishes a run row with its outcome and summary (any JSON-serialisable value). */
export function finishRun(
  store: MemoryStore,
  id: number,
  now: number,
  outcome:
    | { status: 'ok'; summary: unknown; gate?: string }
    | { status: 'failed'; summary?: unknown; gate?: string; code: string; error: string },
): void {
  stmt(
    store.db,
    `UPDATE think_runs SET status = ?, finished_at = ?, gate = coalesce(?, gate), summary = ?,
         error_code = ?, error = ? WHERE id = ?`,
  ).run(
    outcome.status,
    now,
    outcome.gate ?? null,
    outcome.summary === undefined ? null : JSON.stringify(outcome.summary),
    outcome.status === 'failed' ? outcome.code : null,
    outcome.status === 'failed' ? outcome.error : null,
    id,
  );
}

/** The newest period of `kind` that finished ok (a night `YYYY-MM-DD`, a week `YYYY-Www`). */
export function lastPeriod(store: MemoryStore, kind: RunKind): string | null {
  const row = stmt(
    store.db,
    `SELECT max(period) AS p FROM think_runs WHERE kind = ? AND status = 'ok' AND period IS NOT NULL`,
  ).get(kind) as { p: string | null };
  return row.p;
}

/** When the newest run of `kind` failed, if the newest finished run of that kind failed. */
export function lastFailure(store: MemoryStore, kind: RunKind): number | null {
  const row = stmt(
    store.db,
    `SELECT status, started_at FROM think_runs WHERE kind = ? AND status <> 'running'
       ORDER BY id DESC LIMIT 1`,
  ).get(kind) as { status: string; started_at: number } | undefined;
  return row?.status === 'failed' ? row.started_at : null;
}
