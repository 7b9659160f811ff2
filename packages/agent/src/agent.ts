/**
 * One owner session's turn loop. A front door hands a message to {@link Agent.turn}: take the
 * session lock, recall, assemble the prompt, call the model with streaming and the memory tools,
 * run tools, and when the turn completes store it in one transaction: the history, an episode for
 * the owner's message and one for the reply, the model's staged writes, and explicit "remember
 * that …" captures as owner_stated facts. The think service's watermark finds the owner's episode
 * (the belief queue has one producer). A failed turn is recorded as failed and becomes nothing
 * else.
 *
 * @module
 */

import { KeelError } from '@keel/errors';
import { captureExplicit } from '@keel/gate';
import {
  describeSecretKind,
  type Episode,
  type Fact,
  localStamp,
  type MemoryStore,
  type RecallMode,
  redactSecrets,
  type SecretKind,
  scanSecrets,
  type WriteResult,
} from '@keel/memory';
import {
  buildStaticBlock,
  buildTurnBlock,
  MEMORY_INSTRUCTIONS,
  type MemoryBlock,
  STANDING_KINDS,
} from '@keel/prompt';
import { countTokens } from 'gpt-tokenizer';
import { acquireTurnLock, type TurnLockOptions } from './lock.js';
import type {
  ChatMessage,
  ChatModel,
  ContentBlock,
  TextBlock,
  ToolResultBlock,
  ToolUseBlock,
} from './model/types.js';
import {
  recordUnansweredTurn,
  SessionStore,
  type StoredMessage,
  type UnansweredRecorder,
  type UnansweredTurn,
} from './session.js';
import { memoryToolSpecs, runMemoryTool, type StagedWrite } from './tools.js';

/** The largest owner message a turn accepts, in estimated tokens. */
export const MAX_MESSAGE_TOKENS = 50_000;
/** The largest owner message in characters (checked before counting tokens). */
export const MAX_MESSAGE_CHARS = 400_000;
/** History above this many tokens is compacted into the anchor. */
export const HISTORY_BUDGET_TOKENS = 24_000;
/** Standing beliefs read for the static block (more than its token budget ever holds). */
export const STATIC_CANDIDATES = 300;
/** Tool rounds per turn before the loop stops asking the model. */
export const MAX_TOOL_ROUNDS = 8;

/**
 * What the owner is told when their message held a credential: keel does not keep it, and why.
 *
 * @returns e.g. "keel does not keep passwords: what your message held was withheld (not stored, not
 *   sent to the model). Keep credentials in a password manager."; empty for no kinds.
 */
export function secretNotice(kinds: readonly SecretKind[]): string {
  if (kinds.length === 0) return '';
  const what = kinds.map(describeSecretKind).join(', ');
  return `keel does not keep ${what}: what your message held was withheld (not stored, not sent to the model). Keep credentials in a password manager.`;
}

/**
 * The system prompt's line with the owner's current local date, weekday, time and zone, e.g.
 * "Now: 2026-12-01 10:00 (Tue), time zone America/Phoenix (the owner's). Dates in memory are days
 * in this zone."
 */
function nowLine(nowMs: number, tz: string): string {
  return `Now: ${localStamp(nowMs, tz)}, time zone ${tz} (the owner's). Dates in memory are days in this zone.`;
}

/** A request to forget a belief that the turn recorded; the owner decides. */
export interface ForgetRequestWrite {
  decision: 'forget_requested';
  reason: string;
  /** The belief the request names. */
  fact: Fact;
  /** The owner's turn it was asked in. */
  episodeId: number;
}

/** One thing a turn did to memory. */
export type TurnWrite = WriteResult | ForgetRequestWrite;

/** Options for {@link Agent}. */
export interface AgentOptions {
  store: MemoryStore;
  /** The model; null for the offline mode (front doors use OfflineSession then). */
  model: ChatModel;
  /** Most output tokens per model call. Default 2048. */
  maxTokens?: number;
  /** History budget before compaction, tokens. Default {@link HISTORY_BUDGET_TOKENS}. */
  historyBudgetTokens?: number;
  /** Turn-lock timing. */
  lock?: TurnLockOptions;
  /**
   * The owner's IANA time zone (`KEEL_TZ`), default UTC: recall reads dates in questions in it,
   * memory shows days in it, and the model is told the local date and time in it.
   */
  tz?: string;
}

/** What a front door passes for one turn. */
export interface TurnInput {
  text: string;
  /** The front door: terminal, discord, cli. */
  channel: string;
  /** Cancels the turn (Ctrl-C, shutdown). */
  signal?: AbortSignal;
  /** Streamed reply text. */
  onText?: (delta: string) => void;
  /** Told when a model attempt failed and is retried: text streamed so far should be discarded. */
  onRetry?: (info: { attempt: number; reason: string }) => void;
}

/** What a completed turn returns. */
export interface TurnResult {
  turnId: number;
  reply: string;
  provider: string;
  model: string;
  mode: RecallMode;
  /** Fact ids the model was shown (static block, per-turn block, tool results). */
  factsUsed: number[];
  /**
   * Everything the turn did to memory when it completed: the capture of an explicit statement, the
   * model's staged writes, and its requests to forget (which wait for the owner).
   */
  writes: TurnWrite[];
  /** Why capturing the owner's explicit statement failed, when it did (the turn went on). */
  captureError: { code: string; message: string } | null;
  /**
   * The kinds of credential withheld from the owner's message (never stored, never sent to the
   * model); empty when there were none. {@link secretNotice} words it for the owner.
   */
  withheld: SecretKind[];
  ownerEpisodeId: number;
  replyEpisodeId: number;
  /** Set when the history was compacted after this turn. */
  compacted: boolean;
}

/** The owner's agent. */
export class Agent implements UnansweredRecorder {
  readonly session: SessionStore;
  private readonly store: MemoryStore;
  private readonly model: ChatModel;
  private staticCache: { key: string; block: MemoryBlock } | null = null;

  constructor(private readonly options: AgentOptions) {
    this.store = options.store;
    this.model = options.model;
    this.session = new SessionStore(options.store);
  }

  /** The owner's time zone. */
  get tz(): string {
    return this.options.tz ?? 'UTC';
  }

  /** The model in use. */
  get modelInfo(): { provider: string; model: string } {
    return { provider: this.model.provider, model: this.model.model };
  }

  /**
   * The static block, rebuilt only when the standing beliefs changed, so the system prompt stays
   * byte-identical between turns and prompt caching works.
   */
  staticBlock(): MemoryBlock {
    const facts = this.store.strongestFacts('owner', STANDING_KINDS, STATIC_CANDIDATES);
    const key = facts.map((f) => `${f.id}:${f.updated_at}`).join(',');
    if (this.staticCache?.key !== key) {
      this.staticCache = { key, block: buildStaticBlock(facts, undefined, this.tz) };
    }
    return this.staticCache.block;
  }

  /**
   * Stores what the owner said while keel was away as their turn, unanswered (see
   * {@link UnansweredRecorder}). Takes no turn lock: it writes one episode and nothing else.
   *
   * @throws KeelError `INVALID_INPUT` for empty text, `TOO_LARGE` past the episode limit.
   */
  recordUnanswered(turn: UnansweredTurn): Episode {
    return recordUnansweredTurn(this.store, turn);
  }

  /**
   * Runs one turn.
   *
   * @throws KeelError `TOO_LARGE` (message refused; nothing stored), `SESSION_BUSY`, `CANCELLED`,
   *   and the model's codes (`MODEL_*`); on every error after the turn started, the turn is
   *   recorded as failed or cancelled and nothing else is stored.
   */
  async turn(input: TurnInput): Promise<TurnResult> {
    const text = input.text.replace(/\u0000/g, ' ').trim();
    if (!text) throw new KeelError('INVALID_INPUT', 'the message is empty');
    if (text.length > MAX_MESSAGE_CHARS || countTokens(text) > MAX_MESSAGE_TOKENS) {
      throw new KeelError(
        'TOO_LARGE',
        `the message is too large for the model (limit about ${MAX_MESSAGE_TOKENS} tokens); nothing was stored`,
      );
    }
    const release = await acquireTurnLock(this.store.path, this.options.lock);
    try {
      this.session.closeAbandonedTurns();
      const turnId = this.session.startTurn(input.channel, text);
      try {
        return await this.run(turnId, text, input);
      } catch (err) {
        const e = KeelError.isInstance(err)
          ? err
          : new KeelError('MODEL_UNAVAILABLE', (err as Error).message ?? String(err), {
              cause: err,
            });
        this.session.failTurn(
          turnId,
          e.code === 'CANCELLED' ? 'cancelled' : 'failed',
          e.code,
          e.message,
        );
        throw e;
      }
    } finally {
      await release();
    }
  }

  private async run(turnId: number, said: string, input: TurnInput): Promise<TurnResult> {
    // No credential reaches a model: the model reads the turn with every secret withheld, and the
    // owner is told which kinds were (the stored episode withholds them too).
    const withheld = [...new Set(scanSecrets(said).map((f) => f.kind))];
    const text = withheld.length > 0 ? redactSecrets(said) : said;
    const history = this.session.history();
    const staticBlock = this.staticBlock();
    const recall = await this.store.recall(text, { limit: 12, tz: this.tz });
    // A pending conflict of a belief the model is shown travels with it, marked as pending.
    const shown = new Set([
      ...staticBlock.factIds,
      ...recall.results.filter((r) => r.type === 'fact').map((r) => r.id),
    ]);
    const pending = this.store
      .pendingConflicts()
      .filter((p) => p.conflicts_with_id !== null && shown.has(p.conflicts_with_id));
    const turnBlock = buildTurnBlock(recall, {
      exclude: new Set(staticBlock.factIds),
      pending,
      tz: this.tz,
    });
    const factsUsed = new Set([...staticBlock.factIds, ...turnBlock.factIds]);

    const system = [
      { text: `${MEMORY_INSTRUCTIONS}\n\n${staticBlock.text}`, cache: true },
      // After the cached part: it changes every minute.
      { text: nowLine(this.store.now(), this.tz) },
      ...(history.anchor
        ? [{ text: `Earlier in this conversation (summary):\n${history.anchor}` }]
        : []),
    ];
    const userMessage: ChatMessage = { role: 'user', content: [{ type: 'text', text }] };
    // The per-turn memory block travels with the owner's message to the model only; history
    // keeps the owner's words.
    const firstRequestUser: ChatMessage = {
      role: 'user',
      content: [
        { type: 'text', text: turnBlock.text },
        { type: 'text', text },
      ],
    };
    const past: ChatMessage[] = history.messages.map(({ role, content }) => ({ role, content }));
    const turnMessages: ChatMessage[] = [userMessage];
    const requestMessages: ChatMessage[] = [...past, firstRequestUser];
    const staged: StagedWrite[] = [];
    let reply = '';

    for (let round = 0; ; round++) {
      const response = await this.model.complete({
        system,
        messages: requestMessages,
        tools: memoryToolSpecs(),
        maxTokens: this.options.maxTokens ?? 2048,
        ...(input.signal ? { signal: input.signal } : {}),
        ...(input.onText ? { onText: input.onText } : {}),
        ...(input.onRetry ? { onRetry: input.onRetry } : {}),
      });
      const assistant: ChatMessage = { role: 'assistant', content: response.content };
      turnMessages.push(assistant);
      requestMessages.push(assistant);
      const said = response.content
        .filter((b): b is TextBlock => b.type === 'text')
        .map((b) => b.text)
        .join('');
      if (said) reply = reply ? `${reply}\n${said}` : said;
      const uses = response.content.filter((b): b is ToolUseBlock => b.type === 'tool_use');
      if (uses.length === 0 || response.stopReason !== 'tool_use') break;
      if (round + 1 >= MAX_TOOL_ROUNDS) {
        // Close the tool calls so history stays well formed, and stop.
        const results: ToolResultBlock[] = uses.map((u) => ({
          type: 'tool_result',
          tool_use_id: u.id,
          content: 'tool limit for this turn reached',
          is_error: true,
        }));
        turnMessages.push({ role: 'user', content: results });
        turnMessages.push({
          role: 'assistant',
          content: [{ type: 'text', text: reply || '(stopped: too many tool calls)' }],
        });
        break;
      }
      const results: ContentBlock[] = [];
      for (const u of uses) {
        const outcome = await runMemoryTool(this.store, u.name, u.input, { tz: this.tz });
        for (const id of outcome.factIds) factsUsed.add(id);
        if (outcome.staged) staged.push(outcome.staged);
        results.push({
          type: 'tool_result',
          tool_use_id: u.id,
          content: outcome.content,
          ...(outcome.isError ? { is_error: true } : {}),
        });
      }
      const toolMessage: ChatMessage = { role: 'user', content: results };
      turnMessages.push(toolMessage);
      requestMessages.push(toolMessage);
    }

    const done = this.complete(turnId, said, reply, turnMessages, staged, input.channel, [
      ...factsUsed,
    ]);
    const compacted = await this.compactIfNeeded(input.signal).catch(() => false);
    return {
      ...done,
      turnId,
      reply,
      ...this.modelInfo,
      mode: recall.mode,
      factsUsed: [...factsUsed],
      compacted,
      withheld,
    };
  }

  /** Stores everything a completed turn leaves, in one transaction. */
  private complete(
    turnId: number,
    text: string,
    reply: string,
    messages: ChatMessage[],
    staged: StagedWrite[],
    channel: string,
    factsUsed: number[],
  ): Pick<TurnResult, 'writes' | 'captureError' | 'ownerEpisodeId' | 'replyEpisodeId'> {
    return this.store.transaction(() => {
      const owner = this.store.addEpisode({ channel, role: 'owner', text, actor: 'owner' });
      const answer = this.store.addEpisode({
        channel,
        role: 'assistant',
        speaker: 'keel',
        text: reply || '(no text)',
        actor: 'model',
      });
      const writes: TurnWrite[] = [];
      // Capture never fails the turn: an error is recorded (keel doctor shows it) and the turn's
      // reply and episodes are stored all the same.
      let captureError: { code: string; message: string } | null = null;
      try {
        const capture = captureExplicit(text);
        if (capture) {
          writes.push(
            this.store.remember({
              kind: capture.kind,
              key: capture.key,
              value: capture.value,
              source: 'owner_stated',
              episodeId: owner.id,
              actor: 'owner',
            }),
          );
        }
      } catch (err) {
        captureError = {
          code: KeelError.isInstance(err) ? err.code : 'INTERNAL',
          message: err instanceof Error ? err.message : String(err),
        };
        this.store.recordCaptureFailure(owner.id, captureError.code, captureError.message);
      }
      for (const w of staged) {
        if (w.tool === 'remember') {
          writes.push(
            this.store.remember({
              kind: w.kind,
              key: w.key,
              value: w.value,
              source: 'inferred',
              episodeId: owner.id,
              actor: 'model',
              ...(w.validFrom === null ? {} : { validFrom: w.validFrom }),
            }),
          );
        } else {
          // The model proposes; the owner decides: a request waits for the owner's answer.
          const f = this.store.fact(w.id);
          if (f && (f.status === 'active' || f.status === 'pending')) {
            const r = this.store.requestForget(w.id, {
              actor: 'model',
              ...(w.reason ? { why: w.reason } : {}),
              episodeId: owner.id,
            });
            writes.push({
              decision: 'forget_requested',
              reason: r.created
                ? 'the model asked to forget it; the owner decides'
                : 'already waiting for the owner',
              fact: f,
              episodeId: owner.id,
            });
          }
        }
      }
      this.session.completeTurn(turnId, messages, { ...this.modelInfo, factsUsed });
      return { writes, captureError, ownerEpisodeId: owner.id, replyEpisodeId: answer.id };
    });
  }

  /**
   * When the history passes its budget, summarises the oldest whole turns into the anchor (a cut
   * never separates a tool_use from its tool_result, because turns are kept whole). On a model
   * error nothing changes.
   *
   * @param budgetTokens - overrides the configured budget for this call.
   * @returns true when the anchor was updated.
   */
  async compactIfNeeded(signal?: AbortSignal, budgetTokens?: number): Promise<boolean> {
    const budget = budgetTokens ?? this.options.historyBudgetTokens ?? HISTORY_BUDGET_TOKENS;
    // Decide from the stored counts; load the messages only when there is something to fold.
    if (this.session.historyTokens() <= budget) return false;
    const history = this.session.history();
    // Fold the oldest turns until what remains is at most half the budget.
    const byTurn = new Map<number, StoredMessage[]>();
    for (const m of history.messages) byTurn.set(m.turnId, [...(byTurn.get(m.turnId) ?? []), m]);
    const turns = [...byTurn.values()];
    let remaining = history.tokens;
    const fold: StoredMessage[] = [];
    while (turns.length > 1 && remaining > budget / 2) {
      const t = turns.shift()!;
      fold.push(...t);
      remaining -= t.reduce((n, m) => n + m.tokens, 0);
    }
    if (fold.length === 0) return false;
    const transcript = fold
      .map((m) => {
        const parts = m.content.map((b) =>
          b.type === 'text'
            ? b.text
            : b.type === 'tool_use'
              ? `[tool ${b.name} ${JSON.stringify(b.input)}]`
              : `[tool result: ${b.content.slice(0, 500)}]`,
        );
        return `${m.role === 'user' ? 'Owner' : 'keel'}: ${parts.join(' ')}`;
      })
      .join('\n');
    const response = await this.model.complete({
      system: [
        {
          text: 'You compact a conversation between an owner and their agent, keel. Write a concise summary that keeps every decision made, every open task or promise, every constraint or preference the owner stated, and names, dates and numbers that matter. Plain text, no preamble.',
        },
      ],
      messages: [
        {
          role: 'user',
          content: [
            {
              type: 'text',
              text: `${history.anchor ? `Summary so far:\n${history.anchor}\n\n` : ''}Conversation to fold in:\n${transcript}`,
            },
          ],
        },
      ],
      tools: [],
      maxTokens: 1024,
      ...(signal ? { signal } : {}),
    });
    const summary = response.content
      .filter((b): b is TextBlock => b.type === 'text')
      .map((b) => b.text)
      .join('')
      .trim();
    if (!summary) return false;
    this.session.setAnchor(summary, fold[fold.length - 1]!.id);
    return true;
  }
}
