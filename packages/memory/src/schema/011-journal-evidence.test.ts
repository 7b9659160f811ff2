// Step 11 (journal evidence): the head follows every append and nothing else; an entry must chain
// to it; a payload or an episode's text changes only to the hash its newest redaction entry
// recorded; redactions made before the step are kept as a fixed baseline; journal_facts is written
// only with its entry. On databases migrated to exactly version 11.

import { sha256 } from '@keel/language';
import type Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { entryHash, GENESIS_HASH } from '../journal/journal.js';
import { T0 } from '../test-helpers.js';
import { migrate } from './index.js';
import { databaseAt, expectStepAdds, insertEpisode, insertFact } from './testkit.js';

/** Appends a journal entry the way the journal module does (hash-chained). */
function append(
  db: Database.Database,
  e: { op?: string; entity?: string; entityId?: number | null; payload?: string } = {},
): number {
  const last = db.prepare('SELECT seq, hash FROM journal ORDER BY seq DESC LIMIT 1').get() as
    | { seq: number; hash: string }
    | undefined;
  const payload = e.payload ?? '{}';
  const base = {
    seq: (last?.seq ?? 0) + 1,
    at: T0,
    actor: 'system',
    op: e.op ?? 'note',
    entity: e.entity ?? 'store',
    entity_id: e.entityId ?? null,
    payload_hash: sha256(payload),
    prev_hash: last?.hash ?? GENESIS_HASH,
  };
  db.prepare(
    `INSERT INTO journal (seq, at, actor, op, entity, entity_id, payload, payload_hash, prev_hash, hash)
     VALUES (@seq, @at, @actor, @op, @entity, @entity_id, @payload, @payload_hash, @prev_hash, @hash)`,
  ).run({ ...base, payload, hash: entryHash(base) });
  return base.seq;
}

const head = (db: Database.Database) =>
  db.prepare('SELECT * FROM journal_head').all() as Record<string, unknown>[];

describe('step 11: journal evidence', () => {
  it('adds the head, the baseline, the fact index and their triggers', async () => {
    expectStepAdds(11, [
      'journal_head',
      'journal_baseline',
      'journal_facts',
      'journal_chains_to_head',
      'journal_head_follows',
      'journal_head_append_only',
      'journal_redaction_journaled',
      'episodes_redaction_journaled',
    ]);
  });

  it('a fresh store replays from the first entry; the head follows each append', async () => {
    const db = databaseAt(11);
    expect(head(db)).toEqual([
      {
        id: 1,
        seq: 0,
        hash: GENESIS_HASH,
        replay_seq: 1,
        replay_fact: 1,
        replay_evidence: 1,
        replay_tombstone: 1,
        replay_episode: 1,
      },
    ]);
    append(db);
    const seq = append(db);
    const last = db.prepare('SELECT hash FROM journal WHERE seq = ?').get(seq) as { hash: string };
    expect(head(db)[0]).toMatchObject({ seq, hash: last.hash, replay_seq: 1 });
  });

  it('the head moves only with an append: no insert, delete, rewind or replay change', async () => {
    const db = databaseAt(11);
    append(db);
    append(db);
    const before = head(db);
    for (const sql of [
      'DELETE FROM journal_head',
      'UPDATE journal_head SET seq = 1',
      `UPDATE journal_head SET hash = '${GENESIS_HASH}'`,
      'UPDATE journal_head SET replay_seq = 100',
      `INSERT INTO journal_head VALUES (2, 0, 'x', 1, 1, 1, 1, 1)`,
    ]) {
      expect(() => db.exec(sql), sql).toThrow(/the journal head moves only with an append/);
    }
    expect(head(db)).toEqual(before);
  });

  it('an entry must chain to the head', async () => {
    const db = databaseAt(11);
    append(db);
    const insert = db.prepare(
      `INSERT INTO journal (seq, at, actor, op, entity, entity_id, payload, payload_hash, prev_hash, hash)
       VALUES (?, 0, 'system', 'x', 'store', NULL, '{}', 'h', ?, 'h')`,
    );
    expect(() => insert.run(5, (head(db)[0] as { hash: string }).hash)).toThrow(
      /chains to the head/,
    );
    expect(() => insert.run(2, GENESIS_HASH)).toThrow(/chains to the head/);
  });

  it('a payload changes only to the hash its newest redaction entry recorded', async () => {
    const db = databaseAt(11);
    const seq = append(db, { payload: '{"value":"Ada"}' });
    const redact = db.prepare('UPDATE journal SET payload = ?, redacted_at = 1 WHERE seq = ?');
    expect(() => redact.run('{"forged":true}', seq)).toThrow(/journal is append-only/);
    append(db, {
      op: 'redact',
      entity: 'journal',
      entityId: seq,
      payload: JSON.stringify({ payload_sha256: sha256('{"value":"[purged]"}') }),
    });
    expect(() => redact.run('{"forged":true}', seq)).toThrow(/journal is append-only/);
    redact.run('{"value":"[purged]"}', seq);
    // A newer redaction entry replaces the older one's hash.
    append(db, {
      op: 'redact',
      entity: 'journal',
      entityId: seq,
      payload: JSON.stringify({ payload_sha256: sha256('{}') }),
    });
    expect(() => redact.run('{"value":"Ada"}', seq)).toThrow(/journal is append-only/);
    redact.run('{}', seq);
  });

  it("an episode's text changes only to the hash its newest redaction entry recorded", async () => {
    const db = databaseAt(11);
    const id = insertEpisode(db, { text: 'my sister is Ada' });
    const redact = db.prepare('UPDATE episodes SET text = ?, redacted_at = 1 WHERE id = ?');
    expect(() => redact.run('my sister is Eve', id)).toThrow(/episodes are append-only/);
    append(db, {
      op: 'redact',
      entity: 'episode',
      entityId: id,
      payload: JSON.stringify({ text_sha256: sha256('my sister is [purged]') }),
    });
    expect(() => redact.run('my sister is Eve', id)).toThrow(/episodes are append-only/);
    redact.run('my sister is [purged]', id);
  });

  it('keeps redactions made before it as a fixed baseline, and replays from the next entry', async () => {
    const db = databaseAt(10);
    const seq = append(db, { payload: '{"value":"Ada"}' });
    append(db);
    db.prepare('UPDATE journal SET payload = ?, redacted_at = 1 WHERE seq = ?').run(
      '{"value":"[purged]"}',
      seq,
    );
    const ep = insertEpisode(db, { text: 'my sister is Ada' });
    db.prepare('UPDATE episodes SET text = ?, redacted_at = 1 WHERE id = ?').run('[purged]', ep);
    insertEpisode(db, { text: 'hello' });
    insertFact(db);
    migrate(db, T0 + 1);
    expect(db.prepare('SELECT * FROM journal_baseline ORDER BY entity, id').all()).toEqual([
      { entity: 'episode', id: ep, sha256: sha256('[purged]') },
      { entity: 'journal', id: seq, sha256: sha256('{"value":"[purged]"}') },
    ]);
    expect(head(db)[0]).toMatchObject({
      seq: 2,
      replay_seq: 3,
      replay_fact: 2,
      replay_evidence: 1,
      replay_tombstone: 1,
      replay_episode: 3,
    });
    for (const sql of [
      `INSERT INTO journal_baseline VALUES ('journal', 9, 'x')`,
      `UPDATE journal_baseline SET sha256 = 'x'`,
      'DELETE FROM journal_baseline',
    ]) {
      expect(() => db.exec(sql), sql).toThrow(/the journal baseline is fixed/);
    }
  });

  it('journal_facts is written only with the newest entry, forward, never deleted', async () => {
    const db = databaseAt(11);
    const f = insertFact(db);
    const put = db.prepare(
      `INSERT INTO journal_facts (fact_id, seq, sha256) VALUES (?, ?, 'h')
       ON CONFLICT (fact_id) DO UPDATE SET seq = excluded.seq, sha256 = excluded.sha256`,
    );
    const first = append(db);
    append(db);
    expect(() => put.run(f, first)).toThrow(/written only with its journal entry/);
    const third = append(db);
    put.run(f, third);
    expect(() => put.run(f, third - 1)).toThrow(/written only with its journal entry/);
    expect(() => db.exec('DELETE FROM journal_facts')).toThrow(
      /written only with its journal entry/,
    );
  });
});
