/**
 * `OllamaChatModel`: a fully local model through the `ollama` client's streaming chat, with tools
 * where the model supports them.
 *
 * @module
 */
import { KeelError } from '@keel/errors';
import { type Message, Ollama, type Tool } from 'ollama';
import type {
  ChatModel,
  ChatRequest,
  ChatResponse,
  StopReason,
  TextBlock,
  ToolUseBlock,
} from './types.js';

type ToolParameters = NonNullable<Tool['function']['parameters']>;

/** Options for {@link OllamaChatModel}. */
export interface OllamaChatOptions {
  /** The server, e.g. http://127.0.0.1:11434. */
  host: string;
  /** The model tag, e.g. llama3.1. */
  model: string;
  /** Custom fetch (tests). */
  fetch?: typeof fetch;
}

/** Default Ollama chat model (supports tool calling). */
export const DEFAULT_OLLAMA_CHAT_MODEL = 'llama3.1';

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

  constructor(private readonly options: OllamaChatOptions) {
    this.model = options.model;
  }

  /**
   * @throws KeelError `MODEL_UNAVAILABLE` (server unreachable: names the host and OLLAMA_HOST, or
   *   the model is not pulled), `CANCELLED`.
   */
  async complete(request: ChatRequest): Promise<ChatResponse> {
    const client = new Ollama({
      host: this.options.host,
      ...(this.options.fetch ? { fetch: this.options.fetch } : {}),
    });
    const onAbort = () => client.abort();
    if (request.signal?.aborted) throw new KeelError('CANCELLED', 'the turn was cancelled');
    request.signal?.addEventListener('abort', onAbort, { once: true });
    const tools: Tool[] = request.tools.map((t) => ({
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
        options: { num_predict: request.maxTokens },
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
