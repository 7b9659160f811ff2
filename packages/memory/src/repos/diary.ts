/**
 * The curator's diary (`curator_diary`): one short row per night the curator completed.
 *
 * @module
 */

import { type StoreContext, stmt } from '../context.js';
import { columnHolder, type OwnerTextHolder, storedText } from '../redaction.js';

/** What a night did, as its diary row counts it. */
export interface NightCounts {
  added: number;
  corroborated: number;
  superseded: number;
  conflicts: number;
  pruned: number;
}

/** The curator's diary. */
export class DiaryRepo {
  constructor(private readonly ctx: StoreContext) {}

  /**
   * Writes the diary row of `night` (`YYYY-MM-DD`); a second curation of the same night adds its
   * counts to the row and replaces its text. The text is stored well-formed, credentials withheld
   * ({@link storedText}).
   */
  record(night: string, runId: number, counts: NightCounts, text: string, now: number): void {
    stmt(
      this.ctx.db,
      `INSERT INTO curator_diary
             (night, run_id, added, corroborated, superseded, conflicts, pruned, text, written_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
           ON CONFLICT (night) DO UPDATE SET run_id = excluded.run_id,
             added = added + excluded.added, corroborated = corroborated + excluded.corroborated,
             superseded = superseded + excluded.superseded,
             conflicts = conflicts + excluded.conflicts, pruned = pruned + excluded.pruned,
             text = excluded.text, written_at = excluded.written_at`,
    ).run(
      night,
      runId,
      counts.added,
      counts.corroborated,
      counts.superseded,
      counts.conflicts,
      counts.pruned,
      storedText(text, this.ctx.ledger),
      now,
    );
  }

  /** The newest night curated (`YYYY-MM-DD`), or null. */
  lastNight(): string | null {
    return (
      stmt(this.ctx.db, 'SELECT max(night) AS n FROM curator_diary').get() as {
        n: string | null;
      }
    ).n;
  }

  /** The diary as a holder of the owner's words. */
  holder(): OwnerTextHolder {
    return columnHolder(this.ctx, 'curator_diary', [{ column: 'text' }]);
  }
}
