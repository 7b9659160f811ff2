/**
 * A conformance suite every {@link ChatModel} implementation runs through: the behaviour the agent
 * relies on, independent of the provider. It is test-framework neutral (plain `node:assert`), so it
 * ships in the package without a test runner dependency.
 *
 * @example
 * // in a vitest file
 * for (const c of chatModelConformance(harness)) it(c.name, c.run);
 *
 * @module
 */
import assert from 'node:assert/strict';
import { KeelError } from '@keel/errors';
import type {
  ChatMessage,
  ChatModel,
  ChatRequest,
  RetryInfo,
  StopReason,
  TextBlock,
  ToolUseBlock,
  WaitInfo,
} from './types.js';

/** What the backend should answer to one request of a case. */
export type ConformanceTurn =
  | { content: Array<TextBlock | ToolUseBlock>; stopReason: StopReason }
  /** Start answering (optionally some text), then send nothing until the client gives up. */
  | { hang: true; textBefore?: string }
  /** Answer with this HTTP status (a 5xx) and an error body instead of a reply. */
  | { serverError: number };

/**
 * The retry timings the retry cases build their model with (the options every streaming provider
 * takes, see `RetryOptions`), ms.
 */
export interface ConformanceTiming {
  stallTimeoutMs: number;
  waitNoticeMs: number;
  maxAttempts: number;
}

/** How the suite drives a provider. */
export interface ConformanceHarness {
  /**
   * A model whose backend answers the case's requests with `turns`, in order. Called once at the
   * start of every case.
   */
  setup(turns: ConformanceTurn[], timing?: ConformanceTiming): ChatModel | Promise<ChatModel>;
  /**
   * True when the model retries with the policy every streaming provider shares (a stall
   * watchdog, a wait notice, retried 5xx): the suite then adds its retry cases, which call
   * `setup` with a {@link ConformanceTiming} the model must be built with.
   */
  retries?: boolean;
  /**
   * False when the backend's tool calls carry no id (Ollama): the model names them itself, so the
   * suite checks that each is a non-empty string, unique in the answer, instead of the scripted
   * one. Default true.
   */
  toolCallIds?: boolean;
  /** The messages of every request the backend received during the current case, in order. */
  receivedMessages(): ChatMessage[][] | Promise<ChatMessage[][]>;
  /** Called after every case (even a failed one). */
  teardown?(): void | Promise<void>;
}

/** One case: a name and a function that rejects when the model does not conform. */
export interface ConformanceCase {
  name: string;
  run: () => Promise<void>;
}

const USER: ChatMessage = { role: 'user', content: [{ type: 'text', text: 'Hello?' }] };

function baseRequest(overrides: Partial<ChatRequest> = {}): ChatRequest {
  return {
    system: [{ text: 'You are keel.', cache: true }, { text: 'Per-turn notes.' }],
    messages: [USER],
    tools: [
      {
        name: 'recall',
        description: 'Search memory.',
        inputSchema: {
          type: 'object',
          properties: { query: { type: 'string' }, limit: { type: 'number' } },
          required: ['query'],
        },
      },
    ],
    maxTokens: 256,
    ...overrides,
  };
}

function assertCancelled(error: unknown): true {
  assert.ok(KeelError.isInstance(error), `expected a KeelError, got ${String(error)}`);
  assert.equal(error.code, 'CANCELLED');
  return true;
}

function assertUsage(usage: { inputTokens: number; outputTokens: number }): void {
  for (const n of [usage.inputTokens, usage.outputTokens]) {
    assert.ok(Number.isInteger(n) && n >= 0, `usage must be non-negative integers, got ${n}`);
  }
}

/**
 * The conformance cases for the model `harness` builds. Each case calls `setup`, runs, and calls
 * `teardown`.
 */
export function chatModelConformance(harness: ConformanceHarness): ConformanceCase[] {
  return [...contractCases(harness), ...(harness.retries ? retryCases(harness) : [])];
}

/** Runs `body` against the model `harness` builds for `turns`, then tears down. */
function scenarioOf(harness: ConformanceHarness) {
  return (
    turns: ConformanceTurn[],
    body: (model: ChatModel) => Promise<void>,
    timing?: ConformanceTiming,
  ) =>
    async () => {
      const model = await harness.setup(turns, timing);
      try {
        await body(model);
      } finally {
        await harness.teardown?.();
      }
    };
}

/** Short timings for the retry cases: a stall is given up after 900 ms, told after 300 ms. */
const RETRY_TIMING: ConformanceTiming = { stallTimeoutMs: 900, waitNoticeMs: 300, maxAttempts: 2 };

function assertCode(error: unknown, codes: readonly string[]): true {
  assert.ok(KeelError.isInstance(error), `expected a KeelError, got ${String(error)}`);
  assert.ok(codes.includes(error.code), `expected ${codes.join(' or ')}, got ${error.code}`);
  return true;
}

/**
 * The cases of the retry policy every streaming provider shares: a stalled stream is retried and
 * then fails with `MODEL_TIMEOUT`, the waiter is told once per silence (and not when the answer
 * comes on time), a 5xx is retried.
 */
function retryCases(harness: ConformanceHarness): ConformanceCase[] {
  const scenario = scenarioOf(harness);
  const t = RETRY_TIMING;
  return [
    {
      name: 'retry: a stream that stalls after some text is told to the waiter, retried after the stall timeout, and the next answer comes',
      run: scenario(
        [
          { hang: true, textBefore: 'Let me' },
          { content: [{ type: 'text', text: 'After the stall.' }], stopReason: 'end_turn' },
        ],
        async (model) => {
          const waits: WaitInfo[] = [];
          const retries: RetryInfo[] = [];
          const started = Date.now();
          const response = await model.complete(
            baseRequest({ onWait: (w) => waits.push(w), onRetry: (r) => retries.push(r) }),
          );
          assert.deepEqual(response.content, [{ type: 'text', text: 'After the stall.' }]);
          assert.equal(response.attempts, 2);
          // (A timer may fire a few ms before Date.now() says it is due.)
          assert.ok(
            Date.now() - started >= t.stallTimeoutMs - 50,
            'retried before the stall timeout',
          );
          assert.equal(retries.length, 1);
          assert.deepEqual(
            { attempt: retries[0]?.attempt, reason: retries[0]?.reason },
            { attempt: 1, reason: 'stalled' },
          );
          assert.equal(retries[0]?.discardText, 'Let me');
          assert.deepEqual(waits[0], {
            attempt: 1,
            waitedMs: t.waitNoticeMs,
            giveUpInMs: t.stallTimeoutMs - t.waitNoticeMs,
          });
        },
        t,
      ),
    },
    {
      name: 'retry: a stream that stalls on every attempt fails with MODEL_TIMEOUT, the waiter told once per attempt',
      run: scenario(
        [{ hang: true, textBefore: 'Half' }, { hang: true }],
        async (model) => {
          const waits: WaitInfo[] = [];
          const error = await model
            .complete(baseRequest({ onWait: (w) => waits.push(w) }))
            .then(() => assert.fail('a stalled stream must not resolve'))
            .catch((e: unknown) => e);
          assertCode(error, ['MODEL_TIMEOUT']);
          assert.match((error as Error).message, /2 attempt/);
          assert.deepEqual(
            waits.map((w) => w.attempt),
            [1, 2],
          );
        },
        t,
      ),
    },
    {
      name: 'retry: control: an answer that comes at once is not a wait and takes one attempt',
      run: scenario(
        [{ content: [{ type: 'text', text: 'On time.' }], stopReason: 'end_turn' }],
        async (model) => {
          const waits: WaitInfo[] = [];
          const response = await model.complete(baseRequest({ onWait: (w) => waits.push(w) }));
          assert.deepEqual(response.content, [{ type: 'text', text: 'On time.' }]);
          assert.equal(response.attempts, 1);
          // Still nothing once the notice's time has passed.
          await new Promise((resolve) => setTimeout(resolve, t.waitNoticeMs + 100));
          assert.deepEqual(waits, []);
        },
        t,
      ),
    },
    {
      name: 'retry: a 5xx is retried and the next answer comes',
      run: scenario(
        [
          { serverError: 500 },
          { content: [{ type: 'text', text: 'After the 500.' }], stopReason: 'end_turn' },
        ],
        async (model) => {
          const retries: RetryInfo[] = [];
          const response = await model.complete(baseRequest({ onRetry: (r) => retries.push(r) }));
          assert.deepEqual(response.content, [{ type: 'text', text: 'After the 500.' }]);
          assert.equal(response.attempts, 2);
          assert.deepEqual(
            retries.map((r) => [r.attempt, r.reason]),
            [[1, 'server_error']],
          );
        },
        t,
      ),
    },
    {
      name: 'retry: a 5xx on every attempt fails after the last attempt with a KeelError that says how many',
      run: scenario(
        [{ serverError: 502 }, { serverError: 500 }],
        async (model) => {
          const error = await model
            .complete(baseRequest())
            .then(() => assert.fail('a failing server must not resolve'))
            .catch((e: unknown) => e);
          assertCode(error, ['MODEL_UNAVAILABLE', 'MODEL_OVERLOADED']);
          assert.deepEqual((error as KeelError).details, { attempts: 2, reason: 'server_error' });
          assert.equal((await harness.receivedMessages()).length, 2);
        },
        t,
      ),
    },
  ];
}

/**
 * `content` with the ids of its tool calls as `expected` names them, when the backend carries no
 * ids (after checking that the model's own are non-empty and unique); else `content` as it is.
 */
function withScriptedIds(
  harness: ConformanceHarness,
  content: Array<TextBlock | ToolUseBlock>,
  expected: Array<TextBlock | ToolUseBlock>,
): Array<TextBlock | ToolUseBlock> {
  if (harness.toolCallIds !== false) return content;
  const ids = content.flatMap((b) => (b.type === 'tool_use' ? [b.id] : []));
  for (const id of ids)
    assert.ok(typeof id === 'string' && id.length > 0, 'a tool call needs an id');
  assert.equal(new Set(ids).size, ids.length, 'tool call ids must be unique');
  const scripted = expected.flatMap((b) => (b.type === 'tool_use' ? [b.id] : []));
  let n = 0;
  return content.map((b) => (b.type === 'tool_use' ? { ...b, id: scripted[n++] ?? b.id } : b));
}

/** The contract every model keeps, whatever its backend. */
function contractCases(harness: ConformanceHarness): ConformanceCase[] {
  const scenario =
    (turns: ConformanceTurn[], body: (model: ChatModel) => Promise<void>) => async () => {
      const model = await harness.setup(turns);
      try {
        await body(model);
      } finally {
        await harness.teardown?.();
      }
    };

  const longText =
    'Hello! This reply is long enough to arrive in several pieces, and they must join in order.';

  return [
    {
      name: 'streams text in order; the pieces join to the final text',
      run: scenario(
        [{ content: [{ type: 'text', text: longText }], stopReason: 'end_turn' }],
        async (model) => {
          const deltas: string[] = [];
          const response = await model.complete(baseRequest({ onText: (d) => deltas.push(d) }));
          assert.ok(deltas.length > 1, `expected several text deltas, got ${deltas.length}`);
          assert.equal(deltas.join(''), longText);
          assert.deepEqual(response.content, [{ type: 'text', text: longText }]);
          assert.equal(response.stopReason, 'end_turn');
          assert.equal(response.attempts, 1);
          assertUsage(response.usage);
          assert.equal(typeof model.provider, 'string');
          assert.ok(model.model.length > 0);
        },
      ),
    },
    {
      name: 'a tool_use round trip returns parsed input and accepts the tool_result',
      run: scenario(
        [
          {
            content: [
              { type: 'text', text: 'Let me check.' },
              {
                type: 'tool_use',
                id: 'toolu_conf_1',
                name: 'recall',
                input: { query: 'coffee "oat"', limit: 3, nested: { list: [1, 2.5, null, true] } },
              },
            ],
            stopReason: 'tool_use',
          },
          {
            content: [{ type: 'text', text: 'You like oat flat whites.' }],
            stopReason: 'end_turn',
          },
        ],
        async (model) => {
          const first = await model.complete(baseRequest());
          assert.equal(first.stopReason, 'tool_use');
          const expected: Array<TextBlock | ToolUseBlock> = [
            { type: 'text', text: 'Let me check.' },
            {
              type: 'tool_use',
              id: 'toolu_conf_1',
              name: 'recall',
              input: { query: 'coffee "oat"', limit: 3, nested: { list: [1, 2.5, null, true] } },
            },
          ];
          assert.deepEqual(withScriptedIds(harness, first.content, expected), expected);
          // The tool_result answers the call by the id the model gave it.
          const callId = first.content.find((b) => b.type === 'tool_use')?.id ?? '';
          const messages: ChatMessage[] = [
            USER,
            { role: 'assistant', content: first.content },
            {
              role: 'user',
              content: [
                {
                  type: 'tool_result',
                  tool_use_id: callId,
                  content: '[f1] oat flat white',
                },
              ],
            },
          ];
          const second = await model.complete(baseRequest({ messages }));
          assert.equal(second.stopReason, 'end_turn');
          assert.deepEqual(second.content, [{ type: 'text', text: 'You like oat flat whites.' }]);
          const received = await harness.receivedMessages();
          assert.equal(received.length, 2);
          assert.deepEqual(received[1], messages);
        },
      ),
    },
    {
      name: 'a tool_use without arguments parses to {}',
      run: scenario(
        [
          {
            content: [{ type: 'tool_use', id: 'toolu_conf_2', name: 'review_pending', input: {} }],
            stopReason: 'tool_use',
          },
        ],
        async (model) => {
          const response = await model.complete(baseRequest());
          const expected: Array<TextBlock | ToolUseBlock> = [
            { type: 'tool_use', id: 'toolu_conf_2', name: 'review_pending', input: {} },
          ];
          assert.deepEqual(withScriptedIds(harness, response.content, expected), expected);
        },
      ),
    },
    {
      name: 'reports max_tokens as the stop reason',
      run: scenario(
        [{ content: [{ type: 'text', text: 'Cut sh' }], stopReason: 'max_tokens' }],
        async (model) => {
          const response = await model.complete(baseRequest({ maxTokens: 2 }));
          assert.equal(response.stopReason, 'max_tokens');
          assert.deepEqual(response.content, [{ type: 'text', text: 'Cut sh' }]);
        },
      ),
    },
    {
      name: 'aborting the signal mid-response rejects with KeelError CANCELLED',
      run: scenario([{ hang: true, textBefore: 'Thinking about' }], async (model) => {
        const controller = new AbortController();
        const started = Date.now();
        const pending = model.complete(
          baseRequest({ signal: controller.signal, onText: () => controller.abort() }),
        );
        // Providers that stream nothing before hanging are aborted by time instead.
        const timer = setTimeout(() => controller.abort(), 300);
        try {
          await assert.rejects(pending, assertCancelled);
        } finally {
          clearTimeout(timer);
        }
        assert.ok(Date.now() - started < 5000, 'cancellation took too long');
      }),
    },
    {
      name: 'an already-aborted signal rejects with KeelError CANCELLED',
      run: scenario([], async (model) => {
        const controller = new AbortController();
        controller.abort();
        await assert.rejects(
          model.complete(baseRequest({ signal: controller.signal })),
          assertCancelled,
        );
      }),
    },
    {
      name: 'states its limits: a context window and max_tokens, whole numbers, max_tokens below the window',
      run: scenario([], async (model) => {
        const limits = await model.limits();
        for (const n of [limits.contextTokens, limits.maxOutputTokens]) {
          assert.ok(Number.isSafeInteger(n) && n > 0, `limits must be whole numbers > 0, got ${n}`);
        }
        assert.ok(limits.maxOutputTokens < limits.contextTokens);
        assert.deepEqual(await model.limits(), limits);
      }),
    },
    {
      name: 'does not modify the request',
      run: scenario(
        [{ content: [{ type: 'text', text: 'Fine.' }], stopReason: 'end_turn' }],
        async (model) => {
          const request = baseRequest();
          const before = structuredClone({
            system: request.system,
            messages: request.messages,
            tools: request.tools,
            maxTokens: request.maxTokens,
          });
          await model.complete(request);
          assert.deepEqual(
            {
              system: request.system,
              messages: request.messages,
              tools: request.tools,
              maxTokens: request.maxTokens,
            },
            before,
          );
        },
      ),
    },
  ];
}
