/**
 * The OpenAI-compatible provider: {@link OpenAIChatModel} implements {@link ChatModel} over the
 * Chat Completions API with the official `openai` client: OpenAI itself, and the servers that speak
 * the same API (OpenRouter, LM Studio, vLLM, llama.cpp's server), chosen by the base URL.
 *
 * The client is loaded with a dynamic `import()` on the first request, so a keel that talks to
 * another provider (or runs `--help`) never loads it. Its own retries are off: the retry policy is
 * keel's, shared with the Anthropic provider (`retry.ts`).
 *
 * @module
 */
import { KeelError, type KeelErrorCode } from '@keel/errors';
import type OpenAI from 'openai';
import type {
  ChatCompletionChunk,
  ChatCompletionCreateParamsStreaming,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from 'openai/resources/chat/completions';
import { lazyModule } from './load.js';
import { listFailure, PROBE_TIMEOUT_MS, probeVerdict } from './probe.js';
import {
  AttemptFailure,
  cancelled,
  connectionRefused,
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
  TextBlock,
  ToolSpec,
  ToolUseBlock,
} from './types.js';

/** The model used when none is configured. */
export const DEFAULT_OPENAI_MODEL = 'gpt-4o-mini';
/** The API base used when no `baseURL` is given (the client appends `/chat/completions`). */
export const DEFAULT_OPENAI_BASE_URL = 'https://api.openai.com/v1';

/**
 * The request field that carries the output limit: `max_completion_tokens` (OpenAI's current
 * name; its reasoning models refuse the other) or `max_tokens` (the older name, the one most
 * OpenAI-compatible servers read).
 */
export type OpenAIMaxTokensParam = 'max_tokens' | 'max_completion_tokens';
/** The accepted values of {@link OpenAIMaxTokensParam}, for configuration schemas. */
export const OPENAI_MAX_TOKENS_PARAMS = [
  'max_tokens',
  'max_completion_tokens',
] as const satisfies readonly OpenAIMaxTokensParam[];

/**
 * Options for {@link OpenAIChatModel}: the server, key and model, and the retry policy shared
 * with the other hosted providers ({@link RetryOptions}). Nothing is read from the environment:
 * the client is given every value it would otherwise look up there.
 */
export interface OpenAIChatModelOptions extends RetryOptions {
  /**
   * The API key, sent as `Authorization: Bearer …`. Optional: local servers (LM Studio, llama.cpp,
   * a vLLM without `--api-key`) need none, and without one no `Authorization` header is sent.
   */
  apiKey?: string | null;
  /**
   * The API base including its version path, e.g. `https://openrouter.ai/api/v1` or
   * `http://127.0.0.1:1234/v1`. Default {@link DEFAULT_OPENAI_BASE_URL}.
   */
  baseURL?: string;
  /** Model name sent to the API. Default {@link DEFAULT_OPENAI_MODEL} (`gpt-4o-mini`). */
  model?: string;
  /**
   * Which field carries `maxTokens`. Default (null or absent): `max_completion_tokens` when the base
   * URL is on `api.openai.com`, else `max_tokens`.
   */
  maxTokensParam?: OpenAIMaxTokensParam | null;
  /** The model's context window, tokens. Default {@link OPENAI_CONTEXT_TOKENS}. */
  contextTokens?: number;
  /** `max_tokens` the agent asks for. Default {@link OPENAI_MAX_OUTPUT_TOKENS}. */
  maxOutputTokens?: number;
}

/**
 * The context window assumed for an OpenAI-compatible model when none is configured, tokens: the
 * window of OpenAI's current chat models (a local server's model may be smaller: set
 * `KEEL_CONTEXT_TOKENS`).
 */
export const OPENAI_CONTEXT_TOKENS = 128_000;
/** The default `max_tokens` for an OpenAI-compatible model. */
export const OPENAI_MAX_OUTPUT_TOKENS = 4096;

type OpenAIModule = typeof import('openai');

/** The `openai` module, imported once, on first use. */
const loadOpenAI = lazyModule('the openai client package', () => import('openai'));

/** The field for the output limit when none is configured: by the host of `baseURL`. */
function defaultMaxTokensParam(baseURL: string): OpenAIMaxTokensParam {
  try {
    const host = new URL(baseURL).hostname.toLowerCase();
    return host === 'api.openai.com' || host.endsWith('.openai.com')
      ? 'max_completion_tokens'
      : 'max_tokens';
  } catch {
    return 'max_tokens';
  }
}

/**
 * A model behind an OpenAI-compatible Chat Completions API, streaming.
 *
 * - Request: the system parts joined by blank lines as one `system` message (cache hints do not
 *   apply); keel's tools as `tools` of type `function` (their JSON Schemas as `parameters`); a
 *   `tool_use` block as an assistant `tool_calls` entry (arguments as JSON text); a `tool_result`
 *   as a `role: 'tool'` message with its `tool_call_id` (an error result's text starts with
 *   `error: `, the API having no error flag); `maxTokens` as {@link OpenAIChatModelOptions.maxTokensParam};
 *   `stream: true` with `stream_options.include_usage`.
 * - Response: `delta.content` pieces go to `onText` and join into one text block; `tool_calls`
 *   deltas (index, id, name, then the arguments in pieces) are assembled into `tool_use` blocks
 *   after it, arguments parsed (empty: `{}`); a call without an id gets `call_<n>`.
 *   `finish_reason` `stop` → `end_turn` (`tool_use` when the answer holds tool calls, as some local
 *   servers say `stop` then), `tool_calls` → `tool_use`, `length` → `max_tokens`,
 *   `content_filter` → `refusal`. Usage: `inputTokens` is `prompt_tokens` less the cached ones,
 *   which are `cacheReadTokens` (as Anthropic counts them); zeros when the server sends none.
 * - Retried with exponential backoff and jitter (honouring `retry-after` and an exhausted
 *   `x-ratelimit-*` limit): 429, 5xx, 408/409, an error arriving inside a 200 stream, a connection
 *   reset or cut, a stream that sends nothing for `stallTimeoutMs`. Each retry is reported through
 *   `request.onRetry` with the text to discard.
 * - Not retried: 400/413/422 (`MODEL_REFUSED_INPUT`), 401/403 (`MODEL_AUTH`), a 429 whose type or
 *   code is `insufficient_quota` (or whose message or wait says the quota is gone) and 402
 *   (`MODEL_QUOTA`), 404 (`MODEL_UNAVAILABLE`: model or base URL wrong), a refused connection
 *   (`MODEL_UNAVAILABLE`: nothing listens there), cancellation (`CANCELLED`).
 *
 * @example
 * const model = new OpenAIChatModel({ baseURL: 'http://127.0.0.1:1234/v1', model: 'qwen2.5-7b-instruct' });
 * const reply = await model.complete({ system, messages, tools, maxTokens: 1024, onText });
 */
export class OpenAIChatModel implements ChatModel {
  readonly provider = 'openai';
  readonly model: string;
  /** The API base requests go to. */
  readonly baseURL: string;
  /** The field that carries the output limit. */
  readonly maxTokensParam: OpenAIMaxTokensParam;
  readonly #apiKey: string | null;
  readonly #policy: RetryPolicy;
  readonly #limits: ModelLimits;
  #client: Promise<{ client: OpenAI; sdk: OpenAIModule }> | undefined;

  /** @throws KeelError `INVALID_INPUT` when an option is out of range (empty model, attempts < 1). */
  constructor(options: OpenAIChatModelOptions = {}) {
    this.model = options.model ?? DEFAULT_OPENAI_MODEL;
    if (!this.model) throw new KeelError('INVALID_INPUT', 'OpenAIChatModel needs a model name');
    this.baseURL = options.baseURL ?? DEFAULT_OPENAI_BASE_URL;
    this.maxTokensParam = options.maxTokensParam ?? defaultMaxTokensParam(this.baseURL);
    this.#apiKey = options.apiKey || null;
    this.#policy = retryPolicy(options);
    this.#limits = {
      contextTokens: options.contextTokens ?? OPENAI_CONTEXT_TOKENS,
      maxOutputTokens: options.maxOutputTokens ?? OPENAI_MAX_OUTPUT_TOKENS,
    };
    for (const [name, value] of Object.entries(this.#limits)) {
      if (!Number.isSafeInteger(value) || value < 1) {
        throw new KeelError('INVALID_INPUT', `${name} must be a whole number ≥ 1, got ${value}`);
      }
    }
  }

  /** The configured limits, else {@link OPENAI_CONTEXT_TOKENS} and {@link OPENAI_MAX_OUTPUT_TOKENS}. */
  async limits(): Promise<ModelLimits> {
    return { ...this.#limits };
  }

  /**
   * Sends one request, streaming text through `request.onText`, and resolves with the complete
   * response (`attempts` counts the tries it took).
   *
   * @throws KeelError `CANCELLED` (the signal aborted; never retried), `MODEL_AUTH` (401/403),
   *   `MODEL_REFUSED_INPUT` (400/413/422: too large or invalid), `MODEL_QUOTA` (quota or credit
   *   exhausted: not retried), `MODEL_UNAVAILABLE` (connection refused, 404, or the connection kept
   *   failing), and after the last attempt `MODEL_OVERLOADED` (429, 5xx, an error inside the
   *   stream) or `MODEL_TIMEOUT` (stalled stream). An error thrown by `onText` or `onRetry` is
   *   rethrown as it is.
   */
  async complete(request: ChatRequest): Promise<ChatResponse> {
    if (request.signal?.aborted) throw cancelled(request.signal);
    const body = this.#body(request);
    return withRetries(
      this.#policy,
      request,
      (attempt) => this.#attempt(body, request, attempt),
      (failure) => this.#final(failure),
    );
  }

  /**
   * Lists the server's models (`GET {baseURL}/models`: generates nothing), which proves the server
   * answers and takes the key, in one request without retries, and says whether the model is
   * among them (a server that lists others may still serve it: llama.cpp's answers any name).
   *
   * @throws KeelError `MODEL_AUTH` (401/403), `MODEL_QUOTA`, `MODEL_UNAVAILABLE` (connection
   *   refused, 404: the base URL is wrong, 5xx), `MODEL_TIMEOUT` (no answer within `timeoutMs`,
   *   default 5 s), `CANCELLED`. A busy server (429, 503) took the key: the probe passes.
   */
  async probe(options: ProbeOptions = {}): Promise<ModelProbe> {
    const { signal } = options;
    const timeoutMs = options.timeoutMs ?? PROBE_TIMEOUT_MS;
    if (signal?.aborted) throw cancelled(signal);
    const { client, sdk } = await this.#connect();
    try {
      const page = await client.models.list({
        timeout: timeoutMs,
        maxRetries: 0,
        ...(signal ? { signal } : {}),
      });
      const names = page.data.map((m) => m.id);
      const listed = names.includes(this.model);
      const key = this.#apiKey ? 'the key works' : 'no key needed';
      return listed
        ? { detail: `${this.model} is available at ${this.baseURL}; ${key}`, listed }
        : {
            detail: `${this.baseURL} answers (${key}) but does not list ${this.model}${names.length ? ` (it lists ${names.slice(0, 5).join(', ')}${names.length > 5 ? ', …' : ''})` : ''}`,
            listed,
          };
    } catch (error) {
      if (signal?.aborted) throw cancelled(signal, error);
      const verdict = probeVerdict(this.#classify(sdk, error, ''), this.baseURL, timeoutMs);
      if (verdict) throw verdict;
      return {
        detail: `${this.baseURL} took the key (busy right now: ${describeCause(error as Error)})`,
        listed: null,
      };
    }
  }

  /**
   * The server's models (`GET {baseURL}/models`; generates nothing), as it lists them, without
   * retries.
   *
   * @throws KeelError `MODEL_AUTH` (401/403), `MODEL_UNAVAILABLE` (connection refused, 5xx, 404:
   *   the base URL is wrong or the server lists no models), `MODEL_TIMEOUT`, `MODEL_OVERLOADED`,
   *   `MODEL_QUOTA`, `CANCELLED`.
   */
  async listModels(options: ProbeOptions = {}): Promise<ListedModel[]> {
    const { signal } = options;
    const timeoutMs = options.timeoutMs ?? PROBE_TIMEOUT_MS;
    if (signal?.aborted) throw cancelled(signal);
    const { client, sdk } = await this.#connect();
    try {
      const request = { timeout: timeoutMs, maxRetries: 0, ...(signal ? { signal } : {}) };
      const page = await client.models.list(request);
      return page.data.map((m) => ({
        id: m.id,
        ...(m.created ? { createdAt: new Date(m.created * 1000).toISOString() } : {}),
      }));
    } catch (error) {
      if (signal?.aborted) throw cancelled(signal, error);
      const status = error instanceof sdk.APIError ? error.status : undefined;
      throw listFailure(this.#classify(sdk, error, ''), this.baseURL, timeoutMs, status);
    }
  }

  /** The client, created on first use (this is where the `openai` package is loaded). */
  #connect(): Promise<{ client: OpenAI; sdk: OpenAIModule }> {
    this.#client ??= loadOpenAI().then((sdk) => ({
      sdk,
      client: new sdk.OpenAI({
        // The client insists on a credential; without a key the header is removed below.
        apiKey: this.#apiKey ?? 'no-key',
        baseURL: this.baseURL,
        // Every value it would otherwise read from the environment.
        adminAPIKey: null,
        organization: null,
        project: null,
        webhookSecret: null,
        logLevel: 'off',
        maxRetries: 0,
        // Time to response headers; the stall watchdog also covers it and every gap after.
        timeout: this.#policy.stallTimeoutMs + 1000,
        ...(this.#apiKey ? {} : { defaultHeaders: { Authorization: null } }),
      }),
    }));
    this.#client.catch(() => {
      this.#client = undefined;
    });
    return this.#client;
  }

  /** The error for the last failed attempt (a run of 5xx is an upstream that stayed busy). */
  #final(failure: AttemptFailure): KeelError {
    return finalFailure(this.#policy, failure, {
      where: this.baseURL,
      overloaded: `${this.model} at ${this.baseURL}`,
      serverError: 'MODEL_OVERLOADED',
    });
  }

  /** The request body for `request`. */
  #body(request: ChatRequest): ChatCompletionCreateParamsStreaming {
    return {
      model: this.model,
      messages: toMessages(request),
      ...(request.tools.length > 0 ? { tools: request.tools.map(toTool) } : {}),
      ...(request.tools.length > 0 && request.toolChoice === 'none'
        ? { tool_choice: 'none' as const }
        : {}),
      [this.maxTokensParam]: request.maxTokens,
      stream: true,
      stream_options: { include_usage: true },
    };
  }

  /** One streamed attempt: resolves with the response or throws an {@link AttemptFailure}. */
  async #attempt(
    body: ChatCompletionCreateParamsStreaming,
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
      accumulator: new ChunkAccumulator(),
      open: (signal) => client.chat.completions.create(body, { signal }),
      incomplete: 'the response stream ended before a finish_reason',
      classify: (error, streamed) => this.#classify(sdk, error, streamed),
    });
  }

  /** Classifies a client or network error: a retryable AttemptFailure or a final KeelError. */
  #classify(sdk: OpenAIModule, error: unknown, streamed: string): Error {
    const retry = (reason: RetryReason, message: string, retryAfterMs?: number) =>
      new AttemptFailure(reason, message, streamed, retryAfterMs, { cause: error });
    const final = (code: KeelErrorCode, message: string, details?: unknown) =>
      new KeelError(code, message, { cause: error, details });

    if (error instanceof sdk.APIConnectionTimeoutError) {
      return retry('stalled', 'no response headers before the timeout');
    }
    if (error instanceof sdk.APIUserAbortError) return retry('stalled', 'the request was aborted');
    if (error instanceof sdk.APIConnectionError) {
      const cause = error.cause instanceof Error ? `: ${describeCause(error.cause)}` : '';
      if (connectionRefused(error)) {
        return final(
          'MODEL_UNAVAILABLE',
          `nothing answers at ${this.baseURL} (connection refused; is the server running, is OPENAI_BASE_URL right?)${cause}`,
          { baseURL: this.baseURL },
        );
      }
      return retry('connection', `cannot connect to ${this.baseURL}${cause}`);
    }
    if (error instanceof sdk.APIError) {
      const body = (error.error ?? {}) as { message?: unknown; code?: unknown };
      const apiMessage =
        typeof body.message === 'string' ? body.message : (error.message ?? 'no message');
      // OpenRouter reports an upstream failure inside a stream as `{error: {code: 502, ...}}`.
      const status = error.status ?? (typeof body.code === 'number' ? body.code : undefined);
      const type = error.type ?? '';
      const code = typeof error.code === 'string' ? error.code : '';
      const label = [type, code].filter((x, i, all) => x && all.indexOf(x) === i).join('/');
      const text = `${status ?? 'stream'} ${label || 'error'}: ${apiMessage}`;
      const details = {
        status,
        type: type || undefined,
        code: code || undefined,
        param: error.param ?? undefined,
        requestId: error.requestID ?? undefined,
      };
      const retryAfterMs = error.headers ? parseRetryAfter(error.headers) : undefined;
      const quotaGone =
        type === 'insufficient_quota' ||
        code === 'insufficient_quota' ||
        QUOTA_WORDS.test(apiMessage) ||
        (retryAfterMs !== undefined && retryAfterMs > this.#policy.quotaRetryAfterMs);
      const quota = () =>
        final(
          'MODEL_QUOTA',
          `${this.baseURL}: quota exhausted: ${text}${retryAfterMs === undefined ? '' : ` (retry-after ${Math.round(retryAfterMs / 1000)} s)`}`,
          { ...details, retryAfterMs },
        );
      const auth = () =>
        final('MODEL_AUTH', `${this.baseURL} rejected the credentials: ${text}`, details);

      if (status === undefined) {
        // An error object inside a 200 stream.
        if (type === 'insufficient_quota' || code === 'insufficient_quota') return quota();
        if (code === 'invalid_api_key' || type === 'authentication_error') return auth();
        if (/rate_limit/.test(`${type} ${code}`)) return retry('rate_limited', text);
        return retry('server_error', text);
      }
      if (status === 429) return quotaGone ? quota() : retry('rate_limited', text, retryAfterMs);
      if (status === 402) return quota();
      if (status === 401 || status === 403) return auth();
      if (status === 408) return retry('stalled', text, retryAfterMs);
      if (status === 503 || status === 529) return retry('overloaded', text, retryAfterMs);
      if (status === 409 || status >= 500) return retry('server_error', text, retryAfterMs);
      if (status === 404) {
        return final(
          'MODEL_UNAVAILABLE',
          `${this.baseURL} answered 404 (model ${this.model} or the base URL wrong?): ${text}`,
          details,
        );
      }
      const tooLong =
        readPromptTooLong(apiMessage, code) ??
        (status === 413 ? ({ reason: 'prompt_too_long' } as const) : null);
      if (tooLong) {
        return final(
          'MODEL_REFUSED_INPUT',
          `the request is too long for ${this.model} at ${this.baseURL}: ${text}`,
          { ...details, ...tooLong },
        );
      }
      const hint =
        status === 400 && error.param === this.maxTokensParam
          ? ` (the server does not take ${this.maxTokensParam}: set KEEL_OPENAI_MAX_TOKENS_PARAM=${this.maxTokensParam === 'max_tokens' ? 'max_completion_tokens' : 'max_tokens'})`
          : '';
      return final(
        'MODEL_REFUSED_INPUT',
        `${this.baseURL} refused the request: ${text}${hint}`,
        details,
      );
    }
    // Anything else thrown while reading the stream (a cut connection, a malformed chunk).
    const message = error instanceof Error ? describeCause(error) : String(error);
    return retry('connection', `the response stream failed: ${message}`);
  }
}

/** True when the error (or a cause inside it) is a refused TCP connection. */
/**
 * How long until the request may be retried, ms: `retry-after-ms`, else `retry-after`, else the
 * latest `x-ratelimit-reset-*` (durations such as `1s`, `6m0s`, `20ms`) of a limit whose
 * `x-ratelimit-remaining-*` is 0. Undefined when none is present.
 */
function parseRetryAfter(headers: Headers): number | undefined {
  const direct = parseRetryAfterHeader(headers);
  if (direct !== undefined) return direct;
  let latest: number | undefined;
  for (const limit of ['requests', 'tokens']) {
    if (headers.get(`x-ratelimit-remaining-${limit}`)?.trim() !== '0') continue;
    const ms = parseDuration(headers.get(`x-ratelimit-reset-${limit}`) ?? '');
    if (ms === undefined) continue;
    latest = latest === undefined ? ms : Math.max(latest, ms);
  }
  return latest;
}

const DURATION_UNITS: Record<string, number> = { h: 3_600_000, m: 60_000, s: 1000, ms: 1 };

/** `1h2m3.5s`, `6m0s`, `20ms` → ms; undefined when it is not such a duration. */
export function parseDuration(value: string): number | undefined {
  const text = value.trim();
  if (!/^(\d+(\.\d+)?(h|ms|m|s))+$/.test(text)) return undefined;
  let ms = 0;
  for (const [, amount, unit] of text.matchAll(/(\d+(?:\.\d+)?)(h|ms|m|s)/g)) {
    ms += Number(amount) * (DURATION_UNITS[unit ?? ''] ?? 0);
  }
  return Math.round(ms);
}

/** keel's conversation as Chat Completions messages. */
function toMessages(request: ChatRequest): ChatCompletionMessageParam[] {
  const out: ChatCompletionMessageParam[] = [];
  const system = request.system
    .map((part) => part.text)
    .filter((text) => text.length > 0)
    .join('\n\n');
  if (system) out.push({ role: 'system', content: system });
  for (const message of request.messages) out.push(...toMessageParams(message));
  return out;
}

function textOf(message: ChatMessage): string {
  return message.content
    .filter((b): b is TextBlock => b.type === 'text')
    .map((b) => b.text)
    .join('\n\n');
}

function toMessageParams(message: ChatMessage): ChatCompletionMessageParam[] {
  const text = textOf(message);
  if (message.role === 'assistant') {
    const calls = message.content.filter((b): b is ToolUseBlock => b.type === 'tool_use');
    if (calls.length === 0) return [{ role: 'assistant', content: text }];
    return [
      {
        role: 'assistant',
        content: text || null,
        tool_calls: calls.map((call) => ({
          id: call.id,
          type: 'function' as const,
          function: { name: call.name, arguments: JSON.stringify(call.input ?? {}) },
        })),
      },
    ];
  }
  // Tool results answer the assistant's calls, so they come first, each as its own message.
  const out: ChatCompletionMessageParam[] = [];
  for (const block of message.content) {
    if (block.type === 'tool_result') {
      out.push({
        role: 'tool',
        tool_call_id: block.tool_use_id,
        content: block.is_error ? `error: ${block.content}` : block.content,
      });
    }
  }
  if (text || out.length === 0) out.push({ role: 'user', content: text });
  return out;
}

function toTool(tool: ToolSpec): ChatCompletionTool {
  return {
    type: 'function',
    function: { name: tool.name, description: tool.description, parameters: tool.inputSchema },
  };
}

const FINISH_REASONS: Readonly<Record<string, StopReason>> = {
  stop: 'end_turn',
  tool_calls: 'tool_use',
  function_call: 'tool_use',
  length: 'max_tokens',
  content_filter: 'refusal',
};

/** A tool call being assembled from its deltas. */
interface PendingCall {
  id: string;
  name: string;
  args: string;
}

/** Builds the response from stream chunks. */
class ChunkAccumulator implements StreamAccumulator<ChatCompletionChunk, ChatResponse> {
  /** Text streamed so far in this attempt. */
  text = '';
  /** True once a choice carried a `finish_reason`. */
  finished = false;

  complete(): boolean {
    return this.finished;
  }
  readonly #calls = new Map<number, PendingCall>();
  #finishReason: string | null = null;
  #refused = false;
  #usage = { prompt: 0, completion: 0, cached: 0 };

  apply(chunk: ChatCompletionChunk, onText: ((delta: string) => void) | undefined): void {
    if (chunk.usage) {
      this.#usage = {
        prompt: chunk.usage.prompt_tokens ?? 0,
        completion: chunk.usage.completion_tokens ?? 0,
        cached: chunk.usage.prompt_tokens_details?.cached_tokens ?? 0,
      };
    }
    for (const choice of chunk.choices ?? []) {
      // Only one answer is asked for; a server that sends more is heard for the first.
      if ((choice.index ?? 0) !== 0) continue;
      const delta = choice.delta ?? {};
      const piece = delta.content ?? delta.refusal ?? '';
      if (delta.refusal) this.#refused = true;
      if (piece) {
        this.text += piece;
        emitText(onText, piece);
      }
      for (const [position, call] of (delta.tool_calls ?? []).entries()) {
        const index = call.index ?? position;
        let pending = this.#calls.get(index);
        if (!pending) {
          pending = { id: '', name: '', args: '' };
          this.#calls.set(index, pending);
        }
        if (call.id && !pending.id) pending.id = call.id;
        if (call.function?.name && !pending.name) pending.name = call.function.name;
        if (call.function?.arguments) pending.args += call.function.arguments;
      }
      if (choice.finish_reason) {
        this.#finishReason = choice.finish_reason;
        this.finished = true;
      }
    }
  }

  response(attempts: number): ChatResponse {
    const content: Array<TextBlock | ToolUseBlock> = [];
    if (this.text) content.push({ type: 'text', text: this.text });
    const calls = [...this.#calls.entries()].sort(([a], [b]) => a - b);
    for (const [n, call] of calls) {
      let input: unknown = {};
      if (call.args.trim() !== '') {
        try {
          input = JSON.parse(call.args);
        } catch (error) {
          throw new Error(`tool call ${call.name} arguments are not valid JSON: ${call.args}`, {
            cause: error,
          });
        }
      }
      content.push({ type: 'tool_use', id: call.id || `call_${n + 1}`, name: call.name, input });
    }
    const mapped = FINISH_REASONS[this.#finishReason ?? ''] ?? 'other';
    const stopReason: StopReason =
      calls.length > 0 && mapped === 'end_turn'
        ? 'tool_use'
        : this.#refused && mapped === 'end_turn'
          ? 'refusal'
          : mapped;
    return {
      content,
      stopReason,
      usage: {
        inputTokens: Math.max(0, this.#usage.prompt - this.#usage.cached),
        outputTokens: this.#usage.completion,
        cacheReadTokens: this.#usage.cached,
      },
      attempts,
    };
  }
}
