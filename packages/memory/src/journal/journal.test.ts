// The journal: append-only (triggers), hash-chained, and `verify` reports every break.

import { describe, expect, it } from 'vitest';
import { dbOf } from '../internal.js';
import { MemoryStore } from '../store.js';
import { count, journalRows, openTempStore, turn, WEEK } from '../test-helpers.js';
import { entryHash, GENESIS_HASH, type JournalEntry, verifyJournal } from './journal.js';

type Store = ReturnType<typeof openTempStore>['store'];

/** A session that exercises every kind of mutation the store journals. */
async function mixedSession(store: Store, clock: ReturnType<typeof openTempStore>['clock']) {
  const e1 = turn(store, 'I drink oolong every morning');
  store.remember({
    kind: 'preference',
    key: 'tea',
    value: 'oolong',
    source: 'owner_stated',
    episodeId: e1,
  }); // create
  clock.advance();
  store.remember({ kind: 'preference', key: 'tea', value: 'Oolong!', source: 'observed' }); // corroborate
  store.remember({
    kind: 'preference',
    key: 'tea',
    value: 'oolong',
    source: 'observed',
    episodeId: e1,
  }); // ignore: same episode
  store.remember({
    kind: 'setting',
    key: 'token',
    value: 'ghp_abcdefghijklmnopqrstuvwxyz0123456789',
    source: 'observed',
  }); // ignore: secret
  clock.advance();
  const pending = store.remember({
    kind: 'preference',
    key: 'tea',
    value: 'rooibos',
    source: 'observed',
  }).fact!; // conflict
  store.remember({ kind: 'profile', key: 'city', value: 'Lisbon', source: 'observed' });
  store.remember({ kind: 'profile', key: 'city', value: 'Porto', source: 'observed' }); // update
  store.remember({ kind: 'profile', key: 'job', value: 'architect', source: 'inferred' });
  const forgettable = store.remember({
    kind: 'note',
    key: 'locker',
    value: 'locker 42 at the gym',
    source: 'owner_stated',
  }).fact!;
  await store.recall('tea oolong');
  clock.advance();
  store.confirm(pending.id);
  store.reject(store.current({ scope: 'owner', kind: 'profile', key: 'job' })!.id);
  store.forget(forgettable.id, { purge: true });
  store.remember({ kind: 'goal', key: 'run', value: 'a 10k in spring', source: 'inferred' });
  clock.advance(30 * WEEK);
  store.decay();
  store.prune();
}

describe('journal', () => {
  it('UPDATE and DELETE of a journal row are refused by triggers', async () => {
    const { store } = openTempStore();
    store.remember({ kind: 'note', key: 'x', value: 'first entry', source: 'owner_stated' });
    const before = journalRows(store);
    expect(before.length).toBeGreaterThan(0);
    const row = before[0]!;
    expect(() =>
      dbOf(store).prepare(`UPDATE journal SET op = 'forged' WHERE seq = 1`).run(),
    ).toThrow(/journal is append-only/);
    expect(() =>
      dbOf(store).prepare(`UPDATE journal SET payload = '{}' WHERE seq = 1`).run(),
    ).toThrow(/journal is append-only/);
    // Even with redacted_at set, the chain fields cannot change.
    expect(() =>
      dbOf(store)
        .prepare(`UPDATE journal SET redacted_at = 1, hash = ? WHERE seq = 1`)
        .run(GENESIS_HASH),
    ).toThrow(/journal is append-only/);
    expect(() => dbOf(store).prepare('DELETE FROM journal WHERE seq = 1').run()).toThrow(
      /journal is append-only/,
    );
    expect(() => dbOf(store).prepare('DELETE FROM journal').run()).toThrow(
      /journal is append-only/,
    );
    expect(journalRows(store)).toEqual(before);
    expect(row.prev_hash).toBe(GENESIS_HASH);
    expect(store.verify().ok).toBe(true);
  });

  it('each entry chains to the previous one from the genesis hash', async () => {
    const { store, clock } = openTempStore();
    store.remember({ kind: 'note', key: 'a', value: 'one', source: 'owner_stated' });
    clock.advance();
    store.remember({ kind: 'note', key: 'b', value: 'two', source: 'observed' });
    const rows = journalRows(store);
    expect(rows.map((r) => r.seq)).toEqual(rows.map((_, i) => i + 1));
    let prev = GENESIS_HASH;
    for (const r of rows) {
      expect(r.prev_hash).toBe(prev);
      expect(r.hash).toBe(entryHash(r));
      prev = r.hash;
    }
  });

  it('verify reports a tampered payload (ok false, with the seq)', async () => {
    const { store, clock } = openTempStore();
    await mixedSession(store, clock);
    expect(store.verify().ok).toBe(true);
    const target = journalRows(store, 'create')[0]!;
    dbOf(store).exec('DROP TRIGGER journal_redact_only; DROP TRIGGER journal_redaction_journaled;');
    dbOf(store)
      .prepare('UPDATE journal SET payload = ? WHERE seq = ?')
      .run('{"value":"forged"}', target.seq);
    const report = store.verify();
    expect(report.ok).toBe(false);
    expect(report.journal.breaks).toEqual([
      { seq: target.seq, problem: 'payload_hash', detail: 'payload altered without redaction' },
    ]);
    expect(report.problems).toContainEqual({
      check: 'journal',
      detail: `entry ${target.seq}: payload_hash (payload altered without redaction)`,
    });
  });

  it('verify reports every break: a changed field, a re-hashed entry, a deleted entry', async () => {
    const { store, clock } = openTempStore();
    await mixedSession(store, clock);
    const rows = journalRows(store);
    expect(rows.length).toBeGreaterThan(12);
    dbOf(store).exec('DROP TRIGGER journal_redact_only; DROP TRIGGER journal_no_delete;');
    // 1. A field changed, hash left alone: that entry's hash no longer matches.
    const a = rows[2]!;
    dbOf(store).prepare(`UPDATE journal SET actor = 'model' WHERE seq = ?`).run(a.seq);
    // 2. A field changed and the entry re-hashed: the NEXT entry's prev_hash breaks.
    const b = rows[6]!;
    const forged: JournalEntry = { ...b, op: 'create' === b.op ? 'update' : 'create' };
    dbOf(store)
      .prepare('UPDATE journal SET op = ?, hash = ? WHERE seq = ?')
      .run(forged.op, entryHash(forged), b.seq);
    // 3. An entry deleted: a sequence gap and a broken link at the one after it.
    const c = rows[10]!;
    dbOf(store).prepare('DELETE FROM journal WHERE seq = ?').run(c.seq);

    const { breaks } = verifyJournal(dbOf(store));
    expect(breaks).toEqual([
      { seq: a.seq, problem: 'hash', detail: 'entry fields do not match its hash' },
      { seq: b.seq + 1, problem: 'prev_hash', detail: 'does not match the previous entry' },
      { seq: c.seq + 1, problem: 'sequence_gap', detail: `expected seq ${c.seq}` },
      { seq: c.seq + 1, problem: 'prev_hash', detail: 'does not match the previous entry' },
    ]);
    const report = store.verify();
    expect(report.ok).toBe(false);
    expect(report.journal.entries).toBe(rows.length - 1);
    expect(report.problems.filter((p) => p.check === 'journal')).toHaveLength(4);
  });

  it('the chain is intact after a normal mixed session (purge redaction included)', async () => {
    const { store, clock, path } = openTempStore();
    await mixedSession(store, clock);
    const ops = new Set(journalRows(store).map((r) => r.op));
    for (const op of [
      'episode',
      'create',
      'corroborate',
      'ignore',
      'conflict',
      'update',
      'confirm',
      'reject',
      'forget',
      'purge',
      'decay',
      'prune',
    ]) {
      expect(ops.has(op), op).toBe(true);
    }
    expect(
      count(store, 'SELECT count(*) AS n FROM journal WHERE redacted_at IS NOT NULL'),
    ).toBeGreaterThan(0);
    const report = store.verify();
    expect(report.problems).toEqual([]);
    expect(report.ok).toBe(true);
    expect(report.journal).toMatchObject({
      entries: count(store, 'SELECT count(*) AS n FROM journal'),
      breaks: [],
    });
    // And it still verifies after closing and reopening the file.
    const entries = report.journal.entries;
    store.close();
    const again = MemoryStore.open(path, { now: clock.now });
    try {
      expect(again.verify()).toMatchObject({ ok: true, journal: { entries, breaks: [] } });
    } finally {
      again.close();
    }
  });

  it('every mutation is journaled in the same transaction as the mutation', async () => {
    const { store } = openTempStore();
    const before = count(store, 'SELECT count(*) AS n FROM journal');
    const ep = turn(store, 'hello');
    // One episode entry.
    expect(count(store, 'SELECT count(*) AS n FROM journal')).toBe(before + 1);
    const r = store.remember({
      kind: 'note',
      key: 'greeting',
      value: 'hello',
      source: 'owner_stated',
      episodeId: ep,
    });
    const last = journalRows(store).at(-1)!;
    expect(last).toMatchObject({ op: 'create', entity: 'fact', entity_id: r.fact!.id });
    expect(JSON.parse(last.payload)).toMatchObject({
      reason: 'new slot',
      source: 'owner_stated',
      episode_id: ep,
    });
    // The episode entry carries the text's hash, not the text.
    const epEntry = journalRows(store, 'episode').find((e) => e.entity_id === ep)!;
    expect(epEntry.payload).not.toContain('hello');
    expect(JSON.parse(epEntry.payload).text_sha256).toMatch(/^[0-9a-f]{64}$/);
  });
});
