/**
 * Interrupts (`interrupts`): things worth telling the owner now (a reminder they asked for, a
 * deadline). Each item is recorded once (its key is unique), claimed before it is sent so a crash
 * mid-send never sends it twice, and given up after a few failed sends.
 *
 * @module
 */

import { type StoreContext, stmt } from '../context.js';
import { columnHolder, type OwnerTextHolder, storedText } from '../redaction.js';

/** An item waiting to be sent. */
export interface DueInterrupt {
  id: number;
  text: string;
}

/** An item not sent yet, as the owner's web page lists it. */
export interface PendingInterrupt {
  id: number;
  text: string;
  /** ms since epoch, or null: as soon as it can be sent. */
  due_at: number | null;
  attempts: number;
  last_error: string | null;
  created_at: number;
}

/** The interrupts. */
export class InterruptsRepo {
  constructor(private readonly ctx: StoreContext) {}

  /** True when an item is due within `[from, to]` (ms since epoch). */
  anyDueBetween(from: number, to: number): boolean {
    return (
      stmt(this.ctx.db, 'SELECT 1 FROM interrupts WHERE due_at BETWEEN ? AND ? LIMIT 1').get(
        from,
        to,
      ) !== undefined
    );
  }

  /**
   * Records an item unless one with the same key exists (its text well-formed, credentials withheld:
   * {@link storedText}). `episodeId` is the turn it came from; null for a message of keel's own (the
   * weekly journal head).
   *
   * @returns true when it is new.
   */
  record(item: {
    itemKey: string;
    text: string;
    episodeId: number | null;
    dueAt: number | null;
    now: number;
  }): boolean {
    return (
      stmt(
        this.ctx.db,
        `INSERT OR IGNORE INTO interrupts (item_key, text, episode_id, due_at, created_at)
           VALUES (?, ?, ?, ?, ?)`,
      ).run(
        item.itemKey,
        storedText(item.text, this.ctx.ledger),
        item.episodeId,
        item.dueAt,
        item.now,
      ).changes === 1
    );
  }

  /** The id of the item recorded under `itemKey`, or null when there is none. */
  idOf(itemKey: string): number | null {
    const r = stmt(this.ctx.db, 'SELECT id FROM interrupts WHERE item_key = ?').get(itemKey) as
      | { id: number }
      | undefined;
    return r?.id ?? null;
  }

  /**
   * Gives up the unsent items due before `before` (their time passed): no longer retried.
   *
   * @returns how many were given up.
   */
  expire(before: number, maxAttempts: number): number {
    return stmt(
      this.ctx.db,
      `UPDATE interrupts SET attempts = ?, last_error = 'expired: its time passed before it could be sent'
         WHERE sent_at IS NULL AND attempts < ? AND due_at IS NOT NULL AND due_at < ?`,
    ).run(maxAttempts, maxAttempts, before).changes;
  }

  /** Unsent items with tries left that are due by `until` (or have no due time), oldest first. */
  due(maxAttempts: number, until: number): DueInterrupt[] {
    return stmt(
      this.ctx.db,
      `SELECT id, text FROM interrupts
         WHERE sent_at IS NULL AND attempts < ? AND (due_at IS NULL OR due_at <= ?) ORDER BY id`,
    ).all(maxAttempts, until) as DueInterrupt[];
  }

  /** Claims an item before sending it. @returns false when another process claimed it first. */
  claim(id: number, now: number): boolean {
    return (
      stmt(
        this.ctx.db,
        'UPDATE interrupts SET sent_at = ?, attempts = attempts + 1 WHERE id = ? AND sent_at IS NULL',
      ).run(now, id).changes === 1
    );
  }

  /** Releases a claimed item whose send failed, with why (as {@link storedText} stores it). */
  release(id: number, error: string): void {
    stmt(this.ctx.db, 'UPDATE interrupts SET sent_at = NULL, last_error = ? WHERE id = ?').run(
      storedText(error, this.ctx.ledger),
      id,
    );
  }

  /** Every item not sent yet, oldest first (those out of tries included). Reads only. */
  pending(): PendingInterrupt[] {
    return stmt(
      this.ctx.db,
      `SELECT id, text, due_at, attempts, last_error, created_at FROM interrupts
         WHERE sent_at IS NULL ORDER BY id`,
    ).all() as PendingInterrupt[];
  }

  /** The interrupts as a holder of the owner's words: the message and a send error. */
  holder(): OwnerTextHolder {
    return columnHolder(this.ctx, 'interrupts', [{ column: 'text' }, { column: 'last_error' }]);
  }
}
