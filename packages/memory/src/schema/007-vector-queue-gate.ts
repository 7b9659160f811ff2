/**
 * Step 7, the vector queue only with vectors. Step 5's triggers queued every conversation episode
 * and active fact even in a store that never binds an embedder (a 100k-turn import wrote 100k
 * queue rows). This step recreates them (same names) with one more condition: `meta` holds a
 * vector fingerprint, which binding an embedder writes in the same transaction that creates the
 * `vec0` tables, and which then queues every row written before (the backfill; see
 * `vectors/vector-index.ts`). A store with vectors in use keeps its queue; any other store's queue
 * is emptied.
 *
 * @module
 */
import type { Migration } from './index.js';

/**
 * The `meta` key holding the fingerprint of the embedder that made the stored vectors (JSON of its
 * provider, model, dimension and dtype). Its presence is what this step's triggers test.
 */
export const META_VECTOR_FINGERPRINT = 'vector_fingerprint';

/** Step 7. */
export const vectorQueueGate: Migration = {
  version: 7,
  name: 'vector queue only with vectors',
  sql: `
DROP TRIGGER vector_queue_fact_insert;
DROP TRIGGER vector_queue_fact_update;
DROP TRIGGER vector_queue_episode_insert;
DROP TRIGGER vector_queue_episode_update;
CREATE TRIGGER vector_queue_fact_insert AFTER INSERT ON facts
WHEN new.status = 'active' AND EXISTS (SELECT 1 FROM meta WHERE key = '${META_VECTOR_FINGERPRINT}')
BEGIN INSERT OR IGNORE INTO vector_queue (entity, id) VALUES ('fact', new.id); END;
CREATE TRIGGER vector_queue_fact_update AFTER UPDATE OF status, kind, key, value ON facts
WHEN ((old.status = 'active') <> (new.status = 'active') OR old.kind IS NOT new.kind
  OR old.key IS NOT new.key OR old.value IS NOT new.value)
  AND EXISTS (SELECT 1 FROM meta WHERE key = '${META_VECTOR_FINGERPRINT}')
BEGIN INSERT OR IGNORE INTO vector_queue (entity, id) VALUES ('fact', new.id); END;
CREATE TRIGGER vector_queue_episode_insert AFTER INSERT ON episodes
WHEN new.kind = 'conversation' AND EXISTS (SELECT 1 FROM meta WHERE key = '${META_VECTOR_FINGERPRINT}')
BEGIN INSERT OR IGNORE INTO vector_queue (entity, id) VALUES ('episode', new.id); END;
CREATE TRIGGER vector_queue_episode_update AFTER UPDATE OF text ON episodes
WHEN new.kind = 'conversation' AND EXISTS (SELECT 1 FROM meta WHERE key = '${META_VECTOR_FINGERPRINT}')
BEGIN INSERT OR IGNORE INTO vector_queue (entity, id) VALUES ('episode', new.id); END;
DELETE FROM vector_queue WHERE NOT EXISTS (SELECT 1 FROM meta WHERE key = '${META_VECTOR_FINGERPRINT}');
`,
};
