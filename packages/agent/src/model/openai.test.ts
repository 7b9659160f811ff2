import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { KeelError, type KeelErrorCode } from '@keel/errors';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  FakeOpenAI,
  type FakeOpenAIScript,
  type FakeToolCall,
} from '../../../../tests/support/fake-openai.js';
import { type ConformanceTurn, chatModelConformance } from './conformance.js';
import {
  DEFAULT_OPENAI_BASE_URL,
  DEFAULT_OPENAI_MODEL,
  OpenAIChatModel,
  type OpenAIChatModelOptions,
  parseDuration,
} from './openai.js';
import type {
  ChatMessage,
  ChatRequest,
  ContentBlock,
  RetryInfo,
  StopReason,
  WaitInfo,
} from './types.js';

let fake: FakeOpenAI;
/** Delays the model asked to sleep, ms (the injected sleep returns at once). */
let sleeps: number[];

beforeAll(async () => {
  fake = await FakeOpenAI.start();
});
afterAll(async () => {
  await fake.close();
});
beforeEach(() => {
  fake.reset();
  fake.refuseMaxTokens = false;
  sleeps = [];
});

function fastSleep(ms: number, signal?: AbortSignal): Promise<void> {
  sleeps.push(ms);
  if (signal?.aborted) return Promise.reject(signal.reason);
  return Promise.resolve();
}

function makeModel(options: Partial<OpenAIChatModelOptions> = {}): OpenAIChatModel {
  return new OpenAIChatModel({
    apiKey: 'sk-test-key',
    baseURL: fake.baseURL,
    model: 'gpt-test',
    sleep: fastSleep,
    random: () => 0.5,
    ...options,
  });
}

const USER: ChatMessage = { role: 'user', content: [{ type: 'text', text: 'What do I drink?' }] };

const RECALL = {
  name: 'recall',
  description: 'Search memory.',
  inputSchema: {
    type: 'object',
    properties: { query: { type: 'string' } },
    required: ['query'],
  },
};

function request(overrides: Partial<ChatRequest> = {}): ChatRequest {
  return {
    system: [
      { text: 'You are keel, a personal agent.' },
      { text: '<memory>[f1] preference/coffee: oat flat white (conf 0.70)</memory>', cache: true },
      { text: 'Today is Tuesday.' },
    ],
    messages: [USER],
    tools: [RECALL],
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

interface WireMessage {
  role: string;
  content: string | null;
  tool_calls?: Array<{ id: string; function: { name: string; arguments: string } }>;
  tool_call_id?: string;
}

/**
 * The conversation keel sent, read back from the wire: the system message dropped, tool messages
 * (and a user message right after them) folded into one user message of tool_result blocks.
 */
function toKeelMessages(wire: WireMessage[]): ChatMessage[] {
  const out: ChatMessage[] = [];
  for (const m of wire) {
    if (m.role === 'system') continue;
    if (m.role === 'assistant') {
      const content: ContentBlock[] = m.content ? [{ type: 'text', text: m.content }] : [];
      for (const call of m.tool_calls ?? []) {
        content.push({
          type: 'tool_use',
          id: call.id,
          name: call.function.name,
          input: JSON.parse(call.function.arguments),
        });
      }
      out.push({ role: 'assistant', content });
      continue;
    }
    const last = out.at(-1);
    const afterTools =
      last?.role === 'user' && last.content.every((b) => b.type === 'tool_result') ? last : null;
    if (m.role === 'tool') {
      const block: ContentBlock = {
        type: 'tool_result',
        tool_use_id: m.tool_call_id ?? '',
        content: m.content ?? '',
      };
      if (afterTools) afterTools.content.push(block);
      else out.push({ role: 'user', content: [block] });
      continue;
    }
    const text: ContentBlock = { type: 'text', text: m.content ?? '' };
    if (afterTools) afterTools.content.push(text);
    else out.push({ role: 'user', content: [text] });
  }
  return out;
}

const FINISH: Record<StopReason, string> = {
  end_turn: 'stop',
  tool_use: 'tool_calls',
  max_tokens: 'length',
  stop_sequence: 'stop',
  refusal: 'content_filter',
  other: 'function_call',
};

function toScript(turn: ConformanceTurn): FakeOpenAIScript {
  if ('hang' in turn) {
    return { kind: 'stall', ...(turn.textBefore ? { textBefore: turn.textBefore } : {}) };
  }
  if ('serverError' in turn) {
    return { kind: 'http_error', status: turn.serverError, message: 'upstream failed' };
  }
  const text = turn.content
    .filter((b) => b.type === 'text')
    .map((b) => b.text)
    .join('');
  const toolCalls: FakeToolCall[] = turn.content
    .filter((b) => b.type === 'tool_use')
    .map((b) => ({ id: b.id, name: b.name, arguments: b.input }));
  return {
    kind: 'message',
    ...(text ? { text } : {}),
    ...(toolCalls.length ? { toolCalls } : {}),
    finishReason: FINISH[turn.stopReason],
  };
}

describe('conformance: OpenAIChatModel (fake OpenAI-compatible server)', () => {
  const cases = chatModelConformance({
    retries: true,
    setup(turns, timing) {
      fake.reset();
      fake.push(...turns.map(toScript));
      return makeModel({ stallTimeoutMs: 10_000, ...timing });
    },
    receivedMessages: () => fake.completions.map((r) => toKeelMessages(r.body.messages)),
    teardown() {
      expect(fake.errors).toEqual([]);
    },
  });
  for (const c of cases) it(c.name, c.run);
});

describe('OpenAIChatModel against the fake server (real openai client)', () => {
  afterEach(() => {
    expect(fake.errors).toEqual([]);
  });

  it('streams content deltas in order and maps finish_reason and usage', async () => {
    const reply = 'Oat flat white, as far as I know (conf 0.70).';
    fake.reply(reply, {
      chunkSize: 3,
      usage: { prompt_tokens: 1120, completion_tokens: 14, cached_tokens: 1024 },
    });
    const deltas: string[] = [];
    const response = await makeModel().complete(request({ onText: (d) => deltas.push(d) }));

    expect(deltas.length).toBe(Math.ceil(reply.length / 3));
    expect(deltas.join('')).toBe(reply);
    expect(response).toEqual({
      content: [{ type: 'text', text: reply }],
      stopReason: 'end_turn',
      usage: { inputTokens: 96, outputTokens: 14, cacheReadTokens: 1024 },
      attempts: 1,
    });
    const [sent] = fake.completions;
    expect(sent?.headers.authorization).toBe('Bearer sk-test-key');
    expect(sent?.body).toMatchObject({
      model: 'gpt-test',
      max_tokens: 512,
      stream: true,
      stream_options: { include_usage: true },
    });
    expect(sent?.body).not.toHaveProperty('max_completion_tokens');
  });

  it('sends the system parts as one system message, tools as functions', async () => {
    fake.reply('ok');
    await makeModel().complete(request({ system: [...request().system, { text: '' }] }));
    const body = fake.completions[0]?.body;
    expect(body.messages).toEqual([
      {
        role: 'system',
        content:
          'You are keel, a personal agent.\n\n<memory>[f1] preference/coffee: oat flat white (conf 0.70)</memory>\n\nToday is Tuesday.',
      },
      { role: 'user', content: 'What do I drink?' },
    ]);
    expect(body.tools).toEqual([
      {
        type: 'function',
        function: { name: 'recall', description: 'Search memory.', parameters: RECALL.inputSchema },
      },
    ]);
    expect(JSON.stringify(body)).not.toContain('cache');
  });

  it('omits the system message and tools when there are none', async () => {
    fake.reply('ok');
    await makeModel().complete(request({ system: [], tools: [] }));
    const body = fake.completions[0]?.body;
    expect(body.messages).toEqual([{ role: 'user', content: 'What do I drink?' }]);
    expect(body).not.toHaveProperty('tools');
  });

  it('assembles streamed tool calls and sends their results back as tool messages', async () => {
    const input = {
      query: 'coffee "oat" \u00e9\u{1F375}',
      filters: { kind: ['preference'], limit: 5 },
    };
    fake.reply('Let me look.', {
      chunkSize: 5,
      toolCalls: [
        { id: 'call_a', name: 'recall', arguments: input },
        { id: 'call_b', name: 'review_pending', arguments: '' },
      ],
    });
    fake.reply('You drink oat flat whites.');
    const model = makeModel();

    const first = await model.complete(request());
    expect(first.stopReason).toBe('tool_use');
    expect(first.content).toEqual([
      { type: 'text', text: 'Let me look.' },
      { type: 'tool_use', id: 'call_a', name: 'recall', input },
      { type: 'tool_use', id: 'call_b', name: 'review_pending', input: {} },
    ]);

    const messages: ChatMessage[] = [
      USER,
      { role: 'assistant', content: first.content },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'call_a', content: '[f1] oat flat white' },
          { type: 'tool_result', tool_use_id: 'call_b', content: 'no such fact', is_error: true },
          { type: 'text', text: 'And tea?' },
        ],
      },
    ];
    const second = await model.complete(request({ messages }));
    expect(second.content).toEqual([{ type: 'text', text: 'You drink oat flat whites.' }]);
    expect(fake.completions[1]?.body.messages.slice(1)).toEqual([
      { role: 'user', content: 'What do I drink?' },
      {
        role: 'assistant',
        content: 'Let me look.',
        tool_calls: [
          {
            id: 'call_a',
            type: 'function',
            function: { name: 'recall', arguments: JSON.stringify(input) },
          },
          { id: 'call_b', type: 'function', function: { name: 'review_pending', arguments: '{}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_a', content: '[f1] oat flat white' },
      { role: 'tool', tool_call_id: 'call_b', content: 'error: no such fact' },
      { role: 'user', content: 'And tea?' },
    ]);
  });

  it('sends an assistant turn of tool calls alone with content null', async () => {
    fake.reply('done');
    await makeModel().complete(
      request({
        messages: [
          USER,
          {
            role: 'assistant',
            content: [{ type: 'tool_use', id: 'call_x', name: 'recall', input: { query: 'q' } }],
          },
          {
            role: 'user',
            content: [{ type: 'tool_result', tool_use_id: 'call_x', content: '[]' }],
          },
        ],
      }),
    );
    expect(fake.completions[0]?.body.messages[2]).toMatchObject({
      role: 'assistant',
      content: null,
    });
  });

  it('names tool calls without ids call_<n>, and says tool_use even when the server says stop', async () => {
    fake.reply('', {
      omitToolCallIds: true,
      finishReason: 'stop',
      toolCalls: [
        { name: 'recall', arguments: { query: 'a' } },
        { name: 'recall', arguments: { query: 'b' } },
      ],
    });
    const response = await makeModel().complete(request());
    expect(response.stopReason).toBe('tool_use');
    expect(response.content).toEqual([
      { type: 'tool_use', id: 'call_1', name: 'recall', input: { query: 'a' } },
      { type: 'tool_use', id: 'call_2', name: 'recall', input: { query: 'b' } },
    ]);
  });

  it.each([
    ['stop', 'end_turn'],
    ['length', 'max_tokens'],
    ['content_filter', 'refusal'],
    ['something_new', 'other'],
  ] as const)('maps finish_reason %s to %s', async (finishReason, stopReason) => {
    fake.reply('Cut sh', { finishReason });
    const response = await makeModel().complete(request());
    expect(response.stopReason).toBe(stopReason);
    expect(response.content).toEqual([{ type: 'text', text: 'Cut sh' }]);
  });

  it('sends max_completion_tokens when configured, and by default to api.openai.com', async () => {
    expect(new OpenAIChatModel().maxTokensParam).toBe('max_completion_tokens');
    expect(new OpenAIChatModel().baseURL).toBe(DEFAULT_OPENAI_BASE_URL);
    expect(new OpenAIChatModel().model).toBe(DEFAULT_OPENAI_MODEL);
    expect(DEFAULT_OPENAI_MODEL).toBe('gpt-4o-mini');
    expect(new OpenAIChatModel({ baseURL: 'http://127.0.0.1:1234/v1' }).maxTokensParam).toBe(
      'max_tokens',
    );
    fake.refuseMaxTokens = true;
    fake.reply('ok');
    const response = await makeModel({ maxTokensParam: 'max_completion_tokens' }).complete(
      request(),
    );
    expect(response.content).toEqual([{ type: 'text', text: 'ok' }]);
    expect(fake.completions[0]?.body).toMatchObject({ max_completion_tokens: 512 });
    expect(fake.completions[0]?.body).not.toHaveProperty('max_tokens');
  });

  it('refuses at once when the model wants max_completion_tokens, naming the setting', async () => {
    fake.refuseMaxTokens = true;
    const error = await expectKeelError(makeModel().complete(request()), 'MODEL_REFUSED_INPUT');
    expect(error.message).toContain('KEEL_OPENAI_MAX_TOKENS_PARAM=max_completion_tokens');
    expect(fake.completions).toHaveLength(1);
  });

  it.each([
    [
      "This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens. Please reduce the length of the messages.",
      9000,
      8192,
    ],
    [
      "This model's maximum context length is 4096 tokens. However, you requested 5000 tokens (4000 in the messages, 1000 in the completion).",
      4000,
      4096,
    ],
  ])(
    'a 400 context_length_exceeded "%s" says the prompt is too long, with the counts',
    async (message, prompt, limit) => {
      fake.promptLimit = 0;
      fake.promptTooLongMessage = () => message;
      const error = await expectKeelError(makeModel().complete(request()), 'MODEL_REFUSED_INPUT');
      expect(error.details).toMatchObject({
        status: 400,
        code: 'context_length_exceeded',
        param: 'messages',
        reason: 'prompt_too_long',
        promptTokens: prompt,
        limitTokens: limit,
      });
      // Not retried: the same request would be refused again.
      expect(fake.completions).toHaveLength(1);
      expect(sleeps).toEqual([]);
    },
  );

  it('control: a 400 about something else has no prompt_too_long reason', async () => {
    fake.push({ kind: 'http_error', status: 400, message: "Invalid 'messages[1].content'" });
    const error = await expectKeelError(makeModel().complete(request()), 'MODEL_REFUSED_INPUT');
    expect((error.details as { reason?: string }).reason).toBeUndefined();
  });

  it('sends no Authorization header without a key, and reads nothing from the environment', async () => {
    const saved = { ...process.env };
    process.env.OPENAI_API_KEY = 'sk-from-the-environment';
    process.env.OPENAI_ORG_ID = 'org-from-the-environment';
    process.env.OPENAI_BASE_URL = 'http://127.0.0.1:9/v1';
    try {
      fake.reply('local');
      const response = await makeModel({ apiKey: null }).complete(request());
      expect(response.content).toEqual([{ type: 'text', text: 'local' }]);
      const headers = fake.completions[0]?.headers ?? {};
      expect(headers).not.toHaveProperty('authorization');
      expect(headers).not.toHaveProperty('openai-organization');
      expect(JSON.stringify(headers)).not.toContain('environment');
    } finally {
      for (const name of ['OPENAI_API_KEY', 'OPENAI_ORG_ID', 'OPENAI_BASE_URL']) {
        if (saved[name] === undefined) delete process.env[name];
        else process.env[name] = saved[name];
      }
    }
  });

  it('retries an error that arrives inside a 200 stream, reporting the text to discard', async () => {
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
        reason: 'server_error',
        delayMs: 75,
        discardText: 'Your coffee is',
        message: expect.stringContaining('server_error'),
      },
    ]);
    expect(deltas.join('')).toBe('Your coffee isYou drink oat flat whites.');
    expect(sleeps).toEqual([75]);
  });

  it("retries OpenRouter's upstream error (a numeric code inside the stream)", async () => {
    fake.push({ kind: 'stream_error', code: 502, type: '', message: 'Provider returned error' });
    fake.reply('fine');
    const retries: RetryInfo[] = [];
    const response = await makeModel().complete(request({ onRetry: (info) => retries.push(info) }));
    expect(response.attempts).toBe(2);
    expect(retries[0]?.message).toContain('502');
  });

  it('gives MODEL_QUOTA for insufficient_quota inside a stream', async () => {
    fake.push({ kind: 'stream_error', type: 'insufficient_quota', code: 'insufficient_quota' });
    await expectKeelError(makeModel().complete(request()), 'MODEL_QUOTA');
    expect(fake.completions).toHaveLength(1);
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
    expect(fake.completions).toHaveLength(2);
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
    const retries: RetryInfo[] = [];
    const response = await makeModel().complete(request({ onRetry: (info) => retries.push(info) }));
    expect(response.attempts).toBe(4);
    expect(response.content).toEqual([{ type: 'text', text: 'finally' }]);
    expect(retries.map((r) => r.reason)).toEqual(['server_error', 'server_error', 'overloaded']);
  });

  it('gives MODEL_OVERLOADED after 429 or 5xx on every attempt, backing off with jitter', async () => {
    fake.push(
      { kind: 'http_error', status: 429, message: 'Rate limit reached for gpt-test' },
      { kind: 'http_error', status: 503 },
      { kind: 'http_error', status: 500 },
    );
    const retries: RetryInfo[] = [];
    const error = await expectKeelError(
      makeModel({ maxAttempts: 3, baseDelayMs: 1000, maxDelayMs: 1500 }).complete(
        request({ onRetry: (info) => retries.push(info) }),
      ),
      'MODEL_OVERLOADED',
    );
    expect(error.message).toContain('3 attempt');
    expect(fake.completions).toHaveLength(3);
    // Equal jitter with random() = 0.5: 3/4 of min(maxDelayMs, base * 2^(n-1)).
    expect(sleeps).toEqual([750, 1125]);
    expect(retries.map((r) => [r.attempt, r.reason])).toEqual([
      [1, 'rate_limited'],
      [2, 'overloaded'],
    ]);
  });

  it('retries a rate-limit 429, waiting at least its retry-after', async () => {
    fake.push({
      kind: 'http_error',
      status: 429,
      message: 'Rate limit reached for gpt-test on requests per min (RPM): Limit 3, Used 3.',
      headers: { 'retry-after': '7' },
    });
    fake.reply('ok');
    const response = await makeModel().complete(request());
    expect(response.attempts).toBe(2);
    expect(sleeps).toEqual([7000]);
  });

  it('waits for an exhausted x-ratelimit limit to reset', async () => {
    fake.push({
      kind: 'http_error',
      status: 429,
      message: 'Rate limit reached for gpt-test on tokens per min (TPM).',
      headers: {
        'x-ratelimit-remaining-requests': '40',
        'x-ratelimit-reset-requests': '1s',
        'x-ratelimit-remaining-tokens': '0',
        'x-ratelimit-reset-tokens': '20.5s',
      },
    });
    fake.reply('ok');
    const response = await makeModel().complete(request());
    expect(response.attempts).toBe(2);
    expect(sleeps).toEqual([20_500]);
  });

  it('gives MODEL_QUOTA after exactly one request for an insufficient_quota 429', async () => {
    fake.push({
      kind: 'http_error',
      status: 429,
      type: 'insufficient_quota',
      code: 'insufficient_quota',
      message:
        'You exceeded your current quota, please check your plan and billing details. For more information on this error, read the docs.',
    });
    const error = await expectKeelError(makeModel().complete(request()), 'MODEL_QUOTA');
    expect(error.message).toContain('exceeded your current quota');
    expect(fake.completions).toHaveLength(1);
    expect(sleeps).toEqual([]);
  });

  it('gives MODEL_QUOTA for a 429 whose limit resets hours away, and for a 402', async () => {
    fake.push({
      kind: 'http_error',
      status: 429,
      message: 'Rate limit reached for requests per day (RPD)',
      headers: { 'x-ratelimit-remaining-requests': '0', 'x-ratelimit-reset-requests': '6h0m0s' },
    });
    await expectKeelError(makeModel().complete(request()), 'MODEL_QUOTA');
    fake.push({ kind: 'http_error', status: 402, message: 'Insufficient credits' });
    await expectKeelError(makeModel().complete(request()), 'MODEL_QUOTA');
    expect(fake.completions).toHaveLength(2);
    expect(sleeps).toEqual([]);
  });

  it.each([
    [401, 'MODEL_AUTH'],
    [403, 'MODEL_AUTH'],
    [400, 'MODEL_REFUSED_INPUT'],
    [413, 'MODEL_REFUSED_INPUT'],
    [422, 'MODEL_REFUSED_INPUT'],
    [404, 'MODEL_UNAVAILABLE'],
  ] as const)('gives %i → %s after one request, no retry', async (status, code) => {
    fake.push({ kind: 'http_error', status, message: `scripted ${status}` });
    const error = await expectKeelError(makeModel().complete(request()), code);
    expect(error.message).toContain(`scripted ${status}`);
    expect(fake.completions).toHaveLength(1);
    expect(sleeps).toEqual([]);
  });

  it('gives MODEL_UNAVAILABLE at once when nothing listens at the base URL', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));

    const retries: RetryInfo[] = [];
    const error = await expectKeelError(
      makeModel({ baseURL: `http://127.0.0.1:${port}/v1` }).complete(
        request({ onRetry: (info) => retries.push(info) }),
      ),
      'MODEL_UNAVAILABLE',
    );
    expect(error.message).toContain(`127.0.0.1:${port}`);
    expect(error.message).toContain('connection refused');
    expect(retries).toEqual([]);
  });

  it('retries tool-call arguments that are not JSON, then gives MODEL_UNAVAILABLE', async () => {
    const broken: FakeOpenAIScript = {
      kind: 'message',
      toolCalls: [{ id: 'call_1', name: 'recall', arguments: '{"query": "oat' }],
    };
    fake.push(broken, broken);
    const error = await expectKeelError(
      makeModel({ maxAttempts: 2 }).complete(request()),
      'MODEL_UNAVAILABLE',
    );
    expect(error.message).toContain('not valid JSON');
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
    expect(fake.completions).toHaveLength(1);
    await expect.poll(() => fake.stallsAbandoned).toBe(1);
  });

  it('cancels during the backoff wait with CANCELLED', async () => {
    fake.push({ kind: 'http_error', status: 503 });
    const controller = new AbortController();
    await expectKeelError(
      makeModel().complete(
        request({ signal: controller.signal, onRetry: () => controller.abort() }),
      ),
      'CANCELLED',
    );
    expect(fake.completions).toHaveLength(1);
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
    expect(fake.completions).toHaveLength(1);
  });

  it('refuses bad options with INVALID_INPUT', () => {
    expect(() => new OpenAIChatModel({ model: '' })).toThrow(/model/);
    expect(() => new OpenAIChatModel({ maxAttempts: 0 })).toThrow(/maxAttempts/);
  });
});

describe('parseDuration (x-ratelimit-reset-*)', () => {
  it.each([
    ['1s', 1000],
    ['20ms', 20],
    ['6m0s', 360_000],
    ['1h2m3.5s', 3_723_500],
    ['0.5s', 500],
  ])('%s → %i ms', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each(['', '5', 'soon', '1d', '-1s'])('%j → undefined', (text) => {
    expect(parseDuration(text)).toBeUndefined();
  });
});

describe('fake OpenAI server', () => {
  const post = (body: unknown) =>
    fetch(`${fake.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  it('answers an unscripted request 500 with a clear message and records it', async () => {
    const error = await expectKeelError(
      makeModel({ maxAttempts: 1 }).complete(request()),
      'MODEL_OVERLOADED',
    );
    expect(error.message).toContain('no scripted response left for request #1');
    expect(fake.errors).toEqual(['fake-openai: no scripted response left for request #1']);
  });

  it('refuses, like the API, a tool message that answers no tool call', async () => {
    const res = await post({
      model: 'm',
      messages: [
        { role: 'user', content: 'hi' },
        { role: 'tool', tool_call_id: 'call_nope', content: 'x' },
      ],
    });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { message: string; type: string } };
    expect(body.error.type).toBe('invalid_request_error');
    expect(fake.errors[0]).toContain("role 'tool' answers no preceding tool call");
    fake.reset();
  });

  it('answers a non-streaming request with a chat.completion', async () => {
    fake.reply('plain', {
      toolCalls: [{ id: 'call_9', name: 'recall', arguments: { query: 'x' } }],
    });
    const res = await post({ model: 'm', messages: [{ role: 'user', content: 'hi' }] });
    const body = (await res.json()) as {
      object: string;
      choices: Array<{
        message: { content: string; tool_calls: unknown[] };
        finish_reason: string;
      }>;
    };
    expect(body.object).toBe('chat.completion');
    expect(body.choices[0]?.message.content).toBe('plain');
    expect(body.choices[0]?.message.tool_calls).toEqual([
      { id: 'call_9', type: 'function', function: { name: 'recall', arguments: '{"query":"x"}' } },
    ]);
    expect(body.choices[0]?.finish_reason).toBe('tool_calls');
    expect(fake.errors).toEqual([]);
  });
});

describe('OpenAIChatModel.listModels', () => {
  it("lists the server's models; a server without a list is MODEL_UNAVAILABLE; a refused key MODEL_AUTH", async () => {
    fake.apiKey = 'sk-test-key';
    fake.models.add('gpt-test');
    fake.models.add('gpt-other');
    expect((await makeModel().listModels()).map((m) => m.id)).toEqual(['gpt-test', 'gpt-other']);
    await expectKeelError(makeModel({ apiKey: 'sk-wrong' }).listModels(), 'MODEL_AUTH');
    fake.listsModels = false;
    const none = await expectKeelError(makeModel().listModels(), 'MODEL_UNAVAILABLE');
    expect(none.message).toContain('has no model list (404)');
    expect(fake.errors).toEqual([]);
  });

  it('playing OpenAI, a completion for a model it does not have is refused 404 model_not_found', async () => {
    fake.onlyListed = true;
    fake.models.add('gpt-test');
    fake.reply('hi');
    await expect(
      makeModel({ model: 'gpt-nope', maxAttempts: 1 }).complete(request()),
    ).rejects.toThrow(/does not exist or you do not have access to it/);
    expect(fake.pending).toBe(1);
    // The control: the model it has answers.
    await makeModel().complete(request());
    expect(fake.pending).toBe(0);
    expect(fake.errors).toEqual([]);
  });
});

describe('OpenAIChatModel.probe', () => {
  it('lists the models once; a refused key is MODEL_AUTH; a model not listed is said, not failed', async () => {
    fake.apiKey = 'sk-test-key';
    fake.models.add('gpt-test');
    await expect(makeModel().probe()).resolves.toMatchObject({ listed: true });
    await expect(makeModel({ model: 'other' }).probe()).resolves.toMatchObject({
      listed: false,
      detail: expect.stringContaining('does not list other (it lists '),
    });
    await expectKeelError(makeModel({ apiKey: 'sk-wrong' }).probe(), 'MODEL_AUTH');
    expect(fake.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      'GET /v1/models',
      'GET /v1/models',
      'GET /v1/models',
    ]);
    expect(fake.errors).toEqual([]);
  });
});
