/**
 * Token budgets for one turn: what a request to the model may hold, counted before it is sent,
 * and how tool results are cut to fit.
 *
 * - {@link requestBudget}: the most input tokens a request may carry, from the model's context
 *   window, the reply's `max_tokens` and a margin.
 * - {@link requestTokens}: a request's tokens as keel counts them (system parts, tool specs,
 *   messages), the same count the session stores for each message ({@link messageTokens}).
 * - {@link fitToolResult} and {@link budgetToolResults}: a cap per result and per round, cut at
 *   whole lines (a recall result's lines are whole results), with a note to the model that says
 *   what was left out.
 *
 * Tokens are counted with `gpt-tokenizer` (OpenAI's o200k encoding), not the provider's own
 * tokenizer: Claude's counts run higher for the same text, which the margin covers; when a
 * provider still answers "prompt is too long", the agent learns the ratio (see `Agent`).
 *
 * @module
 */
import { KeelError } from '@keel/errors';
import { countTokens } from '@keel/prompt';
import type { ChatMessage, SystemPart, ToolResultBlock, ToolSpec } from './model/types.js';
import { messageTokens } from './session.js';

/**
 * The share of the context window kept free, for the difference between keel's token count and
 * the provider's. o200k reads about 4.5 characters of English per token, Claude's tokenizer
 * about 3.5 (more tokens still for code): with 30% held back, a provider that counts up to 1.4
 * times keel's count still fits the input and a full reply in the window.
 */
export const CONTEXT_MARGIN = 0.3;
/** Most tokens one tool result may hand the model. */
export const TOOL_RESULT_TOKENS = 4_000;
/** Most tokens the results of one round of tool calls may hand the model, all results together. */
export const TOOL_ROUND_TOKENS = 12_000;
/**
 * Tokens kept free in every request that may be followed by another in the same turn: room to
 * close a round of tool calls with short notes and to ask the model to answer.
 */
export const CLOSING_RESERVE_TOKENS = 1_000;
/** A round with less room than this for its results is not run: the model is asked to answer. */
export const MIN_ROUND_TOKENS = 500;
/** The smallest first-request budget (`open`) keel works with; less is a configuration error. */
export const MIN_INPUT_BUDGET = 2_000;

/** The budget of every request in a turn, in tokens as keel counts them. */
export interface RequestBudget {
  /** The model's context window (input and output together). */
  contextTokens: number;
  /** `max_tokens` of each call: the most the model may answer. */
  maxTokens: number;
  /** The most input tokens any request may carry. */
  input: number;
  /**
   * The most input tokens a request may carry when another request may follow it in the turn
   * (the first request, and each round of tool results): `input` less one reply and
   * {@link CLOSING_RESERVE_TOKENS}, so the turn can always be closed within `input`.
   */
  open: number;
}

/**
 * The budget of a turn's requests: `input = floor(contextTokens × (1 − margin) / scale) −
 * maxTokens`, where `scale` (≥ 1) is how many more tokens the provider counts than keel.
 *
 * @param scale - the provider's count over keel's, learned from a "prompt is too long" answer.
 *   Default 1.
 * @throws KeelError `INVALID_INPUT` when the window leaves less than {@link MIN_INPUT_BUDGET}
 *   tokens for a turn's first request (the message names both settings).
 */
export function requestBudget(
  contextTokens: number,
  maxTokens: number,
  margin = CONTEXT_MARGIN,
  scale = 1,
): RequestBudget {
  const input = Math.floor((contextTokens * (1 - margin)) / Math.max(1, scale)) - maxTokens;
  const open = input - maxTokens - CLOSING_RESERVE_TOKENS;
  if (!(open >= MIN_INPUT_BUDGET)) {
    throw new KeelError(
      'INVALID_INPUT',
      `a context window of ${contextTokens} tokens with max_tokens ${maxTokens} leaves ${Math.max(0, open)} tokens for a turn's first request (at least ${MIN_INPUT_BUDGET} needed): raise KEEL_CONTEXT_TOKENS or lower KEEL_MAX_TOKENS`,
    );
  }
  return { contextTokens, maxTokens, input, open };
}

/** Tokens of the system parts (each with a small framing allowance). */
export function systemTokens(system: readonly SystemPart[]): number {
  return system.reduce((n, p) => n + countTokens(p.text) + 4, 0);
}

/** Tokens of the tool specs as sent (name, description and JSON schema). */
export function toolSpecTokens(tools: readonly ToolSpec[]): number {
  return tools.length === 0 ? 0 : countTokens(JSON.stringify(tools));
}

/** Tokens of a whole request: system parts, tool specs and messages. */
export function requestTokens(request: {
  system: readonly SystemPart[];
  tools: readonly ToolSpec[];
  messages: readonly ChatMessage[];
}): number {
  return (
    systemTokens(request.system) +
    toolSpecTokens(request.tools) +
    request.messages.reduce((n, m) => n + messageTokens(m.content), 0)
  );
}

/** A tool result cut to its budget. */
export interface FittedResult {
  content: string;
  /** Lines left out (0 when the result was whole). */
  cutLines: number;
  /** Tokens of the result before the cut. */
  tokens: number;
}

/** Tokens held back for the note that says what was left out. */
const NOTE_TOKENS = 120;
/** Ids of left-out lines named in the note, at most. */
const NOTE_IDS = 12;
/** A memory id at the start of a line (after a flag, if any): `[f12]`, `[e7]`. */
const LINE_ID = /\[([fe]\d+)\]/;

function formatTokens(n: number): string {
  return n.toLocaleString('en-US');
}

/** The note to the model for lines left out of one result. */
function cutNote(cut: readonly string[], of: number, why: string): string {
  const ids = cut
    .map((l) => LINE_ID.exec(l)?.[1])
    .filter((id): id is string => id !== undefined)
    .slice(0, NOTE_IDS);
  const named = ids.length ? ` (${ids.join(', ')}${ids.length < cut.length ? ', …' : ''})` : '';
  return `[keel: ${cut.length} of ${of} lines left out${named}: ${why}. Narrow the query or ask for fewer results to see them.]`;
}

/**
 * Cuts one tool result to `capTokens`, at whole lines: the first lines that fit are kept (a
 * recall result's first line names its mode; each further line is one result), and a note says
 * how many lines were left out, naming their memory ids. A result that fits is returned as it is;
 * with no room for any line, only the note remains.
 *
 * @param why - the reason the note gives, e.g. "this result passed its budget of 4,000 tokens".
 */
export function fitToolResult(content: string, capTokens: number, why?: string): FittedResult {
  const tokens = countTokens(content);
  if (tokens <= capTokens) return { content, cutLines: 0, tokens };
  const reason = why ?? `the result passed its budget of ${formatTokens(capTokens)} tokens`;
  const lines = content.split('\n');
  const room = Math.max(0, capTokens - NOTE_TOKENS);
  const kept: string[] = [];
  let used = 0;
  for (const line of lines) {
    const cost = countTokens(line) + 1;
    if (used + cost > room) break;
    kept.push(line);
    used += cost;
  }
  const cut = lines.slice(kept.length);
  let out = [...kept, cutNote(cut, lines.length, reason)].join('\n');
  // The note may name many ids; drop kept lines until the whole fits (the note always stays).
  while (countTokens(out) > capTokens && kept.length > 0) {
    cut.unshift(kept.pop()!);
    out = [...kept, cutNote(cut, lines.length, reason)].join('\n');
  }
  return { content: out, cutLines: cut.length, tokens };
}

/** What a result that found no room left in its round says instead. */
export const LEFT_OUT_NOTE =
  "[keel: result left out: this round's tool results used up their budget. Call it again on its own if you still need it.]";

/** The outcome of one tool call before budgeting. */
export interface RawToolResult {
  toolUseId: string;
  content: string;
  isError: boolean;
}

/** Tool results fitted to a round's budget. */
export interface BudgetedRound {
  blocks: ToolResultBlock[];
  /** Per block: true when the result went whole, false when it was cut or left out. */
  whole: boolean[];
  /** Tokens of the results as sent. */
  tokens: number;
  /** Tokens of the results before the cut. */
  rawTokens: number;
  /** Results cut or left out. */
  cut: number;
}

/**
 * Fits a round of tool results: each result to `perResult` tokens, all of them together to
 * `perRound`, in call order. A result gets what is left of the round (at most `perResult`); one
 * that finds no room left is replaced by a note saying so. Every call keeps its result block, so
 * the history stays well formed.
 */
export function budgetToolResults(
  results: readonly RawToolResult[],
  perResult: number,
  perRound: number,
): BudgetedRound {
  const blocks: ToolResultBlock[] = [];
  const whole: boolean[] = [];
  let left = perRound;
  let tokens = 0;
  let rawTokens = 0;
  let cut = 0;
  for (const r of results) {
    const cap = Math.min(perResult, left);
    const why =
      cap < perResult
        ? `this round's tool results passed their budget of ${formatTokens(perRound)} tokens`
        : undefined;
    const fitted =
      cap >= NOTE_TOKENS || countTokens(r.content) <= cap
        ? fitToolResult(r.content, cap, why)
        : { content: LEFT_OUT_NOTE, cutLines: 1, tokens: countTokens(r.content) };
    const sent = countTokens(fitted.content);
    left = Math.max(0, left - sent);
    tokens += sent;
    rawTokens += fitted.tokens;
    if (fitted.cutLines > 0) cut++;
    whole.push(fitted.cutLines === 0);
    blocks.push({
      type: 'tool_result',
      tool_use_id: r.toolUseId,
      content: fitted.content,
      ...(r.isError ? { is_error: true } : {}),
    });
  }
  return { blocks, whole, tokens, rawTokens, cut };
}
