/**
 * The owner session's tables: `sessions` (the one conversation every front door appends to, with
 * its compaction anchor), `turns` (one row per turn, whatever its outcome) and `messages` (the
 * model-facing history of complete turns). Credentials are withheld from every string before it
 * is stored, as in the episodes (`withholdSecrets`: a tool call's `{ key, value }` counts as
 * "key is value"), and so is every secret the unit of work withheld already.
 *
 * A turn's messages are written together when the turn completes, so the history always holds
 * whole turns and a failed turn leaves only its `turns` row.
 *
 * @module
 */

import { withholdSecrets } from '@keel/language';
import { type StoreContext, stmt } from '../context.js';
import { columnHolder, type OwnerTextHolder, storedText } from '../redaction.js';

/** The outcome of a turn as recorded. */
export type TurnStatus = 'running' | 'complete' | 'failed' | 'cancelled';

/** A turn row. Times are ms since the Unix epoch. */
export interface TurnRow {
  id: number;
  channel: string;
  status: TurnStatus;
  input: string;
  error_code: string | null;
  error: string | null;
  provider: string | null;
  model: string | null;
  /** JSON array of fact ids. */
  facts_used: string | null;
  started_at: number;
  finished_at: number | null;
}

/** A stored message of a complete turn. */
export interface MessageRow {
  id: number;
  turnId: number;
  role: 'user' | 'assistant';
  /** The message's content blocks, as stored (JSON-decoded). */
  content: unknown;
  /** Estimated tokens, as counted when it was stored. */
  tokens: number;
}

/** A message to store: its role and content blocks (any JSON value). */
export interface NewMessage {
  role: 'user' | 'assistant';
  content: unknown;
}

/** One named session (there is one owner session, "owner"), created on first use. */
export class OwnerSessionRepo {
  /** The session's row id. */
  readonly id: number;

  constructor(
    private readonly ctx: StoreContext,
    /** The session's name. */
    readonly name = 'owner',
  ) {
    const now = ctx.now();
    stmt(
      ctx.db,
      'INSERT OR IGNORE INTO sessions (name, created_at, updated_at) VALUES (?, ?, ?)',
    ).run(name, now, now);
    this.id = (
      stmt(ctx.db, 'SELECT id FROM sessions WHERE name = ?').get(name) as { id: number }
    ).id;
  }

  /**
   * Marks turns left `running` by a process that died as failed (`ABANDONED`). Call while
   * holding the turn lock: then no other turn can be running.
   *
   * @returns how many were closed.
   */
  closeAbandonedTurns(): number {
    return stmt(
      this.ctx.db,
      `UPDATE turns SET status = 'failed', error_code = 'ABANDONED',
         error = 'the process running this turn stopped', finished_at = ?
       WHERE session_id = ? AND status = 'running'`,
    ).run(this.ctx.now(), this.id).changes;
  }

  /** Records the start of a turn (credentials in `input` withheld). @returns its id. */
  startTurn(channel: string, input: string): number {
    return Number(
      stmt(
        this.ctx.db,
        `INSERT INTO turns (session_id, channel, status, input, started_at) VALUES (?, ?, 'running', ?, ?)`,
      ).run(this.id, channel, storedText(input, this.ctx.ledger), this.ctx.now()).lastInsertRowid,
    );
  }

  /**
   * Stores a complete turn's messages (credentials withheld from every string) and marks the turn
   * complete. Call inside the transaction that stores the turn's episodes and captures, so all of
   * it commits together.
   *
   * @param measure - the estimated tokens of a message's (withheld) content.
   */
  completeTurn(
    turnId: number,
    messages: readonly NewMessage[],
    meta: { provider: string; model: string; factsUsed: readonly number[] },
    measure: (content: unknown) => number,
  ): void {
    const now = this.ctx.now();
    const insert = stmt(
      this.ctx.db,
      'INSERT INTO messages (session_id, turn_id, role, content, tokens, created_at) VALUES (?, ?, ?, ?, ?, ?)',
    );
    for (const m of messages) {
      const content = withholdSecrets(m.content, this.ctx.ledger);
      insert.run(this.id, turnId, m.role, JSON.stringify(content), measure(content), now);
    }
    stmt(
      this.ctx.db,
      `UPDATE turns SET status = 'complete', provider = ?, model = ?, facts_used = ?, finished_at = ?
       WHERE id = ?`,
    ).run(meta.provider, meta.model, JSON.stringify(meta.factsUsed), now, turnId);
    stmt(this.ctx.db, 'UPDATE sessions SET updated_at = ? WHERE id = ?').run(now, this.id);
  }

  /** Marks a turn failed or cancelled; nothing of it enters the history. */
  failTurn(turnId: number, status: 'failed' | 'cancelled', code: string, message: string): void {
    stmt(
      this.ctx.db,
      'UPDATE turns SET status = ?, error_code = ?, error = ?, finished_at = ? WHERE id = ?',
    ).run(status, code, storedText(message, this.ctx.ledger), this.ctx.now(), turnId);
  }

  /** The compaction anchor and every message after it, oldest first. */
  history(): { anchor: string | null; messages: MessageRow[] } {
    const s = this.anchorRow();
    const rows = stmt(
      this.ctx.db,
      'SELECT id, turn_id, role, content, tokens FROM messages WHERE session_id = ? AND id > ? ORDER BY id',
    ).all(this.id, s.anchor_through ?? 0) as {
      id: number;
      turn_id: number;
      role: 'user' | 'assistant';
      content: string;
      tokens: number;
    }[];
    return {
      anchor: s.anchor,
      messages: rows.map((r) => ({
        id: r.id,
        turnId: r.turn_id,
        role: r.role,
        content: JSON.parse(r.content) as unknown,
        tokens: r.tokens,
      })),
    };
  }

  /**
   * The anchor and the stored token estimate of the messages after it, without loading them.
   */
  historySize(): { anchor: string | null; messageTokens: number } {
    const row = stmt(
      this.ctx.db,
      `SELECT s.anchor AS anchor, coalesce((SELECT sum(m.tokens) FROM messages m
         WHERE m.session_id = s.id AND m.id > coalesce(s.anchor_through, 0)), 0) AS tokens
       FROM sessions s WHERE s.id = ?`,
    ).get(this.id) as { anchor: string | null; tokens: number };
    return { anchor: row.anchor, messageTokens: row.tokens };
  }

  /** Replaces the anchor with a summary of everything up to message `throughId`. */
  setAnchor(summary: string, throughId: number): void {
    const now = this.ctx.now();
    stmt(
      this.ctx.db,
      'UPDATE sessions SET anchor = ?, anchor_through = ?, anchor_updated_at = ?, updated_at = ? WHERE id = ?',
    ).run(storedText(summary, this.ctx.ledger), throughId, now, now, this.id);
  }

  /** The newest turns, newest first. */
  recentTurns(limit = 10): TurnRow[] {
    return stmt(
      this.ctx.db,
      'SELECT * FROM turns WHERE session_id = ? ORDER BY id DESC LIMIT ?',
    ).all(this.id, limit) as TurnRow[];
  }

  private anchorRow(): { anchor: string | null; anchor_through: number | null } {
    return stmt(this.ctx.db, 'SELECT anchor, anchor_through FROM sessions WHERE id = ?').get(
      this.id,
    ) as { anchor: string | null; anchor_through: number | null };
  }
}

/**
 * The owner session's tables as holders of the owner's words: the compaction summary, each turn's
 * input and error, and the model-facing messages.
 */
export function sessionHolders(ctx: StoreContext): OwnerTextHolder[] {
  return [
    columnHolder(ctx, 'sessions', [{ column: 'anchor' }]),
    columnHolder(ctx, 'turns', [{ column: 'input' }, { column: 'error' }]),
    columnHolder(ctx, 'messages', [{ column: 'content', json: true }]),
  ];
}
