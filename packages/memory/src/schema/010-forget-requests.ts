/**
 * Step 10, the model proposes and the owner decides what is forgotten: a model's request to forget
 * a belief waits in the owner's review queue as a review flag (`forget`) with the model's reason
 * (`detail`), until the owner forgets the belief or keeps it. SQLite cannot change a CHECK in
 * place, so `review_flags` is rebuilt with the same rows and index.
 *
 * @module
 */
import type { Migration } from './index.js';

/** Step 10. */
export const forgetRequests: Migration = {
  version: 10,
  name: 'forget requests',
  sql: `
CREATE TABLE review_flags_v10 (
  id         INTEGER PRIMARY KEY,
  fact_id    INTEGER NOT NULL REFERENCES facts (id),
  reason     TEXT NOT NULL CHECK (reason IN ('stale', 'forget')),
  flagged_at INTEGER NOT NULL,
  cleared_at INTEGER,
  detail     TEXT
) STRICT;
INSERT INTO review_flags_v10 (id, fact_id, reason, flagged_at, cleared_at)
  SELECT id, fact_id, reason, flagged_at, cleared_at FROM review_flags;
DROP TABLE review_flags;
ALTER TABLE review_flags_v10 RENAME TO review_flags;
CREATE UNIQUE INDEX review_flags_open ON review_flags (fact_id, reason) WHERE cleared_at IS NULL;
`,
};
