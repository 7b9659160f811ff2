/**
 * Every run of the think service and its outcome (`think_runs`): a row is written `running` when
 * a run starts and finished `ok` or `failed` with its JSON summary, so a crash mid-run is visible
 * as a row that never finished.
 *
 * @module
 */

import { withholdSecrets } from '@keel/language';
import { type StoreContext, stmt } from '../context.js';
import { columnHolder, type OwnerTextHolder, storedText } from '../redaction.js';

/** The kinds of run. */
export type RunKind = 'tick' | 'curate' | 'weekly';

/** How a run ended. */
export type RunOutcome =
  | { status: 'ok'; summary: unknown; gate?: string }
  | { status: 'failed'; summary?: unknown; gate?: string; code: string; error: string };

/** The newest tick, as `keel doctor` shows it. */
export interface TickInfo {
  status: 'running' | 'ok' | 'failed';
  /** ms since epoch. */
  started_at: number;
  gate: string | null;
}

/** One run as the owner's web page lists it; `summary` is the run's JSON summary, parsed. */
export interface ThinkRunRow {
  id: number;
  kind: RunKind;
  status: 'running' | 'ok' | 'failed';
  /** ms since epoch. */
  started_at: number;
  finished_at: number | null;
  gate: string | null;
  period: string | null;
  summary: unknown;
  error_code: string | null;
  error: string | null;
}

/** The think service's run records. */
export class ThinkRunsRepo {
  constructor(private readonly ctx: StoreContext) {}

  /**
   * Starts a run row.
   *
   * @param period - the night (`YYYY-MM-DD`) or week (`YYYY-Www`) a curation or review covers.
   * @returns its id.
   */
  start(kind: RunKind, now: number, period?: string): number {
    return Number(
      stmt(
        this.ctx.db,
        `INSERT INTO think_runs (kind, status, started_at, period) VALUES (?, 'running', ?, ?)`,
      ).run(kind, now, period ?? null).lastInsertRowid,
    );
  }

  /**
   * Finishes a run row with its outcome and summary (any JSON-serialisable value); credentials in
   * the summary's strings and the error are withheld, the error stored well-formed
   * ({@link storedText}).
   */
  finish(id: number, now: number, outcome: RunOutcome): void {
    stmt(
      this.ctx.db,
      `UPDATE think_runs SET status = ?, finished_at = ?, gate = coalesce(?, gate), summary = ?,
           error_code = ?, error = ? WHERE id = ?`,
    ).run(
      outcome.status,
      now,
      outcome.gate ?? null,
      outcome.summary === undefined
        ? null
        : JSON.stringify(withholdSecrets(outcome.summary, this.ctx.ledger)),
      outcome.status === 'failed' ? outcome.code : null,
      outcome.status === 'failed' ? storedText(outcome.error, this.ctx.ledger) : null,
      id,
    );
  }

  /** The newest period of `kind` that finished ok (a night `YYYY-MM-DD`, a week `YYYY-Www`). */
  lastPeriod(kind: RunKind): string | null {
    return (
      stmt(
        this.ctx.db,
        `SELECT max(period) AS p FROM think_runs WHERE kind = ? AND status = 'ok' AND period IS NOT NULL`,
      ).get(kind) as { p: string | null }
    ).p;
  }

  /** When the newest run of `kind` failed (ms), if the newest finished run of that kind failed. */
  lastFailure(kind: RunKind): number | null {
    const row = stmt(
      this.ctx.db,
      `SELECT status, started_at FROM think_runs WHERE kind = ? AND status <> 'running'
         ORDER BY id DESC LIMIT 1`,
    ).get(kind) as { status: string; started_at: number } | undefined;
    return row?.status === 'failed' ? row.started_at : null;
  }

  /** The newest tick, or undefined before the first. */
  lastTick(): TickInfo | undefined {
    return stmt(
      this.ctx.db,
      `SELECT status, started_at, gate FROM think_runs WHERE kind = 'tick' ORDER BY id DESC LIMIT 1`,
    ).get() as TickInfo | undefined;
  }

  /**
   * The newest runs, newest first (at most `limit`, 1-500): what each examined, queued, proposed and
   * wrote, and why it skipped a step, as its summary says. Reads only.
   */
  recent(limit = 50): ThinkRunRow[] {
    const rows = stmt(
      this.ctx.db,
      `SELECT id, kind, status, started_at, finished_at, gate, period, summary, error_code, error
         FROM think_runs ORDER BY id DESC LIMIT ?`,
    ).all(Math.min(Math.max(1, Math.floor(limit)), 500)) as (Omit<ThinkRunRow, 'summary'> & {
      summary: string | null;
    })[];
    return rows.map((r) => ({ ...r, summary: parseSummary(r.summary) }));
  }

  /** The run records as a holder of the owner's words: summaries and errors may quote a turn. */
  holder(): OwnerTextHolder {
    return columnHolder(this.ctx, 'think_runs', [
      { column: 'summary', json: true },
      { column: 'error' },
    ]);
  }
}

/** A stored summary parsed; one that is not JSON (never written so) is kept as its text. */
function parseSummary(text: string | null): unknown {
  if (text === null) return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
