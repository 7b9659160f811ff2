// What was written is found by meaning at once: `embedSince` embeds the rows queued after a mark
// (what `keel remember` and a door's turn wrote), newest first, and leaves everything else queued
// for the think tick's catch-up. Real SQLite files, the deterministic ConceptEmbedder.

import { KeelError } from '@keel/errors';
import { describe, expect, it } from 'vitest';
import { ConceptEmbedder } from '../embed/testkit.js';
import type { EmbedPurpose } from '../embed/types.js';
import { count, factResults, openTempStore, turn } from '../test-helpers.js';

/** A ConceptEmbedder whose document calls wait until `release()` (a slow or hung provider). */
class HeldEmbedder extends ConceptEmbedder {
  held = false;
  #waiting: (() => void)[] = [];
  /** Calls waiting for {@link release}. */
  get waiting(): number {
    return this.#waiting.length;
  }
  release(): void {
    this.held = false;
    for (const go of this.#waiting.splice(0)) go();
  }
  override async embed(texts: readonly string[], purpose: EmbedPurpose) {
    if (this.held && purpose === 'document') {
      await new Promise<void>((go) => this.#waiting.push(go));
    }
    return super.embed(texts, purpose);
  }
}

const automobile = async (store: ReturnType<typeof openTempStore>['store']) =>
  factResults(await store.recall('automobile', { type: 'fact', touch: false })).map((f) => f.value);

describe('embedSince', () => {
  it('a belief remembered now is found by meaning at once, without a catch-up', async () => {
    const { store } = openTempStore();
    await store.useEmbedder(new ConceptEmbedder());
    await store.catchUpVectors();
    const mark = store.vectorMark();
    store.remember({ kind: 'fact', key: 'ride', value: 'my blue sedan', source: 'owner_stated' });

    // Control: until something embeds it, hybrid recall finds it by no word of the question.
    const before = await store.recall('automobile', { type: 'fact', touch: false });
    expect(before.mode).toBe('hybrid');
    expect(factResults(before)).toEqual([]);

    const r = await store.embedSince(mark);
    expect(r).toEqual({ embedded: 1, through: store.vectorMark() });
    expect(await automobile(store)).toEqual(['my blue sedan']);
    expect(store.pendingVectors()).toBe(0);
  });

  it('embeds only what was queued after the mark, newest first up to the limit; the rest waits for the catch-up', async () => {
    const { store } = openTempStore();
    const embedder = new ConceptEmbedder();
    await store.useEmbedder(embedder);
    // A backlog from before the mark (an import embedded later, a process without an embedder).
    turn(store, 'the old sedan needs new tyres');
    const mark = store.vectorMark();
    store.remember({ kind: 'fact', key: 'first', value: 'a vehicle loan', source: 'owner_stated' });
    store.remember({ kind: 'fact', key: 'second', value: 'a red car', source: 'owner_stated' });
    store.remember({
      kind: 'fact',
      key: 'third',
      value: 'an automobile club',
      source: 'owner_stated',
    });
    const queued = store.pendingVectors();

    const r = await store.embedSince(mark, { limit: 2 });
    expect(r.embedded).toBe(2);
    expect(embedder.calls.filter((c) => c.purpose === 'document').flatMap((c) => c.texts)).toEqual([
      'fact third: an automobile club',
      'fact second: a red car',
    ]);
    expect(store.pendingVectors()).toBe(queued - 2);
    expect((await automobile(store)).sort()).toEqual(['a red car', 'an automobile club']);

    // Nothing new since: nothing to do.
    expect(await store.embedSince(r.through)).toEqual({ embedded: 0, through: r.through });
    // The catch-up takes what was left: the older fact and the turn from before the mark.
    expect(await store.catchUpVectors()).toEqual({ embedded: 2, remaining: 0 });
    expect((await automobile(store)).sort()).toEqual([
      'a red car',
      'a vehicle loan',
      'an automobile club',
    ]);
  });

  it('abandoned while the embedder works, it stores nothing and the row stays queued for the catch-up', async () => {
    const { store } = openTempStore();
    const embedder = new HeldEmbedder();
    await store.useEmbedder(embedder);
    await store.catchUpVectors();
    const mark = store.vectorMark();
    store.remember({ kind: 'fact', key: 'ride', value: 'my blue sedan', source: 'owner_stated' });
    embedder.held = true;
    const stop = new AbortController();
    const work = store.embedSince(mark, { signal: stop.signal });
    await expect.poll(() => embedder.waiting).toBe(1);
    stop.abort();
    embedder.release();
    const err = await work.catch((e: unknown) => e);
    expect(KeelError.isInstance(err) && err.code).toBe('CANCELLED');
    expect(count(store, 'SELECT count(*) AS n FROM vec_facts_codes')).toBe(0);
    expect(store.pendingVectors()).toBe(1);
    expect(await automobile(store)).toEqual([]);
    // Control: the catch-up embeds it.
    expect(await store.catchUpVectors()).toEqual({ embedded: 1, remaining: 0 });
    expect(await automobile(store)).toEqual(['my blue sedan']);
  });

  it('does nothing without an embedder or while the vectors are from another model', async () => {
    const { store } = openTempStore();
    await store.useEmbedder(new ConceptEmbedder({ model: 'concept-v1' }));
    await store.useEmbedder(null);
    const unbound = store.vectorMark();
    store.remember({ kind: 'fact', key: 'ride', value: 'my blue sedan', source: 'owner_stated' });
    expect((await store.embedSince(unbound)).embedded).toBe(0);
    expect(store.pendingVectors()).toBe(1);
    // Control: bound, it embeds.
    await store.useEmbedder(new ConceptEmbedder({ model: 'concept-v1' }));
    expect((await store.embedSince(unbound)).embedded).toBe(1);
    // Paused: vectors of another model of the same dimension are stored.
    await store.useEmbedder(new ConceptEmbedder({ model: 'concept-v2' }));
    expect(store.vectorStatus()!.state).toBe('paused');
    const paused = store.vectorMark();
    store.remember({ kind: 'fact', key: 'car3', value: 'a third sedan', source: 'owner_stated' });
    expect((await store.embedSince(paused)).embedded).toBe(0);
    expect(store.pendingVectors()).toBe(1);
  });
});
