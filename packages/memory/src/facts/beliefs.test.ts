// Every belief keel holds now (`MemoryStore.beliefs`, for `keel beliefs`): current values and
// pending conflicts, never a superseded, forgotten or rejected row; the filters each narrow; a
// belief the journal does not explain is left out and named. Real SQLite file.
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { registerFunctions } from '../db.js';
import { openTempStore, turn } from '../test-helpers.js';

/** Two kinds, three sources, a superseded value, a forgotten one, a rejected one, a conflict. */
function scene() {
  const t = openTempStore();
  const { store } = t;
  const said = (text: string) => turn(store, text);
  const paris = store.remember({
    kind: 'profile',
    key: 'home',
    value: 'Paris',
    source: 'owner_stated',
    episodeId: said('I live in Paris'),
  }).fact!;
  const lyon = store.remember({
    kind: 'profile',
    key: 'home',
    value: 'Lyon',
    source: 'owner_stated',
    episodeId: said('I live in Lyon now'),
  }).fact!;
  const coffee = store.remember({
    kind: 'preference',
    key: 'coffee',
    value: 'oat flat white',
    source: 'owner_stated',
    episodeId: said('I drink oat flat whites'),
  }).fact!;
  const black = store.remember({
    kind: 'preference',
    key: 'coffee',
    value: 'black coffee',
    source: 'inferred',
    actor: 'model',
    episodeId: said('I had a black coffee today'),
  }).fact!;
  const tea = store.remember({
    kind: 'preference',
    key: 'tea',
    value: 'green tea',
    source: 'observed',
    episodeId: said('I had green tea'),
  }).fact!;
  const imported = store.remember({
    kind: 'profile',
    key: 'employer',
    value: 'Acme',
    source: 'imported',
    episodeId: said('I work at Acme'),
  }).fact!;
  const gym = store.remember({
    kind: 'preference',
    key: 'gym',
    value: 'McFit',
    source: 'owner_stated',
    episodeId: said('I go to McFit'),
  }).fact!;
  store.forget(gym.id, { purge: false });
  const band = store.remember({
    kind: 'preference',
    key: 'band',
    value: 'Paper Owls',
    source: 'observed',
    episodeId: said('Paper Owls played'),
  }).fact!;
  store.reject(band.id);
  return { t, paris, lyon, coffee, black, tea, imported, gym, band };
}

const ids = (facts: readonly { id: number }[]) => facts.map((f) => f.id);

describe('MemoryStore.beliefs', () => {
  it('lists each current value and each pending conflict, never a superseded, forgotten or rejected row', () => {
    const s = scene();
    const all = s.t.store.beliefs();
    expect(all.unexplained).toEqual([]);
    // By kind, then key; the conflict right after the belief it contradicts.
    expect(ids(all.beliefs)).toEqual([s.coffee.id, s.black.id, s.tea.id, s.imported.id, s.lyon.id]);
    expect(all.beliefs.find((f) => f.id === s.black.id)).toMatchObject({
      status: 'pending',
      conflicts_with_id: s.coffee.id,
    });
    // The superseded slot's current value is listed; the old one, the forgotten and the rejected
    // are not.
    expect(ids(all.beliefs)).toContain(s.lyon.id);
    for (const gone of [s.paris, s.gym, s.band]) expect(ids(all.beliefs)).not.toContain(gone.id);
    expect(s.t.store.fact(s.paris.id)?.status).toBe('superseded');
    expect(s.t.store.fact(s.gym.id)?.status).toBe('retracted');
  });

  it('narrows by kind, source and confidence, and sorts strongest first on asking', () => {
    const s = scene();
    const { store } = s.t;
    expect(ids(store.beliefs({ kind: 'profile' }).beliefs)).toEqual([s.imported.id, s.lyon.id]);
    expect(ids(store.beliefs({ source: 'owner_stated' }).beliefs)).toEqual([
      s.coffee.id,
      s.lyon.id,
    ]);
    expect(ids(store.beliefs({ source: 'imported' }).beliefs)).toEqual([s.imported.id]);
    expect(ids(store.beliefs({ kind: 'preference', source: 'observed' }).beliefs)).toEqual([
      s.tea.id,
    ]);
    const weak = store.beliefs({ maxConfidence: 0.9 }).beliefs;
    expect(weak.length).toBeGreaterThan(0);
    expect(weak.every((f) => f.confidence <= 0.9)).toBe(true);
    expect(ids(weak)).not.toContain(s.lyon.id);
    const strong = store.beliefs({ minConfidence: 1 }).beliefs;
    expect(ids(strong)).toEqual([s.coffee.id, s.lyon.id]);
    expect(store.beliefs({ scope: 'agent' }).beliefs).toEqual([]);
    // Strongest first: confidence, then evidence.
    const ranked = store.beliefs({ order: 'confidence' }).beliefs;
    expect(ranked.map((f) => f.confidence)).toEqual(
      [...ranked.map((f) => f.confidence)].sort((a, b) => b - a),
    );
    expect(ranked).toHaveLength(store.beliefs().beliefs.length);
  });

  it('leaves out a belief the journal does not explain and names it; the control stays', () => {
    const s = scene();
    const db = new Database(s.t.path);
    registerFunctions(db);
    try {
      const triggers = db
        .prepare(
          `SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'facts'`,
        )
        .all() as { name: string; sql: string }[];
      for (const x of triggers) db.exec(`DROP TRIGGER ${x.name}`);
      db.prepare(`UPDATE facts SET value = 'Oxford' WHERE id = ?`).run(s.lyon.id);
      for (const x of triggers) db.exec(x.sql);
    } finally {
      db.close();
    }
    const listed = s.t.store.beliefs();
    expect(listed.unexplained).toEqual([s.lyon.id]);
    expect(ids(listed.beliefs)).not.toContain(s.lyon.id);
    expect(ids(listed.beliefs)).toContain(s.coffee.id);
    // Consistent with the store's own account of unexplained beliefs.
    expect(s.t.store.unexplainedBeliefs()).toEqual([s.lyon.id]);
  });
});
