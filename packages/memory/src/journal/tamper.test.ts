// Tamperings a writer who controls the file (and here even the anchor) can make with every trigger
// put back in place: a forged decision entry, an episode's time moved by a day, the recall index
// rewritten with a fact, evidence deleted. Each is built on a real database file through a
// connection of its own; verify names each, recall leaves the belief out, and an untampered
// control stays ok and recalled.

import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { registerFunctions } from '../db.js';
import { appendJournal } from '../internal.js';
import {
  count,
  DAY,
  openTempStore,
  recalledFactIds,
  type TempStore,
  turn,
} from '../test-helpers.js';
import { anchorPathFor, lastEntry, writeAnchor } from './anchor.js';
import { rowDigest } from './rows.js';

/** Runs `fn` on a connection of its own with `drop` triggers dropped, then puts them back. */
function tamper(t: TempStore, drop: readonly string[], fn: (db: Database.Database) => void): void {
  const db = new Database(t.path);
  registerFunctions(db);
  try {
    const sql = drop.map(
      (name) =>
        (
          db
            .prepare(`SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = ?`)
            .get(name) as { sql: string }
        ).sql,
    );
    for (const name of drop) db.exec(`DROP TRIGGER ${name}`);
    fn(db);
    for (const s of sql) db.exec(s);
    // The writer moves the anchor too: only what the file itself says can tell.
    writeAnchor(anchorPathFor(t.path), { ...lastEntry(db), at: 0 });
  } finally {
    db.close();
  }
}

const problems = (t: TempStore) => t.store.verify().problems.map((p) => `${p.check}: ${p.detail}`);

/** Two beliefs the owner stated in turns: the one tampered with and a control. */
function scene() {
  const t = openTempStore();
  const e1 = turn(t.store, 'I play the cello');
  const cello = t.store.remember({
    kind: 'preference',
    key: 'instrument',
    value: 'the cello',
    source: 'observed',
    episodeId: e1,
  }).fact!;
  const e2 = turn(t.store, 'my favourite cellist is Jacqueline du Pré');
  const cellist = t.store.remember({
    kind: 'preference',
    key: 'cellist',
    value: 'Jacqueline du Pré cello',
    source: 'observed',
    episodeId: e2,
  }).fact!;
  return { t, e1, cello, cellist };
}

describe('tampering with every trigger in place and the anchor moved', () => {
  it('the untampered control verifies ok and recalls both beliefs', async () => {
    const { t, cello, cellist } = scene();
    expect(problems(t)).toEqual([]);
    expect(t.store.unexplainedBeliefs()).toEqual([]);
    expect((await recalledFactIds(t.store, 'cello')).sort()).toEqual([cello.id, cellist.id].sort());
    const standing = t.store.strongestFacts('owner', ['preference'], 10).map((f) => f.id);
    expect(standing.sort()).toEqual([cello.id, cellist.id].sort());
  });

  it('a forged decision entry that disagrees with the state beside it is named', () => {
    const { t, cello } = scene();
    tamper(t, [], (db) => {
      appendJournal(db, {
        at: 1,
        actor: 'owner',
        op: 'confirm',
        entity: 'fact',
        entityId: cello.id,
        payload: { after: { id: cello.id, source: 'owner_confirmed', confidence: 1 } },
      });
    });
    const seq = count(t.store, 'SELECT max(seq) AS n FROM journal');
    const state = count(t.store, 'SELECT seq AS n FROM journal_facts WHERE fact_id = ?', cello.id);
    expect(problems(t)).toEqual([
      `replay: entry ${seq} (confirm) says fact ${cello.id}'s source is "owner_confirmed"; the state record (entry ${state}) says "observed"`,
      `replay: entry ${seq} (confirm) says fact ${cello.id}'s confidence is 1; the state record (entry ${state}) says ${cello.confidence}`,
    ]);
  });

  it("an episode's time moved by a day is named", () => {
    const { t, e1 } = scene();
    const was = count(t.store, 'SELECT occurred_at AS n FROM episodes WHERE id = ?', e1);
    tamper(t, ['episodes_redact_only'], (db) => {
      db.prepare('UPDATE episodes SET occurred_at = occurred_at - ? WHERE id = ?').run(DAY, e1);
    });
    const seq = count(
      t.store,
      `SELECT seq AS n FROM journal WHERE op = 'episode' AND entity_id = ?`,
      e1,
    );
    expect(problems(t)).toEqual([
      `replay: episode ${e1}: occurred_at is ${was - DAY}, the journal recorded ${was} (entry ${seq})`,
    ]);
  });

  it('a fact rewritten with its recall index: verify names it and recall leaves it out', async () => {
    const { t, cello, cellist } = scene();
    tamper(t, ['journal_facts_forward'], (db) => {
      db.prepare(`UPDATE facts SET value = 'the cello and the viola da gamba' WHERE id = ?`).run(
        cello.id,
      );
      const row = db.prepare('SELECT * FROM facts WHERE id = ?').get(cello.id) as object;
      db.prepare('UPDATE journal_facts SET sha256 = ? WHERE fact_id = ?').run(
        rowDigest('facts', row),
        cello.id,
      );
    });
    expect(
      problems(t).some((p) => p.includes(`fact ${cello.id} (preference/instrument): value`)),
    ).toBe(true);
    expect(t.store.unexplainedBeliefs()).toEqual([cello.id]);
    expect(await recalledFactIds(t.store, 'cello')).toEqual([cellist.id]);
    // The prompt's standing beliefs leave it out too; the control stays.
    const standing = t.store.strongestFacts('owner', ['preference'], 10).map((f) => f.id);
    expect(standing).toEqual([cellist.id]);
  });

  it('evidence deleted: verify names it and recall leaves the belief out', async () => {
    const { t, cello, cellist } = scene();
    tamper(t, ['fact_evidence_no_delete'], (db) => {
      db.prepare('DELETE FROM fact_evidence WHERE fact_id = ?').run(cello.id);
    });
    const found = problems(t);
    expect(found).toContain(`evidence_count: fact ${cello.id} claims 1 pieces of evidence, has 0`);
    expect(found.some((p) => /^replay: evidence row \d+ is missing/.test(p))).toBe(true);
    expect(t.store.unexplainedBeliefs()).toEqual([cello.id]);
    expect(await recalledFactIds(t.store, 'cello')).toEqual([cellist.id]);
    const standing = t.store.strongestFacts('owner', ['preference'], 10).map((f) => f.id);
    expect(standing).toEqual([cellist.id]);
  });

  it('a tombstone deleted is named', () => {
    const { t, cello } = scene();
    t.store.forget(cello.id);
    expect(problems(t)).toEqual([]);
    tamper(t, [], (db) => {
      db.prepare('DELETE FROM tombstones').run();
    });
    expect(problems(t).some((p) => /^replay: tombstone \d+ is missing/.test(p))).toBe(true);
  });
});

describe('the standing beliefs fill their limit with explained ones', () => {
  it('strongestFacts returns N explained beliefs when tampered ones rank above them', () => {
    const t = openTempStore();
    const strong = ['tea', 'coffee', 'jazz'].map(
      (key) =>
        t.store.remember({ kind: 'preference', key, value: `likes ${key}`, source: 'owner_stated' })
          .fact!,
    );
    const weaker = ['cello', 'chess', 'hiking', 'rain'].map(
      (key) =>
        t.store.remember({ kind: 'preference', key, value: `likes ${key}`, source: 'inferred' })
          .fact!,
    );
    // Control: untampered, the strongest three are the owner's.
    expect(
      t.store
        .strongestFacts('owner', ['preference'], 3)
        .map((f) => f.id)
        .sort(),
    ).toEqual(strong.map((f) => f.id).sort());
    tamper(t, [], (db) => {
      db.prepare(`UPDATE facts SET value = 'likes nothing' WHERE id IN (?, ?, ?)`).run(
        ...strong.map((f) => f.id),
      );
    });
    const standing = t.store.strongestFacts('owner', ['preference'], 3).map((f) => f.id);
    expect(standing).toHaveLength(3);
    for (const id of standing) expect(weaker.map((f) => f.id)).toContain(id);
    // Fewer than N explained in the store: all of them, no more.
    expect(
      t.store
        .strongestFacts('owner', ['preference'], 10)
        .map((f) => f.id)
        .sort(),
    ).toEqual(weaker.map((f) => f.id).sort());
  });
});
