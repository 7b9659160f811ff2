import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { KeelError, type KeelErrorCode } from '@keel/errors';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  FakeAnthropic,
  type FakeBlock,
  type FakeScript,
  text,
  toolUse,
} from '../../../../tests/support/fake-anthropic.js';
import {
  AnthropicChatModel,
  type AnthropicChatModelOptions,
  DEFAULT_ANTHROPIC_MODEL,
} from './anthropic.js';
import { type ConformanceTurn, chatModelConformance } from './conformance.js';
import { FakeChatModel, type FakeResponse } from './fake.js';
import type { ChatMessage, ChatRequest, RetryInfo, WaitInfo } from './types.js';

let fake: FakeAnthropic;
/** Delays the model asked to sleep, ms (the injected sleep returns at once). */
let sleeps: number[];

beforeAll(async () => {
  fake = await FakeAnthropic.start();
});
afterAll(async () => {
  await fake.close();
});
beforeEach(() => {
  fake.reset();
  sleeps = [];
});

function fastSleep(ms: number, signal?: AbortSignal): Promise<void> {
  sleeps.push(ms);
  if (signal?.aborted) return Promise.reject(signal.reason);
  return Promise.resolve();
}

function makeModel(options: Partial<AnthropicChatModelOptions> = {}): AnthropicChatModel {
  return new AnthropicChatModel({
    apiKey: 'sk-test-key',
    baseURL: fake.baseURL,
    // Not the default model name: tests should not depend on which models the SDK knows.
    model: 'claude-test',
    sleep: fastSleep,
    random: () => 0.5,
    ...options,
  });
}

const USER: ChatMessage = { role: 'user', content: [{ type: 'text', text: 'What do I drink?' }] };

function request(overrides: Partial<ChatRequest> = {}): ChatRequest {
  return {
    system: [
      { text: 'You are keel, a personal agent.' },
      { text: '<memory>[f1] preference/coffee: oat flat white (conf 0.70)</memory>', cache: true },
      { text: 'Today is Tuesday.' },
    ],
    messages: [USER],
    tools: [
      {
        name: 'recall',
        description: 'Search memory.',
        inputSchema: {
          type: 'object',
          properties: { query: { type: 'string' } },
          required: ['query'],
        },
      },
    ],
    maxTokens: 512,
    ...overrides,
  };
}

async function expectKeelError(promise: Promise<unknown>, code: KeelErrorCode): Promise<KeelError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(KeelError.isInstance(error), `expected KeelError ${code}, got ${String(error)}`).toBe(
    true,
  );
  expect((error as KeelError).code, (error as KeelError).message).toBe(code);
  return error as KeelError;
}

describe('AnthropicChatModel against the fake Anthropic server (real SDK)', () => {
  afterEach(() => {
    expect(fake.errors).toEqual([]);
  });

  it('streams text deltas in order and joins them to the final text', async () => {
    const reply = 'Oat flat white, as far as I know (conf 0.70).';
    fake.reply(reply, { chunkSize: 3, usage: { input_tokens: 120, output_tokens: 14 } });
    const deltas: string[] = [];
    const response = await makeModel().complete(request({ onText: (d) => deltas.push(d) }));

    expect(deltas.length).toBe(Math.ceil(reply.length / 3));
    expect(deltas.join('')).toBe(reply);
    expect(response).toEqual({
      content: [{ type: 'text', text: reply }],
      stopReason: 'end_turn',
      usage: { inputTokens: 120, outputTokens: 14, cacheReadTokens: 0, cacheWriteTokens: 0 },
      attempts: 1,
    });
    const [sent] = fake.requests;
    expect(sent?.headers.authorization).toBe('Bearer sk-test-key');
    expect(sent?.body).toMatchObject({
      model: 'claude-test',
      max_tokens: 512,
      stream: true,
    });
  });

  it('sends system parts with cache_control on the marked part only, tools with input_schema', async () => {
    fake.reply('ok');
    await makeModel({ model: 'claude-test-1' }).complete(
      request({ system: [...request().system, { text: '' }] }),
    );
    const body = fake.requests[0]?.body;
    expect(body.model).toBe('claude-test-1');
    expect(body.system).toEqual([
      { type: 'text', text: 'You are keel, a personal agent.' },
      {
        type: 'text',
        text: '<memory>[f1] preference/coffee: oat flat white (conf 0.70)</memory>',
        cache_control: { type: 'ephemeral' },
      },
      { type: 'text', text: 'Today is Tuesday.' },
    ]);
    expect(body.tools).toEqual([
      {
        name: 'recall',
        description: 'Search memory.',
        input_schema: {
          type: 'object',
          properties: { query: { type: 'string' } },
          required: ['query'],
        },
      },
    ]);
    expect(body.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'What do I drink?' }] },
    ]);
  });

  it('defaults to claude-sonnet-4-6 and the public API host', () => {
    const model = new AnthropicChatModel({ apiKey: 'k' });
    expect(model.model).toBe(DEFAULT_ANTHROPIC_MODEL);
    expect(DEFAULT_ANTHROPIC_MODEL).toBe('claude-sonnet-4-6');
    expect(model.provider).toBe('anthropic');
    expect(() => new AnthropicChatModel({ apiKey: '' })).toThrow(/apiKey/);
    expect(() => new AnthropicChatModel({ apiKey: 'k', maxAttempts: 0 })).toThrow(/maxAttempts/);
  });

  it('omits system and tools when there are none', async () => {
    fake.reply('ok');
    await makeModel().complete(request({ system: [], tools: [] }));
    const body = fake.requests[0]?.body;
    expect(body).not.toHaveProperty('system');
    expect(body).not.toHaveProperty('tools');
  });

  it('round-trips a tool_use: parsed input, then a second request carrying the tool_result', async () => {
    const input = {
      query: 'coffee "oat" \u00e9\u{1F375}',
      filters: { kind: ['preference'], limit: 5 },
    };
    fake.reply([text('Let me look that up.'), toolUse('recall', input, 'toolu_01')], {
      chunkSize: 5,
    });
    fake.reply('You drink oat flat whites.');
    const model = makeModel();

    const first = await model.complete(request());
    expect(first.stopReason).toBe('tool_use');
    expect(first.content).toEqual([
      { type: 'text', text: 'Let me look that up.' },
      { type: 'tool_use', id: 'toolu_01', name: 'recall', input },
    ]);

    const messages: ChatMessage[] = [
      USER,
      { role: 'assistant', content: first.content },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_01', content: '[f1] oat flat white' },
          { type: 'tool_result', tool_use_id: 'toolu_02', content: 'no such fact', is_error: true },
        ],
      },
    ];
    const second = await model.complete(request({ messages }));
    expect(second.content).toEqual([{ type: 'text', text: 'You drink oat flat whites.' }]);
    expect(fake.requests).toHaveLength(2);
    expect(fake.requests[1]?.body.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'What do I drink?' }] },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Let me look that up.' },
          { type: 'tool_use', id: 'toolu_01', name: 'recall', input },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_01', content: '[f1] oat flat white' },
          {
            type: 'tool_result',
            tool_use_id: 'toolu_02',
            content: 'no such fact',
            is_error: true,
          },
        ],
      },
    ]);
  });

  it('reports cache read and write tokens', async () => {
    fake.reply('cached', {
      usage: {
        input_tokens: 12,
        output_tokens: 3,
        cache_read_input_tokens: 2048,
        cache_creation_input_tokens: 100,
      },
    });
    const response = await makeModel().complete(request());
    expect(response.usage).toEqual({
      inputTokens: 12,
      outputTokens: 3,
      cacheReadTokens: 2048,
      cacheWriteTokens: 100,
    });
  });

  it('retries an overloaded_error that arrives mid-stream after HTTP 200, reporting the text to discard', async () => {
    fake.push({ kind: 'stream_error', textBefore: 'Your coffee is' });
    fake.reply('You drink oat flat whites.');
    const deltas: string[] = [];
    const retries: RetryInfo[] = [];
    const response = await makeModel({ baseDelayMs: 100 }).complete(
      request({ onText: (d) => deltas.push(d), onRetry: (info) => retries.push(info) }),
    );

    expect(response.attempts).toBe(2);
    expect(response.content).toEqual([{ type: 'text', text: 'You drink oat flat whites.' }]);
    expect(retries).toEqual([
      {
        attempt: 1,
        reason: 'overloaded',
        delayMs: 75,
        discardText: 'Your coffee is',
        message: expect.stringContaining('overloaded_error'),
      },
    ]);
    // The UI saw the failed attempt's text, then (after onRetry) the answer.
    expect(deltas.join('')).toBe('Your coffee isYou drink oat flat whites.');
    expect(sleeps).toEqual([75]);
    expect(fake.requests).toHaveLength(2);
  });

  it('times out a stalled stream and retries it', async () => {
    fake.push({ kind: 'stall', textBefore: 'Hmm, let' });
    fake.reply('Answer after the stall.');
    const retries: RetryInfo[] = [];
    const started = Date.now();
    const response = await makeModel({ stallTimeoutMs: 400 }).complete(
      request({ onRetry: (info) => retries.push(info) }),
    );
    expect(Date.now() - started).toBeLessThan(5000);
    expect(response.attempts).toBe(2);
    expect(response.content).toEqual([{ type: 'text', text: 'Answer after the stall.' }]);
    expect(retries).toMatchObject([{ attempt: 1, reason: 'stalled', discardText: 'Hmm, let' }]);
    await expect.poll(() => fake.stallsAbandoned).toBe(1);
  });

  it('times out a server that never sends response headers', async () => {
    fake.push({ kind: 'stall', beforeHeaders: true });
    fake.reply('Late but here.');
    const response = await makeModel({ stallTimeoutMs: 400 }).complete(request());
    expect(response.attempts).toBe(2);
    expect(response.content).toEqual([{ type: 'text', text: 'Late but here.' }]);
  });

  it('a stream that stalls after some events: the waiter is told at once per silence, then retried, then MODEL_TIMEOUT', async () => {
    fake.push({ kind: 'stall', textBefore: 'Let me' }, { kind: 'stall', textBefore: 'Let me' });
    const waits: WaitInfo[] = [];
    const retries: RetryInfo[] = [];
    const started = Date.now();
    const error = await expectKeelError(
      makeModel({ stallTimeoutMs: 600, waitNoticeMs: 150, maxAttempts: 2 }).complete(
        request({ onWait: (w) => waits.push(w), onRetry: (r) => retries.push(r) }),
      ),
      'MODEL_TIMEOUT',
    );
    expect(Date.now() - started).toBeLessThan(5000);
    expect(error.message).toContain('2 attempt');
    // Told once per stalled attempt, well before it is given up.
    expect(waits).toEqual([
      { attempt: 1, waitedMs: 150, giveUpInMs: 450 },
      { attempt: 2, waitedMs: 150, giveUpInMs: 450 },
    ]);
    expect(retries).toMatchObject([{ attempt: 1, reason: 'stalled', discardText: 'Let me' }]);
  });

  it('control: a stream whose events keep coming, slowly, is not a wait', async () => {
    fake.reply('On time, slowly.', { chunkSize: 4, eventDelayMs: 60 });
    const waits: WaitInfo[] = [];
    const response = await makeModel({ stallTimeoutMs: 3000, waitNoticeMs: 600 }).complete(
      request({ onWait: (w) => waits.push(w) }),
    );
    expect(response.content).toEqual([{ type: 'text', text: 'On time, slowly.' }]);
    expect(waits).toEqual([]);
  });

  it('5xx then an answer: retried, the answer comes', async () => {
    fake.push({ kind: 'http_error', status: 500, message: 'upstream failed' });
    fake.reply('After the 500.');
    const retries: RetryInfo[] = [];
    const response = await makeModel().complete(request({ onRetry: (r) => retries.push(r) }));
    expect(response.content).toEqual([{ type: 'text', text: 'After the 500.' }]);
    expect(retries).toMatchObject([{ attempt: 1, reason: 'server_error' }]);
  });

  it('gives MODEL_TIMEOUT when every attempt stalls', async () => {
    fake.push({ kind: 'stall' }, { kind: 'stall', textBefore: 'Half' });
    const error = await expectKeelError(
      makeModel({ stallTimeoutMs: 200, maxAttempts: 2 }).complete(request()),
      'MODEL_TIMEOUT',
    );
    expect(error.message).toContain('2 attempt');
    expect(fake.requests).toHaveLength(2);
  });

  it('gives MODEL_OVERLOADED after 529 on every one of maxAttempts attempts, backing off', async () => {
    const overloaded: FakeScript = { kind: 'http_error', status: 529, message: 'Overloaded' };
    fake.push(overloaded, overloaded, overloaded);
    const retries: RetryInfo[] = [];
    await expectKeelError(
      makeModel({ maxAttempts: 3, baseDelayMs: 1000, maxDelayMs: 1500 }).complete(
        request({ onRetry: (info) => retries.push(info) }),
      ),
      'MODEL_OVERLOADED',
    );
    expect(fake.requests).toHaveLength(3);
    // Equal jitter with random() = 0.5: 3/4 of min(maxDelayMs, base * 2^(n-1)).
    expect(sleeps).toEqual([750, 1125]);
    expect(retries.map((r) => [r.attempt, r.reason])).toEqual([
      [1, 'overloaded'],
      [2, 'overloaded'],
    ]);
  });

  it('retries a rate-limit 429, waiting at least its retry-after', async () => {
    fake.push({
      kind: 'http_error',
      status: 429,
      message: 'Number of request tokens has exceeded your per-minute rate limit',
      headers: { 'retry-after': '7', 'anthropic-ratelimit-tokens-remaining': '0' },
    });
    fake.reply('ok');
    const response = await makeModel().complete(request());
    expect(response.attempts).toBe(2);
    expect(sleeps).toEqual([7000]);
  });

  it('retries a connection cut mid-stream', async () => {
    fake.push({ kind: 'disconnect', textBefore: 'Cut off' });
    fake.reply('Whole answer.');
    const retries: RetryInfo[] = [];
    const response = await makeModel().complete(request({ onRetry: (info) => retries.push(info) }));
    expect(response.attempts).toBe(2);
    expect(response.content).toEqual([{ type: 'text', text: 'Whole answer.' }]);
    expect(retries).toMatchObject([{ attempt: 1, reason: 'connection', discardText: 'Cut off' }]);
  });

  it('retries 500, 502 and 503 and answers', async () => {
    fake.push(
      { kind: 'http_error', status: 500 },
      { kind: 'http_error', status: 502 },
      { kind: 'http_error', status: 503 },
    );
    fake.reply('finally');
    const response = await makeModel().complete(request());
    expect(response.attempts).toBe(4);
    expect(response.content).toEqual([{ type: 'text', text: 'finally' }]);
  });

  it('gives MODEL_QUOTA after exactly one request for a quota-exhausted 429', async () => {
    fake.push({
      kind: 'http_error',
      status: 429,
      message: 'Your credit balance is too low to access the Anthropic API.',
    });
    const error = await expectKeelError(makeModel().complete(request()), 'MODEL_QUOTA');
    expect(error.message).toContain('credit balance');
    expect(fake.requests).toHaveLength(1);
    expect(sleeps).toEqual([]);
  });

  it('gives MODEL_QUOTA for a 429 whose retry-after is hours away', async () => {
    fake.push({
      kind: 'http_error',
      status: 429,
      message: 'Rate limited',
      headers: { 'retry-after': '14400' },
    });
    await expectKeelError(makeModel().complete(request()), 'MODEL_QUOTA');
    expect(fake.requests).toHaveLength(1);
  });

  it('gives MODEL_QUOTA for a 429 whose exhausted rate limit resets in days', async () => {
    const inThreeDays = new Date(Date.now() + 3 * 86_400_000).toISOString();
    fake.push({
      kind: 'http_error',
      status: 429,
      message: 'Rate limited',
      headers: {
        'anthropic-ratelimit-tokens-remaining': '0',
        'anthropic-ratelimit-tokens-reset': inThreeDays,
        'anthropic-ratelimit-requests-remaining': '40',
        'anthropic-ratelimit-requests-reset': new Date().toISOString(),
      },
    });
    await expectKeelError(makeModel().complete(request()), 'MODEL_QUOTA');
    expect(fake.requests).toHaveLength(1);
  });

  it('waits for an exhausted rate limit that resets soon', async () => {
    const soon = new Date(Date.now() + 20_000).toISOString();
    fake.push({
      kind: 'http_error',
      status: 429,
      message: 'Rate limited',
      headers: {
        'anthropic-ratelimit-requests-remaining': '0',
        'anthropic-ratelimit-requests-reset': soon,
      },
    });
    fake.reply('ok');
    const response = await makeModel().complete(request());
    expect(response.attempts).toBe(2);
    expect(sleeps[0]).toBeGreaterThan(15_000);
    expect(sleeps[0]).toBeLessThanOrEqual(20_000);
  });

  it.each([
    [401, 'MODEL_AUTH'],
    [403, 'MODEL_AUTH'],
    [400, 'MODEL_REFUSED_INPUT'],
    [413, 'MODEL_REFUSED_INPUT'],
  ] as const)('gives %i → %s after one request, no retry', async (status, code) => {
    fake.push({ kind: 'http_error', status, message: `scripted ${status}` });
    const error = await expectKeelError(makeModel().complete(request()), code);
    expect(error.message).toContain(`scripted ${status}`);
    expect(fake.requests).toHaveLength(1);
    expect(sleeps).toEqual([]);
  });

  it.each([
    ['prompt is too long: 208310 tokens > 200000 maximum', 208_310, 200_000],
    [
      'input length and `max_tokens` exceed context limit: 198000 + 8192 > 200000, decrease input length or `max_tokens` and try again',
      198_000,
      200_000,
    ],
  ])('a 400 "%s" says the prompt is too long, with the counts', async (message, prompt, limit) => {
    fake.push({ kind: 'http_error', status: 400, message });
    const error = await expectKeelError(makeModel().complete(request()), 'MODEL_REFUSED_INPUT');
    expect(error.details).toMatchObject({
      status: 400,
      type: 'invalid_request_error',
      reason: 'prompt_too_long',
      promptTokens: prompt,
      limitTokens: limit,
    });
    expect(fake.requests).toHaveLength(1);
  });

  it('another 400 is refused input without a reason', async () => {
    fake.push({ kind: 'http_error', status: 400, message: 'messages.1: bad block' });
    const error = await expectKeelError(makeModel().complete(request()), 'MODEL_REFUSED_INPUT');
    expect((error.details as { reason?: string }).reason).toBeUndefined();
  });

  it('gives MODEL_UNAVAILABLE when the port refuses connections', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));

    const retries: RetryInfo[] = [];
    const error = await expectKeelError(
      makeModel({ baseURL: `http://127.0.0.1:${port}`, maxAttempts: 2 }).complete(
        request({ onRetry: (info) => retries.push(info) }),
      ),
      'MODEL_UNAVAILABLE',
    );
    expect(error.message).toContain(`127.0.0.1:${port}`);
    expect(retries.map((r) => r.reason)).toEqual(['connection']);
  });

  it('cancels mid-stream with CANCELLED and does not retry', async () => {
    fake.push({ kind: 'stall', textBefore: 'Partial' });
    const controller = new AbortController();
    const retries: RetryInfo[] = [];
    await expectKeelError(
      makeModel().complete(
        request({
          signal: controller.signal,
          onText: () => controller.abort(),
          onRetry: (info) => retries.push(info),
        }),
      ),
      'CANCELLED',
    );
    expect(retries).toEqual([]);
    expect(fake.requests).toHaveLength(1);
    await expect.poll(() => fake.stallsAbandoned).toBe(1);
  });

  it('cancels during the backoff wait with CANCELLED', async () => {
    fake.push({ kind: 'http_error', status: 529 });
    const controller = new AbortController();
    await expectKeelError(
      makeModel().complete(
        request({ signal: controller.signal, onRetry: () => controller.abort() }),
      ),
      'CANCELLED',
    );
    expect(fake.requests).toHaveLength(1);
  });

  it('passes an error thrown by onText through unchanged, without retrying', async () => {
    fake.reply('boom');
    const bug = new Error('UI bug');
    await expect(
      makeModel().complete(
        request({
          onText: () => {
            throw bug;
          },
        }),
      ),
    ).rejects.toBe(bug);
    expect(fake.requests).toHaveLength(1);
  });

  it('answers non-streaming requests too (fake server)', async () => {
    fake.reply([text('plain'), toolUse('recall', { query: 'x' }, 'toolu_9')]);
    const res = await fetch(`${fake.baseURL}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'claude-test', max_tokens: 5, messages: [] }),
    });
    const body = (await res.json()) as { content: FakeBlock[]; stop_reason: string };
    expect(body.content).toEqual([
      { type: 'text', text: 'plain' },
      { type: 'tool_use', id: 'toolu_9', name: 'recall', input: { query: 'x' } },
    ]);
    expect(body.stop_reason).toBe('tool_use');
  });
});

describe('AnthropicChatModel limits and cut replies', () => {
  it('a Claude window is 200,000 tokens; max_tokens 8192, 4096 for the early Claude 3 models; options win', async () => {
    expect(await makeModel().limits()).toEqual({ contextTokens: 200_000, maxOutputTokens: 8192 });
    expect(await makeModel({ model: 'claude-3-haiku-20240307' }).limits()).toEqual({
      contextTokens: 200_000,
      maxOutputTokens: 4096,
    });
    expect(await makeModel({ contextTokens: 100_000, maxOutputTokens: 300 }).limits()).toEqual({
      contextTokens: 100_000,
      maxOutputTokens: 300,
    });
    expect(() => makeModel({ maxOutputTokens: 0 })).toThrow(/maxOutputTokens must be/);
  });

  it('toolChoice none is sent as tool_choice none, with the tools still declared', async () => {
    fake.reply('ok');
    fake.reply('ok');
    await makeModel().complete(request({ toolChoice: 'none' }));
    await makeModel().complete(request());
    expect(fake.requests[0]!.body.tool_choice).toEqual({ type: 'none' });
    expect(fake.requests[0]!.body.tools).toHaveLength(1);
    expect(fake.requests[1]!.body.tool_choice).toBeUndefined();
  });

  it('a tool call cut off by max_tokens is dropped, not retried', async () => {
    fake.reply(
      [
        { type: 'text', text: 'Let me check' },
        { type: 'tool_use', name: 'recall', input: {}, rawJson: '{"query": "co' },
      ],
      { stopReason: 'max_tokens' },
    );
    const response = await makeModel().complete(request());
    expect(response).toMatchObject({
      stopReason: 'max_tokens',
      content: [{ type: 'text', text: 'Let me check' }],
      attempts: 1,
    });
  });

  it('invalid tool JSON in a reply that was not cut is still a failed attempt', async () => {
    fake.reply([{ type: 'tool_use', name: 'recall', input: {}, rawJson: '{"query": ' }], {
      stopReason: 'tool_use',
    });
    fake.reply('fine');
    const response = await makeModel({ maxAttempts: 2 }).complete(request());
    expect(response).toMatchObject({ attempts: 2, content: [{ type: 'text', text: 'fine' }] });
  });
});

describe('fake Anthropic server', () => {
  it('answers an unscripted request 500 with a clear message and records it', async () => {
    const error = await expectKeelError(
      makeModel({ maxAttempts: 1 }).complete(request()),
      'MODEL_UNAVAILABLE',
    );
    expect(error.message).toContain('no scripted response left for request #1');
    expect(fake.errors).toEqual(['fake-anthropic: no scripted response left for request #1']);
  });
});

describe('conformance: AnthropicChatModel (fake server)', () => {
  const cases = chatModelConformance({
    retries: true,
    setup(turns, timing) {
      fake.reset();
      for (const turn of turns) {
        if ('hang' in turn) {
          fake.push({ kind: 'stall', ...(turn.textBefore ? { textBefore: turn.textBefore } : {}) });
        } else if ('serverError' in turn) {
          fake.push({ kind: 'http_error', status: turn.serverError, message: 'upstream failed' });
        } else {
          fake.push({ kind: 'message', blocks: turn.content, stopReason: turn.stopReason });
        }
      }
      return makeModel({ stallTimeoutMs: 10_000, ...timing });
    },
    receivedMessages: () => fake.requests.map((r) => r.body.messages as ChatMessage[]),
    teardown() {
      expect(fake.errors).toEqual([]);
    },
  });
  for (const c of cases) it(c.name, c.run);
});

describe('conformance: FakeChatModel', () => {
  let model: FakeChatModel | undefined;
  const toResponse = (turn: ConformanceTurn): FakeResponse => {
    if ('hang' in turn) {
      return {
        content: turn.textBefore ? [{ type: 'text', text: turn.textBefore }] : [],
        hang: true,
      };
    }
    // FakeChatModel has no retry policy, so the suite never scripts a 5xx for it.
    if ('serverError' in turn) throw new Error('FakeChatModel runs no retry cases');
    return { content: turn.content, stopReason: turn.stopReason };
  };
  const cases = chatModelConformance({
    setup(turns) {
      model = new FakeChatModel(turns.map(toResponse));
      return model;
    },
    receivedMessages: () => model?.calls.map((c) => c.messages) ?? [],
  });
  for (const c of cases) it(c.name, c.run);
});

describe('FakeChatModel', () => {
  it('records deep copies of every request', async () => {
    const model = new FakeChatModel('hi');
    const req = request();
    await model.complete(req);
    (req.messages[0]?.content[0] as { text: string }).text = 'mutated';
    expect(model.calls).toHaveLength(1);
    expect(model.lastCall?.messages[0]?.content[0]).toEqual({
      type: 'text',
      text: 'What do I drink?',
    });
    expect(model.lastCall).not.toHaveProperty('onText');
  });

  it('answers every call with a single response, and streams it in a few chunks', async () => {
    const model = new FakeChatModel('one two three four five six');
    const deltas: string[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await model.complete(request({ onText: (d) => deltas.push(d) }));
      expect(r.content).toEqual([{ type: 'text', text: 'one two three four five six' }]);
    }
    expect(deltas.length).toBeGreaterThanOrEqual(6);
    expect(deltas.join('')).toBe('one two three four five six'.repeat(3));
  });

  it('answers a list in order and names the unscripted call', async () => {
    const model = new FakeChatModel([
      { content: [toolUseBlock()] },
      new KeelError('MODEL_OVERLOADED', 'scripted overload'),
    ]);
    expect((await model.complete(request())).stopReason).toBe('tool_use');
    await expectKeelError(model.complete(request()), 'MODEL_OVERLOADED');
    await expect(model.complete(request())).rejects.toThrow(
      'FakeChatModel: no scripted response for call #3 (2 scripted)',
    );
    expect(model.calls).toHaveLength(3);
  });

  it('computes responses with a function', async () => {
    const model = new FakeChatModel((req, index) => `#${index}: ${req.messages.length} messages`);
    expect((await model.complete(request())).content).toEqual([
      { type: 'text', text: '#0: 1 messages' },
    ]);
  });

  it('throws a scripted error after streaming partial text', async () => {
    const deltas: string[] = [];
    const model = new FakeChatModel({
      content: [{ type: 'text', text: 'half an' }],
      error: new KeelError('MODEL_TIMEOUT', 'scripted stall'),
    });
    await expectKeelError(
      model.complete(request({ onText: (d) => deltas.push(d) })),
      'MODEL_TIMEOUT',
    );
    expect(deltas.join('')).toBe('half an');
  });

  it('HANG waits for the signal', async () => {
    const model = new FakeChatModel(FakeChatModel.HANG);
    const controller = new AbortController();
    const pending = model.complete(request({ signal: controller.signal }));
    setTimeout(() => controller.abort(), 10);
    await expectKeelError(pending, 'CANCELLED');
  });
});

function toolUseBlock() {
  return { type: 'tool_use' as const, id: 'toolu_x', name: 'recall', input: { query: 'q' } };
}

describe('AnthropicChatModel.listModels', () => {
  afterEach(() => {
    expect(fake.errors).toEqual([]);
  });

  it('lists every model the key can use, newest first, page by page; a refused key is MODEL_AUTH', async () => {
    fake.apiKey = 'sk-test-key';
    // More than one page of 100.
    fake.models = Array.from({ length: 150 }, (_, i) => `claude-test-${150 - i}`);
    const models = await makeModel().listModels();
    expect(models).toHaveLength(150);
    expect(models[0]).toEqual({
      id: 'claude-test-150',
      displayName: 'Claude Test 150',
      createdAt: '2026-01-01T00:00:00Z',
    });
    expect(models.at(-1)?.id).toBe('claude-test-1');
    expect(fake.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      'GET /v1/models',
      'GET /v1/models',
    ]);
    await expectKeelError(makeModel({ apiKey: 'sk-wrong' }).listModels(), 'MODEL_AUTH');
  });

  it('a message for a model the key cannot use is refused 404 not_found_error, as the API does', async () => {
    fake.models = ['claude-sonnet-4-5'];
    fake.reply('never sent');
    const err = await expectKeelError(
      makeModel({ model: 'claude-sonnet-4-6', maxAttempts: 1 }).complete(request()),
      'MODEL_NOT_FOUND',
    );
    expect(err.message).toContain('has no model "claude-sonnet-4-6" for this key');
    expect(err.message).toContain('404 not_found_error: model: claude-sonnet-4-6');
    expect(err.fix).toContain('`keel config set <setting> <model>`');
    expect(fake.pending).toBe(1); // refused before any script was used
    // The control: the model it has answers.
    await makeModel({ model: 'claude-sonnet-4-5' }).complete(request());
    expect(fake.pending).toBe(0);
  });
});

describe('AnthropicChatModel.probe', () => {
  afterEach(() => {
    expect(fake.errors).toEqual([]);
  });

  it('looks the model up once, generating nothing; a refused key is MODEL_AUTH, an unknown model MODEL_NOT_FOUND', async () => {
    fake.apiKey = 'sk-test-key';
    await expect(makeModel().probe()).resolves.toEqual({
      detail: 'claude-test (Claude Test) is available; the key works',
      listed: true,
    });
    expect(fake.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      'GET /v1/models/claude-test',
    ]);
    await expectKeelError(makeModel({ apiKey: 'sk-wrong' }).probe(), 'MODEL_AUTH');
    const missing = await expectKeelError(
      makeModel({ model: 'claude-nope' }).probe(),
      'MODEL_NOT_FOUND',
    );
    expect(missing.message).toContain('the setting anthropic.model, or KEEL_MODEL');
    // Never retried: one request per probe.
    expect(fake.requests).toHaveLength(3);
  });

  it('a busy API took the key: the probe passes and says so', async () => {
    const busy = createServer((_req, res) => {
      res.writeHead(529, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({ type: 'error', error: { type: 'overloaded_error', message: 'busy' } }),
      );
    });
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    try {
      const baseURL = `http://127.0.0.1:${(busy.address() as AddressInfo).port}`;
      const found = await makeModel({ baseURL }).probe();
      expect(found.listed).toBeNull();
      expect(found.detail).toContain('the key was taken');
    } finally {
      busy.close();
    }
  });

  it('cancelled before it starts: CANCELLED', async () => {
    const controller = new AbortController();
    controller.abort();
    await expectKeelError(makeModel().probe({ signal: controller.signal }), 'CANCELLED');
    expect(fake.requests).toEqual([]);
  });
});
