// The embedder behind the vector arm (DESIGN "Reading: recall"): every embedder passes the same
// conformance suite; the embedder fingerprint (dimension refused, model change paused until
// reindex, reindex resumable); and a provider returning nothing. Real SQLite files; Ollama is the
// fake server on 127.0.0.1 driven by the real `ollama` client.

import { KeelError } from '@keel/errors';
import { afterEach, describe, expect, it } from 'vitest';
import { bagOfWordsVector, startFakeOllama } from '../../../../tests/support/fake-ollama.js';
import { OllamaEmbedder } from '../embed/ollama.js';
import { ConceptEmbedder, describeEmbedderConformance } from '../embed/testkit.js';
import { count, factResults, openTempStore, turn } from '../test-helpers.js';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

async function fakeOllama(options: Parameters<typeof startFakeOllama>[0] = {}) {
  const server = await startFakeOllama(options);
  closers.push(() => server.close());
  return server;
}

async function expectRejects(p: Promise<unknown>, code: string): Promise<KeelError> {
  try {
    await p;
  } catch (err) {
    if (KeelError.isInstance(err) && err.code === code) return err;
    throw new Error(`expected KeelError ${code}, got ${String(err)}`);
  }
  throw new Error(`expected KeelError ${code}, nothing was thrown`);
}

describeEmbedderConformance('concept test double', async () => ({
  embedder: new ConceptEmbedder(),
}));
describeEmbedderConformance('Ollama (fake server, real client)', async () => {
  const server = await startFakeOllama();
  return { embedder: new OllamaEmbedder({ host: server.url }), cleanup: () => server.close() };
});

describe('the embedder fingerprint', () => {
  it('refuses an embedder of another dimension, naming keel reindex', async () => {
    const { store } = openTempStore();
    store.remember({ kind: 'note', key: 'a', value: 'alpha', source: 'owner_stated' });
    await store.useEmbedder(new ConceptEmbedder({ dim: 64 }));
    await store.embedPending();
    const err = await expectRejects(
      store.useEmbedder(new ConceptEmbedder({ dim: 32 })),
      'EMBEDDER_MISMATCH',
    );
    expect(err.message).toContain('keel reindex');
    expect(err.fix).toContain('keel reindex');
  });

  it('pauses the vector arm for another model of the same dimension until reindex; an interrupted reindex completes on rerun', async () => {
    const { store } = openTempStore();
    const meaning = store.remember({
      kind: 'fact',
      key: 'ride',
      value: 'drives a red sedan',
      source: 'owner_stated',
    }).fact!;
    const control = store.remember({
      kind: 'note',
      key: 'auto',
      value: 'automobile club membership',
      source: 'owner_stated',
    }).fact!;
    for (let i = 0; i < 150; i++) turn(store, `filler ${i}`);
    await store.useEmbedder(new ConceptEmbedder({ model: 'concept-v1' }));
    await store.embedPending();

    const v2 = new ConceptEmbedder({ model: 'concept-v2' });
    const status = await store.useEmbedder(v2);
    expect(status).toMatchObject({ state: 'paused' });
    expect(status!.reason).toContain('keel reindex');
    const paused = await store.recall('automobile', { type: 'fact', touch: false });
    expect(paused.mode).toBe('lexical');
    expect(paused.reason).toContain('keel reindex');
    expect(factResults(paused).map((r) => r.id)).toEqual([control.id]);
    // Paused means no vectors of the new model are mixed in.
    expect(v2.calls.filter((c) => c.purpose === 'document')).toEqual([]);

    // Interrupted after the first batch.
    const stop = new AbortController();
    await expectRejects(
      store.reindex(v2, { signal: stop.signal, onProgress: () => stop.abort() }),
      'CANCELLED',
    );
    expect(store.vectorStatus()).toMatchObject({ state: 'paused' });
    expect((await store.recall('automobile', { type: 'fact', touch: false })).mode).toBe('lexical');

    const again = await store.reindex(v2);
    expect(again.resumed).toBe(true);
    expect(again.status).toMatchObject({
      state: 'active',
      pending: 0,
      vectors: { facts: 2, episodes: 150 },
    });
    expect(again.status.stored).toMatchObject({ model: 'concept-v2' });
    const hybrid = await store.recall('automobile', { type: 'fact', touch: false });
    expect(hybrid.mode).toBe('hybrid');
    expect(factResults(hybrid).map((r) => r.id)).toEqual([control.id, meaning.id]);
  });

  it('reindex to another dimension rebuilds every vector', async () => {
    const { store } = openTempStore();
    store.remember({ kind: 'note', key: 'a', value: 'alpha', source: 'owner_stated' });
    await store.useEmbedder(new ConceptEmbedder({ dim: 64 }));
    await store.embedPending();
    const r = await store.reindex(new ConceptEmbedder({ dim: 32 }));
    expect(r.status).toMatchObject({ state: 'active', stored: { dim: 32 }, vectors: { facts: 1 } });
    await expect(store.useEmbedder(new ConceptEmbedder({ dim: 32 }))).resolves.toMatchObject({
      state: 'active',
    });
  });
});

describe('a provider that returns nothing', () => {
  it('an empty embeddings array from Ollama is a clear error, stores nothing, and recall falls back to lexical saying so', async () => {
    const server = await fakeOllama();
    const { store } = openTempStore();
    await store.useEmbedder(new OllamaEmbedder({ host: server.url }));
    const control = store.remember({
      kind: 'note',
      key: 'garden',
      value: 'tomatoes in the garden',
      source: 'owner_stated',
    }).fact!;
    await store.embedPending();
    expect(count(store, 'SELECT count(*) AS n FROM vec_facts_codes')).toBe(1);

    server.setEmbed(() => []);
    store.remember({
      kind: 'note',
      key: 'shed',
      value: 'the garden shed key',
      source: 'owner_stated',
    });
    const err = await expectRejects(store.embedPending(), 'EMBEDDING_INVALID');
    expect(err.message).toBe('ollama (nomic-embed-text) returned 0 vector(s) for 1 text(s)');
    expect(count(store, 'SELECT count(*) AS n FROM vec_facts_codes')).toBe(1);
    expect(count(store, 'SELECT count(*) AS n FROM vector_queue')).toBe(1);

    const r = await store.recall('tomatoes', { type: 'fact', touch: false });
    expect(r.mode).toBe('lexical');
    expect(r.reason).toContain('EMBEDDING_INVALID');
    expect(factResults(r).map((x) => x.id)).toEqual([control.id]);

    // The server recovers: recall is hybrid again (and writes nothing: the row still waits);
    // the next catch-up embeds it.
    server.setEmbed((input) => input.map((t) => bagOfWordsVector(t)));
    expect((await store.recall('tomatoes', { type: 'fact', touch: false })).mode).toBe('hybrid');
    expect(count(store, 'SELECT count(*) AS n FROM vector_queue')).toBe(1);
    expect(await store.catchUpVectors()).toEqual({ embedded: 1, remaining: 0 });
    expect(count(store, 'SELECT count(*) AS n FROM vector_queue')).toBe(0);
  });

  it('an Ollama server without the embed model is unavailable, naming ollama pull', async () => {
    const server = await fakeOllama({ models: ['llama3.2:latest'] });
    const err = await expectRejects(
      new OllamaEmbedder({ host: server.url }).init(),
      'EMBEDDER_UNAVAILABLE',
    );
    expect(err.message).toContain('ollama pull nomic-embed-text');
  });
});

describe('ending the Ollama embedder’s requests', () => {
  it('close and an aborted signal end a request under way at once; a request that is answered is the control', async () => {
    const server = await fakeOllama();
    const embedder = new OllamaEmbedder({ host: server.url });
    await embedder.init();
    // Control: answered, it returns a vector.
    expect(await embedder.embed(['alpha'], 'document')).toHaveLength(1);

    server.setEmbedDelay(20_000);
    const started = performance.now();
    const closing = embedder.embed(['beta'], 'document');
    await expect.poll(() => server.requests.length).toBe(4); // tags, probe, alpha, beta
    await embedder.close();
    const err = await expectRejects(closing, 'EMBEDDER_UNAVAILABLE');
    expect(err.message).toContain('closed');
    expect(performance.now() - started).toBeLessThan(5000);

    const stop = new AbortController();
    const bounded = new OllamaEmbedder({ host: server.url, signal: stop.signal });
    server.setEmbedDelay(0);
    await bounded.init();
    server.setEmbedDelay(20_000);
    const waiting = bounded.embed(['gamma'], 'document');
    await expect.poll(() => server.requests.length).toBe(7);
    stop.abort(new Error('the bound passed'));
    await expectRejects(waiting, 'EMBEDDER_UNAVAILABLE');
    expect(performance.now() - started).toBeLessThan(10_000);
  });
});
