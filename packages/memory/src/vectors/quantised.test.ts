// The fast search path (quantised.ts): the in-memory sign bits and 8-bit copies agree with
// sqlite-vec's exact KNN, follow writes and forgets in this process, and keep the exact nearest
// neighbours over more rows than they rescore. Real SQLite files.

import { describe, expect, it } from 'vitest';
import { ConceptEmbedder } from '../embed/testkit.js';
import { openTempStore } from '../test-helpers.js';

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
