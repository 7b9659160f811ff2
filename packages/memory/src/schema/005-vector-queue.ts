/**
 * Step 5, the vector queue: the rows whose vector must be (re)made or removed, filled by triggers
 * so no writer can forget. Plain SQL; needs no extension. The `vec0` tables themselves are created
 * when an embedder is first bound (their dimension depends on it; see `vectors/tables.ts`). Step 7
 * replaces these triggers with ones that queue only once vectors are in use.
 *
 * @module
 */
import type { Migration } from './index.js';

/** The queue table this step creates; the vector index reads and empties it. */
export const VECTOR_QUEUE = 'vector_queue';

/** Step 5. */
export const vectorQueue: Migration = {
  version: 5,
  name: 'vector queue',
  sql: `
-- Rows whose vector must be (re)made or removed. Filled by triggers, so no writer can forget;
-- emptied by the vector sync. Seeded with every row that can have a vector. AUTOINCREMENT: seq
-- never repeats, so a reader can remember how far it has looked.
CREATE TABLE vector_queue (
  seq    INTEGER PRIMARY KEY AUTOINCREMENT,
  entity TEXT NOT NULL CHECK (entity IN ('fact', 'episode')),
  id     INTEGER NOT NULL,
  UNIQUE (entity, id)
) STRICT;
CREATE TRIGGER vector_queue_fact_insert AFTER INSERT ON facts WHEN new.status = 'active'
BEGIN INSERT OR IGNORE INTO vector_queue (entity, id) VALUES ('fact', new.id); END;
CREATE TRIGGER vector_queue_fact_update AFTER UPDATE OF status, kind, key, value ON facts
WHEN (old.status = 'active') <> (new.status = 'active') OR old.kind IS NOT new.kind
  OR old.key IS NOT new.key OR old.value IS NOT new.value
BEGIN INSERT OR IGNORE INTO vector_queue (entity, id) VALUES ('fact', new.id); END;
CREATE TRIGGER vector_queue_episode_insert AFTER INSERT ON episodes WHEN new.kind = 'conversation'
BEGIN INSERT OR IGNORE INTO vector_queue (entity, id) VALUES ('episode', new.id); END;
CREATE TRIGGER vector_queue_episode_update AFTER UPDATE OF text ON episodes
WHEN new.kind = 'conversation'
BEGIN INSERT OR IGNORE INTO vector_queue (entity, id) VALUES ('episode', new.id); END;
INSERT INTO vector_queue (entity, id) SELECT 'fact', id FROM facts WHERE status = 'active';
INSERT INTO vector_queue (entity, id) SELECT 'episode', id FROM episodes WHERE kind = 'conversation';
`,
};
