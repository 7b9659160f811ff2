/**
 * "Prompt is too long" answers whose numbers do not add up (as proxies and OpenAI-compatible
 * servers send), end to end: the real Anthropic and OpenAI SDKs against the fake servers on
 * 127.0.0.1, a real SQLite file. keel never resends the refused request: each retry is smaller
 * (older history, then the recalled memory, then the standing beliefs left out); when even the
 * smallest does not fit, the turn ends with a code whose fix is true; later turns work.
 */
import { join } from 'node:path';
import {
  Agent,
  AnthropicChatModel,
  type ChatModel,
  MAX_REFUSALS,
  OpenAIChatModel,
  RECALL_LEFT_OUT,
} from '@keel/agent';
import { KeelError } from '@keel/errors';
import { MemoryStore } from '@keel/memory';
import { dbOf } from '@keel/memory/internal';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { tempHome } from '../support/cli.js';
import { FakeAnthropic } from '../support/fake-anthropic.js';
import { FakeOpenAI } from '../support/fake-openai.js';
import { isCompaction, prose, seedHistory, summarising } from '../support/oversized.js';

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
  anthropic.checkConversations = true;
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

const retry = { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 2, stallTimeoutMs: 5000 };

function claude(): ChatModel {
  return new AnthropicChatModel({
    apiKey: 'test-key',
    baseURL: anthropic.baseURL,
    model: 'claude-test',
    ...retry,
  });
}

function gpt(): ChatModel {
  return new OpenAIChatModel({
    apiKey: 'test-key',
    baseURL: openai.baseURL,
    model: 'gpt-test',
    ...retry,
  });
}

/** Beliefs that recall finds for a coffee question (the per-turn memory block, not standing). */
function seedBeliefs(): void {
  for (let i = 0; i < 12; i++) {
    store.remember({
      kind: 'fact',
      key: `coffee_${i}`,
      value: `coffee habit ${i}: ${prose(40, i + 3)}`,
      source: 'owner_stated',
    });
  }
}

/** The Anthropic proxy's answer to any request it refuses: the same numbers whatever was sent. */
const NONSENSE = () => 'prompt is too long: 215000 tokens > 200000 maximum';
/** The OpenAI-compatible server's: a window and a count unrelated to the request. */
const OPENAI_NONSENSE = () =>
  "This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens. Please reduce the length of the messages.";

function turnStatuses(): unknown[] {
  return dbOf(store).prepare('SELECT status, error_code FROM turns ORDER BY id').all();
}

describe('a "prompt is too long" whose numbers do not add up', () => {
  it('Anthropic: keel leaves out older history and retries smaller, never the same request; the next turn works', async () => {
    seedBeliefs();
    seedHistory(store, 3, 3_000);
    // A proxy with a window of 6,000 of its tokens that says "215000 > 200000" for any refusal.
    anthropic.promptLimit = 6_000;
    anthropic.promptTooLongMessage = NONSENSE;
    anthropic.responder = summarising();
    anthropic.reply('Oat flat white.');
    anthropic.reply('Still oat.');
    const agent = new Agent({ store, model: claude() });

    const r = await agent.turn({ text: "what's my coffee?", channel: 'terminal' });
    expect(r.reply).toBe('Oat flat white.');
    const turn = anthropic.requests.filter((q) => !isCompaction(q.body as never));
    expect(turn.map((q) => q.tooLong)).toEqual([true, false]);
    // The retry is smaller than the refused request, not the same one resent.
    expect(turn[1]!.tokens).toBeLessThan(turn[0]!.tokens);
    expect(JSON.stringify(turn[1]!.body)).not.toBe(JSON.stringify(turn[0]!.body));
    // Nothing was learned from numbers that do not add up: the budget is the model's.
    expect((await agent.budget()).contextTokens).toBe(200_000);

    const again = await agent.turn({ text: "what's my coffee?", channel: 'terminal' });
    expect(again.reply).toBe('Still oat.');
    expect(turnStatuses()).toEqual([
      ...Array(3).fill({ status: 'complete', error_code: null }),
      { status: 'complete', error_code: null },
      { status: 'complete', error_code: null },
    ]);
  });

  it('OpenAI-compatible: context_length_exceeded with unrelated numbers leaves out the recalled memory; the answer comes, later turns work', async () => {
    seedBeliefs();
    const agent = new Agent({ store, model: gpt() });
    // First, how large the turn's request is with its recalled memory.
    openai.reply('Oat.');
    await agent.turn({ text: "what's my coffee?", channel: 'terminal' });
    const full = openai.countTokens(openai.completions[0]!.body);
    expect(JSON.stringify(openai.completions[0]!.body)).toContain('coffee habit');
    openai.reset();

    // A server whose window is a little smaller than that (with no history to fold).
    const fresh = MemoryStore.open(join(home, 'fresh.db'));
    try {
      for (let i = 0; i < 12; i++) {
        fresh.remember({
          kind: 'fact',
          key: `coffee_${i}`,
          value: `coffee habit ${i}: ${prose(40, i + 3)}`,
          source: 'owner_stated',
        });
      }
      openai.promptLimit = full - 200;
      openai.promptTooLongMessage = OPENAI_NONSENSE;
      openai.reply('Oat flat white, I think.');
      openai.reply('Hello.');
      const b = new Agent({ store: fresh, model: gpt() });
      const r = await b.turn({ text: "what's my coffee?", channel: 'terminal' });
      expect(r.reply).toBe('Oat flat white, I think.');
      const sent = openai.completions;
      expect(sent.map((q) => q.tooLong ?? false)).toEqual([true, false]);
      const retried = JSON.stringify(sent[1]!.body);
      expect(retried).not.toContain('coffee habit');
      expect(retried).toContain(JSON.stringify(RECALL_LEFT_OUT).slice(1, -1));
      expect(openai.countTokens(sent[1]!.body)).toBeLessThan(openai.countTokens(sent[0]!.body));
      // The facts of the memory left out were not shown to the model.
      expect(r.factsUsed.length).toBeLessThan(12);
      // The "8192 tokens" of the refusal was not believed: later turns are not broken by it.
      expect((await b.budget()).contextTokens).toBeGreaterThan(8192);
      openai.promptLimit = null;
      expect((await b.turn({ text: 'hi', channel: 'terminal' })).reply).toBe('Hello.');
    } finally {
      fresh.close();
    }
  });

  it('a server that refuses everything: the turn ends with MODEL_CONTEXT_TOO_SMALL (not "shorten your message"), bounded, requests shrinking; the next turn works', async () => {
    seedBeliefs();
    seedHistory(store, 2, 2_000);
    anthropic.promptLimit = 10; // smaller than any request keel can make
    anthropic.promptTooLongMessage = NONSENSE;
    anthropic.responder = summarising();
    const before = store.stats();
    const agent = new Agent({ store, model: claude() });
    const err = await agent
      .turn({ text: "what's my coffee?", channel: 'terminal' })
      .catch((e: unknown) => e);
    expect(KeelError.isInstance(err) && err.code).toBe('MODEL_CONTEXT_TOO_SMALL');
    const e = err as KeelError;
    expect(e.fix).toMatch(/Your message is not the problem/);
    expect(e.fix).not.toMatch(/shorten/i);
    expect(e.message).toMatch(/nothing of this turn was stored/);
    const turn = anthropic.requests.filter((q) => !isCompaction(q.body as never));
    expect(turn.length).toBeGreaterThan(1);
    expect(turn.length).toBeLessThanOrEqual(MAX_REFUSALS + 1);
    for (let i = 1; i < turn.length; i++) {
      expect(turn[i]!.tokens).toBeLessThan(turn[i - 1]!.tokens);
    }
    expect(turnStatuses().at(-1)).toEqual({
      status: 'failed',
      error_code: 'MODEL_CONTEXT_TOO_SMALL',
    });
    expect(store.stats().episodes).toBe(before.episodes);

    // The server is fixed: the same agent's next turn works.
    anthropic.promptLimit = null;
    anthropic.reply('Oat flat white.');
    expect((await agent.turn({ text: "what's my coffee?", channel: 'terminal' })).reply).toBe(
      'Oat flat white.',
    );
  });

  it('a window it names that max_tokens cannot use is not learned: this turn and the later ones work', async () => {
    // The refusal's counts add up ("~11000 tokens > 9000 maximum", the fake's true count), but a
    // 9,000-token window leaves nothing for Claude's 8,192-token replies: learning it would make
    // every later turn fail before it is sent.
    seedHistory(store, 1, 10_000);
    anthropic.promptLimit = 9_000;
    anthropic.responder = summarising();
    anthropic.reply('Answered.');
    anthropic.reply('Answered again.');
    const agent = new Agent({ store, model: claude() });
    const r = await agent.turn({ text: 'hi', channel: 'terminal' });
    expect(r.reply).toBe('Answered.');
    const turn = anthropic.requests.filter((q) => !isCompaction(q.body as never));
    expect(turn.map((q) => q.tooLong)).toEqual([true, false]);
    expect(turn[0]!.tokens).toBeGreaterThan(9_000);
    expect((await agent.budget()).contextTokens).toBe(200_000);
    expect((await agent.turn({ text: 'hi again', channel: 'terminal' })).reply).toBe(
      'Answered again.',
    );
  });

  it('control: when the message itself is what does not fit, TOO_LARGE says to shorten it', async () => {
    anthropic.promptLimit = 10;
    anthropic.promptTooLongMessage = NONSENSE;
    const err = await new Agent({ store, model: claude(), contextTokens: 20_000, maxTokens: 500 })
      .turn({ text: `remember that ${prose(9_000, 5)}`, channel: 'terminal' })
      .catch((e: unknown) => e);
    expect(KeelError.isInstance(err) && err.code).toBe('TOO_LARGE');
    expect((err as KeelError).fix).toMatch(/Send a shorter message/);
    expect(turnStatuses()).toEqual([{ status: 'failed', error_code: 'TOO_LARGE' }]);
  });
});
