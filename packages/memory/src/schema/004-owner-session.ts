/**
 * Step 4, the owner session: the one conversation every front door appends to (`sessions`,
 * `turns`, `messages`), the `belief_queue` the think service reads, and the index the prompt's
 * strongest-beliefs block reads without a sort.
 *
 * @module
 */
import type { Migration } from './index.js';

/** Step 4. */
export const ownerSession: Migration = {
  version: 4,
  name: 'owner session',
  sql: `
-- The one owner conversation every front door appends to.
CREATE TABLE sessions (
  id                INTEGER PRIMARY KEY,
  name              TEXT NOT NULL UNIQUE,
  created_at        INTEGER NOT NULL,
  updated_at        INTEGER NOT NULL,
  -- Compaction: a summary of every message up to anchor_through (inclusive).
  anchor            TEXT,
  anchor_through    INTEGER,
  anchor_updated_at INTEGER
) STRICT;

-- One row per turn, whatever its outcome; a failed turn never becomes memory.
CREATE TABLE turns (
  id          INTEGER PRIMARY KEY,
  session_id  INTEGER NOT NULL REFERENCES sessions (id),
  channel     TEXT NOT NULL,
  status      TEXT NOT NULL CHECK (status IN ('running', 'complete', 'failed', 'cancelled')),
  input       TEXT NOT NULL,
  error_code  TEXT,
  error       TEXT,
  provider    TEXT,
  model       TEXT,
  facts_used  TEXT,
  started_at  INTEGER NOT NULL,
  finished_at INTEGER
) STRICT;
CREATE INDEX turns_session ON turns (session_id, id);

-- The model-facing history: only messages of complete turns are written here.
CREATE TABLE messages (
  id         INTEGER PRIMARY KEY,
  session_id INTEGER NOT NULL REFERENCES sessions (id),
  turn_id    INTEGER NOT NULL REFERENCES turns (id),
  role       TEXT NOT NULL CHECK (role IN ('user', 'assistant')),
  content    TEXT NOT NULL,
  tokens     INTEGER NOT NULL CHECK (tokens >= 0),
  created_at INTEGER NOT NULL
) STRICT;
CREATE INDEX messages_session ON messages (session_id, id);

-- Owner turns waiting for the belief gate (read by the think service).
CREATE TABLE belief_queue (
  id         INTEGER PRIMARY KEY,
  episode_id INTEGER NOT NULL UNIQUE REFERENCES episodes (id),
  state      TEXT NOT NULL DEFAULT 'new' CHECK (state IN ('new', 'believed', 'dismissed', 'undecided')),
  gate       TEXT,
  queued_at  INTEGER NOT NULL,
  decided_at INTEGER
) STRICT;
CREATE INDEX belief_queue_state ON belief_queue (state, id);

-- The prompt's static block reads the strongest current beliefs first, without a sort.
CREATE INDEX facts_strength ON facts (scope, confidence DESC, evidence_count DESC, kind, key)
  WHERE status = 'active';
`,
};
