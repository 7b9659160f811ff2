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
import type { SecretKind } from '@keel/language';
import type { Episode, MemoryStore } from '@keel/memory';
import { buildStaticBlock, countTokens, type MemoryBlock, standingInput } from '@keel/prompt';
import { memoryToolbox, type Toolbox } from '@keel/tools';
import {
  CONTEXT_MARGIN,
  MIN_ROUND_TOKENS,
  type RequestBudget,
  requestBudget,
  TOOL_RESULT_TOKENS,
  TOOL_ROUND_TOKENS,
} from './budget.js';
import { foldHistory } from './compaction.js';
import { storeCompletedTurn } from './complete-turn.js';
import {
  cannotFit,
  fitHistory,
  type HistoryFitter,
  type Learned,
  lessonFrom,
  nowLine,
  promptTooLong,
  refit,
} from './fit.js';
import { acquireTurnLock } from './lock.js';
import type { PromptTooLong } from './model/too-long.js';
import type { ChatModel, ChatResponse, ContentBlock, ToolUseBlock } from './model/types.js';
import {
  recordUnansweredTurn,
  SessionStore,
  type UnansweredRecorder,
  type UnansweredTurn,
} from './session.js';
import { runToolRound } from './tool-round.js';
import {
  type AgentOptions,
  HISTORY_BUDGET_TOKENS,
  MAX_CONTINUATIONS,
  MAX_MESSAGE_CHARS,
  MAX_MESSAGE_TOKENS,
  MAX_REFUSALS,
  MAX_TOOL_ROUNDS,
  STOPPED_NOTE,
  type TurnInput,
  type TurnResult,
} from './turn.js';
import {
  addMessage,
  answerNowPrompt,
  continueCut,
  notRun,
  startTurnRun,
  stopTurn,
  type TurnRun,
  takeAnswer,
  toolContext,
  withholdFrom,
} from './turn-run.js';

/** The owner's agent. */
export class Agent implements UnansweredRecorder {
  readonly session: SessionStore;
  private readonly store: MemoryStore;
  private readonly model: ChatModel;
  private readonly toolboxes: () => Toolbox | Promise<Toolbox>;
  private staticCache: { key: string; block: MemoryBlock } | null = null;
  /** What the provider taught this agent: its window, and how much more it counts than keel. */
  private readonly learned: Learned = { limitTokens: null, scale: 1 };
  /** What each request is fitted with. */
  private readonly fitter: HistoryFitter;

  constructor(private readonly options: AgentOptions) {
    this.store = options.store;
    this.model = options.model;
    const tools = options.tools ?? memoryToolbox();
    this.toolboxes = typeof tools === 'function' ? tools : () => tools;
    this.session = new SessionStore(options.store);
    this.fitter = {
      session: this.session,
      now: () => this.now(),
      fold: (signal, keep, newest, budget) => this.fold(signal, keep, newest, budget),
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
    const { facts, questions } = standingInput(this.store);
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

  /** The turn after its lock is taken: begun, its model calls answered, and stored. */
  private async run(turnId: number, said: string, input: TurnInput): Promise<TurnResult> {
    const { text, withheld } = withholdFrom(this.store, said);
    const turn = await this.begin(turnId, text, input);
    for (;;) {
      if (turn.size > turn.budget.input) {
        // A safety net: rounds are budgeted so this does not happen; never send past the budget.
        stopTurn(turn, STOPPED_NOTE);
        break;
      }
      const response = await this.ask(turn);
      if (response && !(await this.take(turn, response))) break;
    }
    return this.finish(turn, said, withheld);
  }

  /** The turn's budget, memory blocks, tools and first request ({@link startTurnRun}). */
  private async begin(turnId: number, text: string, input: TurnInput): Promise<TurnRun> {
    const budget = await this.budget();
    return startTurnRun({
      turnId,
      input,
      text,
      store: this.store,
      tz: this.tz,
      budget,
      staticBlock: this.staticBlock(),
      toolboxes: this.toolboxes,
      fitter: this.fitter,
    });
  }

  /**
   * One model call of the turn; null when the provider refused the request and a smaller one was
   * fitted instead ({@link Agent.refitAfterRefusal}).
   */
  private async ask(turn: TurnRun): Promise<ChatResponse | null> {
    const { input } = turn;
    const signal = input.signal;
    try {
      return await this.model.complete({
        system: turn.context.system,
        messages: [...turn.context.past, ...turn.sent],
        tools: turn.tools,
        maxTokens: turn.budget.maxTokens,
        ...(turn.answerNow ? { toolChoice: 'none' as const } : {}),
        ...(signal ? { signal } : {}),
        ...(input.onText ? { onText: input.onText } : {}),
        ...(input.onRetry ? { onRetry: input.onRetry } : {}),
        ...(input.onWait ? { onWait: (info) => input.onWait?.({ kind: 'model', ...info }) } : {}),
      });
    } catch (err) {
      if (!KeelError.isInstance(err) || err.code !== 'MODEL_REFUSED_INPUT') throw err;
      await this.refitAfterRefusal(turn, err);
      return null;
    }
  }

  /**
   * The next request after the provider refused one. A history it will not take is folded and
   * retried once. "Prompt is too long": never the same request again. The next one is smaller
   * than the refused one, whatever the refusal claims; older history, then the recalled context,
   * then the standing beliefs are left out to fit; when nothing is left to leave out, the turn is
   * rolled back with what is true of it.
   *
   * @throws the refusal when it cannot be answered with another request; KeelError `TOO_LARGE` or
   *   `MODEL_CONTEXT_TOO_SMALL` when nothing smaller fits.
   */
  private async refitAfterRefusal(turn: TurnRun, err: KeelError): Promise<void> {
    const signal = turn.input.signal;
    const tooLong = promptTooLong(err);
    if (!tooLong) {
      if (turn.retried || turn.context.past.length === 0) throw err;
      turn.retried = true;
      await this.fold(signal, 0, 0, turn.budget);
      const { standing, sent } = turn.parts;
      const { budget, tools } = turn;
      turn.context = await fitHistory(
        this.fitter,
        standing,
        sent,
        tools,
        budget,
        budget.input,
        signal,
      );
      turn.size = turn.context.tokens;
      return;
    }
    turn.refusals++;
    if (turn.refusals > MAX_REFUSALS) throw cannotFit(turn.parts, turn.size, turn.size, err);
    const shrink = await this.learn(tooLong, turn.size);
    turn.budget = await this.budget();
    const target = Math.min(turn.budget.input, Math.floor(turn.size * shrink));
    // When nothing fits that target, the most keel can keep that is still smaller than what was
    // refused.
    const targets = [target, turn.size - 1];
    turn.context = await refit(
      this.fitter,
      turn.parts,
      turn.tools,
      turn.budget,
      targets,
      signal,
      err,
    );
    turn.size = turn.context.tokens;
  }

  /**
   * Takes one answer of the model into the turn: its words join the reply, its tool calls are
   * answered, a reply cut at the length limit is continued.
   *
   * @returns true when the model is to be called again.
   */
  private async take(turn: TurnRun, response: ChatResponse): Promise<boolean> {
    const uses = takeAnswer(turn, response);
    // Every call is answered, whatever the stop reason, so the history stays well formed.
    if (uses.length > 0) return this.answerTools(turn, uses);
    return response.stopReason === 'max_tokens' ? continueCut(turn) : false;
  }

  /**
   * Answers a round of tool calls: runs them within the room the turn has left, or says why they
   * were not run; a model told to answer without tools that called them anyway ends the turn.
   *
   * @returns true when the model is to be called again.
   */
  private async answerTools(turn: TurnRun, uses: readonly ToolUseBlock[]): Promise<boolean> {
    if (turn.answerNow) {
      // Told to answer without tools, it called them anyway: close the calls and stop.
      turn.turnMessages.push({ role: 'user', content: notRun(uses, turn.answerNow) });
      stopTurn(turn, STOPPED_NOTE);
      return false;
    }
    const { input } = turn;
    const room = Math.min(
      this.options.toolRoundTokens ?? TOOL_ROUND_TOKENS,
      turn.budget.open - turn.size,
    );
    let results: ContentBlock[];
    if (room < MIN_ROUND_TOKENS) {
      turn.answerNow = 'this turn has no room left for more tool results';
      results = notRun(uses, turn.answerNow);
    } else {
      const round = await runToolRound({
        toolbox: turn.toolbox,
        uses,
        context: toolContext(turn, this.store, this.tz),
        turnId: turn.turnId,
        resultTokens: this.options.toolResultTokens ?? TOOL_RESULT_TOKENS,
        room,
        ...(input.approve ? { approve: input.approve } : {}),
      });
      turn.staged.push(...round.staged);
      for (const id of round.factIds) turn.toolFacts.add(id);
      results = round.blocks;
      if (turn.calls + 1 >= MAX_TOOL_ROUNDS) {
        turn.answerNow = 'this turn reached its limit of tool calls';
      }
    }
    if (turn.answerNow) {
      results = [...results, { type: 'text', text: answerNowPrompt(turn.answerNow) }];
    }
    addMessage(turn, { role: 'user', content: results });
    return true;
  }

  /**
   * Stores the completed turn and compacts the history if it passed its budget. The facts the
   * model was shown: the blocks it was sent (not those left out to fit), and tool results.
   */
  private async finish(turn: TurnRun, said: string, withheld: SecretKind[]): Promise<TurnResult> {
    const { parts, turnId, reply } = turn;
    const factsUsed = [
      ...new Set([
        ...parts.standing.factIds,
        ...(parts.recallLeftOut ? [] : turn.recallFactIds),
        ...turn.toolFacts,
      ]),
    ];
    const done = storeCompletedTurn(this.store, this.session, this.tz, this.modelInfo, {
      turnId,
      text: said,
      reply,
      messages: turn.turnMessages,
      staged: turn.staged,
      channel: turn.input.channel,
      factsUsed,
    });
    const compacted = await this.compactIfNeeded(turn.input.signal).catch(() => false);
    return {
      ...done,
      turnId,
      reply,
      ...this.modelInfo,
      mode: turn.mode,
      factsUsed,
      compacted,
      withheld,
      truncated: turn.truncated,
      requestTokens: turn.largest,
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
   * Learns from a "prompt is too long" refusal of a request keel counted at `counted` tokens
   * ({@link lessonFrom}), keeping the lesson for later turns unless it leaves a window the
   * configured `max_tokens` cannot use (it would fail every later turn).
   *
   * @returns the share of the refused request's tokens the next request may carry (0 < share < 1).
   */
  private async learn(refusal: PromptTooLong, counted: number): Promise<number> {
    const { shrink, lesson } = lessonFrom(refusal, counted, this.learned);
    if (lesson) {
      const usable = await this.budgetWith(lesson).then(
        () => true,
        () => false,
      );
      if (usable) Object.assign(this.learned, lesson);
    }
    return shrink;
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

  /** Folds the oldest turns into the anchor ({@link foldHistory}). */
  private fold(
    signal: AbortSignal | undefined,
    keepTokens: number,
    newestTokens: number,
    budget: RequestBudget,
  ): Promise<boolean> {
    return foldHistory(this.session, this.model, signal, keepTokens, newestTokens, budget);
  }
}
