/**
 * The Anthropic provider: {@link AnthropicChatModel} implements {@link ChatModel} over the
 * Messages API with `@anthropic-ai/sdk`, streaming, tool use, prompt caching and its own retries
 * (the SDK's are turned off so that errors arriving mid-stream and stalled streams are retried the
 * same way as HTTP errors; the policy is the one in `retry.ts` that every hosted provider shares).
 * The SDK is loaded with a dynamic `import()` on the first request, so a keel that never talks to
 * Anthropic never loads it.
 *
 * @module
 */
import type Anthropic from '@anthropic-ai/sdk';
import type {
  ContentBlockParam,
  MessageCreateParamsStreaming,
  MessageParam,
  RawMessageStreamEvent,
  TextBlockParam,
  Tool,
} from '@anthropic-ai/sdk/resources/messages';
import { KeelError, type KeelErrorCode } from '@keel/errors';
import { lazyModule } from './load.js';
import { listFailure, PROBE_TIMEOUT_MS, probeVerdict } from './probe.js';
import {
  AttemptFailure,
  cancelled,
  describeCause,
  emitText,
  finalFailure,
  parseRetryAfterHeader,
  QUOTA_WORDS,
  type RetryOptions,
  type RetryPolicy,
  retryPolicy,
  type StreamAccumulator,
  streamAttempt,
  withRetries,
} from './retry.js';
import { readPromptTooLong } from './too-long.js';
import type {
  ChatMessage,
  ChatModel,
  ChatRequest,
  ChatResponse,
  ListedModel,
  ModelLimits,
  ModelProbe,
  ProbeOptions,
  RetryReason,
  StopReason,
  SystemPart,
  TextBlock,
  ToolSpec,
  ToolUseBlock,
} from './types.js';

/** The model used when none is configured. */
export const DEFAULT_ANTHROPIC_MODEL = 'claude-sonnet-4-6';
type AnthropicModule = typeof import('@anthropic-ai/sdk');

/** The `@anthropic-ai/sdk` module, imported once, on first use. */
const loadAnthropic = lazyModule('the Anthropic client package', () => import('@anthropic-ai/sdk'));

/** The Messages API host used when no `baseURL` is given. */
export const DEFAULT_ANTHROPIC_BASE_URL = 'https://api.anthropic.com';
/** The context window of Claude models, tokens (the standard window; larger ones need a beta). */
export const CLAUDE_CONTEXT_TOKENS = 200_000;

/**
 * The default `max_tokens` for a Claude model: 4096 for the Claude 3 models of early 2024
 * (their most), 8192 for later ones (which allow that or more).
 */
export function claudeMaxOutputTokens(model: string): number {
  return /^claude-3-(opus|sonnet|haiku)-/.test(model) ? 4096 : 8192;
}

/**
 * Options for {@link AnthropicChatModel}: the key, host and model, and the retry policy shared with
 * the other hosted providers ({@link RetryOptions}). Nothing is read from the environment.
 */
export interface AnthropicChatModelOptions extends RetryOptions {
  /** The API key (sent by the SDK). Required: the package never reads `ANTHROPIC_API_KEY`. */
  apiKey: string;
  /** API host, e.g. a proxy or a test server. Default {@link DEFAULT_ANTHROPIC_BASE_URL}. */
  baseURL?: string;
  /** Model name sent to the API. Default {@link DEFAULT_ANTHROPIC_MODEL} (`claude-sonnet-4-6`). */
  model?: string;
  /** The model's context window, tokens. Default {@link CLAUDE_CONTEXT_TOKENS}. */
  contextTokens?: number;
  /** `max_tokens` the agent asks for. Default {@link claudeMaxOutputTokens} of the model. */
  maxOutputTokens?: number;
}

/**
 * Claude through the Anthropic Messages API, streaming.
 *
 * - `system` parts become text blocks; a part with `cache: true` carries
 *   `cache_control: {type: 'ephemeral'}` (a prompt-cache breakpoint after it).
 * - Retried with exponential backoff and jitter (honouring `retry-after`): 429, 529, 500/502/503/504,
 *   408, `overloaded_error` / `api_error` arriving mid-stream after HTTP 200, connection errors, and
 *   streams that send nothing for `stallTimeoutMs`. Each retry is reported through
 *   `request.onRetry` with the text to discard.
 * - Not retried: 400/413/422 (`MODEL_REFUSED_INPUT`; a "prompt is too long" answer carries
 *   `details.reason: 'prompt_too_long'` and, when the message gives them, `details.promptTokens`
 *   and `details.limitTokens`), 401/403 (`MODEL_AUTH`), a quota-exhausted 429 or 402
 *   (`MODEL_QUOTA`), cancellation (`CANCELLED`).
 *
 * @example
 * const model = new AnthropicChatModel({ apiKey, model: 'claude-sonnet-4-6' });
 * const reply = await model.complete({ system, messages, tools, maxTokens: 1024, onText });
 */
export class AnthropicChatModel implements ChatModel {
  readonly provider = 'anthropic';
  readonly model: string;
  readonly #apiKey: string;
  readonly #baseURL: string;
  #client: Promise<{ client: Anthropic; sdk: AnthropicModule }> | undefined;
  readonly #policy: RetryPolicy;
  readonly #limits: ModelLimits;

  /** @throws KeelError `INVALID_INPUT` when an option is out of range (empty key, attempts < 1). */
  constructor(options: AnthropicChatModelOptions) {
    if (!options.apiKey) throw new KeelError('INVALID_INPUT', 'AnthropicChatModel needs an apiKey');
    this.model = options.model ?? DEFAULT_ANTHROPIC_MODEL;
    this.#policy = retryPolicy(options);
    this.#limits = {
      contextTokens: options.contextTokens ?? CLAUDE_CONTEXT_TOKENS,
      maxOutputTokens: options.maxOutputTokens ?? claudeMaxOutputTokens(this.model),
    };
    for (const [name, value] of Object.entries(this.#limits)) {
      if (!Number.isSafeInteger(value) || value < 1) {
        throw new KeelError('INVALID_INPUT', `${name} must be a whole number ≥ 1, got ${value}`);
      }
    }
    this.#apiKey = options.apiKey;
    this.#baseURL = options.baseURL ?? DEFAULT_ANTHROPIC_BASE_URL;
  }

  /** The client, created on first use (this is where `@anthropic-ai/sdk` is loaded). */
  #connect(): Promise<{ client: Anthropic; sdk: AnthropicModule }> {
    this.#client ??= loadAnthropic().then((sdk) => ({
      sdk,
      client: new sdk.default({
        apiKey: this.#apiKey,
        baseURL: this.#baseURL,
        maxRetries: 0,
        // Time to response headers; the stall watchdog below also covers it and every gap after.
        timeout: this.#policy.stallTimeoutMs + 1000,
      }),
    }));
    this.#client.catch(() => {
      this.#client = undefined;
    });
    return this.#client;
  }

  /** The configured limits, else {@link CLAUDE_CONTEXT_TOKENS} and {@link claudeMaxOutputTokens}. */
  async limits(): Promise<ModelLimits> {
    return { ...this.#limits };
  }

  /**
   * Sends one request, streaming text through `request.onText`, and resolves with the complete
   * response (`attempts` counts the tries it took).
   *
   * @throws KeelError `CANCELLED` (the signal aborted; never retried), `MODEL_AUTH` (401/403),
   *   `MODEL_REFUSED_INPUT` (400/413/422: too large or invalid), `MODEL_QUOTA` (quota or credit
   *   exhausted: not retried), and after the last attempt `MODEL_OVERLOADED` (429/529/
   *   `overloaded_error`), `MODEL_TIMEOUT` (stalled stream) or `MODEL_UNAVAILABLE` (connection
   *   refused, 5xx). An error thrown by `onText` or `onRetry` is rethrown as it is.
   */
  async complete(request: ChatRequest): Promise<ChatResponse> {
    const params = this.#params(request);
    return withRetries(
      this.#policy,
      request,
      (attempt) => this.#attempt(params, request, attempt),
      (failure) => this.#final(failure),
    );
  }

  /**
   * Looks the model up through the Models API (`GET /v1/models/{model}`: free, generates nothing),
   * which proves the key and the model name (an alias resolves) in one request, without retries.
   *
   * @throws KeelError `MODEL_AUTH` (401/403), `MODEL_NOT_FOUND` (404: no such model, or the base
   *   URL is not Anthropic's API), `MODEL_QUOTA`, `MODEL_UNAVAILABLE` (no connection, 5xx),
   *   `MODEL_TIMEOUT` (no answer within `timeoutMs`, default 5 s), `CANCELLED`. A busy API (429,
   *   529) took the key: the probe passes and says so.
   */
  async probe(options: ProbeOptions = {}): Promise<ModelProbe> {
    const { signal } = options;
    const timeoutMs = options.timeoutMs ?? PROBE_TIMEOUT_MS;
    if (signal?.aborted) throw cancelled(signal);
    const where = `Anthropic at ${this.#baseURL}`;
    const { client, sdk } = await this.#connect();
    try {
      const info = await client.models.retrieve(this.model, null, {
        timeout: timeoutMs,
        maxRetries: 0,
        ...(signal ? { signal } : {}),
      });
      const name = info.display_name ? ` (${info.display_name})` : '';
      return { detail: `${this.model}${name} is available; the key works`, listed: true };
    } catch (error) {
      if (signal?.aborted) throw cancelled(signal, error);
      if (error instanceof sdk.APIError && error.status === 404) {
        throw new KeelError(
          'MODEL_NOT_FOUND',
          `${where} has no model "${this.model}" (the setting anthropic.model, or KEEL_MODEL; or anthropic.base_url is not the Anthropic API): ${error.apiMessage ?? error.message}`,
          { cause: error, details: { model: this.model } },
        );
      }
      const verdict = probeVerdict(this.#classify(sdk, error, ''), where, timeoutMs);
      if (verdict) throw verdict;
      return {
        detail: `${this.model}: the key was taken (the API is busy right now: ${describeCause(error as Error)})`,
        listed: null,
      };
    }
  }

  /**
   * The models the key can use, newest first, through the Models API (`GET /v1/models`, every
   * page; generates nothing), without retries.
   *
   * @throws KeelError `MODEL_AUTH` (401/403), `MODEL_UNAVAILABLE` (no connection, 5xx, 404: the
   *   base URL is not the Anthropic API), `MODEL_TIMEOUT`, `MODEL_OVERLOADED`, `MODEL_QUOTA`,
   *   `CANCELLED`.
   */
  async listModels(options: ProbeOptions = {}): Promise<ListedModel[]> {
    const { signal } = options;
    const timeoutMs = options.timeoutMs ?? PROBE_TIMEOUT_MS;
    if (signal?.aborted) throw cancelled(signal);
    const { client, sdk } = await this.#connect();
    const models: ListedModel[] = [];
    try {
      const request = { timeout: timeoutMs, maxRetries: 0, ...(signal ? { signal } : {}) };
      for await (const m of client.models.list({ limit: 100 }, request)) {
        models.push({ id: m.id, displayName: m.display_name, createdAt: m.created_at });
      }
      return models;
    } catch (error) {
      if (signal?.aborted) throw cancelled(signal, error);
      const status = error instanceof sdk.APIError ? error.status : undefined;
      const where = `Anthropic at ${this.#baseURL}`;
      throw listFailure(this.#classify(sdk, error, ''), where, timeoutMs, status);
    }
  }

  /** The error for the last failed attempt. */
  #final(failure: AttemptFailure): KeelError {
    return finalFailure(this.#policy, failure, { where: this.#baseURL, overloaded: this.model });
  }

  /** The SDK request body for `request`. */
  #params(request: ChatRequest): MessageCreateParamsStreaming {
    const system = toSystem(request.system);
    return {
      model: this.model,
      max_tokens: request.maxTokens,
      ...(system.length > 0 ? { system } : {}),
      messages: request.messages.map(toMessageParam),
      ...(request.tools.length > 0 ? { tools: request.tools.map(toTool) } : {}),
      ...(request.tools.length > 0 && request.toolChoice === 'none'
        ? { tool_choice: { type: 'none' as const } }
        : {}),
      stream: true as const,
    };
  }

  /** One streamed attempt: resolves with the response or throws an {@link AttemptFailure}. */
  async #attempt(
    params: MessageCreateParamsStreaming,
    request: ChatRequest,
    attempt: number,
  ): Promise<ChatResponse> {
    const { client, sdk } = await this.#connect();
    return streamAttempt({
      signal: request.signal,
      stallTimeoutMs: this.#policy.stallTimeoutMs,
      waitNoticeMs: this.#policy.waitNoticeMs,
      onWait: request.onWait,
      attempt,
      onText: request.onText,
      accumulator: new Accumulator(),
      open: (signal) => client.messages.create(params, { signal }),
      incomplete: 'the response stream ended before message_stop',
      classify: (error, streamed) => this.#classify(sdk, error, streamed),
    });
  }

  /** Classifies an SDK or network error: a retryable AttemptFailure or a final KeelError. */
  #classify(sdk: AnthropicModule, error: unknown, streamed: string): Error {
    const { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } = sdk;
    const retry = (reason: RetryReason, message: string, retryAfterMs?: number) =>
      new AttemptFailure(reason, message, streamed, retryAfterMs, { cause: error });
    const final = (code: KeelErrorCode, message: string, details?: unknown) =>
      new KeelError(code, message, { cause: error, details });

    if (error instanceof APIConnectionTimeoutError) {
      return retry('stalled', 'no response headers before the timeout');
    }
    if (error instanceof APIUserAbortError) return retry('stalled', 'the request was aborted');
    if (error instanceof APIConnectionError) {
      const cause = error.cause instanceof Error ? `: ${describeCause(error.cause)}` : '';
      return retry('connection', `cannot connect to ${this.#baseURL}${cause}`);
    }
    if (error instanceof APIError) {
      const status = error.status;
      const type = error.type ?? '';
      const apiMessage = error.apiMessage ?? error.message;
      const text = `${status ?? 'stream'} ${type || 'error'}: ${apiMessage}`;
      const details = {
        status,
        type: type || undefined,
        requestId: error.requestID ?? undefined,
      };
      const retryAfterMs = parseRetryAfter(error.headers);
      if (status === undefined) {
        // An `event: error` inside a 200 stream.
        if (type === 'overloaded_error') return retry('overloaded', text);
        if (type === 'rate_limit_error') return retry('rate_limited', text);
        if (type === 'api_error' || type === 'timeout_error' || type === '') {
          return retry('server_error', text);
        }
        if (type === 'authentication_error' || type === 'permission_error') {
          return final('MODEL_AUTH', `Anthropic rejected the credentials: ${text}`, details);
        }
        return final('MODEL_REFUSED_INPUT', `Anthropic refused the request: ${text}`, details);
      }
      if (status === 429) {
        const exhausted =
          type === 'billing_error' ||
          QUOTA_WORDS.test(apiMessage) ||
          QUOTA_WORDS.test(error.errorCode ?? '') ||
          (retryAfterMs !== undefined && retryAfterMs > this.#policy.quotaRetryAfterMs);
        if (exhausted) {
          return final(
            'MODEL_QUOTA',
            `Anthropic quota exhausted: ${text}${retryAfterMs === undefined ? '' : ` (retry-after ${Math.round(retryAfterMs / 1000)} s)`}`,
            { ...details, retryAfterMs },
          );
        }
        return retry('rate_limited', text, retryAfterMs);
      }
      if (status === 402) return final('MODEL_QUOTA', `Anthropic billing: ${text}`, details);
      if (status === 529 || type === 'overloaded_error')
        return retry('overloaded', text, retryAfterMs);
      if (status === 401 || status === 403) {
        return final('MODEL_AUTH', `Anthropic rejected the credentials: ${text}`, details);
      }
      if (status === 408) return retry('stalled', text, retryAfterMs);
      if (status === 409 || status >= 500) return retry('server_error', text, retryAfterMs);
      if (status === 404 && type === 'not_found_error' && /^model:/.test(apiMessage)) {
        // The API's answer for a model it does not have, or that this key cannot use.
        return final(
          'MODEL_NOT_FOUND',
          `Anthropic has no model "${this.model}" for this key (the setting anthropic.model, or KEEL_MODEL): ${text}`,
          { ...details, model: this.model },
        );
      }
      if (status === 404) {
        return final(
          'MODEL_UNAVAILABLE',
          `Anthropic answered 404 (model ${this.model} or base URL ${this.#baseURL} wrong?): ${text}`,
          details,
        );
      }
      const tooLong =
        readPromptTooLong(apiMessage) ??
        (status === 413 ? ({ reason: 'prompt_too_long' } as const) : null);
      if (tooLong) {
        return final('MODEL_REFUSED_INPUT', `the request is too long for ${this.model}: ${text}`, {
          ...details,
          ...tooLong,
        });
      }
      return final('MODEL_REFUSED_INPUT', `Anthropic refused the request: ${text}`, details);
    }
    // Anything else thrown while reading the stream (a cut connection, a malformed event).
    const message = error instanceof Error ? describeCause(error) : String(error);
    return retry('connection', `the response stream failed: ${message}`);
  }
}

/**
 * How long until the request may be retried, ms: `retry-after-ms`, else `retry-after` (seconds or
 * an HTTP date), else the latest `anthropic-ratelimit-*-reset` (RFC 3339) of a limit whose
 * `-remaining` is 0. Undefined when none is present.
 */
function parseRetryAfter(headers: Headers | undefined): number | undefined {
  if (!headers) return undefined;
  return parseRetryAfterHeader(headers) ?? parseRateLimitReset(headers);
}

function parseRateLimitReset(headers: Headers): number | undefined {
  let latest: number | undefined;
  for (const limit of ['requests', 'tokens', 'input-tokens', 'output-tokens']) {
    if (headers.get(`anthropic-ratelimit-${limit}-remaining`)?.trim() !== '0') continue;
    const reset = Date.parse(headers.get(`anthropic-ratelimit-${limit}-reset`) ?? '');
    if (Number.isNaN(reset)) continue;
    const ms = Math.max(0, reset - Date.now());
    latest = latest === undefined ? ms : Math.max(latest, ms);
  }
  return latest;
}

function toSystem(parts: SystemPart[]): TextBlockParam[] {
  // The API rejects empty text blocks.
  return parts
    .filter((part) => part.text.length > 0)
    .map((part) =>
      part.cache
        ? { type: 'text', text: part.text, cache_control: { type: 'ephemeral' } }
        : { type: 'text', text: part.text },
    );
}

function toMessageParam(message: ChatMessage): MessageParam {
  return {
    role: message.role,
    content: message.content.map((block): ContentBlockParam => {
      switch (block.type) {
        case 'text':
          return { type: 'text', text: block.text };
        case 'tool_use':
          return { type: 'tool_use', id: block.id, name: block.name, input: block.input };
        case 'tool_result':
          return {
            type: 'tool_result',
            tool_use_id: block.tool_use_id,
            content: block.content,
            ...(block.is_error === undefined ? {} : { is_error: block.is_error }),
          };
        default:
          return unreachable(block);
      }
    }),
  };
}

function unreachable(block: never): never {
  throw new KeelError('INVALID_INPUT', `unknown content block ${JSON.stringify(block)}`);
}

function toTool(tool: ToolSpec): Tool {
  return {
    name: tool.name,
    description: tool.description,
    input_schema: tool.inputSchema as unknown as Tool['input_schema'],
  };
}

const STOP_REASONS: ReadonlySet<string> = new Set([
  'end_turn',
  'tool_use',
  'max_tokens',
  'stop_sequence',
  'refusal',
]);

/** Builds the response from stream events. */
class Accumulator implements StreamAccumulator<RawMessageStreamEvent, ChatResponse> {
  /** Text streamed so far in this attempt (all text blocks joined). */
  text = '';
  stopped = false;

  complete(): boolean {
    return this.stopped;
  }
  readonly #blocks = new Map<
    number,
    TextBlock | (ToolUseBlock & { json: string; broken?: Error })
  >();
  #stopReason: string | null = null;
  #usage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };

  apply(event: RawMessageStreamEvent, onText: ((delta: string) => void) | undefined): void {
    switch (event.type) {
      case 'message_start': {
        const u = event.message.usage;
        this.#usage = {
          input: u.input_tokens ?? 0,
          output: u.output_tokens ?? 0,
          cacheRead: u.cache_read_input_tokens ?? 0,
          cacheWrite: u.cache_creation_input_tokens ?? 0,
        };
        break;
      }
      case 'content_block_start': {
        const block = event.content_block;
        if (block.type === 'text') {
          this.#blocks.set(event.index, { type: 'text', text: block.text });
          if (block.text) this.#emit(block.text, onText);
        } else if (block.type === 'tool_use') {
          this.#blocks.set(event.index, {
            type: 'tool_use',
            id: block.id,
            name: block.name,
            input: block.input,
            json: '',
          });
        }
        break;
      }
      case 'content_block_delta': {
        const block = this.#blocks.get(event.index);
        const delta = event.delta;
        if (delta.type === 'text_delta' && block?.type === 'text') {
          block.text += delta.text;
          this.#emit(delta.text, onText);
        } else if (delta.type === 'input_json_delta' && block?.type === 'tool_use') {
          block.json += delta.partial_json;
        }
        break;
      }
      case 'content_block_stop': {
        const block = this.#blocks.get(event.index);
        if (block?.type === 'tool_use' && block.json.trim() !== '') {
          try {
            block.input = JSON.parse(block.json);
          } catch (error) {
            // A call cut off by max_tokens ends in half a JSON value: decided in response().
            block.broken = new Error(
              `tool_use ${block.name} input is not valid JSON: ${block.json}`,
              { cause: error },
            );
          }
        }
        break;
      }
      case 'message_delta': {
        this.#stopReason = event.delta.stop_reason ?? this.#stopReason;
        const u = event.usage;
        this.#usage.output = u.output_tokens ?? this.#usage.output;
        if (u.input_tokens != null) this.#usage.input = u.input_tokens;
        if (u.cache_read_input_tokens != null) this.#usage.cacheRead = u.cache_read_input_tokens;
        if (u.cache_creation_input_tokens != null) {
          this.#usage.cacheWrite = u.cache_creation_input_tokens;
        }
        break;
      }
      case 'message_stop':
        this.stopped = true;
        break;
    }
  }

  #emit(delta: string, onText: ((delta: string) => void) | undefined): void {
    this.text += delta;
    emitText(onText, delta);
  }

  /**
   * The response. A tool call whose input is not valid JSON is dropped when the reply was cut at
   * `max_tokens` (it was cut mid-call); otherwise it is an error (the attempt is retried).
   */
  response(attempts: number): ChatResponse {
    const cut = this.#stopReason === 'max_tokens';
    const content: Array<TextBlock | ToolUseBlock> = [...this.#blocks.entries()]
      .sort(([a], [b]) => a - b)
      .filter(([, block]) => {
        if (block.type !== 'tool_use' || !block.broken) return true;
        if (cut) return false;
        throw block.broken;
      })
      .map(([, block]) =>
        block.type === 'text'
          ? { type: 'text', text: block.text }
          : { type: 'tool_use', id: block.id, name: block.name, input: block.input },
      );
    const reason = this.#stopReason ?? 'other';
    return {
      content,
      stopReason: (STOP_REASONS.has(reason) ? reason : 'other') as StopReason,
      usage: {
        inputTokens: this.#usage.input,
        outputTokens: this.#usage.output,
        cacheReadTokens: this.#usage.cacheRead,
        cacheWriteTokens: this.#usage.cacheWrite,
      },
      attempts,
    };
  }
}
