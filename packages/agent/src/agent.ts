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
 * model that keeps calling tools is asked to answer with what it has, a "prompt is too long"
 * answer is met with a smaller request (never the same one), and a turn that cannot fit is rolled
 * back (`TOO_LARGE`, `MODEL_CONTEXT_TOO_SMALL`), so the next turn always starts from a history
 * that fits.
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
  type Approver,
  memoryToolbox,
  type StagedWrite,
  type Toolbox,
  type ToolContext,
} from '@keel/tools';
import {
  CONTEXT_MARGIN,
  MIN_ROUND_TOKENS,
  type RequestBudget,
  requestBudget,
  systemTokens,
  TOOL_RESULT_TOKENS,
  TOOL_ROUND_TOKENS,
  toolSpecTokens,
} from './budget.js';
import { type CaptureError, captureOwnerStatement } from './capture.js';
import { acquireTurnLock, type TurnLockHolder, type TurnLockOptions } from './lock.js';
import type { PromptTooLong } from './model/too-long.js';
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
  WaitInfo,
} from './model/types.js';
import { type ReminderNote, reminderContext } from './reminders.js';
import {
  messageTokens,
  recordUnansweredTurn,
  SessionStore,
  type StoredMessage,
  type UnansweredRecorder,
  type UnansweredTurn,
} from './session.js';
import { runToolRound } from './tool-round.js';

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
/**
 * The share of a refused request the next one may carry when the refusal's counts do not add up
 * (or it gives none).
 */
const BLIND_SHRINK = 0.5;
/** "Prompt is too long" answers one turn takes (each request smaller than the last) before it ends. */
export const MAX_REFUSALS = 4;
/** What the model reads instead of the per-turn memory block when that was left out to fit. */
export const RECALL_LEFT_OUT =
  '<memory>(keel: what recall found for this message was left out: the model refused the request as too long. Call recall for what you need.)</memory>';
/** What the model reads instead of the standing beliefs when they were left out to fit. */
export const STANDING_LEFT_OUT =
  "(keel: the owner's standing beliefs were left out of this request to fit the model's context; call recall for what you need.)";
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
  /**
   * The tools the model is offered, under the owner's policies: a Toolbox, or a function that
   * gives the one for each turn (asked once when the turn starts: an MCP server's tools come and
   * go). Default: the memory tools only, all allowed (`memoryToolbox` of `@keel/tools`).
   */
  tools?: Toolbox | (() => Toolbox | Promise<Toolbox>);
}

/**
 * What one turn's requests carry besides the history, and what was left out of them to fit the
 * model's context.
 */
interface TurnParts {
  /** The static block as built for this turn. */
  readonly staticBlock: MemoryBlock;
  /** The turn's first message as built: the per-turn memory block, then the owner's words. */
  readonly firstMessage: ChatMessage;
  /** The static block as sent: `staticBlock`, or a line saying it was left out. */
  standing: MemoryBlock;
  /** This turn's messages as sent; the first is `firstMessage`, or it without its memory block. */
  sent: ChatMessage[];
  recallLeftOut: boolean;
  standingLeftOut: boolean;
  /** Tokens of the owner's message. */
  ownerTokens: number;
}

/** How much of the turn's memory its requests leave out to fit: none, the recall, and the standing beliefs. */
type LeaveOut = 0 | 1 | 2;

/** Sets what `parts` sends for this level of {@link LeaveOut}. */
function leaveOut(parts: TurnParts, level: LeaveOut): void {
  const first = parts.firstMessage;
  const recall = first.content[0];
  // A block is left out only when the line that says so is smaller than it.
  parts.recallLeftOut =
    level >= 1 &&
    first.content.length > 1 &&
    recall?.type === 'text' &&
    countTokens(recall.text) > countTokens(RECALL_LEFT_OUT);
  parts.standingLeftOut = level >= 2 && parts.staticBlock.tokens > countTokens(STANDING_LEFT_OUT);
  parts.sent[0] = parts.recallLeftOut
    ? {
        role: first.role,
        content: [{ type: 'text', text: RECALL_LEFT_OUT }, ...first.content.slice(1)],
      }
    : first;
  parts.standing = parts.standingLeftOut
    ? {
        text: STANDING_LEFT_OUT,
        tokens: countTokens(STANDING_LEFT_OUT),
        factIds: [],
        episodeIds: [],
        cut: parts.staticBlock.factIds.length,
      }
    : parts.staticBlock;
}

/** What a "prompt is too long" refusal claims, when `err` is one (else null). */
function promptTooLong(err: KeelError): PromptTooLong | null {
  const d = (err.details ?? {}) as Partial<PromptTooLong>;
  if (d.reason !== 'prompt_too_long') return null;
  return {
    reason: 'prompt_too_long',
    ...(typeof d.promptTokens === 'number' ? { promptTokens: d.promptTokens } : {}),
    ...(typeof d.limitTokens === 'number' ? { limitTokens: d.limitTokens } : {}),
  };
}

/** What a front door passes for one turn. */
export interface TurnInput {
  text: string;
  /** The front door: terminal, discord, cli. */
  channel: string;
  /** Cancels the turn (Ctrl-C, shutdown). */
  signal?: AbortSignal;
  /**
   * How this door asks its owner before a tool call whose policy asks; absent when it cannot (such
   * a call is then denied, and the model reads why).
   */
  approve?: Approver;
  /** Streamed reply text. */
  onText?: (delta: string) => void;
  /** Told when a model attempt failed and is retried: text streamed so far should be discarded. */
  onRetry?: (info: { attempt: number; reason: string }) => void;
  /**
   * Told while the turn waits: for another turn that holds the session (once), or for a model
   * that has sent nothing for a while (once per silence). {@link waitNotice} words it for the
   * owner; the turn goes on.
   */
  onWait?: (wait: TurnWait) => void;
}

/** What a turn waits for, as {@link TurnInput.onWait} is told. */
export type TurnWait =
  | ({ kind: 'model' } & WaitInfo)
  | {
      kind: 'session';
      /** The turn's holder, when its record names it. */
      holder: TurnLockHolder | null;
    };

/**
 * The line a door shows while a turn waits, e.g. "(waiting for the model: nothing for 5 s; keel
 * tries again in 25 s)" or "(waiting for another turn to finish (process 4242))".
 */
export function waitNotice(wait: TurnWait): string {
  if (wait.kind === 'session') {
    const who = wait.holder ? ` (process ${wait.holder.pid})` : '';
    return `(waiting for another turn to finish${who})`;
  }
  const s = (ms: number) => `${Math.max(1, Math.round(ms / 1000))} s`;
  return `(waiting for the model: nothing for ${s(wait.waitedMs)}; keel gives this attempt ${s(wait.giveUpInMs)} more)`;
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
  /**
   * Why capturing the owner's explicit statement failed, when it did (the turn went on): its code,
   * message and one-line fix, which every door prints under it ({@link captureErrorNote}).
   */
  captureError: CaptureError | null;
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
  /** A reminder the owner's words asked for, and its line under the reply; null when none. */
  reminder: ReminderNote | null;
}

/** The owner's agent. */
export class Agent implements UnansweredRecorder {
  readonly session: SessionStore;
  private readonly store: MemoryStore;
  private readonly model: ChatModel;
  private readonly toolboxes: () => Toolbox | Promise<Toolbox>;
  private staticCache: { key: string; block: MemoryBlock } | null = null;
  /** What the provider taught this agent: its window, and how much more it counts than keel. */
  private readonly learned: { limitTokens: number | null; scale: number } = {
    limitTokens: null,
    scale: 1,
  };

  constructor(private readonly options: AgentOptions) {
    this.store = options.store;
    this.model = options.model;
    const tools = options.tools ?? memoryToolbox();
    this.toolboxes = typeof tools === 'function' ? tools : () => tools;
    this.session = new SessionStore(options.store);
  }

  /** What every tool call of a turn is given: the turn's signal, the store, the zone, the door. */
  private toolContext(channel: string, ownerText: string, signal?: AbortSignal): ToolContext {
    return {
      signal: signal ?? new AbortController().signal,
      store: this.store,
      tz: this.tz,
      now: () => this.store.now(),
      channel,
      ownerText,
    };
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
   * that still answers "prompt is too long" never gets the same request again: each retry is
   * smaller than the refused one (older history, then the recalled memory, then the standing
   * beliefs left out; at most {@link MAX_REFUSALS} refusals); a history it will not take for
   * another reason is folded and retried once. A reply cut at `max_tokens` is continued (at most
   * {@link MAX_CONTINUATIONS} times), then returned with `truncated`.
   *
   * @throws KeelError `TOO_LARGE` (the message is too large, or it is the larger part of a turn
   *   that does not fit; nothing stored), `MODEL_CONTEXT_TOO_SMALL` (even the smallest request
   *   does not fit the model's window; nothing stored), `SESSION_BUSY`, `CANCELLED`, `INVALID_INPUT` (a
   *   window too small for `max_tokens`), and the model's codes (`MODEL_*`); on every error after
   *   the turn started, the turn is recorded as failed or cancelled and nothing else is stored.
   */
  async turn(input: TurnInput): Promise<TurnResult> {
    // One span of secrets: one the owner typed is withheld from every write of the turn.
    return this.store.withSecrets(() => this.#turn(input));
  }

  async #turn(input: TurnInput): Promise<TurnResult> {
    const text = input.text.replace(/\u0000/g, ' ').trim();
    if (!text) throw new KeelError('INVALID_INPUT', 'the message is empty');
    if (text.length > MAX_MESSAGE_CHARS || countTokens(text) > MAX_MESSAGE_TOKENS) {
      throw new KeelError(
        'TOO_LARGE',
        `the message is too large for the model (limit about ${MAX_MESSAGE_TOKENS} tokens); nothing was stored`,
      );
    }
    const onWait = input.onWait;
    const release = await acquireTurnLock(this.store.path, {
      ...this.options.lock,
      ...(onWait ? { onWait: (holder) => onWait({ kind: 'session', holder }) } : {}),
    });
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
    /** Facts a tool result showed the model (the blocks' facts are counted at the end). */
    const toolFacts = new Set<number>();
    const toolbox = await this.toolboxes();
    const tools = toolbox.specs();

    const userMessage: ChatMessage = { role: 'user', content: [{ type: 'text', text }] };
    // The per-turn memory block travels with the owner's message to the model only; history
    // keeps the owner's words.
    // A reminder asked for in words is set by keel when the turn completes: the model is told.
    const reminderNote = reminderContext(text, this.store.now(), this.tz);
    const firstRequestUser: ChatMessage = {
      role: 'user',
      content: [
        { type: 'text', text: turnBlock.text },
        { type: 'text', text },
        ...(reminderNote ? [{ type: 'text' as const, text: reminderNote }] : []),
      ],
    };
    // What the turn stores when it completes, and what the model sees of it.
    const turnMessages: ChatMessage[] = [userMessage];
    const sent: ChatMessage[] = [firstRequestUser];
    const parts: TurnParts = {
      staticBlock,
      firstMessage: firstRequestUser,
      standing: staticBlock,
      sent,
      recallLeftOut: false,
      standingLeftOut: false,
      ownerTokens: countTokens(text),
    };
    // The first request leaves room for a reply and for closing a round of tool calls.
    let context = await this.refit(parts, tools, budget, [budget.open], signal);
    let size = context.tokens;
    let refusals = 0;
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
          ...(input.onWait ? { onWait: (info) => input.onWait?.({ kind: 'model', ...info }) } : {}),
        });
      } catch (err) {
        if (!KeelError.isInstance(err) || err.code !== 'MODEL_REFUSED_INPUT') throw err;
        const tooLong = promptTooLong(err);
        if (!tooLong) {
          // A history the provider will not take: fold it all and try once more.
          if (retried || context.past.length === 0) throw err;
          retried = true;
          await this.fold(signal, 0, 0, budget);
          context = await this.fitHistory(
            parts.standing,
            sent,
            tools,
            budget,
            budget.input,
            signal,
          );
          size = context.tokens;
          continue;
        }
        // "Prompt is too long": never the same request again. The next one is smaller than the
        // refused one, whatever the refusal claims; older history, then the recalled context, then
        // the standing beliefs are left out to fit; when nothing is left to leave out, the turn is
        // rolled back with what is true of it.
        refusals++;
        if (refusals > MAX_REFUSALS) throw this.cannotFit(parts, size, size, err);
        const shrink = await this.learn(tooLong, size);
        budget = await this.budget();
        const target = Math.min(budget.input, Math.floor(size * shrink));
        // When nothing fits that target, the most keel can keep that is still smaller than what
        // was refused.
        context = await this.refit(parts, tools, budget, [target, size - 1], signal, err);
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
          const round = await runToolRound({
            toolbox,
            uses,
            context: this.toolContext(input.channel, text, signal),
            turnId,
            resultTokens: this.options.toolResultTokens ?? TOOL_RESULT_TOKENS,
            room,
            ...(input.approve ? { approve: input.approve } : {}),
          });
          staged.push(...round.staged);
          for (const id of round.factIds) toolFacts.add(id);
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

    // The facts the model was shown: the blocks it was sent (not those left out to fit), and tool
    // results.
    const factsUsed = new Set([
      ...parts.standing.factIds,
      ...(parts.recallLeftOut ? [] : turnBlock.factIds),
      ...toolFacts,
    ]);
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
   * @throws KeelError `INVALID_INPUT` when the configured window leaves too little room (see
   *   `requestBudget`); what the provider taught never makes it throw ({@link Agent.learn}).
   */
  async budget(): Promise<RequestBudget> {
    return this.budgetWith(this.learned);
  }

  /** {@link Agent.budget} with these learned values. */
  private async budgetWith(learned: {
    limitTokens: number | null;
    scale: number;
  }): Promise<RequestBudget> {
    const limits = await this.model.limits();
    const contextTokens = Math.min(
      this.options.contextTokens ?? limits.contextTokens,
      learned.limitTokens ?? Number.POSITIVE_INFINITY,
    );
    const maxTokens = this.options.maxTokens ?? limits.maxOutputTokens;
    return requestBudget(
      contextTokens,
      maxTokens,
      this.options.contextMargin ?? CONTEXT_MARGIN,
      learned.scale,
    );
  }

  /**
   * Learns from a "prompt is too long" refusal of a request keel counted at `counted` tokens, and
   * says how much smaller the next request must be.
   *
   * Its counts are believed only when they add up: the provider's count of the prompt is above its
   * window, and between half and {@link MAX_LEARNED_SCALE} times keel's own count. Then the agent
   * keeps the window and how many more tokens the provider counts, for later turns too, and the
   * next request shrinks by what the counts say. Counts that do not add up (a proxy or an
   * OpenAI-compatible server that answers "215000 tokens > 200000" for a few hundred) teach
   * nothing: the next request is half the refused one. What is learned never leaves a window that
   * the configured `max_tokens` cannot use (it would fail every later turn): such a lesson is
   * dropped.
   *
   * @returns the share of the refused request's tokens the next request may carry (0 < share < 1).
   */
  private async learn(refusal: PromptTooLong, counted: number): Promise<number> {
    const { promptTokens, limitTokens } = refusal;
    const ratio = promptTokens !== undefined && counted > 0 ? promptTokens / counted : undefined;
    const addsUp =
      ratio !== undefined &&
      ratio >= 0.5 &&
      ratio <= MAX_LEARNED_SCALE &&
      (limitTokens === undefined || limitTokens < promptTokens!);
    if (!addsUp) return BLIND_SHRINK;
    const lesson = {
      limitTokens:
        limitTokens === undefined
          ? this.learned.limitTokens
          : Math.min(this.learned.limitTokens ?? Number.POSITIVE_INFINITY, limitTokens),
      scale: Math.min(MAX_LEARNED_SCALE, Math.max(this.learned.scale, ratio * 1.05)),
    };
    const usable = await this.budgetWith(lesson).then(
      () => true,
      () => false,
    );
    if (usable) Object.assign(this.learned, lesson);
    return limitTokens === undefined
      ? BLIND_SHRINK
      : Math.min(0.9, (limitTokens / promptTokens!) * (1 - CONTEXT_MARGIN / 3));
  }

  /**
   * The context of a request that fits the first of `targets` (tokens) it can: older history is
   * folded or left out first ({@link Agent.fitHistory}); when this turn's own part still does not
   * fit, the recalled context (the per-turn memory block) is left out of this turn's requests,
   * then the standing beliefs (the static block), each replaced by a line that says so. `parts`
   * says what was left out.
   *
   * @param targets - budgets in order of preference (e.g. half the refused request, then anything
   *   smaller than it).
   * @param refusal - the provider's refusal this request answers, if any (for the error).
   * @throws KeelError `TOO_LARGE` (the owner's message is the larger part of what does not fit) or
   *   `MODEL_CONTEXT_TOO_SMALL` (even the smallest request does not fit); nothing is stored.
   */
  private async refit(
    parts: TurnParts,
    tools: readonly ToolSpec[],
    budget: RequestBudget,
    targets: readonly number[],
    signal: AbortSignal | undefined,
    refusal?: KeelError,
  ): Promise<{ system: SystemPart[]; past: ChatMessage[]; tokens: number }> {
    let last: KeelError | undefined;
    for (const target of targets) {
      for (const level of [0, 1, 2] as const) {
        leaveOut(parts, level);
        try {
          return await this.fitHistory(parts.standing, parts.sent, tools, budget, target, signal);
        } catch (err) {
          if (!KeelError.isInstance(err) || err.code !== 'TOO_LARGE') throw err;
          last = err;
        }
      }
    }
    const needed = (last?.details as { tokens?: number } | undefined)?.tokens ?? 0;
    throw this.cannotFit(parts, needed, Math.min(...targets), refusal ?? last);
  }

  /**
   * The error of a turn that cannot fit even with nothing left to leave out: `TOO_LARGE` when the
   * owner's message is at least half of what the request may carry (shortening it helps),
   * else `MODEL_CONTEXT_TOO_SMALL` (the message is not the problem: the model's window is).
   *
   * @param needed - tokens of the smallest request keel can make, as keel counts them.
   * @param target - tokens the request may carry.
   */
  private cannotFit(parts: TurnParts, needed: number, target: number, cause: unknown): KeelError {
    const details = {
      tokens: needed,
      budget: target,
      messageTokens: parts.ownerTokens,
      recallLeftOut: parts.recallLeftOut,
      standingLeftOut: parts.standingLeftOut,
    };
    if (parts.ownerTokens * 2 >= target) {
      return new KeelError(
        'TOO_LARGE',
        `this turn is too large for the model's context (about ${needed} tokens, your message about ${parts.ownerTokens}; the budget is ${target}): nothing of it was stored.`,
        {
          cause,
          details,
          fix: `Send a shorter message (under about ${Math.max(1, Math.floor(target / 2))} tokens), or split it; nothing of this turn was stored.`,
        },
      );
    }
    const refused = KeelError.isInstance(cause) && cause.code === 'MODEL_REFUSED_INPUT';
    return new KeelError(
      'MODEL_CONTEXT_TOO_SMALL',
      `${refused ? 'the model refuses as too long' : "the model's context cannot hold"} even the smallest request keel can send (about ${needed} tokens with no history${parts.recallLeftOut ? ', no recalled memory' : ''}${parts.standingLeftOut ? ', no standing beliefs' : ''}; your message is about ${parts.ownerTokens}): nothing of this turn was stored.${refused ? ` The provider said: ${(cause as KeelError).message}` : ''}`,
      { cause, details },
    );
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
    // Last resort, for this request only: leave out the oldest turns until it fits, then the
    // summary of them.
    let messages = history.messages;
    let anchor = history.anchor;
    let m = measure(anchor, messages);
    while (m.tokens > target && messages.length > 0) {
      const first = messages[0]!.turnId;
      messages = messages.filter((x) => x.turnId !== first);
      m = measure(anchor, messages);
    }
    if (m.tokens > target && anchor !== null) {
      anchor = null;
      m = measure(anchor, messages);
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
  ): Pick<
    TurnResult,
    'writes' | 'captureError' | 'ownerEpisodeId' | 'replyEpisodeId' | 'reminder'
  > {
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
      return {
        writes,
        captureError,
        ownerEpisodeId: owner.id,
        replyEpisodeId: answer.id,
        reminder: captured.reminder,
      };
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
