/**
 * Step 8, the think pipeline does each thing once: a queued turn the belief gate believed is
 * reflected on once — by a tick's reflection, or by the nightly curator when no tick could — and
 * its state then says so (`reflected`), so nothing sends it to the frontier model again. SQLite
 * cannot change a CHECK in place, so `belief_queue` is rebuilt with the same columns, rows and
 * indexes; a row believed and already consumed (`reflected_at` or `curated_at` set) becomes
 * `reflected`.
 *
 * @module
 */
import type { Migration } from './index.js';

/** Step 8. */
export const reflectedState: Migration = {
  version: 8,
  name: 'reflected state',
  sql: `
CREATE TABLE belief_queue_v8 (
  id           INTEGER PRIMARY KEY,
  episode_id   INTEGER NOT NULL UNIQUE REFERENCES episodes (id),
  state        TEXT NOT NULL DEFAULT 'new'
               CHECK (state IN ('new', 'believed', 'dismissed', 'undecided', 'reflected')),
  gate         TEXT,
  queued_at    INTEGER NOT NULL,
  decided_at   INTEGER,
  attempts     INTEGER NOT NULL DEFAULT 0,
  reason       TEXT,
  reflected_at INTEGER,
  curated_at   INTEGER
) STRICT;
INSERT INTO belief_queue_v8
  (id, episode_id, state, gate, queued_at, decided_at, attempts, reason, reflected_at, curated_at)
  SELECT id, episode_id,
         CASE WHEN state = 'believed' AND (reflected_at IS NOT NULL OR curated_at IS NOT NULL)
              THEN 'reflected' ELSE state END,
         gate, queued_at, decided_at, attempts, reason, coalesce(reflected_at, curated_at),
         curated_at
  FROM belief_queue;
DROP TABLE belief_queue;
ALTER TABLE belief_queue_v8 RENAME TO belief_queue;
CREATE INDEX belief_queue_state ON belief_queue (state, id);
CREATE INDEX belief_queue_uncurated ON belief_queue (id)
  WHERE state = 'believed' AND curated_at IS NULL;
`,
};
