// The journal's anchor outside its file: a cut tail with the in-file head moved back, an entry
// appended outside keel with every trigger in place, a dropped trigger, a deleted anchor. Each is
// built on a real database file through a connection of its own (as another program would), and
// each is caught by verify and refuses keel's next write; an untampered store stays ok.

import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { backupDatabase } from '../backup.js';
import { registerFunctions } from '../db.js';
import { appendJournal, dbOf } from '../internal.js';
import { MemoryStore } from '../store.js';
import { count, expectKeelError, openTempStore, type TempStore, tempDir } from '../test-helpers.js';
import { anchorPathFor, anchorRestored, formatHead, parseHead, readAnchor } from './anchor.js';

/** The owner says two things; keel writes and anchors each. */
function twoStatements(t: TempStore) {
  t.store.remember({ kind: 'profile', key: 'city', value: 'Lisbon', source: 'owner_stated' });
  const cut = count(t.store, 'SELECT max(seq) AS n FROM journal');
  const lastFact = count(t.store, 'SELECT max(id) AS n FROM facts');
  const lastEpisode = count(t.store, 'SELECT coalesce(max(id), 0) AS n FROM episodes');
  t.store.remember({
    kind: 'profile',
    key: 'pet',
    value: 'a cat named Miso',
    source: 'owner_stated',
  });
  return { cut, lastFact, lastEpisode };
}

/**
 * Runs `fn` on a connection of its own with the named triggers dropped, then puts them back as
 * they were (so the trigger check alone cannot tell).
 */
function tamper(path: string, drop: readonly string[], fn: (db: Database.Database) => void): void {
  const db = new Database(path);
  registerFunctions(db);
  try {
    const sql = drop.map(
      (name) =>
        (
          db
            .prepare(`SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = ?`)
            .get(name) as {
            sql: string;
          }
        ).sql,
    );
    for (const name of drop) db.exec(`DROP TRIGGER ${name}`);
    fn(db);
    for (const s of sql) db.exec(s);
  } finally {
    db.close();
  }
}

/** Cuts the journal after entry `cut` (the owner's last statement with it) and moves the head back. */
function cutTail(t: TempStore, at: ReturnType<typeof twoStatements>): void {
  const { cut, lastFact, lastEpisode } = at;
  tamper(
    t.path,
    [
      'journal_no_delete',
      'journal_head_append_only',
      'journal_facts_no_delete',
      'fact_evidence_no_delete',
      'episodes_no_delete',
    ],
    (db) => {
      db.prepare('DELETE FROM facts_fts WHERE rowid > ?').run(lastFact);
      db.prepare('DELETE FROM episodes_fts WHERE rowid > ?').run(lastEpisode);
      db.prepare('DELETE FROM fact_evidence WHERE fact_id > ?').run(lastFact);
      db.prepare('DELETE FROM journal_facts WHERE fact_id > ?').run(lastFact);
      db.prepare('DELETE FROM facts WHERE id > ?').run(lastFact);
      db.prepare('DELETE FROM episodes WHERE id > ?').run(lastEpisode);
      db.prepare('DELETE FROM journal WHERE seq > ?').run(cut);
      const head = db.prepare('SELECT seq, hash FROM journal WHERE seq = ?').get(cut) as {
        seq: number;
        hash: string;
      };
      db.prepare('UPDATE journal_head SET seq = ?, hash = ? WHERE id = 1').run(head.seq, head.hash);
    },
  );
}

const checks = (t: TempStore) => t.store.verify().problems.map((p) => `${p.check}: ${p.detail}`);

describe('the journal anchor', () => {
  it('records the head after every write, beside the file; an untampered store verifies ok', () => {
    const t = openTempStore();
    twoStatements(t);
    const last = dbOf(t.store)
      .prepare('SELECT seq, hash FROM journal ORDER BY seq DESC LIMIT 1')
      .get() as {
      seq: number;
      hash: string;
    };
    expect(readAnchor(anchorPathFor(t.path))).toMatchObject(last);
    expect(anchorPathFor(t.path)).toBe(join(t.dir, 'keel.db.anchor'));
    const r = t.store.verify();
    expect(r.problems).toEqual([]);
    expect(r.ok).toBe(true);
    expect(r.end).toEqual(last);
  });

  it('a process killed between recording the head and committing leaves a write that never happened, not a break', () => {
    const t = openTempStore();
    twoStatements(t);
    const file = anchorPathFor(t.path);
    const confirmed = readAnchor(file);
    if (!confirmed || confirmed === 'unreadable') throw new Error('no anchor');
    expect(confirmed.prev).toBeUndefined(); // confirmed once the write committed
    // What a kill leaves: the next write's head recorded (with where it began), never committed.
    const pending = {
      seq: confirmed.seq + 3,
      hash: 'f'.repeat(64),
      at: confirmed.at + 1,
      prev: { seq: confirmed.seq, hash: confirmed.hash },
    };
    writeFileSync(file, JSON.stringify(pending));
    expect(t.store.verify().problems).toEqual([]);
    const r = t.store.remember({
      kind: 'profile',
      key: 'job',
      value: 'baker',
      source: 'owner_stated',
    });
    expect(r.fact?.value).toBe('baker');
    const after = readAnchor(file);
    expect(after).toMatchObject({ seq: count(t.store, 'SELECT max(seq) AS n FROM journal') });
    expect((after as { prev?: unknown }).prev).toBeUndefined();
    expect(t.store.verify().ok).toBe(true);
    // Control: a pending head whose start is not where the journal ends is a break.
    writeFileSync(file, JSON.stringify({ ...pending, prev: { seq: 1, hash: 'e'.repeat(64) } }));
    expect(t.store.verify().problems.map((p) => p.check)).toEqual(['anchor']);
    expectKeelError(
      () =>
        t.store.remember({ kind: 'profile', key: 'pet', value: 'a dog', source: 'owner_stated' }),
      'JOURNAL_BROKEN',
    );
  });

  it('a cut tail with the in-file head moved back: verify names it and keel writes nothing', () => {
    const t = openTempStore();
    const at = twoStatements(t);
    const { cut } = at;
    const anchored = readAnchor(anchorPathFor(t.path));
    cutTail(t, at);
    // Everything in the file agrees with itself: only the anchor tells.
    const r = t.store.verify();
    expect(r.problems.map((p) => `${p.check}: ${p.detail}`)).toEqual([
      `anchor: the journal ends at entry ${cut}; the anchor records entry ${cut + 3}: entries ${cut + 1}-${cut + 3} were removed`,
    ]);
    expect(r.problems[0]!.fix).toContain('keel restore');
    const entries = count(t.store, 'SELECT count(*) AS n FROM journal');
    const err = expectKeelError(
      () =>
        t.store.remember({ kind: 'profile', key: 'job', value: 'baker', source: 'owner_stated' }),
      'JOURNAL_BROKEN',
    );
    expect(err.message).toContain('ends at entry');
    expect(count(t.store, 'SELECT count(*) AS n FROM journal')).toBe(entries);
    expect(count(t.store, `SELECT count(*) AS n FROM facts WHERE key = 'job'`)).toBe(0);
    expect(readAnchor(anchorPathFor(t.path))).toEqual(anchored); // not moved by the refusal
  });

  it('an entry appended outside keel with every trigger in place: verify names it', () => {
    const t = openTempStore();
    twoStatements(t);
    const other = new Database(t.path);
    registerFunctions(other);
    appendJournal(other, {
      at: 1,
      actor: 'owner',
      op: 'note',
      entity: 'store',
      entityId: null,
      payload: { forged: true },
    });
    other.close();
    expect(checks(t)).toEqual([
      "anchor: the journal goes on past entry 6, where the anchor records keel's last write: entries 7-7 were written outside keel",
    ]);
    expectKeelError(
      () =>
        t.store.remember({ kind: 'profile', key: 'job', value: 'baker', source: 'owner_stated' }),
      'JOURNAL_BROKEN',
    );
  });

  it('a head moved back in the file refuses the next write as JOURNAL_BROKEN, not a bare SQLite error', () => {
    const t = openTempStore();
    const { cut } = twoStatements(t);
    const entries = count(t.store, 'SELECT count(*) AS n FROM journal');
    // Control: the intact store takes the write.
    t.store.remember({ kind: 'profile', key: 'job', value: 'baker', source: 'owner_stated' });
    tamper(t.path, ['journal_head_append_only'], (db) => {
      const head = db.prepare('SELECT seq, hash FROM journal WHERE seq = ?').get(cut) as {
        seq: number;
        hash: string;
      };
      db.prepare('UPDATE journal_head SET seq = ?, hash = ? WHERE id = 1').run(head.seq, head.hash);
    });
    const now = count(t.store, 'SELECT count(*) AS n FROM journal');
    expect(now).toBeGreaterThan(entries);
    const err = expectKeelError(
      () =>
        t.store.remember({
          kind: 'profile',
          key: 'car',
          value: 'a red Fiat',
          source: 'owner_stated',
        }),
      'JOURNAL_BROKEN',
    );
    expect(err.message).toContain(`the head in the file records entry ${cut}`);
    expect(err.fix).toContain('keel restore');
    expect(count(t.store, 'SELECT count(*) AS n FROM journal')).toBe(now);
    expect(t.store.verify().ok).toBe(false);
  });

  it('a dropped trigger is named; the intact schema has no trigger problem', () => {
    const t = openTempStore();
    twoStatements(t);
    expect(checks(t)).toEqual([]);
    const db = new Database(t.path);
    db.exec('DROP TRIGGER journal_no_delete');
    db.exec('DROP TRIGGER fact_evidence_no_delete');
    db.close();
    const r = t.store.verify();
    expect(r.problems.filter((p) => p.check === 'triggers').map((p) => p.detail)).toEqual([
      'trigger fact_evidence_no_delete is missing',
      'trigger journal_no_delete is missing',
    ]);
    expect(r.ok).toBe(false);
  });

  it('a deleted anchor is a break once the store was anchored, not before', () => {
    const fresh = openTempStore();
    expect(existsSync(anchorPathFor(fresh.path))).toBe(false);
    expect(checks(fresh)).toEqual([]); // never written: nothing to anchor yet
    const t = openTempStore();
    twoStatements(t);
    rmSync(anchorPathFor(t.path));
    expect(checks(t)).toEqual([
      `anchor: ${anchorPathFor(t.path)} is missing, though keel anchored this journal: its end cannot be checked`,
    ]);
    expectKeelError(
      () =>
        t.store.remember({ kind: 'profile', key: 'job', value: 'baker', source: 'owner_stated' }),
      'JOURNAL_BROKEN',
    );
  });

  it("journalEnd is the journal's newest entry, what verify reports as its end (seq 0 when empty)", () => {
    const t = openTempStore();
    expect(t.store.journalEnd()).toEqual({ seq: 0, hash: '' });
    twoStatements(t);
    const end = t.store.journalEnd();
    expect(end.seq).toBeGreaterThan(0);
    expect(end).toEqual(t.store.verify().end);
    expect(end).toEqual(dbOf(t.store).prepare('SELECT seq, hash FROM journal_head').get());
  });

  it('checks against a head the owner kept: ok while the journal still holds it, a cut tail after', () => {
    const t = openTempStore();
    const at = twoStatements(t);
    const kept = parseHead(formatHead(t.store.verify().end));
    t.store.remember({ kind: 'profile', key: 'job', value: 'baker', source: 'owner_stated' });
    expect(t.store.verify({ against: kept }).problems).toEqual([]); // the journal goes on past it
    cutTail(t, at);
    rmSync(anchorPathFor(t.path)); // the writer removed the anchor too
    const r = t.store.verify({ against: kept });
    expect(r.problems.map((p) => p.check)).toEqual(['anchor', 'kept_head']);
    expect(r.problems[1]!.detail).toContain(`the head you kept records entry ${kept.seq}`);
    expect(() => parseHead('12:abc')).toThrow(/not a journal head/);
  });

  it('the anchor travels in a backup, and a restore puts it back beside the file', async () => {
    const t = openTempStore();
    twoStatements(t);
    const anchor = readAnchor(anchorPathFor(t.path));
    const dest = join(tempDir(), 'keel.db');
    await backupDatabase(t.path, dest);
    const copy = new Database(dest, { readonly: true });
    const carried = copy.prepare(`SELECT value FROM meta WHERE key = 'journal_anchor'`).get() as {
      value: string;
    };
    copy.close();
    expect(JSON.parse(carried.value)).toEqual(anchor);
    expect(existsSync(anchorPathFor(dest))).toBe(false);
    anchorRestored(dest, 5);
    expect(JSON.parse(readFileSync(anchorPathFor(dest), 'utf8'))).toEqual(anchor);
    const restored = MemoryStore.open(dest);
    try {
      expect(restored.verify().problems).toEqual([]);
      restored.remember({ kind: 'profile', key: 'job', value: 'baker', source: 'owner_stated' });
      expect(restored.verify().ok).toBe(true);
    } finally {
      restored.close();
    }
  });
});
