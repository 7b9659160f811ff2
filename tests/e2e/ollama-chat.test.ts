/**
 * The Ollama chat provider: the real `ollama` client against a fake Ollama server on 127.0.0.1.
 */

import { join } from 'node:path';
import { Agent, OllamaChatModel, type TurnWait, waitNotice } from '@keel/agent';
import { KeelError } from '@keel/errors';
import { MemoryStore } from '@keel/memory';
import { dbOf } from '@keel/memory/internal';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempHome } from '../support/cli.js';
import { type FakeOllama, startFakeOllama } from '../support/fake-ollama.js';

let ollama: FakeOllama;
let home: string;
let cleanup: () => void;
let store: MemoryStore;

beforeEach(async () => {
  ollama = await startFakeOllama({ models: ['llama3.1:latest'] });
  ({ home, cleanup } = tempHome());
  store = MemoryStore.open(join(home, 'keel.db'));
});
afterEach(async () => {
  store.close();
  cleanup();
  await ollama.close();
});

const chatRequests = () => ollama.requests.filter((r) => r.path === '/api/chat');

describe('OllamaChatModel', () => {
  it('streams a reply in order and sends the system prompt with the memory block', async () => {
    store.remember({
      kind: 'preference',
      key: 'tea',
      value: 'green tea, no sugar',
      source: 'owner_stated',
    });
    ollama.queueChat({ content: 'You like green tea without sugar.' });
    const chunks: string[] = [];
    const agent = new Agent({
      store,
      model: new OllamaChatModel({ host: ollama.url, model: 'llama3.1' }),
    });
    const r = await agent.turn({
      text: 'what tea do I like?',
      channel: 'terminal',
      onText: (d) => chunks.push(d),
    });
    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks.join('')).toBe('You like green tea without sugar.');
    expect(r).toMatchObject({
      provider: 'ollama',
      model: 'llama3.1',
      reply: 'You like green tea without sugar.',
    });
    const body = chatRequests()[0]!.body as {
      messages: { role: string; content: string }[];
      tools: unknown[];
    };
    expect(body.messages[0]!.role).toBe('system');
    expect(body.messages[0]!.content).toMatch(
      /preference\/tea: green tea, no sugar \(conf 1\.00, seen 1x, owner_stated/,
    );
    expect(body.messages.at(-1)!.content).toContain('what tea do I like?');
    expect(body.tools.length).toBe(6);
  });

  it('a tool call round trip: the tool result goes back as a tool message, the write is inferred', async () => {
    ollama.queueChat(
      {
        content: '',
        tool_calls: [
          {
            function: {
              name: 'remember',
              arguments: { kind: 'profile', key: 'city', value: 'Porto' },
            },
          },
        ],
      },
      { content: 'Noted that you live in Porto.' },
    );
    const agent = new Agent({
      store,
      model: new OllamaChatModel({ host: ollama.url, model: 'llama3.1' }),
    });
    const r = await agent.turn({ text: 'I just moved to Porto', channel: 'terminal' });
    expect(r.reply).toBe('Noted that you live in Porto.');
    const second = chatRequests()[1]!.body as {
      messages: { role: string; content: string; tool_name?: string }[];
    };
    const tool = second.messages.find((m) => m.role === 'tool');
    expect(tool).toMatchObject({ tool_name: 'remember' });
    expect(tool!.content).toContain('staged');
    expect(store.current({ scope: 'owner', kind: 'profile', key: 'city' })).toMatchObject({
      value: 'Porto',
      source: 'inferred',
      confidence: 0.7,
    });
  });

  it("runs the model with the window keel budgets for: the model's own, capped, or the configured one", async () => {
    ollama.queueChat({ content: 'one' }, { content: 'two' });
    const own = new OllamaChatModel({ host: ollama.url, model: 'llama3.1' });
    expect(await own.limits()).toEqual({ contextTokens: 32_768, maxOutputTokens: 2048 });
    await new Agent({ store, model: own }).turn({ text: 'hello', channel: 'terminal' });
    const configured = new OllamaChatModel({
      host: ollama.url,
      model: 'llama3.1',
      contextTokens: 16_000,
      maxOutputTokens: 700,
    });
    await new Agent({ store, model: configured }).turn({ text: 'hello', channel: 'terminal' });
    expect(chatRequests().map((r) => r.body!.options)).toEqual([
      { num_predict: 2048, num_ctx: 32_768 },
      { num_predict: 700, num_ctx: 16_000 },
    ]);
    // A model Ollama says nothing of gets the fallback window.
    const unknown = new OllamaChatModel({ host: ollama.url, model: 'not-pulled' });
    expect(await unknown.limits()).toEqual({ contextTokens: 32_768, maxOutputTokens: 2048 });
    // A model with a smaller window than the cap keeps its own.
    const small = await startFakeOllama({ models: ['llama3:latest'], contextLength: 8192 });
    try {
      const model = new OllamaChatModel({ host: small.url, model: 'llama3' });
      expect(await model.limits()).toEqual({ contextTokens: 8192, maxOutputTokens: 1024 });
    } finally {
      await small.close();
    }
  });

  it('a stalled Ollama: the owner is told keel waits, each attempt is given up after the stall timeout, the turn fails with MODEL_TIMEOUT and leaves no memory', async () => {
    ollama.queueChat({ stall: true, content: 'Let me' }, { stall: true });
    const waits: TurnWait[] = [];
    const agent = new Agent({
      store,
      model: new OllamaChatModel({
        host: ollama.url,
        model: 'llama3.1',
        stallTimeoutMs: 1200,
        waitNoticeMs: 300,
        maxAttempts: 2,
        baseDelayMs: 1,
        maxDelayMs: 2,
      }),
    });
    const started = Date.now();
    const err = await agent
      .turn({
        text: 'remember that I like figs',
        channel: 'terminal',
        onWait: (w) => waits.push(w),
      })
      .catch((e: unknown) => e);
    expect(KeelError.isInstance(err) && err.code).toBe('MODEL_TIMEOUT');
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(waits.filter((w) => w.kind === 'model')).toHaveLength(2);
    expect(waitNotice(waits[0]!)).toContain('waiting for the model');
    expect(store.activeFacts()).toEqual([]);
    expect(dbOf(store).prepare('SELECT status, error_code FROM turns').get()).toEqual({
      status: 'failed',
      error_code: 'MODEL_TIMEOUT',
    });
    await expect.poll(() => ollama.stallsAbandoned).toBe(2);
  });

  it('control: an Ollama that answers at once gets no waiting word', async () => {
    ollama.queueChat({ content: 'Noted.' });
    const waits: TurnWait[] = [];
    const agent = new Agent({
      store,
      model: new OllamaChatModel({
        host: ollama.url,
        model: 'llama3.1',
        stallTimeoutMs: 1200,
        waitNoticeMs: 300,
      }),
    });
    const r = await agent.turn({
      text: 'hello',
      channel: 'terminal',
      onWait: (w) => waits.push(w),
    });
    expect(r.reply).toBe('Noted.');
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(waits).toEqual([]);
  });

  it('an unreachable Ollama is a clear error naming OLLAMA_HOST, and the turn leaves no memory', async () => {
    const agent = new Agent({
      store,
      model: new OllamaChatModel({ host: 'http://127.0.0.1:9', model: 'llama3.1' }),
    });
    const err = await agent
      .turn({ text: 'remember that I like figs', channel: 'terminal' })
      .catch((e: unknown) => e);
    expect(KeelError.isInstance(err) && err.code).toBe('MODEL_UNAVAILABLE');
    expect((err as Error).message).toContain('OLLAMA_HOST');
    expect(store.activeFacts()).toEqual([]);
    expect(dbOf(store).prepare('SELECT status, error_code FROM turns').get()).toEqual({
      status: 'failed',
      error_code: 'MODEL_UNAVAILABLE',
    });
  });
});
