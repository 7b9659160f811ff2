// The fake Ollama server itself, driven by the real `ollama` client: chat (non-streaming and
// streaming NDJSON, tool calls), embed, tags, and refusing what was not scripted.
import { Ollama } from 'ollama';
import { afterEach, describe, expect, it } from 'vitest';
import { type FakeOllama, startFakeOllama } from './fake-ollama.js';

let server: FakeOllama;
afterEach(async () => {
  await server.close();
});

describe('fake Ollama', () => {
  it('answers chat in order, whole or streamed, with tool calls on the last chunk', async () => {
    server = await startFakeOllama({ models: ['llama3.1:latest'], chunkSize: 3 });
    const tool = { function: { name: 'recall', arguments: { query: 'tea' } } };
    server.queueChat({ content: 'first' }, { content: 'second reply', tool_calls: [tool] });
    const client = new Ollama({ host: server.url });
    const whole = await client.chat({
      model: 'llama3.1',
      messages: [{ role: 'user', content: 'hi' }],
      stream: false,
    });
    expect(whole.message).toMatchObject({ role: 'assistant', content: 'first' });
    expect(whole.done).toBe(true);

    const parts: string[] = [];
    let calls: unknown[] = [];
    for await (const chunk of await client.chat({
      model: 'llama3.1',
      messages: [{ role: 'user', content: 'again' }],
      stream: true,
    })) {
      parts.push(chunk.message.content);
      if (chunk.message.tool_calls) calls = chunk.message.tool_calls;
    }
    expect(parts.join('')).toBe('second reply');
    expect(parts.length).toBeGreaterThan(2);
    expect(calls).toEqual([tool]);
    expect(
      server.requests.filter((r) => r.path === '/api/chat').map((r) => r.body?.stream),
    ).toEqual([false, true]);
  });

  it('refuses an unscripted chat and an unknown model with Ollama-shaped errors', async () => {
    server = await startFakeOllama({ models: ['llama3.1:latest'] });
    const client = new Ollama({ host: server.url });
    await expect(client.chat({ model: 'llama3.1', messages: [], stream: false })).rejects.toThrow(
      'no scripted chat reply',
    );
    await expect(client.embed({ model: 'missing', input: 'x' })).rejects.toThrow(
      'model "missing" not found',
    );
    // Control: a listed model embeds, and tags lists it.
    expect((await client.list()).models.map((m) => m.name)).toEqual(['llama3.1:latest']);
    const r = await client.embed({ model: 'llama3.1', input: ['a b', 'c'] });
    expect(r.embeddings).toHaveLength(2);
    expect(r.embeddings[0]).toHaveLength(16);
  });
});
