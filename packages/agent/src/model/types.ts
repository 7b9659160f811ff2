/**
 * The `ChatModel` contract every model provider implements (Anthropic, Ollama, the recording fake),
 * kept apart from the implementations so the agent and the apps depend on this shape only.
 *
 * The message shapes follow the Anthropic Messages API's content blocks, which every provider maps
 * to and from.
 *
 * @module
 */
import type { ToolSpec } from '@keel/tools';

/** A block of text. */
export interface TextBlock {
  type: 'text';
  text: string;
}

/** The model asks for a tool call. `input` is the parsed JSON arguments. */
export interface ToolUseBlock {
  type: 'tool_use';
  id: string;
  name: string;
  input: unknown;
}

/** The result of a tool call, sent back in the next user message. */
export interface ToolResultBlock {
  type: 'tool_result';
  tool_use_id: string;
  /** The tool's output as text (JSON for structured results). */
  content: string;
  is_error?: boolean;
}

export type ContentBlock = TextBlock | ToolUseBlock | ToolResultBlock;

/** One message of the conversation. */
export interface ChatMessage {
  role: 'user' | 'assistant';
  content: ContentBlock[];
}

/** A part of the system prompt. `cache: true` puts a cache breakpoint after this part. */
export interface SystemPart {
  text: string;
  cache?: boolean;
}

/** A tool the model may call (defined by the tool contract, `@keel/tools`). */
export type { ToolSpec };

/** One request to a model. */
export interface ChatRequest {
  system: SystemPart[];
  messages: ChatMessage[];
  tools: ToolSpec[];
  /** Most output tokens. */
  maxTokens: number;
  /**
   * `auto` (the default): the model may call the tools; `none`: it must answer in text. The tools
   * stay declared either way, because the messages may hold earlier tool calls.
   */
  toolChoice?: 'auto' | 'none';
  /** Cancels the request (Ctrl-C, shutdown). */
  signal?: AbortSignal;
  /** Called with each piece of streamed text as it arrives. */
  onText?: (delta: string) => void;
  /**
   * Called when an attempt failed and another will follow after `delayMs`. Text already passed to
   * `onText` during the failed attempt (`discardText`) is not part of the answer: the UI should
   * drop it; the next attempt streams from the beginning.
   */
  onRetry?: (info: RetryInfo) => void;
  /**
   * Called when nothing (no response headers, no stream event) has come for a while (the
   * provider's `waitNoticeMs`), once per silence, so a door can say keel is waiting. The request
   * goes on: a silence that reaches the stall timeout is retried (`onRetry`), then fails with
   * `MODEL_TIMEOUT`.
   */
  onWait?: (info: WaitInfo) => void;
}

/** What {@link ChatRequest.onWait} is told while a response is late. */
export interface WaitInfo {
  /** The attempt that waits (1-based). */
  attempt: number;
  /** How long nothing has come, ms. */
  waitedMs: number;
  /** How much longer the attempt waits before it is abandoned (and retried or failed), ms. */
  giveUpInMs: number;
}

/** Why an attempt is retried. */
export type RetryReason = 'rate_limited' | 'overloaded' | 'server_error' | 'stalled' | 'connection';

/** What {@link ChatRequest.onRetry} is told about a failed attempt. */
export interface RetryInfo {
  /** The attempt that failed (1-based); the next one is `attempt + 1`. */
  attempt: number;
  reason: RetryReason;
  /** Wait before the next attempt, ms. */
  delayMs: number;
  /** Text the failed attempt already streamed through `onText` (may be empty). */
  discardText: string;
  /** The provider's error message, for logs. */
  message: string;
}

/** Why the model stopped. */
export type StopReason =
  | 'end_turn'
  | 'tool_use'
  | 'max_tokens'
  | 'stop_sequence'
  | 'refusal'
  | 'other';

/** A complete model response. */
export interface ChatResponse {
  content: Array<TextBlock | ToolUseBlock>;
  stopReason: StopReason;
  usage: {
    inputTokens: number;
    outputTokens: number;
    cacheReadTokens?: number;
    cacheWriteTokens?: number;
  };
  /** Attempts it took (1 when no retry was needed). */
  attempts: number;
}

/**
 * How much a model takes in one request, in tokens: the agent budgets every request against
 * these (see `requestBudget`).
 */
export interface ModelLimits {
  /** The context window: a request's input and its output together. */
  contextTokens: number;
  /** `max_tokens` the agent asks for on each call: the longest reply. */
  maxOutputTokens: number;
}

/** Options for {@link ChatModel.probe}. */
export interface ProbeOptions {
  /** Cancels the probe (`CANCELLED`). */
  signal?: AbortSignal;
  /** How long the one request may take, ms. Default `PROBE_TIMEOUT_MS` (5 s). */
  timeoutMs?: number;
}

/** What {@link ChatModel.probe} found: the provider answered and took the credentials. */
export interface ModelProbe {
  /** One line on what answered, e.g. `claude-sonnet-4-6 (Claude Sonnet 4.6) is available`. */
  detail: string;
  /**
   * Whether the provider lists the model: true, false (it may still answer: some servers serve
   * any name), or null when the provider was not asked.
   */
  listed: boolean | null;
}

/** One model a provider lists for the credentials in use. */
export interface ListedModel {
  /** The name to configure and send (`claude-sonnet-4-6`, `gpt-4o-mini`). */
  id: string;
  /** Its name for people, when the provider gives one (`Claude Sonnet 4.6`). */
  displayName?: string;
  /** When it was released, ISO 8601, when the provider says. */
  createdAt?: string;
}

/** A model provider. */
export interface ChatModel {
  /** `anthropic`, `ollama`, `fake`. */
  readonly provider: string;
  /** The model name sent to the provider. */
  readonly model: string;
  /**
   * Sends one request and resolves when the response is complete, streaming text through
   * `request.onText` as it arrives.
   *
   * @throws KeelError `MODEL_UNAVAILABLE` (cannot reach the provider), `MODEL_OVERLOADED` (still
   *   overloaded after the retries), `MODEL_QUOTA` (quota exhausted: not retried),
   *   `MODEL_TIMEOUT` (stalled stream after the retries), `MODEL_AUTH`, `MODEL_REFUSED_INPUT`
   *   (the request is too large or invalid), `CANCELLED`.
   */
  complete(request: ChatRequest): Promise<ChatResponse>;
  /**
   * The model's limits: configured ones first, else what the provider says of the model, else
   * defaults for the model's family. Resolves once and then from a cache; never rejects.
   */
  limits(): Promise<ModelLimits>;
  /**
   * One cheap request that proves the provider answers, takes the credentials and has the model,
   * without generating anything (a model list or a model lookup). Providers that cannot be
   * probed leave it out.
   *
   * @throws KeelError `MODEL_AUTH` (the key is refused), `MODEL_NOT_FOUND` (the provider answers
   *   without the model), `MODEL_UNAVAILABLE` (nothing answers, or an error answer),
   *   `MODEL_TIMEOUT` (no answer within the timeout), `MODEL_QUOTA`, `CANCELLED`.
   */
  probe?(options?: ProbeOptions): Promise<ModelProbe>;
  /**
   * The models the provider lists for the credentials in use (one listing, generating nothing,
   * without retries), in the provider's order (Anthropic: newest first). Providers that cannot
   * list leave it out.
   *
   * @throws KeelError `MODEL_AUTH`, `MODEL_UNAVAILABLE` (nothing answers, an error answer, or no
   *   model list at that address), `MODEL_TIMEOUT`, `MODEL_OVERLOADED` (busy: try again),
   *   `MODEL_QUOTA`, `CANCELLED`.
   */
  listModels?(options?: ProbeOptions): Promise<ListedModel[]>;
}
