/**
 * One owner session's turn loop. A front door hands a message to {@link Agent.turn}: take the
 * session lock, recall, assemble the prompt, call the model with streaming and the memory tools,
 * run tools, and when the turn completes store it in one transaction: the history, an episode for
 * the owner's message and one for the reply, the model's staged writes, and explicit "remember
 * that …" captures as owner_stated facts. The think service's watermark finds the owner's episode
 * (the belief queue has one producer). A failed turn is recorded as failed and becomes nothing
 * else.
 *
 * The request never outgrows the model's window: each is counted before it is sent (`budget.ts`),
 * the history is folded into the anchor to make room, tool results are cut to their budgets, a
 * model that keeps calling tools is asked to answer with what it has, and a turn that cannot fit
 * is rolled back (`TOO_LARGE`), so the next turn always starts from a history that fits.
 *
 * @module
 */

import { KeelError } from '@keel/errors';
import {
  describeSecretKind,
  localStamp,
  redactSecrets,
  type SecretKind,
  scanSecrets,
} from '@keel/language';
import type { Episode, Fact, MemoryStore, RecallMode, WriteResult } from '@keel/memory';
import {
  buildStaticBlock,
  buildTurnBlock,
  countTokens,
  decodeTokens,
  encodeTokens,
  flagStoredText,
  MEMORY_INSTRUCTIONS,
  type MemoryBlock,
  STANDING_KINDS,
} from '@keel/prompt';
import {
  budgetToolResults,
  CONTEXT_MARGIN,
  MIN_ROUND_TOKENS,
  type RawToolResult,
  type RequestBudget,
  requestBudget,
  systemTokens,
  TOOL_RESULT_TOKENS,
  TOOL_ROUND_TOKENS,
  toolSpecTokens,
} from './budget.js';
import { captureOwnerStatement } from './capture.js';
import { acquireTurnLock, type TurnLockOptions } from './lock.js';
import type {
  ChatMessage,
  ChatModel,
  ChatResponse,
  ContentBlock,
  SystemPart,
  TextBlock,
  ToolResultBlock,
  ToolSpec,
  ToolUseBlock,
} from './model/types.js';
import {
  messageTokens,
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
/**
 * Model calls per turn that may call tools: the call that reaches the limit is answered, and the
 * next is asked to answer without tools (continuations of a cut reply come on top).
 */
export const MAX_TOOL_ROUNDS = 8;
/** How often a reply cut at `max_tokens` is continued before it is given as cut. */
export const MAX_CONTINUATIONS = 2;
/** What the model is told when its reply was cut at the length limit. */
export const CONTINUE_PROMPT =
  '(keel: your reply was cut at the length limit. Continue exactly where it stopped, without repeating anything.)';
/** What a front door says under a reply that is still cut after the continuations. */
export const TRUNCATED_NOTE = '(the reply was cut at the length limit)';
/** What keel says when it ends a turn because the model kept calling tools past the limit. */
export const STOPPED_NOTE =
  '(keel stopped this turn: the model kept calling tools past the limit for one turn. Ask again, more narrowly.)';
/** The most the agent assumes a provider out-counts keel's tokenizer, whatever it is told. */
const MAX_LEARNED_SCALE = 2;
/** Output tokens of a compaction summary, at most. */
const SUMMARY_MAX_TOKENS = 1024;
/** Tokens held for the anchor when history is folded to fit a request. */
const ANCHOR_ALLOWANCE = 1_600;
/** Tokens of one compaction pass's transcript, at most; fewer when the model's window is small. */
const COMPACT_CHUNK_TOKENS = 32_000;
/** Tokens of one compaction pass's transcript, at least. */
const MIN_CHUNK_TOKENS = 1_000;
/** Tokens of one message in a compaction transcript, at most. */
const COMPACT_MESSAGE_TOKENS = 2_000;
/** Tokens a compaction request holds besides its transcript: the instructions and the anchor. */
const SUMMARY_ALLOWANCE = ANCHOR_ALLOWANCE + 200;
const COMPACT_SYSTEM =
  'You compact a conversation between an owner and their agent, keel. Write a concise summary that keeps every decision made, every open task or promise, every constraint or preference the owner stated, and names, dates and numbers that matter. Plain text, no preamble.';

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
  /** `max_tokens` of each model call. Default: the model's (`ChatModel.limits`). */
  maxTokens?: number;
  /** The model's context window, tokens. Default: the model's (`ChatModel.limits`). */
  contextTokens?: number;
  /** The share of the window kept free. Default {@link CONTEXT_MARGIN}. */
  contextMargin?: number;
  /** Most tokens of one tool result. Default {@link TOOL_RESULT_TOKENS}. */
  toolResultTokens?: number;
  /** Most tokens of one round of tool results. Default {@link TOOL_ROUND_TOKENS}. */
  toolRoundTokens?: number;
  /**
   * History budget before compaction after a turn, tokens. Default
   * {@link HISTORY_BUDGET_TOKENS}, at most half of what a request may carry.
   */
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
  /**
   * True when the reply is cut at the length limit (`max_tokens`) even after it was continued
   * {@link MAX_CONTINUATIONS} times: a front door says so ({@link TRUNCATED_NOTE}).
   */
  truncated: boolean;
  /** The largest request of the turn, in tokens as keel counts them. */
  requestTokens: number;
}

/** The owner's agent. */
export class Agent implements UnansweredRecorder {
  readonly session: SessionStore;
  private readonly store: MemoryStore;
  private readonly model: ChatModel;
  private staticCache: { key: string; block: MemoryBlock } | null = null;
  /** What the provider taught this agent: its window, and how much more it counts than keel. */
  private readonly learned: { limitTokens: number | null; scale: number } = {
    limitTokens: null,
    scale: 1,
  };

  constructor(private readonly options: AgentOptions) {
    this.store = options.store;
    this.model = options.model;
    this.session = new SessionStore(options.store);
  }

  /** The owner's time zone. */
  get tz(): string {
    return this.options.tz ?? 'UTC';
  }

  /** The system prompt's line with the owner's local time and zone. */
  private now(): string {
    return nowLine(this.store.now(), this.tz);
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
    const questions = this.store.questions();
    const key = `${facts.map((f) => `${f.id}:${f.updated_at}`).join(',')}|${questions.map((q) => q.id).join(',')}`;
    if (this.staticCache?.key !== key) {
      this.staticCache = { key, block: buildStaticBlock(facts, undefined, this.tz, questions) };
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
   * Every request is counted before it is sent and kept within the model's window
   * ({@link Agent.budget}): the history is compacted to make room, tool results are cut to their
   * budgets, and a model that keeps calling tools is asked to answer with what it has. A provider
   * that still refuses the request (HTTP 400 "prompt is too long", or a history it will not take)
   * gets one retry after compaction. A reply cut at `max_tokens` is continued (at most
   * {@link MAX_CONTINUATIONS} times), then returned with `truncated`.
   *
   * @throws KeelError `TOO_LARGE` (message refused, or the turn does not fit the model's window
   *   even after compaction; nothing stored), `SESSION_BUSY`, `CANCELLED`, `INVALID_INPUT` (a
   *   window too small for `max_tokens`), and the model's codes (`MODEL_*`); on every error after
   *   the turn started, the turn is recorded as failed or cancelled and nothing else is stored.
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
    // The owner's previous turn is the scan's context: the secret half of a key pair whose id
    // half it held is withheld too.
    const previous = this.store.lastOwnerTurn() ?? undefined;
    const withheld = [...new Set(scanSecrets(said, { context: previous }).map((f) => f.kind))];
    const text = withheld.length > 0 ? redactSecrets(said, undefined, previous) : said;
    const signal = input.signal;
    let budget = await this.budget();
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
      questions: this.store.questions(),
      tz: this.tz,
    });
    const factsUsed = new Set([...staticBlock.factIds, ...turnBlock.factIds]);
    const tools = memoryToolSpecs();

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
    // What the turn stores when it completes, and what the model sees of it.
    const turnMessages: ChatMessage[] = [userMessage];
    const sent: ChatMessage[] = [firstRequestUser];
    // The first request leaves room for a reply and for closing a round of tool calls.
    let context = await this.fitHistory(staticBlock, sent, tools, budget, budget.open, signal);
    let size = context.tokens;
    let largest = 0;
    const staged: StagedWrite[] = [];
    let reply = '';
    let truncated = false;
    let continuing = false;
    let continuations = 0;
    let calls = 0;
    let retried = false;
    /** Why the next call must answer without tools (null: it may call them). */
    let answerNow: string | null = null;
    /** Ends the turn with keel's own words when the model cannot be asked again. */
    const stop = (note: string) => {
      turnMessages.push({ role: 'assistant', content: [{ type: 'text', text: note }] });
      reply = reply ? `${reply}\n${note}` : note;
    };

    for (;;) {
      if (size > budget.input) {
        // A safety net: rounds are budgeted so this does not happen; never send past the budget.
        stop(STOPPED_NOTE);
        break;
      }
      let response: ChatResponse;
      try {
        response = await this.model.complete({
          system: context.system,
          messages: [...context.past, ...sent],
          tools,
          maxTokens: budget.maxTokens,
          ...(answerNow ? { toolChoice: 'none' as const } : {}),
          ...(signal ? { signal } : {}),
          ...(input.onText ? { onText: input.onText } : {}),
          ...(input.onRetry ? { onRetry: input.onRetry } : {}),
        });
      } catch (err) {
        // The provider refused the request as sent (too long, or a history it will not take):
        // compact the history and try once more; the turn is rolled back if it still cannot go.
        if (retried || !KeelError.isInstance(err) || err.code !== 'MODEL_REFUSED_INPUT') throw err;
        const tooLong = this.learn(err, size);
        if (!tooLong && context.past.length === 0) throw err;
        retried = true;
        budget = await this.budget().catch((e: unknown) => {
          // What the provider allows leaves no room for this turn: it is rolled back.
          if (!KeelError.isInstance(e) || e.code !== 'INVALID_INPUT') throw e;
          throw new KeelError(
            'TOO_LARGE',
            `this turn is too large for the model's context (${e.message}): nothing of it was stored.`,
            { cause: err },
          );
        });
        if (!tooLong) await this.fold(signal, 0, 0, budget);
        context = await this.fitHistory(staticBlock, sent, tools, budget, budget.input, signal);
        size = context.tokens;
        continue;
      }
      calls++;
      largest = Math.max(largest, size);
      const content = answerContent(response.content);
      const assistant: ChatMessage = { role: 'assistant', content };
      turnMessages.push(assistant);
      sent.push(assistant);
      size += messageTokens(content);
      const saidNow = textOf(response.content);
      if (saidNow) {
        reply = continuing ? `${reply}${saidNow}` : reply ? `${reply}\n${saidNow}` : saidNow;
      }
      continuing = false;
      const uses = content.filter((b): b is ToolUseBlock => b.type === 'tool_use');
      if (uses.length > 0) {
        // Every call is answered, whatever the stop reason, so the history stays well formed.
        if (answerNow) {
          // Told to answer without tools, it called them anyway: close the calls and stop.
          turnMessages.push({ role: 'user', content: notRun(uses, answerNow) });
          stop(STOPPED_NOTE);
          break;
        }
        const room = Math.min(
          this.options.toolRoundTokens ?? TOOL_ROUND_TOKENS,
          budget.open - size,
        );
        let results: ContentBlock[];
        if (room < MIN_ROUND_TOKENS) {
          answerNow = 'this turn has no room left for more tool results';
          results = notRun(uses, answerNow);
        } else {
          const raw: RawToolResult[] = [];
          const shownBy = new Map<string, number[]>();
          for (const u of uses) {
            const outcome = await runMemoryTool(this.store, u.name, u.input, {
              tz: this.tz,
              ownerText: text,
            });
            if (outcome.staged) staged.push(outcome.staged);
            shownBy.set(u.id, outcome.factIds);
            raw.push({ toolUseId: u.id, content: outcome.content, isError: outcome.isError });
          }
          const round = budgetToolResults(
            raw,
            this.options.toolResultTokens ?? TOOL_RESULT_TOKENS,
            room,
          );
          // Facts count as used only when their line reached the model.
          round.blocks.forEach((block, i) => {
            for (const id of shownBy.get(block.tool_use_id) ?? []) {
              if (round.whole[i] || block.content.includes(`[f${id}]`)) factsUsed.add(id);
            }
          });
          results = round.blocks;
          if (calls + 1 >= MAX_TOOL_ROUNDS) answerNow = 'this turn reached its limit of tool calls';
        }
        if (answerNow) results = [...results, { type: 'text', text: answerNowPrompt(answerNow) }];
        const toolMessage: ChatMessage = { role: 'user', content: results };
        turnMessages.push(toolMessage);
        sent.push(toolMessage);
        size += messageTokens(results);
        continue;
      }
      if (response.stopReason === 'max_tokens') {
        // Cut at the length limit: ask for the rest (at most twice), else say it was cut.
        const ask: ChatMessage = {
          role: 'user',
          content: [{ type: 'text', text: CONTINUE_PROMPT }],
        };
        const after = size + messageTokens(ask.content);
        if (continuations < MAX_CONTINUATIONS && after <= budget.open) {
          continuations++;
          turnMessages.push(ask);
          sent.push(ask);
          size = after;
          continuing = true;
          continue;
        }
        truncated = true;
      }
      break;
    }

    const done = this.complete(turnId, said, reply, turnMessages, staged, input.channel, [
      ...factsUsed,
    ]);
    const compacted = await this.compactIfNeeded(signal).catch(() => false);
    return {
      ...done,
      turnId,
      reply,
      ...this.modelInfo,
      mode: recall.mode,
      factsUsed: [...factsUsed],
      compacted,
      withheld,
      truncated,
      requestTokens: largest,
    };
  }

  /**
   * The model's limits with the options over them and what the provider taught this agent, as the
   * budget of every request.
   *
   * @throws KeelError `INVALID_INPUT` when the window leaves too little room (see `requestBudget`).
   */
  async budget(): Promise<RequestBudget> {
    const limits = await this.model.limits();
    const contextTokens = Math.min(
      this.options.contextTokens ?? limits.contextTokens,
      this.learned.limitTokens ?? Number.POSITIVE_INFINITY,
    );
    const maxTokens = this.options.maxTokens ?? limits.maxOutputTokens;
    return requestBudget(
      contextTokens,
      maxTokens,
      this.options.contextMargin ?? CONTEXT_MARGIN,
      this.learned.scale,
    );
  }

  /**
   * Learns from a provider's refusal: for "prompt is too long", its window (when it names one) and
   * how many more tokens it counts than keel did for the same request (`counted`).
   *
   * @returns true when the refusal said the prompt was too long.
   */
  private learn(err: KeelError, counted: number): boolean {
    const d = (err.details ?? {}) as {
      reason?: string;
      promptTokens?: number;
      limitTokens?: number;
    };
    if (d.reason !== 'prompt_too_long') return false;
    if (d.limitTokens) {
      this.learned.limitTokens = Math.min(
        this.learned.limitTokens ?? Number.POSITIVE_INFINITY,
        d.limitTokens,
      );
    }
    // Without counts, assume the provider counts half again as many tokens as keel; one odd
    // request never makes it more than twice.
    const ratio = d.promptTokens && counted > 0 ? d.promptTokens / counted : 1.5;
    this.learned.scale = Math.min(MAX_LEARNED_SCALE, Math.max(this.learned.scale, ratio * 1.05));
    return true;
  }

  /**
   * The system parts and the history for a request whose own messages (this turn's, as sent)
   * are `sent`, within `target` tokens: when the history does not fit, the oldest turns are
   * folded into the anchor (the last turn too, when it alone is too large); when that is still
   * not enough, the oldest turns are left out of this request.
   *
   * @throws KeelError `TOO_LARGE` when this turn's own messages do not fit (nothing is stored).
   */
  private async fitHistory(
    staticBlock: MemoryBlock,
    sent: readonly ChatMessage[],
    tools: readonly ToolSpec[],
    budget: RequestBudget,
    target: number,
    signal: AbortSignal | undefined,
  ): Promise<{ system: SystemPart[]; past: ChatMessage[]; tokens: number }> {
    const fixed = toolSpecTokens(tools) + sent.reduce((n, m) => n + messageTokens(m.content), 0);
    const own = fixed + systemTokens(systemParts(staticBlock, null, this.now()));
    if (own > target) {
      throw new KeelError(
        'TOO_LARGE',
        `this turn is too large for the model's context (about ${own} tokens; the budget is ${target}): nothing of it was stored. Send a shorter message or ask for less at once.`,
        { details: { tokens: own, budget: target } },
      );
    }
    const measure = (anchor: string | null, messages: readonly StoredMessage[]) => {
      const system = systemParts(staticBlock, anchor, this.now());
      const tokens = fixed + systemTokens(system) + messages.reduce((n, m) => n + m.tokens, 0);
      return { system, tokens };
    };
    let history = this.session.history();
    if (measure(history.anchor, history.messages).tokens > target) {
      const keep = Math.max(0, target - own - ANCHOR_ALLOWANCE);
      await this.fold(signal, keep, keep, budget);
      history = this.session.history();
    }
    // Last resort, for this request only: leave out the oldest turns until it fits.
    let messages = history.messages;
    let m = measure(history.anchor, messages);
    while (m.tokens > target && messages.length > 0) {
      const first = messages[0]!.turnId;
      messages = messages.filter((x) => x.turnId !== first);
      m = measure(history.anchor, messages);
    }
    if (m.tokens > target) {
      throw new KeelError(
        'TOO_LARGE',
        `this turn and the conversation summary do not fit the model's context (about ${m.tokens} tokens; the budget is ${target}): nothing of it was stored.`,
        { details: { tokens: m.tokens, budget: target } },
      );
    }
    return {
      system: m.system,
      past: messages.map(({ role, content }) => ({ role, content })),
      tokens: m.tokens,
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
      const captured = captureOwnerStatement(this.store, text, owner.id, this.tz);
      if (captured.write) writes.push(captured.write);
      writes.push(...captured.also);
      const captureError = captured.error;
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
   * never separates a tool_use from its tool_result, because turns are kept whole; the newest turn
   * is folded too when it alone passes half the budget). On a model error the anchor keeps what
   * was summarised before it.
   *
   * @param budgetTokens - overrides the configured budget for this call. Default: the configured
   *   one ({@link HISTORY_BUDGET_TOKENS}), at most half of what a request may carry.
   * @returns true when the anchor was updated.
   */
  async compactIfNeeded(signal?: AbortSignal, budgetTokens?: number): Promise<boolean> {
    const budget = await this.budget();
    const limit =
      budgetTokens ??
      Math.min(
        this.options.historyBudgetTokens ?? HISTORY_BUDGET_TOKENS,
        Math.floor(budget.open / 2),
      );
    // Decide from the stored counts; load the messages only when there is something to fold.
    if (this.session.historyTokens() <= limit) return false;
    return this.fold(signal, limit / 2, limit, budget);
  }

  /**
   * Folds the oldest whole turns into the anchor until the messages left hold at most
   * `keepTokens`; the newest turn is folded only when it alone holds more than `newestTokens`. The folded transcript is summarised in passes that
   * each fit a request (every message cut to its share); a pass the model refuses, or answers
   * with nothing, is replaced by a plain list of what the owner said, so the history always
   * shrinks.
   *
   * @returns true when the anchor was updated.
   * @throws the model's errors other than `MODEL_REFUSED_INPUT` (the anchor keeps the passes
   *   already made).
   */
  private async fold(
    signal: AbortSignal | undefined,
    keepTokens: number,
    newestTokens: number,
    budget: RequestBudget,
  ): Promise<boolean> {
    const history = this.session.history();
    const byTurn = new Map<number, StoredMessage[]>();
    for (const m of history.messages) byTurn.set(m.turnId, [...(byTurn.get(m.turnId) ?? []), m]);
    const turns = [...byTurn.values()];
    let remaining = history.messages.reduce((n, m) => n + m.tokens, 0);
    const folded: StoredMessage[][] = [];
    while (turns.length > 0 && remaining > (turns.length === 1 ? newestTokens : keepTokens)) {
      const t = turns.shift()!;
      folded.push(t);
      remaining -= t.reduce((n, m) => n + m.tokens, 0);
    }
    if (folded.length === 0) return false;
    const maxTokens = Math.min(SUMMARY_MAX_TOKENS, budget.maxTokens);
    // Each pass: the instructions, the summary so far, and as many whole turns as fit.
    const chunkBudget = Math.max(
      MIN_CHUNK_TOKENS,
      Math.min(
        COMPACT_CHUNK_TOKENS,
        budget.input - SUMMARY_ALLOWANCE - countTokens(COMPACT_SYSTEM),
      ),
    );
    let anchor = history.anchor;
    let chunk: string[] = [];
    let chunkTokens = 0;
    let lastId = 0;
    const flush = async () => {
      if (chunk.length === 0) return;
      anchor = await this.summarise(anchor, chunk.join('\n'), maxTokens, signal);
      this.session.setAnchor(anchor, lastId);
      chunk = [];
      chunkTokens = 0;
    };
    for (const turn of folded) {
      const lines = transcriptLines(turn, chunkBudget);
      const tokens = lines.reduce((n, l) => n + countTokens(l) + 1, 0);
      if (chunkTokens + tokens > chunkBudget) await flush();
      chunk.push(...lines);
      chunkTokens += tokens;
      lastId = turn[turn.length - 1]!.id;
    }
    await flush();
    return true;
  }

  /** One summarising pass; a refusal or an empty answer falls back to {@link plainSummary}. */
  private async summarise(
    anchor: string | null,
    transcript: string,
    maxTokens: number,
    signal: AbortSignal | undefined,
  ): Promise<string> {
    try {
      const response = await this.model.complete({
        system: [{ text: COMPACT_SYSTEM }],
        messages: [
          {
            role: 'user',
            content: [
              {
                type: 'text',
                // Stored words reach the model here too: a line that reads like instructions is
                // flagged, in the summary so far and in the turns folded in.
                text: `${anchor ? `Summary so far:\n${flagStoredText(anchor)}\n\n` : ''}Conversation to fold in:\n${flagStoredText(transcript)}`,
              },
            ],
          },
        ],
        tools: [],
        maxTokens,
        ...(signal ? { signal } : {}),
      });
      const summary = textOf(response.content).trim();
      if (summary) return summary;
    } catch (err) {
      if (!KeelError.isInstance(err) || err.code !== 'MODEL_REFUSED_INPUT') throw err;
    }
    return plainSummary(anchor, transcript);
  }
}

/**
 * The system prompt: the instructions with the static block (cached), then the owner's local time
 * (after the cached part: it changes every minute), then the anchor (a summary of stored turns:
 * its lines that read like instructions are flagged, `flagStoredText`).
 */
function systemParts(staticBlock: MemoryBlock, anchor: string | null, now: string): SystemPart[] {
  return [
    { text: `${MEMORY_INSTRUCTIONS}\n\n${staticBlock.text}`, cache: true },
    { text: now },
    ...(anchor
      ? [{ text: `Earlier in this conversation (summary):\n${flagStoredText(anchor)}` }]
      : []),
  ];
}

/** The text a response said (its text blocks, joined). */
function textOf(content: readonly ContentBlock[]): string {
  return content
    .filter((b): b is TextBlock => b.type === 'text')
    .map((b) => b.text)
    .join('');
}

/**
 * A response's blocks as history keeps them: without empty text blocks, and never empty (a
 * provider refuses an empty assistant message in the history).
 */
function answerContent(content: ReadonlyArray<TextBlock | ToolUseBlock>): ContentBlock[] {
  const kept = content.filter((b) => b.type !== 'text' || b.text.length > 0);
  return kept.length > 0 ? kept : [{ type: 'text', text: '(no reply)' }];
}

/** Results for tool calls that were not run, saying why. */
function notRun(uses: readonly ToolUseBlock[], why: string): ToolResultBlock[] {
  return uses.map((u) => ({
    type: 'tool_result',
    tool_use_id: u.id,
    content: `not run: ${why}`,
    is_error: true,
  }));
}

/** What the model is told when it must answer without tools. */
function answerNowPrompt(why: string): string {
  return `(keel: ${why}. Answer the owner now with what you have, without calling tools, and say plainly what you could not look up.)`;
}

/** `text` cut to `cap` tokens, marked when cut. */
function clipTokens(text: string, cap: number): string {
  const tokens = encodeTokens(text);
  return tokens.length <= cap ? text : `${decodeTokens(tokens.slice(0, Math.max(0, cap)))} […]`;
}

/** One turn's messages as transcript lines for a summary, each cut to its share of `chunk`. */
function transcriptLines(turn: readonly StoredMessage[], chunk: number): string[] {
  const cap = Math.max(50, Math.min(COMPACT_MESSAGE_TOKENS, Math.floor(chunk / turn.length) - 8));
  return turn.map((m) => {
    const parts = m.content.map((b) =>
      b.type === 'text'
        ? b.text
        : b.type === 'tool_use'
          ? `[tool ${b.name} ${JSON.stringify(b.input)}]`
          : `[tool result: ${b.content.slice(0, 500)}]`,
    );
    return clipTokens(`${m.role === 'user' ? 'Owner' : 'keel'}: ${parts.join(' ')}`, cap);
  });
}

/** Tokens of a plain summary's list of the owner's words, at most. */
const PLAIN_SUMMARY_TOKENS = 1_200;

/**
 * A summary made without the model, for when it refuses to summarise: the summary so far (cut)
 * and what the owner said in the folded turns (each cut to 200 characters; the newest kept).
 */
function plainSummary(anchor: string | null, transcript: string): string {
  const said = transcript
    .split('\n')
    .filter((l) => l.startsWith('Owner: ') && !l.startsWith('Owner: [tool result'))
    .map((l) => (l.length > 207 ? `${l.slice(0, 206)}…` : l));
  const kept: string[] = [];
  let used = 0;
  for (const line of said.reverse()) {
    const cost = countTokens(line) + 1;
    if (used + cost > PLAIN_SUMMARY_TOKENS) break;
    kept.unshift(line);
    used += cost;
  }
  return [
    ...(anchor ? [clipTokens(anchor, 300)] : []),
    '(Earlier turns could not be summarised; what the owner said in them:)',
    ...kept,
  ].join('\n');
}
