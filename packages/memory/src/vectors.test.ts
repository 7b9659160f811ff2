// The vector arm (DESIGN "Reading: recall"): meaning-only matches in hybrid mode, stale rows never
// recalled through vectors, the embedder fingerprint (dimension refused, model change paused until
// reindex, reindex resumable), and a provider returning nothing. Real SQLite files; Ollama is the
// fake server on 127.0.0.1 driven by the real `ollama` client.

import { KeelError } from '@keel/errors';
import { afterEach, describe, expect, it } from 'vitest';
import { bagOfWordsVector, startFakeOllama } from '../../../tests/support/fake-ollama.js';
import { OllamaEmbedder } from './embed/ollama.js';
import { ConceptEmbedder, describeEmbedderConformance } from './embed/testkit.js';
import { CodeBuffer, hammingDistances } from './hamming.js';
import { count, episodeResults, factResults, openTempStore, turn } from './test-helpers.js';

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

describe('hybrid recall', () => {
  it('finds a fact by meaning alone in hybrid mode, not in lexical mode; a word match is found by both', async () => {
    const { store } = openTempStore();
    const meaning = store.remember({
      kind: 'fact',
      key: 'ride',
      value: 'drives a red sedan',
      source: 'owner_stated',
    }).fact!;
    const control = store.remember({
      kind: 'preference',
      key: 'morning',
      value: 'espresso with oat milk',
      source: 'owner_stated',
    }).fact!;
    const distractor = store.remember({
      kind: 'goal',
      key: 'music',
      value: 'learn the violin',
      source: 'owner_stated',
    }).fact!;
    await store.useEmbedder(new ConceptEmbedder());

    const lexical = store.recall('automobile espresso', { type: 'fact', touch: false });
    expect(lexical.mode).toBe('lexical');
    expect(factResults(lexical).map((r) => r.id)).toEqual([control.id]);

    const hybrid = await store.hybridRecall('automobile espresso', { type: 'fact', touch: false });
    expect(hybrid.mode).toBe('hybrid');
    expect(hybrid.reason).toBeUndefined();
    const ids = factResults(hybrid).map((r) => r.id);
    // The control is in both lists, so it leads; the meaning-only match follows; the distractor last.
    expect(ids).toEqual([control.id, meaning.id, distractor.id]);
  });

  it('without an embedder, hybridRecall is lexical and says why', async () => {
    const { store } = openTempStore();
    const control = store.remember({
      kind: 'note',
      key: 'car',
      value: 'parked on level two',
      source: 'owner_stated',
    }).fact!;
    await store.useEmbedder(null, 'embedder set to none (KEEL_EMBEDDER=none)');
    const r = await store.hybridRecall('car', { type: 'fact', touch: false });
    expect(r).toMatchObject({
      mode: 'lexical',
      reason: 'embedder set to none (KEEL_EMBEDDER=none)',
    });
    expect(factResults(r).map((x) => x.id)).toEqual([control.id]);
  });

  it('superseded, pending, retracted and purged rows never come back through the vector arm; live matches fill the top-k', async () => {
    const { store } = openTempStore();
    const embedder = new ConceptEmbedder();
    await store.useEmbedder(embedder);
    // Stale rows whose text is exactly the query's concept: the nearest vectors there are.
    const old = store.remember({
      kind: 'fact',
      key: 'transport',
      value: 'automobile',
      source: 'owner_stated',
    }).fact!;
    const retracted = store.remember({
      kind: 'fact',
      key: 'second_car',
      value: 'automobile',
      source: 'owner_stated',
    }).fact!;
    const purgedEp = turn(store, 'automobile automobile');
    const purged = store.remember({
      kind: 'fact',
      key: 'third_car',
      value: 'automobile automobile',
      source: 'owner_stated',
      episodeId: purgedEp,
    }).fact!;
    await store.embedPending();
    expect(count(store, 'SELECT count(*) AS n FROM vec_facts_codes')).toBe(3);

    store.remember({ kind: 'fact', key: 'transport', value: 'bicycle', source: 'owner_stated' }); // supersedes `old`
    const pending = store.remember({
      kind: 'fact',
      key: 'transport',
      value: 'automobile automobile',
      source: 'observed',
    }).fact!;
    expect(pending.status).toBe('pending');
    store.forget(retracted.id);
    store.forget(purged.id, { purge: true });
    // Live matches: each shares the concept with other words, so each is farther than the stale rows.
    const live = [
      store.remember({
        kind: 'note',
        key: 'parking',
        value: 'the car is parked on level two',
        source: 'owner_stated',
      }).fact!,
      store.remember({
        kind: 'note',
        key: 'insurance',
        value: 'vehicle insurance renews in May',
        source: 'owner_stated',
      }).fact!,
      store.remember({
        kind: 'note',
        key: 'sale',
        value: 'selling the old sedan soon',
        source: 'owner_stated',
      }).fact!,
    ];
    const r = await store.hybridRecall('automobile', { type: 'fact', limit: 3, touch: false });
    expect(r.mode).toBe('hybrid');
    expect(
      factResults(r)
        .map((x) => x.id)
        .sort(),
    ).toEqual(live.map((f) => f.id).sort());
    // Their vectors are gone from the index itself, not only filtered out.
    const stale = [old.id, retracted.id, purged.id, pending.id];
    expect(
      count(store, `SELECT count(*) AS n FROM vec_facts_codes WHERE id IN (${stale.join(',')})`),
    ).toBe(0);
    // The purged episode's vector is of its redacted text now, not of what was said.
    expect(store.episode(purgedEp)!.text).not.toContain('automobile');
    const [said] = await embedder.embed(['automobile automobile'], 'document');
    const d = store.db
      .prepare('SELECT vec_distance_cosine(embedding, ?) AS d FROM vec_episodes WHERE rowid = ?')
      .get(said, BigInt(purgedEp)) as { d: number } | undefined;
    expect(d === undefined || d.d > 0.5).toBe(true);
    const episodes = episodeResults(
      await store.hybridRecall('automobile', { type: 'episode', touch: false }),
    );
    expect(episodes.every((e) => !e.text.includes('automobile'))).toBe(true);
  });

  it('embeds imported turns in batches and recalls them by meaning', async () => {
    const { store } = openTempStore();
    for (let i = 0; i < 150; i++) turn(store, 'the weather was mild today');
    const target = turn(store, 'my physician moved her practice to Porto');
    await store.useEmbedder(new ConceptEmbedder());
    const progress: number[] = [];
    const r = await store.embedPending({ onProgress: (done) => progress.push(done) });
    expect(r).toEqual({ embedded: 151, remaining: 0 });
    expect(progress).toEqual([64, 128, 151]);
    const hits = episodeResults(
      await store.hybridRecall('doctor', { type: 'episode', limit: 3, touch: false }),
    );
    expect(hits[0]!.id).toBe(target);
  });
});

/** A parsed conversation of `n` turns, `text(i)` each, in one document. */
function conversation(doc: string, n: number, text: (i: number) => string) {
  return {
    format: 'locomo' as const,
    docs: [doc],
    skipped: [],
    turns: Array.from({ length: n }, (_, i) => ({
      sourceDoc: doc,
      sourceId: `t${i}`,
      sessionKey: 's',
      speaker: 'Ann',
      role: 'other' as const,
      text: text(i),
      occurredAt: 0,
    })),
  };
}

describe('the vector queue fills only once vectors are in use', () => {
  it('an import without an embedder queues nothing; binding one later embeds every row written before', async () => {
    const { store } = openTempStore();
    const fact = store.remember({
      kind: 'fact',
      key: 'ride',
      value: 'drives a red sedan',
      source: 'owner_stated',
    }).fact!;
    store.importTurns(
      conversation('before', 200, (i) =>
        i === 150 ? 'my physician moved her practice to Porto' : 'the weather was mild today',
      ),
      { path: 'before', fileSha256: 'a' },
    );
    expect(count(store, 'SELECT count(*) AS n FROM vector_queue')).toBe(0);

    const status = await store.useEmbedder(new ConceptEmbedder());
    // The first binding queues everything written so far (200 turns and the fact).
    expect(status).toMatchObject({ state: 'active', pending: 201 });
    expect(await store.embedPending()).toEqual({ embedded: 201, remaining: 0 });
    expect(count(store, 'SELECT count(*) AS n FROM vec_episodes_codes')).toBe(200);
    const hits = episodeResults(
      await store.hybridRecall('doctor', { type: 'episode', limit: 1, touch: false }),
    );
    expect(hits.map((h) => h.provenance.source_id)).toEqual(['t150']);
    const facts = factResults(
      await store.hybridRecall('automobile', { type: 'fact', touch: false }),
    );
    expect(facts.map((f) => f.id)).toEqual([fact.id]);

    // Control: once vectors are in use, an import queues its turns (even in a process that has
    // no embedder bound).
    await store.useEmbedder(null);
    store.importTurns(
      conversation('after', 5, (i) => `later turn ${i}`),
      { path: 'after', fileSha256: 'b' },
    );
    expect(count(store, 'SELECT count(*) AS n FROM vector_queue')).toBe(5);
  });
});

describe('keel verify checks the vector tables', () => {
  /** A store with vectors in use: two facts and three turns, all embedded. */
  async function embeddedStore() {
    const { store } = openTempStore();
    const facts = ['drives a red sedan', 'espresso with oat milk'].map(
      (value, i) =>
        store.remember({ kind: 'note', key: `n${i}`, value, source: 'owner_stated' }).fact!,
    );
    const turns = ['the weather was mild', 'my physician moved', 'a dog barked'].map((t) =>
      turn(store, t),
    );
    await store.useEmbedder(new ConceptEmbedder());
    await store.embedPending();
    return { store, facts, turns };
  }
  const vectorProblems = (store: ReturnType<typeof openTempStore>['store']) =>
    store.verify().problems.filter((p) => /^vector/.test(p.check));

  it('a consistent store verifies; a store that never bound an embedder has nothing to check', async () => {
    const { store } = await embeddedStore();
    expect(store.verify()).toMatchObject({ ok: true, problems: [] });
    // Queued work is not a problem: a turn written and not yet embedded, a fact forgotten and
    // not yet removed (another process, no embedder bound there).
    turn(store, 'written after the last sync');
    await store.useEmbedder(null);
    store.db.prepare(`UPDATE facts SET status = 'retracted' WHERE key = 'n1'`).run();
    expect(count(store, 'SELECT count(*) AS n FROM vector_queue')).toBe(2);
    expect(store.verify()).toMatchObject({ ok: true, problems: [] });

    const { store: plain } = openTempStore();
    turn(plain, 'no vectors here');
    expect(plain.verify()).toMatchObject({ ok: true, problems: [] });
  });

  it('reports vectors of rows no longer active and rows missing a vector, beyond the queue; keel reindex mends both', async () => {
    const { store, facts, turns } = await embeddedStore();
    // A status change whose queue entry is lost: its vector stays and nothing will remove it.
    store.db.prepare(`UPDATE facts SET status = 'retracted' WHERE id = ?`).run(facts[0]!.id);
    // A turn whose vector is lost (both copies) and that is not queued.
    store.db.prepare('DELETE FROM vec_episodes_codes WHERE id = ?').run(turns[1]);
    store.db.prepare('DELETE FROM vec_episodes WHERE rowid = ?').run(BigInt(turns[1]!));
    store.db.prepare('DELETE FROM vector_queue').run();

    const report = store.verify();
    expect(report.ok).toBe(false);
    expect(vectorProblems(store)).toEqual([
      {
        check: 'vectors_stale',
        detail: `1 fact(s) no longer eligible still have a vector and are not queued for removal: f${facts[0]!.id}`,
        fix: 'keel reindex',
      },
      {
        check: 'vectors_missing',
        detail: `1 episode(s) have no vector and are not queued for one: e${turns[1]}`,
        fix: 'keel reindex',
      },
    ]);

    // What `keel reindex` does with the same embedder: repair, then embed what is queued.
    const index = store.vectorIndex!;
    expect(index.repair()).toEqual({ deleted: 0, queued: 2 });
    await store.embedPending();
    expect(store.verify()).toMatchObject({ ok: true, problems: [] });
    expect(
      count(store, 'SELECT count(*) AS n FROM vec_facts_codes WHERE id = ?', facts[0]!.id),
    ).toBe(0);
    expect(
      count(store, 'SELECT count(*) AS n FROM vec_episodes_codes WHERE id = ?', turns[1]),
    ).toBe(1);
  });

  it('reports one copy of a vector without the other, and a dimension that disagrees with meta', async () => {
    const { store, turns } = await embeddedStore();
    store.db.prepare('DELETE FROM vec_episodes_codes WHERE id = ?').run(turns[2]);
    store.db.prepare('DELETE FROM vector_queue').run();
    expect(vectorProblems(store)).toEqual([
      {
        check: 'vector_tables',
        detail:
          'vec_episodes and vec_episodes_codes disagree: 1 vector(s) without a code, 0 code(s) without a vector',
        fix: 'keel reindex',
      },
      {
        check: 'vectors_missing',
        detail: `1 episode(s) have no vector and are not queued for one: e${turns[2]}`,
        fix: 'keel reindex',
      },
    ]);
    expect(store.vectorIndex!.repair()).toEqual({ deleted: 1, queued: 1 });
    await store.embedPending();
    expect(vectorProblems(store)).toEqual([]);

    // meta claims another dimension than the tables hold.
    const fp = JSON.parse(
      (
        store.db.prepare(`SELECT value FROM meta WHERE key = 'vector_fingerprint'`).get() as {
          value: string;
        }
      ).value,
    );
    store.db
      .prepare(`UPDATE meta SET value = ? WHERE key = 'vector_fingerprint'`)
      .run(JSON.stringify({ ...fp, dim: 768 }));
    const dims = vectorProblems(store).filter((p) => p.check === 'vector_dimension');
    expect(dims.map((p) => p.detail)).toEqual([
      'vec_facts holds 384-d vectors; meta says concept concept-v1 makes 768-d',
      '2 fact code(s) in vec_facts_codes are not of 768-d vectors',
      'vec_episodes holds 384-d vectors; meta says concept concept-v1 makes 768-d',
      '3 episode code(s) in vec_episodes_codes are not of 768-d vectors',
    ]);
    expect(dims.every((p) => p.fix === 'keel reindex --full')).toBe(true);
    // A full rebuild mends it.
    await store.reindex(new ConceptEmbedder({ model: 'concept-v2' }));
    expect(store.verify()).toMatchObject({ ok: true, problems: [] });
  });
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
    const paused = await store.hybridRecall('automobile', { type: 'fact', touch: false });
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
    expect((await store.hybridRecall('automobile', { type: 'fact', touch: false })).mode).toBe(
      'lexical',
    );

    const again = await store.reindex(v2);
    expect(again.resumed).toBe(true);
    expect(again.status).toMatchObject({
      state: 'active',
      pending: 0,
      vectors: { facts: 2, episodes: 150 },
    });
    expect(again.status.stored).toMatchObject({ model: 'concept-v2' });
    const hybrid = await store.hybridRecall('automobile', { type: 'fact', touch: false });
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

    const r = await store.hybridRecall('tomatoes', { type: 'fact', touch: false });
    expect(r.mode).toBe('lexical');
    expect(r.reason).toContain('EMBEDDING_INVALID');
    expect(factResults(r).map((x) => x.id)).toEqual([control.id]);

    // The server recovers: the waiting row is embedded and recall is hybrid again.
    server.setEmbed((input) => input.map((t) => bagOfWordsVector(t)));
    expect((await store.hybridRecall('tomatoes', { type: 'fact', touch: false })).mode).toBe(
      'hybrid',
    );
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

describe('the fast search path (in-memory codes)', () => {
  it('agrees with sqlite-vec exact KNN once warm, and follows writes and forgets in this process', async () => {
    const { store } = openTempStore();
    const words = [
      'car',
      'dog',
      'doctor',
      'coffee',
      'sister',
      'job',
      'garden',
      'piano',
      'river',
      'tax',
    ];
    const facts = words.map(
      (w, i) =>
        store.remember({
          kind: 'note',
          key: `n${i}`,
          value: `${w} ${words[(i + 3) % words.length]} notes`,
          source: 'owner_stated',
        }).fact!,
    );
    await store.useEmbedder(new ConceptEmbedder());
    await store.embedPending();
    const index = store.vectorIndex!;
    const embedder = index.embedder;
    const [q] = await embedder.embed(['automobile and espresso'], 'query');
    // Same distances, in the same order (ids may swap within ties; 8-bit copies differ by < 0.01).
    const agree = (k: number) => {
      const fast = index.knn('fact', q!, k);
      const exact = index.exactKnn('fact', q!, k);
      for (const [i, n] of fast.entries()) expect(n.distance).toBeCloseTo(exact[i]!.distance, 2);
      return { fast, exact };
    };
    for (let i = 0; i < 6; i++) index.knn('fact', q!, 5); // past the cold, exact searches
    const { fast } = agree(5);
    expect(fast[0]!.distance).toBeLessThan(0.7);

    // A forget in this process updates the warm codes: the nearest fact is gone from both paths.
    store.forget(fast[0]!.id);
    agree(5);
    expect(index.knn('fact', q!, 10).map((n) => n.id)).not.toContain(fast[0]!.id);
    // A new fact written and synced is found by the warm path.
    const added = store.remember({
      kind: 'note',
      key: 'new',
      value: 'automobile espresso',
      source: 'owner_stated',
    }).fact!;
    await store.embedPending();
    expect(index.knn('fact', q!, 1).map((n) => n.id)).toEqual([added.id]);
    expect(facts).toHaveLength(10);
  });
});

describe('the Hamming first pass', () => {
  it('over more rows than it rescores, keeps the exact nearest neighbours', async () => {
    const { store } = openTempStore();
    const vocab = Array.from(
      { length: 40 },
      (_, i) => `word${String.fromCharCode(97 + (i % 26))}${i}`,
    );
    store.importTurns(
      {
        format: 'locomo',
        docs: ['synthetic'],
        skipped: [],
        turns: Array.from({ length: 1500 }, (_, i) => ({
          sourceDoc: 'synthetic',
          sourceId: `t${i}`,
          sessionKey: 's',
          speaker: 'Ann',
          role: 'other' as const,
          text: [vocab[i % 40], vocab[(i * 7) % 40], vocab[(i * 13 + 5) % 40]].join(' '),
          occurredAt: 0,
        })),
      },
      { path: 'synthetic', fileSha256: 'x' },
    );
    await store.useEmbedder(new ConceptEmbedder());
    await store.embedPending();
    const index = store.vectorIndex!;
    const [q] = await index.embedder.embed([`${vocab[3]} ${vocab[21]} ${vocab[9]}`], 'query');
    for (let i = 0; i < 6; i++) index.knn('episode', q!, 5); // past the cold, exact searches
    const fast = index.knn('episode', q!, 10);
    const exact = index.exactKnn('episode', q!, 10);
    for (const [i, n] of fast.entries()) expect(n.distance).toBeCloseTo(exact[i]!.distance, 2);
    expect(exact[0]!.distance).toBeLessThan(0.5);
  });
});

describe('Hamming distances (the first pass)', () => {
  it('equal a plain bit count for every code width, at both extremes and in between', () => {
    let seed = 7;
    const next = () => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed;
    };
    const naive = (a: Uint32Array, b: Uint32Array) => {
      let d = 0;
      for (let i = 0; i < a.length; i++) {
        let x = (a[i]! ^ b[i]!) >>> 0;
        for (; x; x >>>= 1) d += x & 1;
      }
      return d;
    };
    for (const words of [1, 2, 3, 12, 24, 32, 48]) {
      const query = Uint32Array.from({ length: words }, next);
      const rows = [
        query.slice(), // distance 0
        query.map((x) => ~x >>> 0), // every bit differs: 32·words
        ...Array.from({ length: 50 }, () => Uint32Array.from({ length: words }, next)),
      ];
      const codes = new Uint32Array(rows.length * words);
      for (const [i, r] of rows.entries()) codes.set(r, i * words);
      const want = rows.map((r) => naive(r, query));
      const got = Array.from(hammingDistances(codes, rows.length, words, query));
      expect(got, `${words} words`).toEqual(want);
      expect(got.slice(0, 2)).toEqual([0, 32 * words]);
      // The same numbers from the code buffer, with the WebAssembly kernel and without, after it
      // grew past its first reservation (4 rows) and after a row was moved.
      for (const useWasm of [true, false]) {
        const buffer = new CodeBuffer(words, 4, useWasm);
        expect(buffer.native).toBe(useWasm);
        for (const [i, r] of rows.entries()) {
          buffer.reserve(i + 1);
          buffer.set(i, r);
        }
        const hist = new Uint32Array(words * 32 + 1);
        expect(
          Array.from(buffer.distances(query, rows.length, hist)),
          `${words}, ${useWasm}`,
        ).toEqual(want);
        const counts = new Uint32Array(words * 32 + 1);
        for (const x of want) counts[x]!++;
        expect(Array.from(hist)).toEqual(Array.from(counts));
        buffer.move(1, 0); // the all-different row over the identical one
        expect(buffer.distances(query, 1, new Uint32Array(words * 32 + 1))[0]).toBe(32 * words);
      }
    }
  });
});
