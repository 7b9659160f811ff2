// The vector arm in use (DESIGN "Reading: recall"): meaning-only matches in hybrid mode, stale
// rows never recalled through vectors, imported turns embedded in batches, and the queue filling
// only once vectors are in use. Real SQLite files.

import { describe, expect, it } from 'vitest';
import { ConceptEmbedder } from '../embed/testkit.js';
import { contextOf, dbOf, lexicalRecall } from '../internal.js';
import { count, episodeResults, factResults, openTempStore, turn } from '../test-helpers.js';

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
    await store.catchUpVectors();

    // The lexical arm alone (what recall runs without an embedder) does not find it.
    const lexical = lexicalRecall(contextOf(store), 'automobile espresso', {
      type: 'fact',
      touch: false,
    });
    expect(lexical.mode).toBe('lexical');
    expect(factResults(lexical).map((r) => r.id)).toEqual([control.id]);

    const hybrid = await store.recall('automobile espresso', { type: 'fact', touch: false });
    expect(hybrid.mode).toBe('hybrid');
    expect(hybrid.reason).toBeUndefined();
    const ids = factResults(hybrid).map((r) => r.id);
    // The control is in both lists, so it leads; the meaning-only match follows; the distractor,
    // nearest of the rest but sharing nothing with the question, is below the floor: no result.
    expect(ids).toEqual([control.id, meaning.id]);
    expect(ids).not.toContain(distractor.id);
  });

  it('a neighbour below the similarity floor is not a result: a question about nothing finds nothing in hybrid mode too', async () => {
    const { store } = openTempStore();
    const car = store.remember({
      kind: 'fact',
      key: 'vehicle',
      value: 'drives a red sedan',
      source: 'owner_stated',
    }).fact!;
    const insurance = store.remember({
      kind: 'note',
      key: 'insurance',
      value: 'insurance renews for the vehicle in May',
      source: 'owner_stated',
    }).fact!;
    store.remember({
      kind: 'preference',
      key: 'coffee',
      value: 'espresso with oat milk',
      source: 'owner_stated',
    });
    turn(store, 'the weather was mild today');
    const embedder = new ConceptEmbedder();
    await store.useEmbedder(embedder);
    await store.catchUpVectors();
    expect(store.vectorStatus()).toMatchObject({ floor: embedder.similarityFloor });

    const nothing = await store.recall('nothingmatcheszzz');
    expect(nothing.mode).toBe('hybrid');
    expect(nothing.results).toEqual([]);
    // The nearest rows exist (the floor, not an empty index, keeps them out).
    const [q] = await embedder.embed(['nothingmatcheszzz'], 'query');
    expect(store.vectorIndex!.knn('episode', q!, 3)).toHaveLength(1);
    expect(store.vectorIndex!.knn('fact', q!, 3)).toHaveLength(3);

    // Control: a question by meaning alone (no word of it is stored) finds its facts, the closer
    // first; the coffee, below the floor, is not a result.
    const control = await store.recall('which automobile do I have', { type: 'fact' });
    expect(control.mode).toBe('hybrid');
    expect(factResults(control).map((r) => r.id)).toEqual([car.id, insurance.id]);
  });

  it('without an embedder, recall is lexical and says why', async () => {
    const { store } = openTempStore();
    const control = store.remember({
      kind: 'note',
      key: 'car',
      value: 'parked on level two',
      source: 'owner_stated',
    }).fact!;
    await store.useEmbedder(null, 'embedder set to none (KEEL_EMBEDDER=none)');
    const r = await store.recall('car', { type: 'fact', touch: false });
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
    const later = store.remember({
      kind: 'fact',
      key: 'plan',
      value: 'automobile',
      source: 'owner_stated',
    }).fact!;
    await store.embedPending();
    expect(count(store, 'SELECT count(*) AS n FROM vec_facts_codes')).toBe(4);

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
    // Superseded after the forgets (which delete the vectors queued so far): its vector is still
    // stored until the next catch-up.
    store.remember({ kind: 'fact', key: 'plan', value: 'walking', source: 'owner_stated' });
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
    // Before the catch-up, recall leaves the queued rows out without writing: the vector of the
    // row superseded last is still stored, and never returned.
    const codes = () => count(store, 'SELECT count(*) AS n FROM vec_facts_codes');
    expect(codes()).toBe(1);
    const before = await store.recall('automobile', { type: 'fact', limit: 3, touch: false });
    expect(before.mode).toBe('hybrid');
    expect(factResults(before)).toEqual([]);
    expect(codes()).toBe(1);
    await store.catchUpVectors();
    const r = await store.recall('automobile', { type: 'fact', limit: 3, touch: false });
    expect(r.mode).toBe('hybrid');
    expect(
      factResults(r)
        .map((x) => x.id)
        .sort(),
    ).toEqual(live.map((f) => f.id).sort());
    // Their vectors are gone from the index itself, not only filtered out.
    const stale = [old.id, retracted.id, purged.id, pending.id, later.id];
    expect(
      count(store, `SELECT count(*) AS n FROM vec_facts_codes WHERE id IN (${stale.join(',')})`),
    ).toBe(0);
    // The purged episode's vector is of its redacted text now, not of what was said.
    expect(store.episode(purgedEp)!.text).not.toContain('automobile');
    const [said] = await embedder.embed(['automobile automobile'], 'document');
    const d = dbOf(store)
      .prepare('SELECT vec_distance_cosine(embedding, ?) AS d FROM vec_episodes WHERE rowid = ?')
      .get(said, BigInt(purgedEp)) as { d: number } | undefined;
    expect(d === undefined || d.d > 0.5).toBe(true);
    const episodes = episodeResults(
      await store.recall('automobile', { type: 'episode', touch: false }),
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
      await store.recall('doctor', { type: 'episode', limit: 3, touch: false }),
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
      await store.recall('doctor', { type: 'episode', limit: 1, touch: false }),
    );
    expect(hits.map((h) => h.provenance.source_id)).toEqual(['t150']);
    const facts = factResults(await store.recall('automobile', { type: 'fact', touch: false }));
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

describe('stale vectors in a process without an embedder', () => {
  it('a forget deletes the fact’s vector at once (both copies); the row stays queued and the next sync with an embedder forgets it', async () => {
    const { store } = openTempStore();
    const forgotten = store.remember({
      kind: 'fact',
      key: 'ride',
      value: 'drives a red sedan',
      source: 'owner_stated',
    }).fact!;
    const kept = store.remember({
      kind: 'note',
      key: 'coffee',
      value: 'espresso with oat milk',
      source: 'owner_stated',
    }).fact!;
    await store.useEmbedder(new ConceptEmbedder());
    await store.embedPending();
    await store.useEmbedder(null); // vectors in use, none bound here (another process's view)

    store.forget(forgotten.id);
    const vectorsOf = (id: number) =>
      count(store, 'SELECT count(*) AS n FROM vec_facts_codes WHERE id = ?', id) +
      count(store, 'SELECT count(*) AS n FROM vec_facts WHERE rowid = ?', BigInt(id));
    expect(vectorsOf(forgotten.id)).toBe(0);
    expect(vectorsOf(kept.id)).toBe(2); // control: the other fact keeps both copies
    expect(count(store, 'SELECT count(*) AS n FROM vector_queue')).toBe(1);

    await store.useEmbedder(new ConceptEmbedder());
    expect(await store.embedPending()).toEqual({ embedded: 0, remaining: 0 });
    expect(vectorsOf(kept.id)).toBe(2);
  });
});
