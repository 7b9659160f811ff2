/**
 * One turn as it runs ({@link TurnRun}): what it sends the model, what it will store, and where
 * its loop stands; the steps of the loop that need no model and no store.
 *
 * @module
 */

import { redactSecrets, type SecretKind, scanSecrets } from '@keel/language';
import type { MemoryStore, RecallMode } from '@keel/memory';
import { buildTurnBlock, countTokens, type MemoryBlock } from '@keel/prompt';
import type { StagedWrite, Toolbox, ToolContext } from '@keel/tools';
import type { RequestBudget } from './budget.js';
import { textOf } from './compaction.js';
import { type FittedContext, type HistoryFitter, refit, type TurnParts } from './fit.js';
import type {
  ChatMessage,
  ChatResponse,
  ContentBlock,
  TextBlock,
  ToolResultBlock,
  ToolSpec,
  ToolUseBlock,
} from './model/types.js';
import { reminderContext } from './reminders.js';
import { messageTokens } from './session.js';
import { CONTINUE_PROMPT, MAX_CONTINUATIONS, type TurnInput } from './turn.js';

/** One turn as it runs: what it sends, what it will store, and where its loop stands. */
export interface TurnRun {
  readonly turnId: number;
  readonly input: TurnInput;
  /** The owner's words as the model reads them (credentials withheld). */
  readonly text: string;
  readonly toolbox: Toolbox;
  readonly tools: ToolSpec[];
  readonly parts: TurnParts;
  readonly mode: RecallMode;
  /** Facts of the per-turn memory block. */
  readonly recallFactIds: readonly number[];
  /** What the turn stores when it completes. */
  readonly turnMessages: ChatMessage[];
  /** What the model sees of the turn (`parts.sent`). */
  readonly sent: ChatMessage[];
  readonly staged: StagedWrite[];
  /** Facts a tool result showed the model (the blocks' facts are counted at the end). */
  readonly toolFacts: Set<number>;
  budget: RequestBudget;
  context: FittedContext;
  /** Tokens of the next request, as keel counts them. */
  size: number;
  refusals: number;
  /** The largest request sent so far. */
  largest: number;
  reply: string;
  truncated: boolean;
  /** Set when the next answer continues a reply cut at the length limit. */
  continuing: boolean;
  continuations: number;
  calls: number;
  /** Set once a history the provider would not take was folded and retried. */
  retried: boolean;
  /** Why the next call must answer without tools (null: it may call them). */
  answerNow: string | null;
}

/**
 * No credential reaches a model: the model reads the turn with every secret withheld, and the
 * owner is told which kinds were (the stored episode withholds them too). The owner's previous
 * turn is the scan's context: the secret half of a key pair whose id half it held is withheld
 * too.
 *
 * @returns the words the model reads and the kinds withheld from them (none: empty). The turn's
 *   span of secrets (`MemoryStore.withSecrets`) keeps what its writes withheld.
 */
export function withholdFrom(
  store: MemoryStore,
  said: string,
): { text: string; withheld: SecretKind[] } {
  const previous = store.lastOwnerTurn() ?? undefined;
  const withheld = [...new Set(scanSecrets(said, { context: previous }).map((f) => f.kind))];
  const text = withheld.length > 0 ? redactSecrets(said, undefined, previous) : said;
  return { text, withheld };
}

/** What {@link startTurnRun} starts a turn from. */
export interface TurnStart {
  turnId: number;
  input: TurnInput;
  /** The owner's words as the model reads them (credentials withheld). */
  text: string;
  store: MemoryStore;
  tz: string;
  budget: RequestBudget;
  /** The static block as built for this turn. */
  staticBlock: MemoryBlock;
  /** The turn's tools, asked once. */
  toolboxes: () => Toolbox | Promise<Toolbox>;
  fitter: HistoryFitter;
}

/**
 * A turn's memory blocks, tools and first request: recall, the per-turn block (a pending conflict
 * of a belief the model is shown travels with it), and a context that leaves room for a reply and
 * for closing a round of tool calls.
 *
 * @throws KeelError `TOO_LARGE` or `MODEL_CONTEXT_TOO_SMALL` when even the first request cannot
 *   fit ({@link refit}).
 */
export async function startTurnRun(s: TurnStart): Promise<TurnRun> {
  const { text, staticBlock, budget } = s;
  const recall = await s.store.recall(text, { limit: 12, tz: s.tz });
  const shown = new Set([
    ...staticBlock.factIds,
    ...recall.results.filter((r) => r.type === 'fact').map((r) => r.id),
  ]);
  const pending = s.store
    .pendingConflicts()
    .filter((p) => p.conflicts_with_id !== null && shown.has(p.conflicts_with_id));
  const turnBlock = buildTurnBlock(recall, {
    exclude: new Set(staticBlock.factIds),
    pending,
    questions: s.store.questions(),
    tz: s.tz,
  });
  const toolbox = await s.toolboxes();
  const tools = toolbox.specs();
  // The per-turn memory block travels with the owner's message to the model only; history
  // keeps the owner's words.
  // A reminder asked for in words is set by keel when the turn completes: the model is told.
  const reminderNote = reminderContext(text, s.store.now(), s.tz);
  const firstRequestUser: ChatMessage = {
    role: 'user',
    content: [
      { type: 'text', text: turnBlock.text },
      { type: 'text', text },
      ...(reminderNote ? [{ type: 'text' as const, text: reminderNote }] : []),
    ],
  };
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
  const context = await refit(s.fitter, parts, tools, budget, [budget.open], s.input.signal);
  return {
    turnId: s.turnId,
    input: s.input,
    text,
    toolbox,
    tools,
    parts,
    mode: recall.mode,
    recallFactIds: turnBlock.factIds,
    turnMessages: [{ role: 'user', content: [{ type: 'text', text }] }],
    sent,
    staged: [],
    toolFacts: new Set(),
    budget,
    context,
    size: context.tokens,
    refusals: 0,
    largest: 0,
    reply: '',
    truncated: false,
    continuing: false,
    continuations: 0,
    calls: 0,
    retried: false,
    answerNow: null,
  };
}

/**
 * What every tool call of a turn is given: the turn's signal, the store, the zone, the door,
 * the owner's words as the model read them.
 */
export function toolContext(turn: TurnRun, store: MemoryStore, tz: string): ToolContext {
  return {
    signal: turn.input.signal ?? new AbortController().signal,
    store,
    tz,
    now: () => store.now(),
    channel: turn.input.channel,
    ownerText: turn.text,
  };
}

/**
 * Takes one answer of the model into the turn: counted, kept in what the turn stores and sends,
 * its words joined to the reply (a continuation of a cut reply without a line break).
 *
 * @returns the tool calls it made (every one must be answered).
 */
export function takeAnswer(turn: TurnRun, response: ChatResponse): ToolUseBlock[] {
  turn.calls++;
  turn.largest = Math.max(turn.largest, turn.size);
  const content = answerContent(response.content);
  addMessage(turn, { role: 'assistant', content });
  const saidNow = textOf(response.content);
  if (saidNow) {
    const { reply } = turn;
    turn.reply = turn.continuing ? `${reply}${saidNow}` : reply ? `${reply}\n${saidNow}` : saidNow;
  }
  turn.continuing = false;
  return content.filter((b): b is ToolUseBlock => b.type === 'tool_use');
}

/** Adds a message to what the turn stores and what it sends, and counts it. */
export function addMessage(turn: TurnRun, message: ChatMessage): void {
  turn.turnMessages.push(message);
  turn.sent.push(message);
  turn.size += messageTokens(message.content);
}

/** Ends the turn with keel's own words when the model cannot be asked again. */
export function stopTurn(turn: TurnRun, note: string): void {
  turn.turnMessages.push({ role: 'assistant', content: [{ type: 'text', text: note }] });
  turn.reply = turn.reply ? `${turn.reply}\n${note}` : note;
}

/**
 * A reply cut at the length limit: asks for the rest (at most {@link MAX_CONTINUATIONS} times,
 * within the budget), else marks the reply cut.
 *
 * @returns true when the model is to be called again.
 */
export function continueCut(turn: TurnRun): boolean {
  const ask: ChatMessage = { role: 'user', content: [{ type: 'text', text: CONTINUE_PROMPT }] };
  if (
    turn.continuations < MAX_CONTINUATIONS &&
    turn.size + messageTokens(ask.content) <= turn.budget.open
  ) {
    turn.continuations++;
    addMessage(turn, ask);
    turn.continuing = true;
    return true;
  }
  turn.truncated = true;
  return false;
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
export function notRun(uses: readonly ToolUseBlock[], why: string): ToolResultBlock[] {
  return uses.map((u) => ({
    type: 'tool_result',
    tool_use_id: u.id,
    content: `not run: ${why}`,
    is_error: true,
  }));
}

/** What the model is told when it must answer without tools. */
export function answerNowPrompt(why: string): string {
  return `(keel: ${why}. Answer the owner now with what you have, without calling tools, and say plainly what you could not look up.)`;
}
