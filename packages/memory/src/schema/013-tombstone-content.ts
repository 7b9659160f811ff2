/**
 * Step 13, forgetting is about meaning: a tombstone records the folded content of the value it
 * buries (`content`: a JSON array, per spelling of the value, of the hashes of its folded content
 * words, so a purged value is not kept in clear), and a tombstone may bind content alone, in every slot of its scope,
 * without a slot of its own (`kind` and `key` null: what a purge by mention buries). SQLite cannot
 * relax a NOT NULL in place, so `tombstones` is rebuilt with the same rows and index; tombstones
 * written before this step have no `content` (the write review reads it from their fact's value
 * while that value is kept).
 *
 * @module
 */
import type { Migration } from './index.js';

/** Step 13. */
export const tombstoneContent: Migration = {
  version: 13,
  name: 'tombstone content',
  sql: `
CREATE TABLE tombstones_v13 (
  id         INTEGER PRIMARY KEY,
  scope      TEXT NOT NULL CHECK (scope IN ('owner', 'agent')),
  kind       TEXT CHECK (kind IN ('preference', 'profile', 'fact', 'goal', 'relationship', 'constraint', 'project', 'setting', 'learned', 'note')),
  key        TEXT,
  value_hash TEXT NOT NULL,
  reason     TEXT NOT NULL CHECK (reason IN ('forgotten', 'purged', 'pruned', 'rejected')),
  fact_id    INTEGER REFERENCES facts (id),
  created_at INTEGER NOT NULL,
  lifted_at  INTEGER,
  lifted_by  INTEGER REFERENCES facts (id),
  content    TEXT CHECK (content IS NULL OR json_valid(content)),
  CHECK ((kind IS NULL) = (key IS NULL)),
  CHECK (kind IS NOT NULL OR content IS NOT NULL)
) STRICT;
INSERT INTO tombstones_v13 (id, scope, kind, key, value_hash, reason, fact_id, created_at,
                            lifted_at, lifted_by)
  SELECT id, scope, kind, key, value_hash, reason, fact_id, created_at, lifted_at, lifted_by
  FROM tombstones;
DROP TABLE tombstones;
ALTER TABLE tombstones_v13 RENAME TO tombstones;
CREATE INDEX tombstones_slot ON tombstones (scope, kind, key, value_hash) WHERE lifted_at IS NULL;
CREATE INDEX tombstones_content ON tombstones (scope) WHERE lifted_at IS NULL;
`,
};
