// Step 5 (vector queue): the queue and the triggers that fill it, on a fresh database migrated to
// exactly version 5 (step 7 later makes the triggers wait until vectors are in use).

import type Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { VECTOR_QUEUE } from './005-vector-queue.js';
import { migrate } from './index.js';
import { columns, databaseAt, expectStepAdds, insertEpisode, insertFact } from './testkit.js';

/** The queue's rows as `entity:id`, in queue order. */
const queued = (db: Database.Database): string[] =>
  (
    db.prepare(`SELECT entity, id FROM ${VECTOR_QUEUE} ORDER BY seq`).all() as {
      entity: string;
      id: number;
    }[]
  ).map((r) => `${r.entity}:${r.id}`);

describe('step 5: vector queue', () => {
  it('adds the queue and its four triggers', async () => {
    expectStepAdds(5, [
      VECTOR_QUEUE,
      'vector_queue_fact_insert',
      'vector_queue_fact_update',
      'vector_queue_episode_insert',
      'vector_queue_episode_update',
    ]);
    expect(columns(databaseAt(5), VECTOR_QUEUE)).toEqual(['seq', 'entity', 'id']);
  });

  it('is seeded with every row that can have a vector: active facts and conversation episodes', async () => {
    const db = databaseAt(4);
    const fact = insertFact(db, { key: 'a' });
    insertFact(db, { key: 'b', status: 'pending' });
    const said = insertEpisode(db);
    insertEpisode(db, { kind: 'command' });
    migrate(db, 5, 5);
    expect(queued(db)).toEqual([`fact:${fact}`, `episode:${said}`]);
  });

  it('queues a fact whose embedded text or eligibility changes, once, and a conversation episode written or redacted', async () => {
    const db = databaseAt(5);
    const active = insertFact(db, { key: 'a' });
    const pending = insertFact(db, { key: 'b', status: 'pending' });
    expect(queued(db)).toEqual([`fact:${active}`]);
    db.prepare('UPDATE facts SET confidence = 0.5, access_count = 3').run(); // not embedded
    db.prepare(`UPDATE facts SET value = 'changed' WHERE id = ?`).run(active); // already queued
    expect(queued(db)).toEqual([`fact:${active}`]);
    db.prepare(`UPDATE facts SET status = 'active' WHERE id = ?`).run(pending);
    expect(queued(db)).toEqual([`fact:${active}`, `fact:${pending}`]);

    db.prepare(`DELETE FROM ${VECTOR_QUEUE}`).run(); // what a sync does once it has embedded them
    db.prepare(`UPDATE facts SET status = 'retracted' WHERE id = ?`).run(active);
    db.prepare(`UPDATE facts SET key = 'renamed' WHERE id = ?`).run(pending);
    const said = insertEpisode(db);
    insertEpisode(db, { kind: 'mechanism' });
    expect(queued(db)).toEqual([`fact:${active}`, `fact:${pending}`, `episode:${said}`]);

    db.prepare(`DELETE FROM ${VECTOR_QUEUE}`).run();
    db.prepare(`UPDATE episodes SET text = '[purged]', redacted_at = 1 WHERE id = ?`).run(said);
    expect(queued(db)).toEqual([`episode:${said}`]);
  });
});
