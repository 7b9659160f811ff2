/**
 * {@link FakeChatModel}: a recording, scripted {@link ChatModel} for unit tests (in the style of
 * vercel/ai's `MockLanguageModel`). No network, no timers beyond a macrotask between text chunks.
 *
 * @example
 * const model = new FakeChatModel([
 *   { content: [{ type: 'tool_use', id: 't1', name: 'recall', input: { query: 'coffee' } }] },
 *   'You like oat flat whites.',
 * ]);
 * // ... run the agent ...
 * expect(model.calls[1]?.messages.at(-1)?.content[0]).toMatchObject({ type: 'tool_result' });
 *
 * @module
 */
import { KeelError } from '@keel/errors';
import type {
  ChatModel,
  ChatRequest,
  ChatResponse,
  ModelLimits,
  StopReason,
  TextBlock,
  ToolUseBlock,
} from './types.js';

/** A scripted answer, in full. */
export interface FakeReply {
  /** Text and tool_use blocks, in order. Text blocks are streamed through `onText`. */
  content: Array<TextBlock | ToolUseBlock>;
  /** Default `tool_use` when a block is a tool_use, else `end_turn`. */
  stopReason?: StopReason;
  /** Default: rough estimates (characters / 4). */
  usage?: Partial<ChatResponse['usage']>;
  /** Default 1. */
  attempts?: number;
  /** Thrown after the text was streamed: a failure mid-stream (the streamed text must be discarded). */
  error?: Error;
  /** After the text was streamed, never finish: rejects with `CANCELLED` when the signal aborts. */
  hang?: boolean;
}

/**
 * One scripted response: a text reply, a full {@link FakeReply}, an `Error` to throw (e.g. a
 * `KeelError('MODEL_OVERLOADED', …)`), or {@link FakeChatModel.HANG} (never answers; rejects with
 * `CANCELLED` when the request's signal aborts).
 */
export type FakeResponse = string | FakeReply | Error | typeof HANG;

/** Computes the response for a call from the request and its 0-based index. */
export type FakeHandler = (
  request: FakeChatCall,
  index: number,
) => FakeResponse | Promise<FakeResponse>;

/** A recorded request: a deep copy of the data part of {@link ChatRequest} (no callbacks, no signal). */
export type FakeChatCall = Pick<
  ChatRequest,
  'system' | 'messages' | 'tools' | 'maxTokens' | 'toolChoice'
>;

const HANG: unique symbol = Symbol('FakeChatModel.HANG');

/** Options for {@link FakeChatModel}. */
export interface FakeChatModelOptions {
  /** Default `fake`. */
  model?: string;
  /** Text chunks per text block streamed to `onText` (default 3). */
  chunks?: number;
  /** What {@link FakeChatModel.limits} answers. Default: a 200,000-token window, 2048 out. */
  limits?: Partial<ModelLimits>;
}

/**
 * A scripted {@link ChatModel} that records every request.
 *
 * Constructed with a function (answers every call), a single response (answers every call), or a
 * list of responses (answered in order; a call past the end throws an `Error` naming the call).
 */
export class FakeChatModel implements ChatModel {
  /** A response that never arrives; the call rejects with `CANCELLED` when its signal aborts. */
  static readonly HANG: typeof HANG = HANG;

  readonly provider = 'fake';
  readonly model: string;
  /** Every request received, deep-copied at call time, in order. */
  readonly calls: FakeChatCall[] = [];
  readonly #script: FakeHandler;
  readonly #chunks: number;
  readonly #limits: ModelLimits;

  constructor(
    script: FakeHandler | FakeResponse | FakeResponse[],
    options: FakeChatModelOptions = {},
  ) {
    this.model = options.model ?? 'fake';
    this.#chunks = Math.max(1, options.chunks ?? 3);
    this.#limits = { contextTokens: 200_000, maxOutputTokens: 2048, ...options.limits };
    if (typeof script === 'function') {
      this.#script = script;
    } else if (Array.isArray(script)) {
      const list = [...script];
      this.#script = (_request, index) => {
        const response = list[index];
        if (response === undefined) {
          throw new Error(
            `FakeChatModel: no scripted response for call #${index + 1} (${list.length} scripted)`,
          );
        }
        return response;
      };
    } else {
      this.#script = () => script;
    }
  }

  /** The limits given in the options (default a 200,000-token window and 2048 out). */
  async limits(): Promise<ModelLimits> {
    return { ...this.#limits };
  }

  /** The last recorded request (undefined before the first call). */
  get lastCall(): FakeChatCall | undefined {
    return this.calls.at(-1);
  }

  /**
   * Records the request and answers with the next scripted response.
   *
   * @throws KeelError `CANCELLED` when `request.signal` aborts (before or while answering); the
   *   scripted `Error` when the response is one; an `Error` when nothing is scripted for this call.
   */
  async complete(request: ChatRequest): Promise<ChatResponse> {
    const signal = request.signal;
    const call: FakeChatCall = structuredClone({
      system: request.system,
      messages: request.messages,
      tools: request.tools,
      maxTokens: request.maxTokens,
      ...(request.toolChoice ? { toolChoice: request.toolChoice } : {}),
    });
    const index = this.calls.length;
    this.calls.push(call);
    throwIfCancelled(signal);
    const response = await this.#script(structuredClone(call), index);
    throwIfCancelled(signal);
    if (response === HANG) return hang(signal);
    if (response instanceof Error) throw response;
    const reply: FakeReply =
      typeof response === 'string' ? { content: [{ type: 'text', text: response }] } : response;
    const content = structuredClone(reply.content);
    for (const block of content) {
      if (block.type !== 'text') continue;
      for (const piece of split(block.text, this.#chunks)) {
        await new Promise<void>((resolve) => setImmediate(resolve));
        throwIfCancelled(signal);
        request.onText?.(piece);
      }
    }
    if (reply.error) throw reply.error;
    if (reply.hang) return hang(signal);
    const outputChars = content
      .map((b) => (b.type === 'text' ? b.text.length : JSON.stringify(b.input ?? {}).length))
      .reduce((a, c) => a + c, 0);
    return {
      content,
      stopReason:
        reply.stopReason ?? (content.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn'),
      usage: {
        inputTokens: Math.ceil(JSON.stringify(call).length / 4),
        outputTokens: Math.ceil(outputChars / 4),
        ...reply.usage,
      },
      attempts: reply.attempts ?? 1,
    };
  }
}

function throwIfCancelled(signal: AbortSignal | undefined): void {
  if (signal?.aborted) {
    throw new KeelError('CANCELLED', 'the model request was cancelled', { cause: signal.reason });
  }
}

function hang(signal: AbortSignal | undefined): Promise<never> {
  return new Promise((_resolve, reject) => {
    signal?.addEventListener(
      'abort',
      () =>
        reject(
          new KeelError('CANCELLED', 'the model request was cancelled', { cause: signal.reason }),
        ),
      { once: true },
    );
  });
}

/** Splits `text` into at most `n` non-empty pieces (at word boundaries when it can). */
function split(text: string, n: number): string[] {
  if (text.length === 0) return [];
  const size = Math.ceil(text.length / n);
  const pieces: string[] = [];
  let rest = text;
  while (rest.length > 0) {
    if (pieces.length === n - 1 || rest.length <= size) {
      pieces.push(rest);
      break;
    }
    const space = rest.indexOf(' ', size);
    const cut = space > 0 && space < size * 2 ? space + 1 : size;
    pieces.push(rest.slice(0, cut));
    rest = rest.slice(cut);
  }
  return pieces;
}
