// A long-running door embeds what a turn wrote once the turn is done, from the idle loop that
// warms recall: never while a turn holds the session (the real turn lock), never what was there
// before the door opened (the tick's), and nothing after it stops. The real Ollama client against
// the fake Ollama on 127.0.0.1; real SQLite files.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { acquireTurnLock } from '@keel/agent';
import { MemoryStore, OllamaEmbedder } from '@keel/memory';
import { afterEach, describe, expect, it } from 'vitest';
import { ConceptEmbedder } from '../../../packages/memory/src/embed/testkit.js';
import { type FakeOllama, startFakeOllama } from '../../../tests/support/fake-ollama.js';
import { keepRecallWarm } from './open.js';

const closers: (() => unknown)[] = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

const concepts = new ConceptEmbedder({ dim: 256 });
/** Vectors that know "automobile" is "car" is "sedan" (nomic's task prefixes taken off). */
const meaning = (input: string[]) =>
  input.map((t) => concepts.vector(t.replace(/^search_(query|document): /, '')));

async function setUp(): Promise<{ store: MemoryStore; ollama: FakeOllama }> {
  const home = mkdtempSync(join(tmpdir(), 'keel-door-vectors-'));
  closers.push(() => rmSync(home, { recursive: true, force: true }));
  const ollama = await startFakeOllama({ embed: meaning });
  closers.push(() => ollama.close());
  const store = MemoryStore.openHome(home);
  closers.push(() => store.close());
  await store.useEmbedder(new OllamaEmbedder({ host: ollama.url }));
  return { store, ollama };
}

const said = (store: MemoryStore, text: string) =>
  store.addEpisode({ channel: 'terminal', role: 'owner', text }).id;
/** The turns recall finds for "automobile" (no word in common with any of them). */
const found = async (store: MemoryStore) =>
  (await store.recall('automobile', { type: 'episode', touch: false })).results.map((r) =>
    r.type === 'episode' ? r.text : '',
  );
/** The texts sent to be embedded as documents. */
const documents = (ollama: FakeOllama) =>
  ollama.requests
    .filter((q) => q.path === '/api/embed')
    .flatMap((q) => q.body!.input as string[])
    .filter((t) => t.startsWith('search_document: ') && !t.includes('dimension probe'));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("the door's idle loop embeds what a turn wrote", () => {
  it('once the turn lock is released, not while it is held; what was there before the door opened is left to the tick', async () => {
    const { store, ollama } = await setUp();
    said(store, 'the old sedan needs tyres'); // before the door opened: the tick's
    const stop = keepRecallWarm(store, { stepMs: 0, idleMs: 20 });
    closers.push(stop);

    const release = await acquireTurnLock(store.path);
    said(store, 'my car is a blue sedan');
    // Many idle looks while the turn holds the session: nothing is embedded.
    await sleep(300);
    expect(documents(ollama)).toEqual([]);
    expect(await found(store)).toEqual([]);

    await release();
    await expect
      .poll(() => documents(ollama), { timeout: 30_000 })
      .toEqual(['search_document: my car is a blue sedan']);
    await expect.poll(() => found(store), { timeout: 30_000 }).toEqual(['my car is a blue sedan']);
    // The row from before the door opened is still queued (the tick embeds it).
    expect(store.pendingVectors()).toBe(1);
  });

  it('a later turn is embedded too, and nothing is after the door stops', async () => {
    const { store, ollama } = await setUp();
    const stop = keepRecallWarm(store, { stepMs: 0, idleMs: 20, turnUnderWay: () => false });
    said(store, 'my car is a blue sedan');
    await expect.poll(() => documents(ollama).length, { timeout: 30_000 }).toBe(1);
    said(store, 'the vehicle is parked on level two');
    await expect.poll(() => documents(ollama).length, { timeout: 30_000 }).toBe(2);
    await expect
      .poll(async () => (await found(store)).sort(), { timeout: 30_000 })
      .toEqual(['my car is a blue sedan', 'the vehicle is parked on level two']);

    stop();
    said(store, 'selling the automobile soon');
    await sleep(300);
    expect(documents(ollama)).toHaveLength(2);
    expect(store.pendingVectors()).toBe(1);
  });

  it('a slow embedder: one embedding at a time, and a stop while it works stores nothing and ends the request', async () => {
    const { store, ollama } = await setUp();
    ollama.setEmbedDelay((input) => (input.some((t) => t.includes('blue sedan')) ? 400 : 0));
    const stop = keepRecallWarm(store, { stepMs: 0, idleMs: 20, turnUnderWay: () => false });
    said(store, 'my car is a blue sedan');
    await expect.poll(() => documents(ollama).length, { timeout: 30_000 }).toBe(1);
    // Looks keep coming every 20 ms while the embedder works; none asks again.
    await sleep(200);
    expect(documents(ollama)).toHaveLength(1);
    stop();
    await sleep(400);
    expect(store.pendingVectors()).toBe(1);
    expect(store.vectorStatus()!.vectors.episodes).toBe(0);
  });
});
