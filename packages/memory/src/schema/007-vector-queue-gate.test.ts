// Step 7 (vector queue only with vectors): step 5's triggers recreated to queue only once an
// embedder has been bound (its fingerprint is in meta), on databases migrated to exactly version 7.

import type Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { T0 } from '../test-helpers.js';
import { META_VECTOR_FINGERPRINT } from './007-vector-queue-gate.js';
import { migrate } from './index.js';
import { countRows, databaseAt, insertEpisode, insertFact, schemaNames } from './testkit.js';

const queueLength = (db: Database.Database) =>
  countRows(db, 'SELECT count(*) AS n FROM vector_queue');

describe('step 7: vector queue only with vectors', () => {
  it('recreates step 5’s four triggers under the same names, each now asking for the fingerprint', async () => {
    // Adds no name of its own.
    expect(schemaNames(databaseAt(7))).toEqual(schemaNames(databaseAt(6)));
    const triggerSql = (db: Database.Database, name: string) =>
      (db.prepare('SELECT sql FROM sqlite_master WHERE name = ?').get(name) as { sql: string }).sql;
    for (const name of [
      'vector_queue_fact_insert',
      'vector_queue_fact_update',
      'vector_queue_episode_insert',
      'vector_queue_episode_update',
    ]) {
      expect(triggerSql(databaseAt(6), name), name).not.toContain(META_VECTOR_FINGERPRINT);
      expect(triggerSql(databaseAt(7), name), name).toContain(`key = '${META_VECTOR_FINGERPRINT}'`);
    }
  });

  it('step 7 empties the vector queue of a store without vectors and keeps that of a store with them', async () => {
    const setup = (withVectors: boolean) => {
      const db = databaseAt(6);
      if (withVectors) {
        // What binding an embedder left before step 7: its fingerprint (the vec0 tables need
        // sqlite-vec; the migration looks only at meta).
        db.prepare(`INSERT INTO meta (key, value) VALUES ('vector_fingerprint', '{}')`).run();
      }
      db.prepare(
        `INSERT INTO episodes (kind, channel, role, text, occurred_at, created_at)
         VALUES ('conversation', 'cli', 'owner', 'queued by step 5', ?, ?)`,
      ).run(T0, T0);
      expect(db.prepare('SELECT count(*) AS n FROM vector_queue').get()).toEqual({ n: 1 });
      expect(migrate(db, T0 + 7, 7)).toEqual([7]);
      return db;
    };
    const insert = (db: Database.Database) =>
      db
        .prepare(
          `INSERT INTO episodes (kind, channel, role, text, occurred_at, created_at)
           VALUES ('conversation', 'cli', 'owner', 'after step 7', ?, ?)`,
        )
        .run(T0, T0);
    const without = setup(false);
    const withVectors = setup(true);
    expect(without.prepare('SELECT count(*) AS n FROM vector_queue').get()).toEqual({ n: 0 });
    insert(without);
    expect(without.prepare('SELECT count(*) AS n FROM vector_queue').get()).toEqual({ n: 0 });
    // Control: with vectors in use the old row stays queued and a new one is queued too.
    expect(withVectors.prepare('SELECT count(*) AS n FROM vector_queue').get()).toEqual({ n: 1 });
    insert(withVectors);
    expect(withVectors.prepare('SELECT count(*) AS n FROM vector_queue').get()).toEqual({ n: 2 });
  });

  it('queues nothing until the fingerprint is in meta, then what step 5 queued', async () => {
    const db = databaseAt(7);
    const fact = insertFact(db, { key: 'a' });
    insertEpisode(db);
    db.prepare(`UPDATE facts SET value = 'changed' WHERE id = ?`).run(fact);
    expect(queueLength(db)).toBe(0);

    db.prepare(`INSERT INTO meta (key, value) VALUES (?, '{}')`).run(META_VECTOR_FINGERPRINT);
    db.prepare(`UPDATE facts SET value = 'changed again' WHERE id = ?`).run(fact);
    insertFact(db, { key: 'b' });
    insertFact(db, { key: 'c', status: 'pending' });
    const said = insertEpisode(db);
    insertEpisode(db, { kind: 'command' });
    db.prepare(`UPDATE episodes SET text = '[purged]', redacted_at = 1 WHERE id = ?`).run(said);
    expect(
      db.prepare('SELECT entity, count(*) AS n FROM vector_queue GROUP BY entity').all(),
    ).toEqual([
      { entity: 'episode', n: 1 },
      { entity: 'fact', n: 2 },
    ]);
  });
});
