/**
 * The largest request a turn can build: drives the worst cases through the real `Agent` with the
 * recording fake model (Claude's limits: a 200,000-token window, 8192 out) and prints, per case,
 * the largest request sent, in tokens as keel counts them, beside the budget. Not a test: the
 * bound is asserted in `tests/e2e/agent.test.ts`; this prints the figures.
 *
 * The cases: a model that calls `recall` five times a round on facts of ~900 tokens each (30 per
 * call), with a 45,000-token message and a history left near the top by an older keel (and the
 * same with 7,000 words of text before each round's calls); the same model on an empty history; a
 * model whose every reply is cut at `max_tokens`; a 300,000-token history and the message "hi".
 *
 * Run: `node --import tsx bench/turn-budget.ts`
 *
 * @module
 */
import { Agent, type ChatRequest, requestBudget, requestTokens, SessionStore } from '@keel/agent';
import { type FakeChatCall, FakeChatModel, type FakeResponse } from '@keel/agent/test';
import type { MemoryStore } from '@keel/memory';
import {
  heading,
  int,
  isMain,
  openStore,
  printTable,
  type SummaryRow,
  withTempDir,
} from './lib.js';

const WORDS =
  'the old red boat came into port when rain fell over town and we said that it was time to go home with our new map of sea'.split(
    ' ',
  );

/** About `n` tokens of deterministic prose. */
function prose(n: number, seed = 1): string {
  let x = seed * 2654435761;
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    x = (x * 1103515245 + 12345) % 2147483648;
    out.push(WORDS[x % WORDS.length]!);
  }
  return out.join(' ');
}

/** Turns as an older keel stored them: each a recall whose result held `tokens` tokens. */
function seedHistory(store: MemoryStore, turns: number, tokens: number): void {
  const session = new SessionStore(store);
  for (let i = 0; i < turns; i++) {
    const id = session.startTurn('bench', `tell me everything ${i}`);
    session.completeTurn(
      id,
      [
        { role: 'user', content: [{ type: 'text', text: `tell me everything ${i}` }] },
        {
          role: 'assistant',
          content: [{ type: 'tool_use', id: `seed${i}`, name: 'recall', input: { query: 'map' } }],
        },
        {
          role: 'user',
          content: [{ type: 'tool_result', tool_use_id: `seed${i}`, content: prose(tokens, i) }],
        },
        { role: 'assistant', content: [{ type: 'text', text: 'That was everything.' }] },
      ],
      { provider: 'fake', model: 'fake', factsUsed: [] },
    );
  }
}

/** Claude's limits (see `AnthropicChatModel.limits`). */
const LIMITS = { contextTokens: 200_000, maxOutputTokens: 8192 };

const isCompaction = (call: FakeChatCall) => call.system[0]?.text.startsWith('You compact');

/** One case's figures. */
interface CaseResult {
  name: string;
  calls: number;
  largest: number;
  compactions: number;
  largestCompaction: number;
  truncated: boolean;
}

async function runCase(
  name: string,
  setup: (store: MemoryStore) => void,
  answer: (call: FakeChatCall, index: number) => FakeResponse,
  message: string,
): Promise<CaseResult> {
  return withTempDir(async (dir) => {
    const store = openStore(dir);
    setup(store);
    const model = new FakeChatModel(
      (call, i) =>
        isCompaction(call) ? 'Summary: the owner asked about the map.' : answer(call, i),
      { limits: LIMITS },
    );
    const agent = new Agent({ store, model });
    const r = await agent.turn({ text: message, channel: 'bench' });
    const size = (c: FakeChatCall) => requestTokens(c as ChatRequest);
    const turn = model.calls.filter((c) => !isCompaction(c));
    const compactions = model.calls.filter(isCompaction);
    store.close();
    return {
      name,
      calls: turn.length,
      largest: Math.max(...turn.map(size)),
      compactions: compactions.length,
      largestCompaction: compactions.length ? Math.max(...compactions.map(size)) : 0,
      truncated: r.truncated,
    };
  });
}

/** Runs every case; returns the budget and the figures. */
export async function benchTurnBudget() {
  const budget = requestBudget(LIMITS.contextTokens, LIMITS.maxOutputTokens);
  const recalls = (call: FakeChatCall): FakeResponse =>
    call.toolChoice === 'none'
      ? 'Here is what I found.'
      : {
          content: [1, 2, 3, 4, 5].map((i) => ({
            type: 'tool_use' as const,
            id: `r${i}_${Math.random().toString(36).slice(2, 8)}`,
            name: 'recall',
            input: { query: 'harbour', limit: 30 },
          })),
        };
  const bigFacts = (store: MemoryStore) => {
    for (let i = 0; i < 60; i++) {
      store.remember({
        kind: 'note',
        key: `harbour_${i}`,
        value: `harbour ${prose(880, 100 + i)}`.slice(0, 3990),
        source: 'owner_stated',
      });
    }
  };
  const cases = [
    await runCase(
      'tools forever, 45k message, 70k history',
      (store) => {
        bigFacts(store);
        seedHistory(store, 1, 70_000);
      },
      recalls,
      `${prose(45_000, 7)} what about the harbour?`,
    ),
    await runCase(
      '7k words and tools every round, 45k message, 70k history',
      (store) => {
        bigFacts(store);
        seedHistory(store, 1, 70_000);
      },
      (call, i) => {
        const r = recalls(call);
        return typeof r === 'string' || r instanceof Error || typeof r === 'symbol'
          ? r
          : { content: [{ type: 'text', text: prose(7000, i) }, ...r.content] };
      },
      `${prose(45_000, 7)} what about the harbour?`,
    ),
    await runCase('tools forever, empty history', bigFacts, recalls, 'what about the harbour?'),
    await runCase(
      'every reply cut at max_tokens, 100k history',
      (store) => seedHistory(store, 1, 100_000),
      () => ({ content: [{ type: 'text', text: prose(8000, 3) }], stopReason: 'max_tokens' }),
      'tell me a very long story',
    ),
    await runCase(
      '300k history, "hi"',
      (store) => seedHistory(store, 3, 100_000),
      () => 'Hi.',
      'hi',
    ),
  ];
  return { budget, cases };
}

function print(result: Awaited<ReturnType<typeof benchTurnBudget>>): void {
  const { budget, cases } = result;
  console.log(
    `  window ${int(budget.contextTokens)}, max_tokens ${int(budget.maxTokens)}: a request may carry ${int(budget.input)} tokens (the first of a turn ${int(budget.open)})`,
  );
  printTable(
    ['case', 'model calls', 'largest request', 'compactions', 'largest compaction', 'cut'],
    cases.map((c) => [
      c.name,
      String(c.calls),
      int(c.largest),
      String(c.compactions),
      int(c.largestCompaction),
      c.truncated ? 'yes' : 'no',
    ]),
  );
  const largest = Math.max(...cases.map((c) => c.largest));
  console.log(
    `  largest request built: ${int(largest)} tokens (${((largest / budget.input) * 100).toFixed(1)}% of the budget)`,
  );
}

/** `bench/run.ts` entry. */
export async function benchTurnBudgetRows(): Promise<SummaryRow[]> {
  heading('the largest request a turn builds (fake model, Claude limits)');
  const result = await benchTurnBudget();
  print(result);
  const largest = Math.max(...result.cases.map((c) => c.largest));
  return [
    {
      bench: 'turn-budget',
      metric: 'largest request (tokens)',
      value: int(largest),
      target: `≤ ${int(result.budget.input)}`,
      met: largest <= result.budget.input,
    },
  ];
}

if (isMain(import.meta.url)) await benchTurnBudgetRows();
