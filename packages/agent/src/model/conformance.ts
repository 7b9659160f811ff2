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
  StopReason,
  TextBlock,
  ToolUseBlock,
} from './types.js';

/** What the backend should answer to one request of a case. */
export type ConformanceTurn =
  | { content: Array<TextBlock | ToolUseBlock>; stopReason: StopReason }
  /** Start answering (optionally some text), then send nothing until the client gives up. */
  | { hang: true; textBefore?: string };

/** How the suite drives a provider. */
export interface ConformanceHarness {
  /**
   * A model whose backend answers the case's requests with `turns`, in order. Called once at the
   * start of every case.
   */
  setup(turns: ConformanceTurn[]): ChatModel | Promise<ChatModel>;
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
          assert.deepEqual(first.content, [
            { type: 'text', text: 'Let me check.' },
            {
              type: 'tool_use',
              id: 'toolu_conf_1',
              name: 'recall',
              input: { query: 'coffee "oat"', limit: 3, nested: { list: [1, 2.5, null, true] } },
            },
          ]);
          const messages: ChatMessage[] = [
            USER,
            { role: 'assistant', content: first.content },
            {
              role: 'user',
              content: [
                {
                  type: 'tool_result',
                  tool_use_id: 'toolu_conf_1',
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
          assert.deepEqual(response.content, [
            { type: 'tool_use', id: 'toolu_conf_2', name: 'review_pending', input: {} },
          ]);
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
