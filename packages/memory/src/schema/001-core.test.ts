// Step 1 (core): what it makes, the vocabularies of its CHECK constraints, and its append-only
// triggers and slot rules, on a fresh database migrated to exactly version 1.

import { describe, expect, it } from 'vitest';
import { T0 } from '../test-helpers.js';
import { EPISODE_KINDS, KINDS, ROLES, SCOPES, SOURCES, STATUSES } from '../types.js';
import { core } from './001-core.js';
import {
  columns,
  countRows,
  databaseAt,
  expectStepAdds,
  insertEpisode,
  insertFact,
} from './testkit.js';

describe('step 1: core', () => {
  it('adds the core tables, the active_facts view, their indexes and triggers', async () => {
    expectStepAdds(1, [
      'meta',
      'episodes',
      'episodes_provenance',
      'episodes_occurred',
      'episodes_no_delete',
      'episodes_redact_only',
      'facts',
      'facts_one_active_per_slot',
      'facts_slot',
      'facts_status',
      'active_facts',
      'fact_evidence',
      'fact_evidence_episode',
      'fact_evidence_no_update',
      'fact_evidence_no_delete',
      'tombstones',
      'tombstones_slot',
      'journal',
      'journal_entity',
      'journal_no_delete',
      'journal_redact_only',
    ]);
  });

  it('gives each table its columns', async () => {
    const db = databaseAt(1);
    expect(columns(db, 'meta')).toEqual(['key', 'value']);
    expect(columns(db, 'episodes')).toEqual([
      'id',
      'kind',
      'channel',
      'role',
      'speaker',
      'text',
      'occurred_at',
      'created_at',
      'source_id',
      'source_doc',
      'session_key',
      'meta',
      'redacted_at',
    ]);
    expect(columns(db, 'facts')).toEqual([
      'id',
      'scope',
      'kind',
      'key',
      'value',
      'value_hash',
      'status',
      'source',
      'confidence',
      'evidence_count',
      'access_count',
      'created_at',
      'updated_at',
      'last_seen_at',
      'last_accessed_at',
      'last_decayed_at',
      'valid_from',
      'valid_to',
      'supersedes_id',
      'superseded_by_id',
      'conflicts_with_id',
      'status_reason',
      'purged_at',
    ]);
    expect(columns(db, 'active_facts')).toEqual(columns(db, 'facts'));
    expect(columns(db, 'fact_evidence')).toEqual([
      'id',
      'fact_id',
      'episode_id',
      'source',
      'observed_at',
    ]);
    expect(columns(db, 'tombstones')).toEqual([
      'id',
      'scope',
      'kind',
      'key',
      'value_hash',
      'reason',
      'fact_id',
      'created_at',
      'lifted_at',
      'lifted_by',
    ]);
    expect(columns(db, 'journal')).toEqual([
      'seq',
      'at',
      'actor',
      'op',
      'entity',
      'entity_id',
      'payload',
      'payload_hash',
      'prev_hash',
      'hash',
      'redacted_at',
    ]);
  });

  it('checks the vocabularies of types.ts as released (a new value needs a new step)', async () => {
    const list = (values: readonly string[]) => values.map((v) => `'${v}'`).join(', ');
    expect(core.sql).toContain(`kind IN (${list(EPISODE_KINDS)})`);
    expect(core.sql).toContain(`role IN (${list(ROLES)})`);
    expect(core.sql).toContain(`scope IN (${list(SCOPES)})`);
    expect(core.sql).toContain(`kind IN (${list(KINDS)})`);
    expect(core.sql).toContain(`status IN (${list(STATUSES)})`);
    expect(core.sql).toContain(`source IN (${list(SOURCES)})`);
  });

  it('keeps episodes append-only: no delete, and an update only as a redaction', async () => {
    const db = databaseAt(1);
    const id = insertEpisode(db, { text: 'the owner said this' });
    expect(() => db.prepare('DELETE FROM episodes WHERE id = ?').run(id)).toThrow(
      'episodes are append-only',
    );
    expect(() => db.prepare(`UPDATE episodes SET text = 'rewritten' WHERE id = ?`).run(id)).toThrow(
      'only a purge may redact text',
    );
    expect(() =>
      db
        .prepare(`UPDATE episodes SET text = '', redacted_at = ?, channel = 'discord' WHERE id = ?`)
        .run(T0, id),
    ).toThrow('only a purge may redact text');
    db.prepare(`UPDATE episodes SET text = '[purged]', redacted_at = ? WHERE id = ?`).run(T0, id);
    expect(db.prepare('SELECT text FROM episodes WHERE id = ?').get(id)).toEqual({
      text: '[purged]',
    });
  });

  it('holds one active fact per slot, lets only the owner past 0.95, and shows only active facts in active_facts', async () => {
    const db = databaseAt(1);
    const active = insertFact(db, { key: 'home', value: 'Lisbon' });
    expect(() => insertFact(db, { key: 'home', value: 'Porto' })).toThrow(/UNIQUE/);
    insertFact(db, { key: 'home', value: 'Porto', status: 'pending' });
    const gate = (source: string, confidence: number) =>
      db
        .prepare(
          `INSERT INTO facts (scope, kind, key, value, value_hash, status, source, confidence,
             created_at, updated_at, last_seen_at)
           VALUES ('owner', 'note', ?, 'v', 'h', 'active', ?, ?, ?, ?, ?)`,
        )
        .run(`${source}-${confidence}`, source, confidence, T0, T0, T0);
    expect(() => gate('observed', 0.96)).toThrow(/CHECK/);
    gate('observed', 0.95);
    gate('owner_confirmed', 0.99);
    expect(countRows(db, `SELECT count(*) AS n FROM active_facts WHERE key = 'home'`)).toBe(1);
    expect(db.prepare(`SELECT id FROM active_facts WHERE key = 'home'`).get()).toEqual({
      id: active,
    });
  });

  it('keeps fact_evidence append-only', async () => {
    const db = databaseAt(1);
    const fact = insertFact(db);
    const episode = insertEpisode(db);
    db.prepare(
      `INSERT INTO fact_evidence (fact_id, episode_id, source, observed_at)
       VALUES (?, ?, 'owner_stated', ?)`,
    ).run(fact, episode, T0);
    expect(() => db.prepare('UPDATE fact_evidence SET observed_at = 0').run()).toThrow(
      'fact_evidence is append-only',
    );
    expect(() => db.prepare('DELETE FROM fact_evidence').run()).toThrow(
      'fact_evidence is append-only',
    );
  });

  it('keeps the journal append-only: no delete, and an update only as a redaction of the payload', async () => {
    const db = databaseAt(1);
    db.prepare(
      `INSERT INTO journal (at, actor, op, entity, entity_id, payload, payload_hash, prev_hash, hash)
       VALUES (?, 'owner', 'remember', 'fact', 1, '{"value":"secret"}', 'ph', 'prev', 'h')`,
    ).run(T0);
    expect(() => db.prepare('DELETE FROM journal').run()).toThrow('journal is append-only');
    expect(() => db.prepare(`UPDATE journal SET payload = '{}'`).run()).toThrow(
      'journal is append-only',
    );
    expect(() =>
      db.prepare(`UPDATE journal SET payload = '{}', redacted_at = ?, hash = 'forged'`).run(T0),
    ).toThrow('journal is append-only');
    db.prepare(`UPDATE journal SET payload = '{}', redacted_at = ?`).run(T0);
    expect(db.prepare('SELECT payload, hash FROM journal').get()).toEqual({
      payload: '{}',
      hash: 'h',
    });
  });
});
