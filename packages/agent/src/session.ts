/**
 * The owner session's history in the SQLite file: one session that every front door appends to,
 * turns with their outcome, the messages of complete turns, and the compaction anchor. Also the
 * contract for what the owner said while keel was away ({@link UnansweredRecorder}), which the
 * agent and the offline session both implement with {@link recordUnansweredTurn}.
 *
 * A turn's messages are written together when the turn completes, so history always holds whole
 * turns: a tool_use is never stored without its tool_result, and a failed turn leaves only its
 * `turns` row.
 *
 * @module
 */
import { KeelError } from '@keel/errors';
import type { Episode, MemoryStore, OwnerSessionRepo, TurnRow } from '@keel/memory';
import { countTokens } from '@keel/prompt';
import type { ChatMessage, ContentBlock } from './model/types.js';

export type { TurnRow, TurnStatus } from '@keel/memory';

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

/**
 * The owner session as the model sees it: the store's session tables (`MemoryStore.session`) with
 * content blocks and token estimates.
 */
export class SessionStore {
  private readonly repo: OwnerSessionRepo;

  constructor(
    store: MemoryStore,
    /** Session name; there is one owner session, "owner". */
    readonly name = 'owner',
  ) {
    this.repo = store.session(name);
  }

  /** The session's row id. */
  get id(): number {
    return this.repo.id;
  }

  /**
   * Marks turns left `running` by a process that died as failed. Call while holding the turn
   * lock: then no other turn can be running.
   *
   * @returns how many were closed.
   */
  closeAbandonedTurns(): number {
    return this.repo.closeAbandonedTurns();
  }

  /** Records the start of a turn (credentials in `input` withheld). @returns its id. */
  startTurn(channel: string, input: string): number {
    return this.repo.startTurn(channel, input);
  }

  /**
   * Stores a complete turn's messages (credentials withheld) and marks it complete. Call inside
   * the transaction that stores the turn's episodes and captures, so all of it commits together.
   */
  completeTurn(
    turnId: number,
    messages: ChatMessage[],
    meta: { provider: string; model: string; factsUsed: number[] },
  ): void {
    this.repo.completeTurn(turnId, messages, meta, (content) =>
      messageTokens(content as ContentBlock[]),
    );
  }

  /** Marks a turn failed or cancelled; nothing of it enters the history. */
  failTurn(turnId: number, status: 'failed' | 'cancelled', code: string, message: string): void {
    this.repo.failTurn(turnId, status, code, message);
  }

  /** The history the model sees: the anchor and every message after it, oldest first. */
  history(): SessionHistory {
    const h = this.repo.history();
    const messages = h.messages.map((m) => ({
      id: m.id,
      turnId: m.turnId,
      role: m.role,
      content: m.content as ContentBlock[],
      tokens: m.tokens,
    }));
    const tokens = messages.reduce((n, m) => n + m.tokens, h.anchor ? countTokens(h.anchor) : 0);
    return { anchor: h.anchor, messages, tokens };
  }

  /**
   * Estimated tokens of what the model sees (anchor + messages after it), from the stored counts,
   * without loading the messages.
   */
  historyTokens(): number {
    const size = this.repo.historySize();
    return size.messageTokens + (size.anchor ? countTokens(size.anchor) : 0);
  }

  /** Replaces the anchor with a summary of everything up to message `throughId`. */
  setAnchor(summary: string, throughId: number): void {
    this.repo.setAnchor(summary, throughId);
  }

  /** The newest turns, newest first. */
  recentTurns(limit = 10): TurnRow[] {
    return this.repo.recentTurns(limit);
  }
}

/** Something the owner said on a front door while keel was away, to store without answering. */
export interface UnansweredTurn {
  /** The owner's words (attachments already inlined); surrounding whitespace is dropped. */
  text: string;
  /** The front door it came through: discord, imessage. */
  channel: string;
  /** When the owner sent it, ms since epoch (not when keel caught up). */
  occurredAt: number;
  /** Its provenance on the front door, e.g. `discord:<message id>`. */
  sourceId: string;
  /** Front-door fields for the episode's meta (e.g. the message id); `caught_up: true` is added. */
  meta?: Record<string, unknown>;
}

/**
 * The owner session's door for catch-up: a front door that finds messages sent while it was away
 * hands each to {@link UnansweredRecorder.recordUnanswered} instead of writing episodes itself.
 * `Agent` and `OfflineSession` implement it, storing the same episode.
 */
export interface UnansweredRecorder {
  /**
   * Stores the owner's words as their turn, unanswered: one `conversation` episode, role and
   * actor `owner`, with the turn's time, provenance and meta. No model is called, no history is
   * written, no fact is captured; the think service's watermark queues the episode like any
   * other owner turn.
   *
   * @returns the stored episode (credentials in the text withheld).
   * @throws KeelError `INVALID_INPUT` for empty text, `TOO_LARGE` past the episode limit.
   */
  recordUnanswered(turn: UnansweredTurn): Episode;
}

/**
 * The one implementation of {@link UnansweredRecorder.recordUnanswered}, shared by the agent and
 * the offline session so both store the same episode.
 *
 * @throws KeelError `INVALID_INPUT` for empty text, `TOO_LARGE` past the episode limit.
 */
export function recordUnansweredTurn(store: MemoryStore, turn: UnansweredTurn): Episode {
  const text = turn.text.trim();
  if (!text) throw new KeelError('INVALID_INPUT', 'the message is empty');
  return store.addEpisode({
    kind: 'conversation',
    channel: turn.channel,
    role: 'owner',
    text,
    actor: 'owner',
    occurredAt: turn.occurredAt,
    sourceId: turn.sourceId,
    meta: { ...turn.meta, caught_up: true },
  });
}
