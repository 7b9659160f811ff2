// Taking memory out and bringing it back: an export holds every belief in any status with its
// evidence and changes, the tombstones as hashes, no purged value and no credential (controls
// appear); importing it into an empty store gives the same beliefs, chains, conflicts and
// tombstones, journaled by `import`, so verify passes and recall trusts them; a second import and
// an import into a store with beliefs are refused (STORE_NOT_EMPTY) with nothing written.

import { describe, expect, it } from 'vitest';
import type { MemoryStore } from '../store.js';
import { count, expectKeelError, factResults, openTempStore, slot, turn } from '../test-helpers.js';
import type { KeelExport } from './format.js';

/** A memory with each kind of belief a move must keep. */
function seed(store: MemoryStore, advance: () => void) {
  const said = (text: string) => turn(store, text);
  const put = (
    kind: 'preference' | 'profile' | 'fact',
    key: string,
    value: string,
    source = 'owner_stated' as const,
    text = `${key} is ${value}`,
  ) => store.remember({ kind, key, value, source, episodeId: said(text) });
  put('profile', 'home', 'Lisbon');
  advance();
  put('profile', 'home', 'Porto'); // a correction: Lisbon superseded
  put('preference', 'coffee', 'oat flat white');
  advance();
  put('preference', 'coffee', 'oat flat white', 'owner_stated', 'still oat flat white'); // evidence 2
  store.remember({
    kind: 'preference',
    key: 'tea',
    value: 'green tea',
    source: 'inferred',
    episodeId: said('I had green tea'),
  });
  store.remember({
    kind: 'profile',
    key: 'home',
    value: 'Braga',
    source: 'inferred',
    episodeId: said('a weekend in Braga'),
  }); // a pending conflict with Porto
  const gym = put('preference', 'gym', 'McFit').fact!;
  store.forget(gym.id, { purge: false });
  const ex = put('fact', 'ex_partner', 'Quentin').fact!;
  store.forget(ex.id, { purge: true });
  store.remember({
    kind: 'fact',
    key: 'wifi_password',
    value: 'sunshine42',
    source: 'owner_stated',
    episodeId: said('my wifi password is sunshine42'),
  });
  put('fact', 'bike', 'Brompton'); // the control
}

describe('exportMemory', () => {
  it('holds every belief, its evidence and changes, tombstones as hashes; no purged value, no secret', () => {
    const { store, clock } = openTempStore();
    seed(store, () => clock.advance());
    const x = store.exportMemory();
    expect(x).toMatchObject({ format: 'keel-export', version: 1 });
    const text = JSON.stringify(x);
    expect(text).not.toContain('Quentin');
    expect(text).not.toContain('sunshine42');
    expect(text).toContain('Brompton'); // control
    expect(text).toContain('McFit'); // forgotten, not purged: kept in history
    const statuses = x.beliefs.map((b) => `${b.key}:${b.status}`);
    expect(statuses).toEqual(
      expect.arrayContaining([
        'home:superseded',
        'home:active',
        'home:pending',
        'gym:retracted',
        'ex_partner:retracted',
      ]),
    );
    const purged = x.beliefs.find((b) => b.key === 'ex_partner')!;
    expect(purged).toMatchObject({ purged: true, value: null });
    const coffee = x.beliefs.find((b) => b.key === 'coffee')!;
    expect(coffee.evidence_count).toBe(2);
    expect(coffee.evidence.map((e) => e.episode.channel)).toEqual(['terminal', 'terminal']);
    expect(coffee.changes.map((c) => [c.op, c.actor])).toEqual([
      ['create', 'owner'],
      ['corroborate', 'owner'],
    ]);
    // The gym's forget; the purge's forget and its purge.
    expect(x.tombstones.map((t) => t.reason).sort()).toEqual(['forgotten', 'forgotten', 'purged']);
    expect(Object.keys(x.tombstones[0]!)).not.toContain('value');
    expect(x.episodes).toBeUndefined();
    expect(store.exportMemory({ includeEpisodes: true }).episodes!.length).toBeGreaterThan(5);
  });
});

describe('importKeelExport', () => {
  it('an empty store ends with the same beliefs, chains and tombstones; verify passes; recall trusts them', async () => {
    const from = openTempStore();
    seed(from.store, () => from.clock.advance());
    const x = JSON.parse(JSON.stringify(from.store.exportMemory())) as KeelExport;
    const to = openTempStore();
    const r = to.store.importKeelExport(x);
    expect(r).toMatchObject({ beliefs: x.beliefs.length, tombstones: x.tombstones.length });

    const shape = (s: MemoryStore) =>
      s
        .beliefs()
        .beliefs.map((f) => [
          f.kind,
          f.key,
          f.value,
          f.status,
          f.source,
          f.confidence,
          f.evidence_count,
        ]);
    expect(shape(to.store)).toEqual(shape(from.store));
    expect(shape(to.store).length).toBeGreaterThan(3);
    // The correction chain and the conflict link hold, by the new ids.
    const chain = to.store.history(slot('profile', 'home'));
    const porto = chain.find((f) => f.value === 'Porto')!;
    const lisbon = chain.find((f) => f.value === 'Lisbon')!;
    const braga = chain.find((f) => f.value === 'Braga')!;
    expect(porto.supersedes_id).toBe(lisbon.id);
    expect(lisbon.superseded_by_id).toBe(porto.id);
    expect(braga).toMatchObject({ status: 'pending', conflicts_with_id: porto.id });
    // Journaled by import; verify replays it.
    const changes = to.store.why(porto.id)!.changes.filter((c) => c.factId === porto.id);
    expect(changes.map((c) => [c.op, c.actor])).toEqual([['import', 'import']]);
    const report = to.store.verify();
    expect(report.problems, JSON.stringify(report.problems)).toEqual([]);
    expect(report.ok).toBe(true);
    // Recall finds an imported belief and leaves nothing out.
    const found = await to.store.recall('coffee', { limit: 5 });
    expect(factResults(found).map((f) => f.value)).toContain('oat flat white');
    expect(found.unexplained).toBeUndefined();
    // The forgotten value stays forgotten; a new one is stored (control).
    const again = to.store.remember({
      kind: 'preference',
      key: 'gym',
      value: 'McFit',
      source: 'inferred',
      episodeId: turn(to.store, 'McFit again'),
    });
    expect(again.decision).toBe('ignore');
    const fresh = to.store.remember({
      kind: 'preference',
      key: 'gym',
      value: 'Urban Sports',
      source: 'inferred',
      episodeId: turn(to.store, 'Urban Sports now'),
    });
    expect(fresh.decision).toBe('create');
  });

  it('refuses a store with beliefs, and a second import, writing nothing', () => {
    const from = openTempStore();
    seed(from.store, () => from.clock.advance());
    const x = from.store.exportMemory();
    const to = openTempStore();
    to.store.importKeelExport(x);
    const before = count(to.store, 'SELECT count(*) AS n FROM episodes');
    const err = expectKeelError(() => to.store.importKeelExport(x), 'STORE_NOT_EMPTY');
    expect(err.message).toMatch(/already holds \d+ belief/);
    expect(count(to.store, 'SELECT count(*) AS n FROM episodes')).toBe(before);
    expectKeelError(
      () => to.store.importKeelExport({ format: 'keel-export', version: 1 }),
      'IMPORT_FORMAT',
    );
  });
});
