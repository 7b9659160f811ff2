/**
 * `OllamaChatModel`: a fully local model through the `ollama` client's streaming chat, with tools
 * where the model supports them.
 *
 * @module
 */
import { KeelError } from '@keel/errors';
import { ollamaHasModel } from '@keel/gate';
import type { Message, Ollama, Tool } from 'ollama';
import { lazyModule } from './load.js';
import { PROBE_TIMEOUT_MS } from './probe.js';
import type {
  ChatModel,
  ChatRequest,
  ChatResponse,
  ModelLimits,
  ModelProbe,
  ProbeOptions,
  StopReason,
  TextBlock,
  ToolUseBlock,
} from './types.js';

/** The `ollama` module, imported once, on first use. */
const loadOllama = lazyModule('the ollama client package', () => import('ollama'));

/** True when Ollama's model list names `model` (an untagged name means its `:latest`); the belief gate's rule. */
export { ollamaHasModel };

type ToolParameters = NonNullable<Tool['function']['parameters']>;

/** Options for {@link OllamaChatModel}. */
export interface OllamaChatOptions {
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

/** A local model served by Ollama. */
export class OllamaChatModel implements ChatModel {
  readonly provider = 'ollama';
  readonly model: string;

  #limits: Promise<ModelLimits> | null = null;

  constructor(private readonly options: OllamaChatOptions) {
    this.model = options.model;
  }

  /** A client (the `ollama` package is imported on first use). */
  async #client(): Promise<Ollama> {
    const { Ollama } = await loadOllama();
    return new Ollama({
      host: this.options.host,
      ...(this.options.fetch ? { fetch: this.options.fetch } : {}),
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
      const info = (await (await this.#client()).show({ model: this.model })) as unknown as {
        model_info?: Record<string, unknown>;
      };
      const entries = Object.entries(info.model_info ?? {});
      const length = entries.find(([k]) => k.endsWith('.context_length'))?.[1];
      if (typeof length === 'number' && Number.isSafeInteger(length) && length > 0) {
        return Math.min(length, OLLAMA_CONTEXT_CAP);
      }
    } catch {
      // Not pulled, an old server, not reachable: complete() says which when it is called.
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
        `Ollama at ${this.options.host} has no model "${this.model}" (KEEL_OLLAMA_CHAT_MODEL); run: ollama pull ${this.model}`,
        { details: { model: this.model, fix: `ollama pull ${this.model}` } },
      );
    }
    return { detail: `${this.model} is pulled in Ollama at ${this.options.host}`, listed: true };
  }

  /**
   * @throws KeelError `MODEL_UNAVAILABLE` (server unreachable: names the host and OLLAMA_HOST, or
   *   the model is not pulled), `CANCELLED`.
   */
  async complete(request: ChatRequest): Promise<ChatResponse> {
    // The window the budget assumed, so Ollama does not cut the prompt at its own default.
    const { contextTokens } = await this.limits();
    const client = await this.#client();
    const onAbort = () => client.abort();
    if (request.signal?.aborted) throw new KeelError('CANCELLED', 'the turn was cancelled');
    request.signal?.addEventListener('abort', onAbort, { once: true });
    const offered = request.toolChoice === 'none' ? [] : request.tools;
    const tools: Tool[] = offered.map((t) => ({
      type: 'function',
      function: {
        name: t.name,
        description: t.description,
        parameters: t.inputSchema as ToolParameters,
      },
    }));
    let text = '';
    const calls: ToolUseBlock[] = [];
    let doneReason = '';
    let usage = { inputTokens: 0, outputTokens: 0 };
    try {
      const stream = await client.chat({
        model: this.model,
        messages: toOllamaMessages(request),
        ...(tools.length ? { tools } : {}),
        stream: true,
        options: { num_predict: request.maxTokens, num_ctx: contextTokens },
      });
      for await (const part of stream) {
        const delta = part.message?.content ?? '';
        if (delta) {
          text += delta;
          request.onText?.(delta);
        }
        for (const call of part.message?.tool_calls ?? []) {
          calls.push({
            type: 'tool_use',
            id: `call_${calls.length + 1}`,
            name: call.function.name,
            input: call.function.arguments ?? {},
          });
        }
        if (part.done) {
          doneReason = part.done_reason ?? '';
          usage = { inputTokens: part.prompt_eval_count ?? 0, outputTokens: part.eval_count ?? 0 };
        }
      }
    } catch (err) {
      if (request.signal?.aborted || (err as Error).name === 'AbortError') {
        throw new KeelError('CANCELLED', 'the turn was cancelled', { cause: err });
      }
      const message = (err as Error).message ?? String(err);
      if (err instanceof TypeError || /fetch failed|ECONNREFUSED|ENOTFOUND/i.test(message)) {
        throw new KeelError(
          'MODEL_UNAVAILABLE',
          `Ollama is not reachable at ${this.options.host} (OLLAMA_HOST): ${message}`,
          { cause: err },
        );
      }
      throw new KeelError(
        'MODEL_UNAVAILABLE',
        `Ollama (${this.model} at ${this.options.host}): ${message}`,
        {
          cause: err,
        },
      );
    } finally {
      request.signal?.removeEventListener('abort', onAbort);
    }
    const content: Array<TextBlock | ToolUseBlock> = [];
    if (text) content.push({ type: 'text', text });
    content.push(...calls);
    const stopReason: StopReason = calls.length
      ? 'tool_use'
      : doneReason === 'length'
        ? 'max_tokens'
        : 'end_turn';
    return { content, stopReason, usage, attempts: 1 };
  }
}
