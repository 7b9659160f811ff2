/**
 * Step 14, pending questions: when keel cannot tell whether something the owner said ends or
 * replaces a belief, it asks. The question waits in the owner's review queue as a review flag
 * (`question`) on the belief it may replace, with what was said (`detail`), the turn it rests on
 * (`episode_id`), who raised it (`actor`) and, once the owner answers, the answer (`answer`).
 * A belief may carry several open questions (one per turn); stale and forget flags stay one per
 * belief. SQLite cannot change a CHECK in place, so `review_flags` is rebuilt with the same rows.
 * See `docs/decisions/2026-12-04-pending-questions.md`.
 *
 * @module
 */
import type { Migration } from './index.js';

/** Step 14. */
export const questions: Migration = {
  version: 14,
  name: 'pending questions',
  sql: `
CREATE TABLE review_flags_v14 (
  id         INTEGER PRIMARY KEY,
  fact_id    INTEGER NOT NULL REFERENCES facts (id),
  reason     TEXT NOT NULL CHECK (reason IN ('stale', 'forget', 'question')),
  flagged_at INTEGER NOT NULL,
  cleared_at INTEGER,
  detail     TEXT,
  episode_id INTEGER REFERENCES episodes (id),
  actor      TEXT,
  answer     TEXT CHECK (answer IN ('yes', 'no')),
  CHECK (reason <> 'question' OR (detail IS NOT NULL AND actor IS NOT NULL))
) STRICT;
INSERT INTO review_flags_v14 (id, fact_id, reason, flagged_at, cleared_at, detail)
  SELECT id, fact_id, reason, flagged_at, cleared_at, detail FROM review_flags;
DROP TABLE review_flags;
ALTER TABLE review_flags_v14 RENAME TO review_flags;
CREATE UNIQUE INDEX review_flags_open ON review_flags (fact_id, reason)
  WHERE cleared_at IS NULL AND reason <> 'question';
CREATE UNIQUE INDEX review_flags_open_questions ON review_flags (fact_id, episode_id)
  WHERE cleared_at IS NULL AND reason = 'question';
`,
};
