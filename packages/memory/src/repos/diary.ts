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

/** One night of the diary, in the curator's words, with its counts. */
export interface DiaryEntry extends NightCounts {
  night: string;
  text: string;
  /** ms since epoch. */
  written_at: number;
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

  /** The newest nights, newest first (at most `limit`, 1-365). Reads only. */
  recent(limit = 14): DiaryEntry[] {
    return stmt(
      this.ctx.db,
      `SELECT night, added, corroborated, superseded, conflicts, pruned, text, written_at
         FROM curator_diary ORDER BY night DESC LIMIT ?`,
    ).all(Math.min(Math.max(1, Math.floor(limit)), 365)) as DiaryEntry[];
  }

  /** The diary as a holder of the owner's words. */
  holder(): OwnerTextHolder {
    return columnHolder(this.ctx, 'curator_diary', [{ column: 'text' }]);
  }
}
