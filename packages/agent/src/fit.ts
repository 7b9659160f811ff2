/**
 * Fitting a turn's requests to the model's window: what is left out (older history, then the
 * recalled memory, then the standing beliefs), what a "prompt is too long" refusal teaches, and
 * the error of a turn that cannot fit.
 *
 * @module
 */

import { KeelError } from '@keel/errors';
import { localStamp } from '@keel/language';
import { countTokens, flagStoredText, MEMORY_INSTRUCTIONS, type MemoryBlock } from '@keel/prompt';
import { CONTEXT_MARGIN, type RequestBudget, systemTokens, toolSpecTokens } from './budget.js';
import { ANCHOR_ALLOWANCE } from './compaction.js';
import type { PromptTooLong } from './model/too-long.js';
import type { ChatMessage, SystemPart, ToolSpec } from './model/types.js';
import { messageTokens, type SessionStore, type StoredMessage } from './session.js';
import { RECALL_LEFT_OUT, STANDING_LEFT_OUT } from './turn.js';

const MAX_LEARNED_SCALE = 2;
/**
 * The share of a refused request the next one may carry when the refusal's counts do not add up
 * (or it gives none).
 */
const BLIND_SHRINK = 0.5;

/** What a refusal taught: the provider's window, and how much more it counts than keel. */
export interface Learned {
  limitTokens: number | null;
  scale: number;
}

/** A request's system parts and history, and its tokens with this turn's messages and tools. */
export interface FittedContext {
  system: SystemPart[];
  past: ChatMessage[];
  tokens: number;
}

/** What a request is fitted with: the session's history, the time line, and compaction. */
export interface HistoryFitter {
  readonly session: SessionStore;
  /** The system prompt's line with the owner's local time. */
  now(): string;
  /** Folds the oldest turns into the anchor ({@link foldHistory} of `compaction.ts`). */
  fold(
    signal: AbortSignal | undefined,
    keepTokens: number,
    newestTokens: number,
    budget: RequestBudget,
  ): Promise<boolean>;
}

/**
 * The system prompt's line with the owner's current local date, weekday, time and zone, e.g.
 * "Now: 2026-12-01 10:00 (Tue), time zone America/Phoenix (the owner's). Dates in memory are days
 * in this zone."
 */
export function nowLine(nowMs: number, tz: string): string {
  return `Now: ${localStamp(nowMs, tz)}, time zone ${tz} (the owner's). Dates in memory are days in this zone.`;
}

/**
 * What one turn's requests carry besides the history, and what was left out of them to fit the
 * model's context.
 */
export interface TurnParts {
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
export function leaveOut(parts: TurnParts, level: LeaveOut): void {
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
export function promptTooLong(err: KeelError): PromptTooLong | null {
  const d = (err.details ?? {}) as Partial<PromptTooLong>;
  if (d.reason !== 'prompt_too_long') return null;
  return {
    reason: 'prompt_too_long',
    ...(typeof d.promptTokens === 'number' ? { promptTokens: d.promptTokens } : {}),
    ...(typeof d.limitTokens === 'number' ? { limitTokens: d.limitTokens } : {}),
  };
}

/**
 * Learns from a "prompt is too long" refusal of a request keel counted at `counted` tokens, and
 * says how much smaller the next request must be.
 *
 * Its counts are believed only when they add up: the provider's count of the prompt is above its
 * window, and between half and {@link MAX_LEARNED_SCALE} times keel's own count. Then the lesson
 * keeps the window and how many more tokens the provider counts, for later turns too, and the
 * next request shrinks by what the counts say. Counts that do not add up (a proxy or an
 * OpenAI-compatible server that answers "215000 tokens > 200000" for a few hundred) teach
 * nothing: the next request is half the refused one. The caller drops a lesson that leaves a
 * window the configured `max_tokens` cannot use (it would fail every later turn).
 *
 * @returns `shrink`: the share of the refused request's tokens the next request may carry
 *   (0 < share < 1); `lesson`: what to learn, null when the counts teach nothing.
 */
export function lessonFrom(
  refusal: PromptTooLong,
  counted: number,
  learned: Learned,
): { shrink: number; lesson: Learned | null } {
  const { promptTokens, limitTokens } = refusal;
  const ratio = promptTokens !== undefined && counted > 0 ? promptTokens / counted : undefined;
  const addsUp =
    ratio !== undefined &&
    ratio >= 0.5 &&
    ratio <= MAX_LEARNED_SCALE &&
    (limitTokens === undefined || limitTokens < promptTokens!);
  if (!addsUp) return { shrink: BLIND_SHRINK, lesson: null };
  const lesson = {
    limitTokens:
      limitTokens === undefined
        ? learned.limitTokens
        : Math.min(learned.limitTokens ?? Number.POSITIVE_INFINITY, limitTokens),
    scale: Math.min(MAX_LEARNED_SCALE, Math.max(learned.scale, ratio * 1.05)),
  };
  const shrink =
    limitTokens === undefined
      ? BLIND_SHRINK
      : Math.min(0.9, (limitTokens / promptTokens!) * (1 - CONTEXT_MARGIN / 3));
  return { shrink, lesson };
}

/**
 * The context of a request that fits the first of `targets` (tokens) it can: older history is
 * folded or left out first ({@link fitHistory}); when this turn's own part still does not
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
export async function refit(
  fitter: HistoryFitter,
  parts: TurnParts,
  tools: readonly ToolSpec[],
  budget: RequestBudget,
  targets: readonly number[],
  signal: AbortSignal | undefined,
  refusal?: KeelError,
): Promise<FittedContext> {
  let last: KeelError | undefined;
  for (const target of targets) {
    for (const level of [0, 1, 2] as const) {
      leaveOut(parts, level);
      try {
        return await fitHistory(fitter, parts.standing, parts.sent, tools, budget, target, signal);
      } catch (err) {
        if (!KeelError.isInstance(err) || err.code !== 'TOO_LARGE') throw err;
        last = err;
      }
    }
  }
  const needed = (last?.details as { tokens?: number } | undefined)?.tokens ?? 0;
  throw cannotFit(parts, needed, Math.min(...targets), refusal ?? last);
}

/**
 * The error of a turn that cannot fit even with nothing left to leave out: `TOO_LARGE` when the
 * owner's message is at least half of what the request may carry (shortening it helps),
 * else `MODEL_CONTEXT_TOO_SMALL` (the message is not the problem: the model's window is).
 *
 * @param needed - tokens of the smallest request keel can make, as keel counts them.
 * @param target - tokens the request may carry.
 */
export function cannotFit(
  parts: TurnParts,
  needed: number,
  target: number,
  cause: unknown,
): KeelError {
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
export async function fitHistory(
  fitter: HistoryFitter,
  staticBlock: MemoryBlock,
  sent: readonly ChatMessage[],
  tools: readonly ToolSpec[],
  budget: RequestBudget,
  target: number,
  signal: AbortSignal | undefined,
): Promise<FittedContext> {
  const fixed = toolSpecTokens(tools) + sent.reduce((n, m) => n + messageTokens(m.content), 0);
  const own = fixed + systemTokens(systemParts(staticBlock, null, fitter.now()));
  if (own > target) {
    throw new KeelError(
      'TOO_LARGE',
      `this turn is too large for the model's context (about ${own} tokens; the budget is ${target}): nothing of it was stored. Send a shorter message or ask for less at once.`,
      { details: { tokens: own, budget: target } },
    );
  }
  const measure = (anchor: string | null, messages: readonly StoredMessage[]) => {
    const system = systemParts(staticBlock, anchor, fitter.now());
    const tokens = fixed + systemTokens(system) + messages.reduce((n, m) => n + m.tokens, 0);
    return { system, tokens };
  };
  let history = fitter.session.history();
  if (measure(history.anchor, history.messages).tokens > target) {
    const keep = Math.max(0, target - own - ANCHOR_ALLOWANCE);
    await fitter.fold(signal, keep, keep, budget);
    history = fitter.session.history();
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

/**
 * The system prompt: the instructions with the static block (cached), then the owner's local time
 * (after the cached part: it changes every minute), then the anchor (a summary of stored turns:
 * its lines that read like instructions are flagged, `flagStoredText`).
 */
export function systemParts(
  staticBlock: MemoryBlock,
  anchor: string | null,
  now: string,
): SystemPart[] {
  return [
    { text: `${MEMORY_INSTRUCTIONS}\n\n${staticBlock.text}`, cache: true },
    { text: now },
    ...(anchor
      ? [{ text: `Earlier in this conversation (summary):\n${flagStoredText(anchor)}` }]
      : []),
  ];
}
