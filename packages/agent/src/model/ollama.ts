/**
 * `OllamaChatModel`: a fully local model through the `ollama` client's streaming chat, with tools
 * where the model supports them.
 *
 * @module
 */
import { KeelError, type KeelErrorCode } from '@keel/errors';
import { ollamaHasModel } from '@keel/gate';
import type {
  Message,
  Ollama,
  ChatResponse as OllamaChunk,
  ChatRequest as OllamaRequest,
  Tool,
} from 'ollama';
import { lazyModule } from './load.js';
import { PROBE_TIMEOUT_MS } from './probe.js';
import {
  AttemptFailure,
  connectionRefused,
  describeCause,
  emitText,
  finalFailure,
  type RetryOptions,
  type RetryPolicy,
  retryPolicy,
  type StreamAccumulator,
  streamAttempt,
  withRetries,
} from './retry.js';
import { readPromptTooLong } from './too-long.js';
import type {
  ChatModel,
  ChatRequest,
  ChatResponse,
  ModelLimits,
  ModelProbe,
  ProbeOptions,
  RetryReason,
  StopReason,
  TextBlock,
  ToolUseBlock,
} from './types.js';

/** The `ollama` module, imported once, on first use. */
const loadOllama = lazyModule('the ollama client package', () => import('ollama'));

/** True when Ollama's model list names `model` (an untagged name means its `:latest`); the belief gate's rule. */
export { ollamaHasModel };

type ToolParameters = NonNullable<Tool['function']['parameters']>;

/**
 * Options for {@link OllamaChatModel}: the server, the model, its limits, and the retry policy
 * every streaming provider shares ({@link RetryOptions}: the stall timeout, the wait notice, the
 * attempts). Nothing is read from the environment.
 */
export interface OllamaChatOptions extends RetryOptions {
  /** The server, e.g. http://127.0.0.1:11434. */
  host: string;
  /** The model tag, e.g. llama3.1. */
  model: string;
  /** Custom fetch (tests). */
  fetch?: typeof fetch;
  /**
   * The context window to run the model with, tokens (sent as `num_ctx`). Default: the model's
   * own (`context_length` in `/api/show`) up to {@link OLLAMA_CONTEXT_CAP}, else
   * {@link OLLAMA_FALLBACK_CONTEXT}.
   */
  contextTokens?: number;
  /** `max_tokens` (`num_predict`) the agent asks for. Default {@link ollamaMaxOutputTokens}. */
  maxOutputTokens?: number;
}

/** Default Ollama chat model (supports tool calling). */
export const DEFAULT_OLLAMA_CHAT_MODEL = 'llama3.1';
/**
 * The largest context window keel runs an Ollama model with unless told otherwise, tokens: a
 * model's full window (128k for llama3.1) needs far more memory than a laptop has to spare.
 */
export const OLLAMA_CONTEXT_CAP = 32_768;
/**
 * The context window used when Ollama does not say the model's, tokens: what the tool-calling
 * models keel suggests (llama3.1, qwen2.5) take at least.
 */
export const OLLAMA_FALLBACK_CONTEXT = 32_768;

/** The default `max_tokens` for an Ollama model: 2048, or an eighth of a smaller window. */
export function ollamaMaxOutputTokens(contextTokens: number): number {
  return Math.min(2048, Math.floor(contextTokens / 8));
}

/** Options for {@link listOllamaModels}. */
export interface OllamaListOptions extends ProbeOptions {
  /** Custom fetch (tests). */
  fetch?: typeof fetch;
}

/**
 * The names of the models an Ollama server has (`GET /api/tags`, one request), e.g.
 * `['llama3.1:latest', 'qwen2.5:3b']`.
 *
 * @throws KeelError `MODEL_UNAVAILABLE` (nothing answers at `host`, or an error answer),
 *   `MODEL_TIMEOUT` (no answer within `timeoutMs`, default 5 s), `CANCELLED`.
 */
export async function listOllamaModels(
  host: string,
  options: OllamaListOptions = {},
): Promise<string[]> {
  const { signal } = options;
  const timeoutMs = options.timeoutMs ?? PROBE_TIMEOUT_MS;
  if (signal?.aborted) throw new KeelError('CANCELLED', 'the check was cancelled');
  const timeout = AbortSignal.timeout(timeoutMs);
  const both = signal ? AbortSignal.any([signal, timeout]) : timeout;
  const base = options.fetch ?? fetch;
  const { Ollama } = await loadOllama();
  const client = new Ollama({
    host,
    fetch: (input, init) => base(input, { ...init, signal: both }),
  });
  try {
    const { models } = await client.list();
    return models.map((m) => m.name);
  } catch (err) {
    if (signal?.aborted)
      throw new KeelError('CANCELLED', 'the check was cancelled', { cause: err });
    if (timeout.aborted) {
      throw new KeelError(
        'MODEL_TIMEOUT',
        `Ollama at ${host} did not answer within ${timeoutMs} ms`,
        { cause: err },
      );
    }
    const message = (err as Error).message ?? String(err);
    const unreachable =
      err instanceof TypeError || /fetch failed|ECONNREFUSED|ENOTFOUND/i.test(message);
    throw new KeelError(
      'MODEL_UNAVAILABLE',
      unreachable
        ? `nothing answers at ${host} (is Ollama running? OLLAMA_HOST): ${message}`
        : `Ollama at ${host}: ${message}`,
      { cause: err },
    );
  }
}

function toOllamaMessages(request: ChatRequest): Message[] {
  const out: Message[] = [];
  const system = request.system.map((p) => p.text).join('\n\n');
  if (system) out.push({ role: 'system', content: system });
  const names = new Map<string, string>();
  for (const m of request.messages) {
    const text = m.content
      .filter((b): b is TextBlock => b.type === 'text')
      .map((b) => b.text)
      .join('\n\n');
    if (m.role === 'assistant') {
      const calls = m.content.filter((b): b is ToolUseBlock => b.type === 'tool_use');
      for (const c of calls) names.set(c.id, c.name);
      out.push({
        role: 'assistant',
        content: text,
        ...(calls.length
          ? {
              tool_calls: calls.map((c) => ({
                function: { name: c.name, arguments: (c.input ?? {}) as Record<string, unknown> },
              })),
            }
          : {}),
      });
      continue;
    }
    for (const b of m.content) {
      if (b.type === 'tool_result') {
        out.push({
          role: 'tool',
          content: b.content,
          tool_name: names.get(b.tool_use_id) ?? 'tool',
        });
      }
    }
    if (text) out.push({ role: 'user', content: text });
  }
  return out;
}

/**
 * The body of an `/api/chat` request. `truncate: false` asks Ollama (0.12 and later) to refuse a
 * prompt longer than `num_ctx` instead of silently dropping its oldest messages: keel budgets the
 * prompt itself and learns from the refusal; an older server ignores the field.
 */
type OllamaChatBody = OllamaRequest & { stream: true; truncate: false };

/**
 * A local model served by Ollama, streaming through the `ollama` client.
 *
 * - Each attempt has the stall watchdog every streaming provider shares: no NDJSON line for
 *   `stallTimeoutMs` → the attempt is abandoned and retried (`MODEL_TIMEOUT` after the last), and
 *   after `waitNoticeMs` of silence `request.onWait` is told (once per silence).
 * - Retried: 5xx, 429, an `error` line inside the stream, a connection cut mid-answer.
 * - Not retried: a refused connection (Ollama not running: `MODEL_UNAVAILABLE` naming OLLAMA_HOST),
 *   a model that is not pulled (404, `MODEL_UNAVAILABLE`), a prompt longer than the window
 *   (`MODEL_REFUSED_INPUT` with `details.reason: 'prompt_too_long'` and the counts Ollama gives),
 *   cancellation (`CANCELLED`).
 */
export class OllamaChatModel implements ChatModel {
  readonly provider = 'ollama';
  readonly model: string;
  readonly #policy: RetryPolicy;

  #limits: Promise<ModelLimits> | null = null;

  /** @throws KeelError `INVALID_INPUT` when a retry option is out of range. */
  constructor(private readonly options: OllamaChatOptions) {
    this.model = options.model;
    this.#policy = retryPolicy(options);
  }

  /**
   * A client (the `ollama` package is imported on first use) whose requests end when `signal`
   * aborts, as well as when the client aborts them itself.
   */
  async #client(signal: AbortSignal): Promise<Ollama> {
    const { Ollama } = await loadOllama();
    const base = this.options.fetch ?? fetch;
    return new Ollama({
      host: this.options.host,
      fetch: (input, init) =>
        base(input, {
          ...init,
          signal: init?.signal ? AbortSignal.any([init.signal, signal]) : signal,
        }),
    });
  }

  /**
   * The configured limits, else the model's `context_length` from `/api/show` (up to
   * {@link OLLAMA_CONTEXT_CAP}; {@link OLLAMA_FALLBACK_CONTEXT} when Ollama does not answer) and
   * {@link ollamaMaxOutputTokens}. Asked once per instance.
   */
  limits(): Promise<ModelLimits> {
    this.#limits ??= (async () => {
      const contextTokens = this.options.contextTokens ?? (await this.#modelContext());
      return {
        contextTokens,
        maxOutputTokens: this.options.maxOutputTokens ?? ollamaMaxOutputTokens(contextTokens),
      };
    })();
    return this.#limits;
  }

  /** The model's own context window (capped), or the fallback when Ollama does not say. */
  async #modelContext(): Promise<number> {
    try {
      // Bounded like a stream: an Ollama that never answers here must not hold the turn.
      const client = await this.#client(AbortSignal.timeout(this.#policy.stallTimeoutMs));
      const info = (await client.show({ model: this.model })) as unknown as {
        model_info?: Record<string, unknown>;
      };
      const entries = Object.entries(info.model_info ?? {});
      const length = entries.find(([k]) => k.endsWith('.context_length'))?.[1];
      if (typeof length === 'number' && Number.isSafeInteger(length) && length > 0) {
        return Math.min(length, OLLAMA_CONTEXT_CAP);
      }
    } catch {
      // Not pulled, an old server, not reachable, silent: complete() says which when it is called.
    }
    return OLLAMA_FALLBACK_CONTEXT;
  }

  /**
   * Lists the server's models (`GET /api/tags`) and looks for this one.
   *
   * @throws KeelError `MODEL_NOT_FOUND` (not pulled: the message and `details.fix` name
   *   `ollama pull <model>`), `MODEL_UNAVAILABLE`, `MODEL_TIMEOUT`, `CANCELLED` (see
   *   {@link listOllamaModels}).
   */
  async probe(options: ProbeOptions = {}): Promise<ModelProbe> {
    const names = await listOllamaModels(this.options.host, {
      ...options,
      ...(this.options.fetch ? { fetch: this.options.fetch } : {}),
    });
    if (!ollamaHasModel(names, this.model)) {
      throw new KeelError(
        'MODEL_NOT_FOUND',
        `Ollama at ${this.options.host} has no model "${this.model}" (the setting ollama.chat_model); run: ollama pull ${this.model}`,
        { details: { model: this.model, fix: `ollama pull ${this.model}` } },
      );
    }
    return { detail: `${this.model} is pulled in Ollama at ${this.options.host}`, listed: true };
  }

  /**
   * Sends one request, streaming text through `request.onText`, and resolves with the complete
   * response (`attempts` counts the tries it took).
   *
   * @throws KeelError `CANCELLED`, `MODEL_UNAVAILABLE` (nothing answers at the host: names
   *   OLLAMA_HOST; the model is not pulled; 5xx on every attempt), `MODEL_REFUSED_INPUT` (the
   *   prompt is longer than the window: `details.reason: 'prompt_too_long'`), `MODEL_TIMEOUT`
   *   (every attempt stalled), `MODEL_OVERLOADED` (busy on every attempt). An error thrown by
   *   `onText` or `onRetry` is rethrown as it is.
   */
  async complete(request: ChatRequest): Promise<ChatResponse> {
    // The window the budget assumed, so Ollama does not cut the prompt at its own default.
    const { contextTokens } = await this.limits();
    const offered = request.toolChoice === 'none' ? [] : request.tools;
    const tools: Tool[] = offered.map((t) => ({
      type: 'function',
      function: {
        name: t.name,
        description: t.description,
        parameters: t.inputSchema as ToolParameters,
      },
    }));
    const body: OllamaChatBody = {
      model: this.model,
      messages: toOllamaMessages(request),
      ...(tools.length ? { tools } : {}),
      stream: true,
      truncate: false,
      options: { num_predict: request.maxTokens, num_ctx: contextTokens },
    };
    return withRetries(
      this.#policy,
      request,
      (attempt) => this.#attempt(body, request, attempt),
      (failure) =>
        finalFailure(this.#policy, failure, {
          where: `Ollama at ${this.options.host} (OLLAMA_HOST)`,
          overloaded: `Ollama (${this.model} at ${this.options.host})`,
        }),
    );
  }

  /** One streamed attempt with its own client, whose requests end when the attempt's signal does. */
  async #attempt(
    body: OllamaChatBody,
    request: ChatRequest,
    attempt: number,
  ): Promise<ChatResponse> {
    // Whether Ollama answered (headers): a fetch that fails before that never reached it.
    let answered = false;
    return streamAttempt({
      signal: request.signal,
      stallTimeoutMs: this.#policy.stallTimeoutMs,
      waitNoticeMs: this.#policy.waitNoticeMs,
      onWait: request.onWait,
      attempt,
      onText: request.onText,
      accumulator: new ChunkAccumulator(),
      open: async (signal) => {
        const client = await this.#client(signal);
        const stream = await client.chat(body);
        answered = true;
        return stream;
      },
      incomplete: 'the response stream ended before its done line',
      classify: (error, streamed) => this.#classify(error, streamed, answered),
    });
  }

  /**
   * Classifies a client or network error: a retryable AttemptFailure or a final KeelError.
   * `answered`: whether Ollama had sent its response headers (a fetch that failed before that,
   * refused or to a port fetch will not use, never reached a server: not retried).
   */
  #classify(error: unknown, streamed: string, answered: boolean): Error {
    const host = this.options.host;
    const retry = (reason: RetryReason, message: string) =>
      new AttemptFailure(reason, message, streamed, undefined, { cause: error });
    const final = (code: KeelErrorCode, message: string, details?: unknown) =>
      new KeelError(code, message, { cause: error, details });
    const message = error instanceof Error ? error.message : String(error);
    const unreached = !answered && error instanceof TypeError;
    if (unreached || connectionRefused(error) || /ECONNREFUSED|ENOTFOUND/.test(message)) {
      return final(
        'MODEL_UNAVAILABLE',
        `Ollama is not reachable at ${host} (OLLAMA_HOST): ${describeCause(error as Error)}`,
        { host },
      );
    }
    // The client's ResponseError: an HTTP error answer, `{error}` its message.
    const status = (error as { status_code?: unknown }).status_code;
    const where = `Ollama (${this.model} at ${host})`;
    // Ollama refuses a prompt past num_ctx (truncate: false) with a 400, or an error line.
    const tooLong =
      status === undefined || status === 400 || status === 413 ? readPromptTooLong(message) : null;
    if (tooLong) {
      return final('MODEL_REFUSED_INPUT', `the request is too long for ${where}: ${message}`, {
        status,
        ...tooLong,
      });
    }
    if (typeof status === 'number') {
      const text = `${status}: ${message}`;
      if (status === 429 || status === 503) return retry('overloaded', text);
      if (status >= 500) return retry('server_error', text);
      return final('MODEL_UNAVAILABLE', `${where}: ${text}`, { status });
    }
    if (error instanceof TypeError) {
      return retry('connection', `the response stream failed: ${describeCause(error)}`);
    }
    // An `{error}` line inside the stream, or a stream that ended without its done line.
    return retry('server_error', `${where}: ${message}`);
  }
}

/** Collects the NDJSON chunks of one `/api/chat` stream into a {@link ChatResponse}. */
class ChunkAccumulator implements StreamAccumulator<OllamaChunk, ChatResponse> {
  text = '';
  readonly #calls: ToolUseBlock[] = [];
  #done = false;
  #doneReason = '';
  #usage = { inputTokens: 0, outputTokens: 0 };

  apply(part: OllamaChunk, onText: ((delta: string) => void) | undefined): void {
    const delta = part.message?.content ?? '';
    if (delta) {
      this.text += delta;
      emitText(onText, delta);
    }
    for (const call of part.message?.tool_calls ?? []) {
      this.#calls.push({
        type: 'tool_use',
        id: `call_${this.#calls.length + 1}`,
        name: call.function.name,
        input: call.function.arguments ?? {},
      });
    }
    if (part.done) {
      this.#done = true;
      this.#doneReason = part.done_reason ?? '';
      this.#usage = {
        inputTokens: part.prompt_eval_count ?? 0,
        outputTokens: part.eval_count ?? 0,
      };
    }
  }

  complete(): boolean {
    return this.#done;
  }

  response(attempt: number): ChatResponse {
    const content: Array<TextBlock | ToolUseBlock> = [];
    if (this.text) content.push({ type: 'text', text: this.text });
    content.push(...this.#calls);
    const stopReason: StopReason = this.#calls.length
      ? 'tool_use'
      : this.#doneReason === 'length'
        ? 'max_tokens'
        : 'end_turn';
    return { content, stopReason, usage: { ...this.#usage }, attempts: attempt };
  }
}
