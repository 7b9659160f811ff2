/**
 * The Ollama chat provider: the real `ollama` client against the fake Ollama server on 127.0.0.1
 * (tests/support/fake-ollama.ts), through the conformance suite every provider runs and the cases
 * only Ollama has (its refused connection, its context-overflow answer, its mid-stream error line).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { KeelError, type KeelErrorCode } from '@keel/errors';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  type ChatReply,
  type FakeOllama,
  startFakeOllama,
} from '../../../../tests/support/fake-ollama.js';
import { type ConformanceTurn, chatModelConformance } from './conformance.js';
import {
  OLLAMA_FALLBACK_CONTEXT,
  OllamaChatModel,
  type OllamaChatOptions,
  ollamaMaxOutputTokens,
} from './ollama.js';
import type { ChatMessage, ChatRequest, ContentBlock, RetryInfo, WaitInfo } from './types.js';

let fake: FakeOllama;

beforeAll(async () => {
  fake = await startFakeOllama({ models: ['llama3.1:latest'], contextLength: 8192 });
});
afterAll(async () => {
  await fake.close();
});
beforeEach(() => {
  fake.requests.length = 0;
});

const fastSleep = (_ms: number, signal?: AbortSignal): Promise<void> =>
  signal?.aborted ? Promise.reject(signal.reason) : Promise.resolve();

function makeModel(options: Partial<OllamaChatOptions> = {}): OllamaChatModel {
  return new OllamaChatModel({ host: fake.url, model: 'llama3.1', sleep: fastSleep, ...options });
}

function request(overrides: Partial<ChatRequest> = {}): ChatRequest {
  return {
    system: [{ text: 'You are keel.' }],
    messages: [{ role: 'user', content: [{ type: 'text', text: 'What do I drink?' }] }],
    tools: [],
    maxTokens: 256,
    ...overrides,
  };
}

async function expectKeelError(promise: Promise<unknown>, code: KeelErrorCode): Promise<KeelError> {
  const error = await promise.then(
    () => {
      throw new Error(`expected ${code}, got an answer`);
    },
    (e: unknown) => e,
  );
  expect(KeelError.isInstance(error) && error.code).toBe(code);
  return error as KeelError;
}

const chats = () => fake.requests.filter((r) => r.path === '/api/chat');

/** A conformance turn as the fake's scripted reply. */
function toReply(turn: ConformanceTurn): ChatReply {
  if ('hang' in turn) return { stall: true, content: turn.textBefore ?? '' };
  if ('serverError' in turn)
    return { httpError: { status: turn.serverError, error: 'upstream failed' } };
  const text = turn.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
  const calls = turn.content.flatMap((b) =>
    b.type === 'tool_use'
      ? [{ function: { name: b.name, arguments: b.input as Record<string, unknown> } }]
      : [],
  );
  return {
    content: text,
    ...(calls.length ? { tool_calls: calls } : {}),
    done_reason: turn.stopReason === 'max_tokens' ? 'length' : 'stop',
  };
}

interface WireMessage {
  role: string;
  content: string;
  tool_calls?: { function: { name: string; arguments: unknown } }[];
}

/** Ollama's messages back as keel's (tool calls carry no id on Ollama's wire: `call_<n>`). */
function toKeelMessages(wire: WireMessage[]): ChatMessage[] {
  const out: ChatMessage[] = [];
  let calls = 0;
  for (const m of wire) {
    if (m.role === 'system') continue;
    if (m.role === 'assistant') {
      const content: ContentBlock[] = m.content ? [{ type: 'text', text: m.content }] : [];
      for (const c of m.tool_calls ?? []) {
        calls += 1;
        content.push({
          type: 'tool_use',
          id: `call_${calls}`,
          name: c.function.name,
          input: c.function.arguments,
        });
      }
      out.push({ role: 'assistant', content });
      continue;
    }
    const block: ContentBlock =
      m.role === 'tool'
        ? { type: 'tool_result', tool_use_id: `call_${calls}`, content: m.content }
        : { type: 'text', text: m.content };
    const last = out.at(-1);
    if (last?.role === 'user') last.content.push(block);
    else out.push({ role: 'user', content: [block] });
  }
  return out;
}

describe('conformance: OllamaChatModel (fake Ollama, real ollama client)', () => {
  const cases = chatModelConformance({
    retries: true,
    toolCallIds: false,
    setup(turns, timing) {
      fake.requests.length = 0;
      fake.clearChat();
      fake.queueChat(...turns.map(toReply));
      return makeModel({ stallTimeoutMs: 10_000, ...timing });
    },
    receivedMessages: () =>
      chats().map((r) => toKeelMessages((r.body?.messages ?? []) as WireMessage[])),
  });
  for (const c of cases) it(c.name, c.run);
});

describe('OllamaChatModel against the fake Ollama (real ollama client)', () => {
  beforeEach(() => {
    fake.clearChat();
  });

  it('asks Ollama to refuse a prompt past the window (truncate: false) instead of cutting it silently', async () => {
    fake.queueChat({ content: 'Fine.' });
    await makeModel().complete(request());
    expect(chats()[0]?.body).toMatchObject({ truncate: false, options: { num_ctx: 8192 } });
  });

  it("reads Ollama's context-overflow 400 as a prompt too long, with its counts, and does not send it again", async () => {
    // What Ollama's runner answers under truncate: false (the llama.cpp error inside `error`).
    const error = JSON.stringify({
      error: {
        code: 400,
        message:
          'request (8889 tokens) exceeds the available context size (4096 tokens), try increasing it',
        type: 'exceed_context_size_error',
        n_prompt_tokens: 8889,
        n_ctx: 4096,
      },
    });
    fake.queueChat({ httpError: { status: 400, error } }, { content: 'never sent' });
    const failure = await expectKeelError(makeModel().complete(request()), 'MODEL_REFUSED_INPUT');
    expect(failure.details).toMatchObject({
      reason: 'prompt_too_long',
      promptTokens: 8889,
      limitTokens: 4096,
    });
    expect(chats()).toHaveLength(1);
  });

  it("reads the Go runner's shorter overflow answer as too long too", async () => {
    fake.queueChat({
      httpError: { status: 400, error: 'the input length exceeds the context length' },
    });
    const failure = await expectKeelError(makeModel().complete(request()), 'MODEL_REFUSED_INPUT');
    expect(failure.details).toMatchObject({ reason: 'prompt_too_long' });
  });

  it('control: a 400 about something else is not read as too long', async () => {
    fake.queueChat({
      httpError: {
        status: 400,
        error: 'registry.ollama.ai/library/llama3.1 does not support tools',
      },
    });
    const failure = await expectKeelError(makeModel().complete(request()), 'MODEL_UNAVAILABLE');
    expect(failure.details).not.toMatchObject({ reason: 'prompt_too_long' });
    expect(failure.message).toContain('does not support tools');
    expect(chats()).toHaveLength(1);
  });

  it('an error line inside the stream is retried, its streamed text discarded', async () => {
    fake.queueChat(
      { content: 'Half an ans', streamError: 'an error was encountered while running the model' },
      { content: 'A whole answer.' },
    );
    const retries: RetryInfo[] = [];
    const response = await makeModel().complete(request({ onRetry: (r) => retries.push(r) }));
    expect(response).toMatchObject({
      attempts: 2,
      content: [{ type: 'text', text: 'A whole answer.' }],
    });
    expect(retries).toMatchObject([
      { attempt: 1, reason: 'server_error', discardText: 'Half an ans' },
    ]);
  });

  it('a stalled stream is abandoned (the connection closed), not left open', async () => {
    fake.queueChat({ stall: true, content: 'Let me' }, { content: 'Here.' });
    const waits: WaitInfo[] = [];
    const response = await makeModel({ stallTimeoutMs: 600, waitNoticeMs: 200 }).complete(
      request({ onWait: (w) => waits.push(w) }),
    );
    expect(response.content).toEqual([{ type: 'text', text: 'Here.' }]);
    expect(waits).toEqual([{ attempt: 1, waitedMs: 200, giveUpInMs: 400 }]);
    await expect.poll(() => fake.stallsAbandoned).toBeGreaterThanOrEqual(1);
  });

  it('a server that never sends headers is timed out like a stalled stream', async () => {
    fake.queueChat({ delayMs: 60_000, content: 'too late' }, { content: 'In time.' });
    const response = await makeModel({ stallTimeoutMs: 500 }).complete(request());
    expect(response).toMatchObject({ attempts: 2, content: [{ type: 'text', text: 'In time.' }] });
  });

  it('nothing listening at the host is MODEL_UNAVAILABLE at once, naming OLLAMA_HOST, not retried', async () => {
    const retries: RetryInfo[] = [];
    // A port that was just free: nothing listens there.
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    await new Promise((resolve) => server.close(resolve));
    const model = new OllamaChatModel({
      host: `http://127.0.0.1:${port}`,
      model: 'llama3.1',
      contextTokens: 8192,
      sleep: fastSleep,
    });
    const failure = await expectKeelError(
      model.complete(request({ onRetry: (r) => retries.push(r) })),
      'MODEL_UNAVAILABLE',
    );
    expect(failure.message).toContain('OLLAMA_HOST');
    expect(failure.message).toContain(`127.0.0.1:${port}`);
    expect(retries).toEqual([]);
  });

  it('an Ollama that never answers /api/show holds the limits no longer than the stall timeout (the fallback window then)', async () => {
    const silent = await startFakeOllama({ models: ['llama3.1:latest'], showDelayMs: 60_000 });
    try {
      const model = new OllamaChatModel({
        host: silent.url,
        model: 'llama3.1',
        stallTimeoutMs: 500,
      });
      const started = Date.now();
      expect(await model.limits()).toEqual({
        contextTokens: OLLAMA_FALLBACK_CONTEXT,
        maxOutputTokens: ollamaMaxOutputTokens(OLLAMA_FALLBACK_CONTEXT),
      });
      expect(Date.now() - started).toBeLessThan(5000);
    } finally {
      await silent.close();
    }
  });

  it('control: an Ollama that answers /api/show gives the model its own window', async () => {
    expect((await makeModel().limits()).contextTokens).toBe(8192);
  });

  it('rejects a stall timeout of 0 with INVALID_INPUT', () => {
    expect(() => makeModel({ stallTimeoutMs: 0 })).toThrow(/stallTimeoutMs/);
  });
});
