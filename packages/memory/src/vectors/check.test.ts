// `keel verify` over the vector tables (check.ts), and `keel reindex` mending what it reports.
// Real SQLite files.

import { describe, expect, it } from 'vitest';
import { ConceptEmbedder } from '../embed/testkit.js';
import { retireBelief } from '../facts/owner.js';
import { contextOf, dbOf } from '../internal.js';
import { count, openTempStore, turn } from '../test-helpers.js';

/**
 * Retracts a fact the way forget does, without the store's vector upkeep that follows it (as
 * another process with no embedder bound leaves it): journaled, its vector left in place.
 */
function retractOnly(store: ReturnType<typeof openTempStore>['store'], id: number): void {
  const ctx = contextOf(store);
  ctx.db
    .transaction(() =>
      retireBelief(ctx, id, {
        status: 'retracted',
        reason: 'forgotten',
        actor: 'owner',
        why: 'forgotten by the owner',
      }),
    )
    .immediate();
}

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
    retractOnly(store, store.current({ scope: 'owner', kind: 'note', key: 'n1' })!.id);
    expect(count(store, 'SELECT count(*) AS n FROM vector_queue')).toBe(2);
    expect(store.verify()).toMatchObject({ ok: true, problems: [] });

    const { store: plain } = openTempStore();
    turn(plain, 'no vectors here');
    expect(plain.verify()).toMatchObject({ ok: true, problems: [] });
  });

  it('reports vectors of rows no longer active and rows missing a vector, beyond the queue; keel reindex mends both', async () => {
    const { store, facts, turns } = await embeddedStore();
    // A status change whose queue entry is lost: its vector stays and nothing will remove it.
    retractOnly(store, facts[0]!.id);
    // A turn whose vector is lost (both copies) and that is not queued.
    dbOf(store).prepare('DELETE FROM vec_episodes_codes WHERE id = ?').run(turns[1]);
    dbOf(store).prepare('DELETE FROM vec_episodes WHERE rowid = ?').run(BigInt(turns[1]!));
    dbOf(store).prepare('DELETE FROM vector_queue').run();

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
    dbOf(store).prepare('DELETE FROM vec_episodes_codes WHERE id = ?').run(turns[2]);
    dbOf(store).prepare('DELETE FROM vector_queue').run();
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
        dbOf(store).prepare(`SELECT value FROM meta WHERE key = 'vector_fingerprint'`).get() as {
          value: string;
        }
      ).value,
    );
    dbOf(store)
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
