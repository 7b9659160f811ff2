/**
 * The `imports` table: one row per import run, so an interrupted import is visible and a rerun
 * can say what it added.
 *
 * @module
 */
import { type StoreContext, stmt } from '../context.js';

/** Records the start of an import run. @returns its id. */
export function startImport(
  ctx: StoreContext,
  run: { path: string; format: string; fileSha256: string; turnsTotal: number },
): number {
  return Number(
    stmt(
      ctx.db,
      `INSERT INTO imports (path, format, file_sha256, started_at, turns_total) VALUES (?, ?, ?, ?, ?)`,
    ).run(run.path, run.format, run.fileSha256, ctx.now(), run.turnsTotal).lastInsertRowid,
  );
}

/** Counts turns an import run added (inside the batch's transaction). */
export function countImported(ctx: StoreContext, importId: number, added: number): void {
  stmt(ctx.db, 'UPDATE imports SET turns_added = turns_added + ? WHERE id = ?').run(
    added,
    importId,
  );
}

/** Marks an import run finished. */
export function finishImport(ctx: StoreContext, importId: number): void {
  stmt(ctx.db, 'UPDATE imports SET finished_at = ? WHERE id = ?').run(ctx.now(), importId);
}
