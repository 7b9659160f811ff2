/**
 * What a turn is, seen from a front door: its input, its result, what it wrote, what it waits
 * for, and the limits and notes every door shows under a reply. The turn itself runs in
 * {@link Agent} (`agent.ts`).
 *
 * @module
 */

import { describeSecretKind, type SecretKind } from '@keel/language';
import type { MemoryStore, RecallMode } from '@keel/memory';
import type { AppliedWrite, Approver, ForgetRequestWrite, Toolbox } from '@keel/tools';
import type { CaptureError } from './capture.js';
import type { TurnLockHolder, TurnLockOptions } from './lock.js';
import type { ChatModel, WaitInfo } from './model/types.js';
import type { ReminderNote } from './reminders.js';

/** The largest owner message a turn accepts, in estimated tokens. */
export const MAX_MESSAGE_TOKENS = 50_000;
/** The largest owner message in characters (checked before counting tokens). */
export const MAX_MESSAGE_CHARS = 400_000;
/** History above this many tokens is compacted into the anchor. */
export const HISTORY_BUDGET_TOKENS = 24_000;
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
/** "Prompt is too long" answers one turn takes (each request smaller than the last) before it ends. */
export const MAX_REFUSALS = 4;
/** What the model reads instead of the per-turn memory block when that was left out to fit. */
export const RECALL_LEFT_OUT =
  '<memory>(keel: what recall found for this message was left out: the model refused the request as too long. Call recall for what you need.)</memory>';
/** What the model reads instead of the standing beliefs when they were left out to fit. */
export const STANDING_LEFT_OUT =
  "(keel: the owner's standing beliefs were left out of this request to fit the model's context; call recall for what you need.)";
/** Output tokens of a compaction summary, at most. */

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

/** A request to forget a belief that the turn recorded; the owner decides. */
export type { ForgetRequestWrite };

/** One thing a turn did to memory. */
export type TurnWrite = AppliedWrite;

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
