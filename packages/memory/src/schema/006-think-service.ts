/**
 * Step 6, the think service: the belief gate's bookkeeping on `belief_queue`, `think_runs`, the
 * `curator_diary`, `interrupts` and the weekly review's `review_flags`.
 *
 * @module
 */
import type { Migration } from './index.js';

/** Step 6. */
export const thinkService: Migration = {
  version: 6,
  name: 'think service',
  sql: `
-- The belief gate's bookkeeping: undecided turns are retried (attempts), a refusal says why
-- (reason), and reflection and the nightly curator each mark what they have consumed.
ALTER TABLE belief_queue ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0;
ALTER TABLE belief_queue ADD COLUMN reason TEXT;
ALTER TABLE belief_queue ADD COLUMN reflected_at INTEGER;
ALTER TABLE belief_queue ADD COLUMN curated_at INTEGER;
CREATE INDEX belief_queue_uncurated ON belief_queue (id)
  WHERE state = 'believed' AND curated_at IS NULL;

-- Every run of the think service and its outcome: a 15-minute tick, a nightly curation, a weekly
-- review. summary is the run's JSON report; period names the night (YYYY-MM-DD) or week
-- (YYYY-Www) a curation or review covers, in the owner's time zone.
CREATE TABLE think_runs (
  id          INTEGER PRIMARY KEY,
  kind        TEXT NOT NULL CHECK (kind IN ('tick', 'curate', 'weekly')),
  status      TEXT NOT NULL CHECK (status IN ('running', 'ok', 'failed')),
  started_at  INTEGER NOT NULL,
  finished_at INTEGER,
  gate        TEXT,
  period      TEXT,
  summary     TEXT,
  error_code  TEXT,
  error       TEXT
) STRICT;
CREATE INDEX think_runs_kind ON think_runs (kind, status, period);

-- One short diary row per night the curator completed.
CREATE TABLE curator_diary (
  id           INTEGER PRIMARY KEY,
  night        TEXT NOT NULL UNIQUE,
  run_id       INTEGER NOT NULL REFERENCES think_runs (id),
  added        INTEGER NOT NULL,
  corroborated INTEGER NOT NULL,
  superseded   INTEGER NOT NULL,
  conflicts    INTEGER NOT NULL,
  pruned       INTEGER NOT NULL,
  text         TEXT NOT NULL,
  written_at   INTEGER NOT NULL
) STRICT;

-- Things worth interrupting the owner for (a deadline, a reminder they asked for): each item is
-- sent at most once (item_key is unique), never during quiet hours.
CREATE TABLE interrupts (
  id          INTEGER PRIMARY KEY,
  item_key    TEXT NOT NULL UNIQUE,
  text        TEXT NOT NULL,
  episode_id  INTEGER REFERENCES episodes (id),
  due_at      INTEGER,
  created_at  INTEGER NOT NULL,
  sent_at     INTEGER,
  attempts    INTEGER NOT NULL DEFAULT 0,
  last_error  TEXT
) STRICT;
CREATE INDEX interrupts_unsent ON interrupts (id) WHERE sent_at IS NULL;

-- Beliefs put in the owner's review queue by the weekly review (e.g. no evidence for 180 days).
CREATE TABLE review_flags (
  id         INTEGER PRIMARY KEY,
  fact_id    INTEGER NOT NULL REFERENCES facts (id),
  reason     TEXT NOT NULL CHECK (reason IN ('stale')),
  flagged_at INTEGER NOT NULL,
  cleared_at INTEGER
) STRICT;
CREATE UNIQUE INDEX review_flags_open ON review_flags (fact_id, reason) WHERE cleared_at IS NULL;
`,
};
