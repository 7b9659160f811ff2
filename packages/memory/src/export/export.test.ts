// Taking memory out and bringing it back: an export holds every belief in any status with its
// evidence and changes, the tombstones as hashes, no purged value and no credential (controls
// appear); importing it into an empty store gives the same beliefs, chains, conflicts and
// tombstones, journaled by `import`, so verify passes and recall trusts them; a second import and
// an import into a store with beliefs are refused (STORE_NOT_EMPTY) with nothing written.

import { valueHash } from '@keel/language';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { registerFunctions } from '../db.js';
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

/** A fresh export of the seeded memory, as parsed JSON a hand may edit. */
function seededExport(): KeelExport {
  const from = openTempStore();
  seed(from.store, () => from.clock.advance());
  return JSON.parse(JSON.stringify(from.store.exportMemory())) as KeelExport;
}

const beliefOf = (x: KeelExport, key: string, status = 'active') =>
  x.beliefs.find((b) => b.key === key && b.status === status)!;

describe('importKeelExport holds the file to keel’s own rules', () => {
  const edits: [string, (x: KeelExport) => void, RegExp][] = [
    [
      'a value_hash that is not the hash of the value',
      (x) => {
        beliefOf(x, 'bike').value = 'Brompton P Line';
      },
      /belief \d+ \(fact\/bike\): its value_hash is not the hash of its value/,
    ],
    [
      'an inferred confidence past the evidence gate',
      (x) => {
        beliefOf(x, 'tea').confidence = 0.9;
      },
      /\(preference\/tea\): confidence 0\.9 is above what 1 piece\(s\) of evidence allow a inferred belief \(0\.7\)/,
    ],
    [
      'purged without its value null',
      (x) => {
        const ex = x.beliefs.find((b) => b.key === 'ex_partner')!;
        ex.value = 'Quentin';
        ex.value_hash = valueHash('Quentin');
      },
      /\(fact\/ex_partner\): a value is null exactly when purged/,
    ],
    [
      'a value null though not purged',
      (x) => {
        beliefOf(x, 'bike').purged = true;
      },
      /\(fact\/bike\): a value is null exactly when purged/,
    ],
    [
      'two current values in one slot',
      (x) => {
        beliefOf(x, 'home', 'superseded').status = 'active';
      },
      /\(profile\/home\) and belief \d+ are both current in one slot/,
    ],
    [
      'the same episode twice in one belief’s evidence',
      (x) => {
        const coffee = beliefOf(x, 'coffee');
        coffee.evidence[1]!.episode = coffee.evidence[0]!.episode;
      },
      /\(preference\/coffee\): cites the same episode twice as evidence/,
    ],
    [
      'a credential the slot names (not the value alone)',
      (x) => {
        const bike = beliefOf(x, 'bike');
        bike.key = 'bank_password';
        bike.value = 'Tr0ub4dor&3';
        bike.value_hash = valueHash('Tr0ub4dor&3');
      },
      /\(fact\/bank_password\) holds what looks like a credential/,
    ],
  ];
  for (const [what, edit, message] of edits) {
    it(`refuses ${what}, naming the belief, writing nothing`, () => {
      const x = seededExport();
      edit(x);
      const to = openTempStore();
      const err = expectKeelError(() => to.store.importKeelExport(x), 'IMPORT_FORMAT');
      expect(err.message).toMatch(message);
      expect(count(to.store, 'SELECT count(*) AS n FROM facts')).toBe(0);
      expect(count(to.store, 'SELECT count(*) AS n FROM episodes')).toBe(0);
    });
  }

  it('the unedited file passes the same rules (control)', () => {
    const x = seededExport();
    const to = openTempStore();
    expect(to.store.importKeelExport(x)).toMatchObject({
      beliefs: x.beliefs.length,
      leftOut: 0,
    });
    expect(to.store.verify().ok).toBe(true);
  });
});

describe('a row the journal does not explain', () => {
  it('is marked unexplained in the export and left out by the import; the control is imported', () => {
    const from = openTempStore();
    seed(from.store, () => from.clock.advance());
    const db = new Database(from.path);
    registerFunctions(db);
    try {
      const triggers = db
        .prepare(
          `SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'facts'`,
        )
        .all() as { name: string; sql: string }[];
      for (const t of triggers) db.exec(`DROP TRIGGER ${t.name}`);
      db.prepare(
        `UPDATE facts SET value = 'Penny-farthing', value_hash = ? WHERE key = 'bike'`,
      ).run(valueHash('Penny-farthing'));
      for (const t of triggers) db.exec(t.sql);
    } finally {
      db.close();
    }
    const x = JSON.parse(JSON.stringify(from.store.exportMemory())) as KeelExport;
    const bike = beliefOf(x, 'bike');
    expect(bike).toMatchObject({ value: 'Penny-farthing', unexplained: true });
    const coffee = beliefOf(x, 'coffee');
    expect(coffee.unexplained).toBeUndefined(); // control: sound rows carry no mark

    const to = openTempStore();
    const r = to.store.importKeelExport(x);
    expect(r).toMatchObject({ beliefs: x.beliefs.length - 1, leftOut: 1 });
    const values = to.store.beliefs().beliefs.map((f) => f.value);
    expect(values).not.toContain('Penny-farthing');
    expect(values).toContain('oat flat white'); // control
    expect(to.store.verify().ok).toBe(true);
  });
});
