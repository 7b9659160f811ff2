/**
 * The owner session's history in the SQLite file: one session that every front door appends to,
 * turns with their outcome, the messages of complete turns, and the compaction anchor.
 *
 * A turn's messages are written together when the turn completes, so history always holds whole
 * turns: a tool_use is never stored without its tool_result, and a failed turn leaves only its
 * `turns` row.
 *
 * @module
 */
import type { MemoryStore } from '@keel/memory';
import { redactSecrets, stmt } from '@keel/memory';
import { countTokens } from 'gpt-tokenizer';
import type { ChatMessage, ContentBlock } from './model/types.js';

/** A stored message of a complete turn. */
export interface StoredMessage extends ChatMessage {
  id: number;
  turnId: number;
  /** Estimated tokens. */
  tokens: number;
}

/** What the model sees of the past: the compaction summary and the messages after it. */
export interface SessionHistory {
  anchor: string | null;
  messages: StoredMessage[];
  /** Estimated tokens of anchor + messages. */
  tokens: number;
}

/** The outcome of a turn as recorded. */
export type TurnStatus = 'running' | 'complete' | 'failed' | 'cancelled';

/** A turn row. */
export interface TurnRow {
  id: number;
  channel: string;
  status: TurnStatus;
  input: string;
  error_code: string | null;
  error: string | null;
  provider: string | null;
  model: string | null;
  facts_used: string | null;
  started_at: number;
  finished_at: number | null;
}

/** Estimated tokens of a message's content. */
export function messageTokens(content: ContentBlock[]): number {
  let n = 4;
  for (const b of content) {
    if (b.type === 'text') n += countTokens(b.text);
    else if (b.type === 'tool_use') n += countTokens(b.name) + countTokens(JSON.stringify(b.input));
    else n += countTokens(b.content) + 4;
  }
  return n;
}

/** The owner session. */
export class SessionStore {
  readonly id: number;

  constructor(
    private readonly store: MemoryStore,
    /** Session name; there is one owner session, "owner". */
    readonly name = 'owner',
  ) {
    const db = store.db;
    const now = store.ctx.now();
    stmt(db, 'INSERT OR IGNORE INTO sessions (name, created_at, updated_at) VALUES (?, ?, ?)').run(
      name,
      now,
      now,
    );
    this.id = (stmt(db, 'SELECT id FROM sessions WHERE name = ?').get(name) as { id: number }).id;
  }

  /**
   * Marks turns left `running` by a process that died as failed. Call while holding the turn
   * lock: then no other turn can be running.
   *
   * @returns how many were closed.
   */
  closeAbandonedTurns(): number {
    return stmt(
      this.store.db,
      `UPDATE turns SET status = 'failed', error_code = 'ABANDONED', error = 'the process running this turn stopped',
         finished_at = ? WHERE session_id = ? AND status = 'running'`,
    ).run(this.store.ctx.now(), this.id).changes;
  }

  /** Records the start of a turn (credentials in `input` withheld). @returns its id. */
  startTurn(channel: string, input: string): number {
    return Number(
      stmt(
        this.store.db,
        `INSERT INTO turns (session_id, channel, status, input, started_at) VALUES (?, ?, 'running', ?, ?)`,
      ).run(this.id, channel, redactSecrets(input), this.store.ctx.now()).lastInsertRowid,
    );
  }

  /**
   * Stores a complete turn's messages and marks it complete. Call inside the transaction that
   * stores the turn's episodes and captures, so all of it commits together.
   */
  completeTurn(
    turnId: number,
    messages: ChatMessage[],
    meta: { provider: string; model: string; factsUsed: number[] },
  ): void {
    const now = this.store.ctx.now();
    const insert = stmt(
      this.store.db,
      'INSERT INTO messages (session_id, turn_id, role, content, tokens, created_at) VALUES (?, ?, ?, ?, ?, ?)',
    );
    for (const m of messages) {
      // Secrets are never stored: every string in the blocks is redacted (the model saw the turn
      // as typed; the stored history, like the episodes, withholds credentials).
      const content = withheld(m.content) as ChatMessage['content'];
      insert.run(this.id, turnId, m.role, JSON.stringify(content), messageTokens(content), now);
    }
    stmt(
      this.store.db,
      `UPDATE turns SET status = 'complete', provider = ?, model = ?, facts_used = ?, finished_at = ? WHERE id = ?`,
    ).run(meta.provider, meta.model, JSON.stringify(meta.factsUsed), now, turnId);
    stmt(this.store.db, 'UPDATE sessions SET updated_at = ? WHERE id = ?').run(now, this.id);
  }

  /** Marks a turn failed or cancelled; nothing of it enters the history. */
  failTurn(turnId: number, status: 'failed' | 'cancelled', code: string, message: string): void {
    stmt(
      this.store.db,
      'UPDATE turns SET status = ?, error_code = ?, error = ?, finished_at = ? WHERE id = ?',
    ).run(status, code, message, this.store.ctx.now(), turnId);
  }

  /** The history the model sees: the anchor and every message after it, oldest first. */
  history(): SessionHistory {
    const s = stmt(this.store.db, 'SELECT anchor, anchor_through FROM sessions WHERE id = ?').get(
      this.id,
    ) as {
      anchor: string | null;
      anchor_through: number | null;
    };
    const rows = stmt(
      this.store.db,
      'SELECT id, turn_id, role, content, tokens FROM messages WHERE session_id = ? AND id > ? ORDER BY id',
    ).all(this.id, s.anchor_through ?? 0) as {
      id: number;
      turn_id: number;
      role: 'user' | 'assistant';
      content: string;
      tokens: number;
    }[];
    const messages = rows.map((r) => ({
      id: r.id,
      turnId: r.turn_id,
      role: r.role,
      content: JSON.parse(r.content) as ContentBlock[],
      tokens: r.tokens,
    }));
    const tokens = messages.reduce((n, m) => n + m.tokens, s.anchor ? countTokens(s.anchor) : 0);
    return { anchor: s.anchor, messages, tokens };
  }

  /**
   * Estimated tokens of what the model sees (anchor + messages after it), from the stored counts,
   * without loading the messages.
   */
  historyTokens(): number {
    const row = stmt(
      this.store.db,
      `SELECT s.anchor AS anchor, coalesce((SELECT sum(m.tokens) FROM messages m
         WHERE m.session_id = s.id AND m.id > coalesce(s.anchor_through, 0)), 0) AS tokens
       FROM sessions s WHERE s.id = ?`,
    ).get(this.id) as { anchor: string | null; tokens: number };
    return row.tokens + (row.anchor ? countTokens(row.anchor) : 0);
  }

  /** Replaces the anchor with a summary of everything up to message `throughId`. */
  setAnchor(summary: string, throughId: number): void {
    const now = this.store.ctx.now();
    stmt(
      this.store.db,
      'UPDATE sessions SET anchor = ?, anchor_through = ?, anchor_updated_at = ?, updated_at = ? WHERE id = ?',
    ).run(summary, throughId, now, now, this.id);
  }

  /** The newest turns, newest first. */
  recentTurns(limit = 10): TurnRow[] {
    return stmt(
      this.store.db,
      'SELECT * FROM turns WHERE session_id = ? ORDER BY id DESC LIMIT ?',
    ).all(this.id, limit) as TurnRow[];
  }
}

/** A copy of `node` with every string passed through `redactSecrets`. */
function withheld(node: unknown): unknown {
  if (typeof node === 'string') return redactSecrets(node);
  if (Array.isArray(node)) return node.map(withheld);
  if (node && typeof node === 'object') {
    return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, withheld(v)]));
  }
  return node;
}
