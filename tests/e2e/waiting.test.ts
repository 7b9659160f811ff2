/**
 * A turn that waits says so: a model stream that stalls after some events (the real Anthropic and
 * OpenAI SDKs against the fake servers on 127.0.0.1), and another turn holding the session. The
 * stall is retried, then fails with MODEL_TIMEOUT; nothing of the failed turn is stored and the
 * next turn works.
 */
import { join } from 'node:path';
import {
  Agent,
  AnthropicChatModel,
  type ChatModel,
  OpenAIChatModel,
  type TurnWait,
  waitNotice,
} from '@keel/agent';
import { KeelError } from '@keel/errors';
import { MemoryStore } from '@keel/memory';
import { dbOf } from '@keel/memory/internal';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { tempHome } from '../support/cli.js';
import { FakeAnthropic } from '../support/fake-anthropic.js';
import { FakeOpenAI } from '../support/fake-openai.js';

let anthropic: FakeAnthropic;
let openai: FakeOpenAI;
let home: string;
let cleanup: () => void;
let store: MemoryStore;

beforeAll(async () => {
  anthropic = await FakeAnthropic.start();
  openai = await FakeOpenAI.start();
});
afterAll(async () => {
  await anthropic.close();
  await openai.close();
});
beforeEach(() => {
  anthropic.reset();
  openai.reset();
  ({ home, cleanup } = tempHome());
  store = MemoryStore.open(join(home, 'keel.db'));
});
afterEach(() => {
  store.close();
  cleanup();
  expect(anthropic.errors).toEqual([]);
  expect(openai.errors).toEqual([]);
});

const timing = { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 2, stallTimeoutMs: 1500 };

const models: Array<[string, () => ChatModel, (stalls: number, answer: string) => void]> = [
  [
    'Anthropic',
    () =>
      new AnthropicChatModel({
        apiKey: 'k',
        baseURL: anthropic.baseURL,
        model: 'claude-test',
        ...timing,
      }),
    (stalls, answer) => {
      for (let i = 0; i < stalls; i++) anthropic.push({ kind: 'stall', textBefore: 'Let me' });
      anthropic.reply(answer);
    },
  ],
  [
    'OpenAI-compatible',
    () =>
      new OpenAIChatModel({ apiKey: 'k', baseURL: openai.baseURL, model: 'gpt-test', ...timing }),
    (stalls, answer) => {
      for (let i = 0; i < stalls; i++) openai.push({ kind: 'stall', textBefore: 'Let me' });
      openai.reply(answer);
    },
  ],
];

describe.each(models)('%s: a stream that stalls', (_name, model, script) => {
  it('the owner is told while it waits; one stall is retried and the answer comes', async () => {
    script(1, 'Oat flat white.');
    const waits: TurnWait[] = [];
    const retries: string[] = [];
    const r = await new Agent({ store, model: model() }).turn({
      text: "what's my coffee?",
      channel: 'terminal',
      onWait: (w) => waits.push(w),
      onRetry: (i) => retries.push(i.reason),
    });
    expect(r.reply).toBe('Oat flat white.');
    expect(retries).toEqual(['stalled']);
    // The notice came well before the stall timeout, with what is left of it, once for the
    // stalled attempt (a slow machine may add one for the next).
    expect(waits[0]).toEqual({ kind: 'model', attempt: 1, waitedMs: 500, giveUpInMs: 1000 });
    expect(waits.filter((w) => w.kind === 'model' && w.attempt === 1)).toHaveLength(1);
    expect(waitNotice(waits[0]!)).toBe(
      '(waiting for the model: nothing for 1 s; keel gives this attempt 1 s more)',
    );
  });

  it('every attempt stalls: told each time, then MODEL_TIMEOUT; nothing stored, the next turn works', async () => {
    script(2, 'Back again.');
    const waits: TurnWait[] = [];
    const agent = new Agent({ store, model: model() });
    const started = Date.now();
    const err = await agent
      .turn({ text: "what's my coffee?", channel: 'terminal', onWait: (w) => waits.push(w) })
      .catch((e: unknown) => e);
    expect(Date.now() - started).toBeLessThan(8_000);
    expect(KeelError.isInstance(err) && err.code).toBe('MODEL_TIMEOUT');
    expect((err as KeelError).fix).toBe('The model stopped responding; try again.');
    expect(waits.map((w) => w.kind === 'model' && w.attempt)).toEqual([1, 2]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(2 * 1500 - 100);
    expect(dbOf(store).prepare('SELECT status, error_code FROM turns').all()).toEqual([
      { status: 'failed', error_code: 'MODEL_TIMEOUT' },
    ]);
    expect(store.stats().episodes).toBe(0);
    const next = await agent.turn({ text: 'hi', channel: 'terminal' });
    expect(next.reply).toBe('Back again.');
  });

  it('control: an answer that streams without a pause is no wait', async () => {
    script(0, 'At once.');
    const waits: TurnWait[] = [];
    await new Agent({ store, model: model() }).turn({
      text: 'hi',
      channel: 'terminal',
      onWait: (w) => waits.push(w),
    });
    expect(waits).toEqual([]);
  });
});

describe('another turn holds the session', () => {
  it('the waiting turn says it waits for it (after noticeAfterMs), then runs when it ends', async () => {
    anthropic.reply('First, slowly.', { chunkSize: 2, eventDelayMs: 30 });
    anthropic.reply('Second.');
    const claude = () =>
      new AnthropicChatModel({
        apiKey: 'k',
        baseURL: anthropic.baseURL,
        model: 'claude-test',
        ...timing,
        stallTimeoutMs: 5_000,
      });
    const waits: TurnWait[] = [];
    const first = new Agent({ store, model: claude() }).turn({ text: 'one', channel: 'terminal' });
    await anthropic.waitForRequests(1);
    const second = await new Agent({ store, model: claude(), lock: { noticeAfterMs: 100 } }).turn({
      text: 'two',
      channel: 'discord',
      onWait: (w) => waits.push(w),
    });
    expect((await first).reply).toBe('First, slowly.');
    expect(second.reply).toBe('Second.');
    expect(waits).toEqual([
      { kind: 'session', holder: expect.objectContaining({ pid: process.pid }) },
    ]);
    expect(waitNotice(waits[0]!)).toBe(
      `(waiting for another turn to finish (process ${process.pid}))`,
    );
  });
});
