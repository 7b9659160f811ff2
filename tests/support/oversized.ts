/**
 * Helpers for tests that replay a session past the model's window: deterministic prose of a given
 * size, a history as an older keel left it (turns whose tool results held whole books), and a
 * fake-Anthropic responder that answers keel's compaction requests with a summary.
 */
import { SessionStore } from '@keel/agent';
import type { MemoryStore } from '@keel/memory';
import { type FakeRequestBody, type FakeScript, text } from './fake-anthropic.js';

/** Short common words: one token each for keel, and about one per four characters for the fake. */
const WORDS =
  'the old red boat came into port when rain fell over town and we said that it was time to go home with our new map of sea'.split(
    ' ',
  );

/** About `n` words (and about as many tokens) of deterministic prose; `seed` varies it. */
export function prose(n: number, seed = 1): string {
  let x = seed * 2654435761;
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    x = (x * 1103515245 + 12345) % 2147483648;
    out.push(WORDS[x % WORDS.length]!);
    if (i % 14 === 13) out.push('.');
  }
  return out.join(' ');
}

/**
 * Stores `turns` complete turns as an older keel left them in the owner session of `store`: each a
 * recall whose result holds about `tokens` tokens.
 */
export function seedHistory(store: MemoryStore, turns: number, tokens: number): void {
  const session = new SessionStore(store);
  for (let i = 0; i < turns; i++) {
    const id = session.startTurn('terminal', `tell me everything ${i}`);
    session.completeTurn(
      id,
      [
        { role: 'user', content: [{ type: 'text', text: `tell me everything ${i}` }] },
        {
          role: 'assistant',
          content: [
            { type: 'tool_use', id: `toolu_seed${i}`, name: 'recall', input: { query: 'map' } },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: `toolu_seed${i}`, content: prose(tokens, i + 1) },
          ],
        },
        { role: 'assistant', content: [{ type: 'text', text: `That was everything (${i}).` }] },
      ],
      { provider: 'anthropic', model: 'claude-test', factsUsed: [] },
    );
  }
}

/** True for keel's compaction requests (their system prompt starts so). */
export function isCompaction(body: FakeRequestBody): boolean {
  return body.system?.[0]?.text.startsWith('You compact') ?? false;
}

/**
 * A fake-Anthropic responder that answers compaction requests with a summary and hands every
 * other request to `then` (undefined: the queue).
 */
export function summarising(then?: (body: FakeRequestBody) => FakeScript | undefined) {
  return (body: FakeRequestBody): FakeScript | undefined =>
    isCompaction(body)
      ? { kind: 'message', blocks: [text('Summary: the owner asked about the old map.')] }
      : then?.(body);
}
