/**
 * The schema, as numbered migrations applied in one place ({@link migrate}), recorded in
 * `schema_migrations`. A step is never edited once released; a change is a new step.
 *
 * @module
 */

import { KeelError } from '@keel/errors';
import type Database from 'better-sqlite3';
import { EPISODE_KINDS, KINDS, ROLES, SCOPES, SOURCES, STATUSES } from './types.js';
import { VECTOR_QUEUE_GATE_SQL, VECTOR_QUEUE_SQL } from './vectors.js';

/** One numbered schema step. */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

const list = (values: readonly string[]) => values.map((v) => `'${v}'`).join(', ');
const FTS_TOKENIZER = `tokenize = 'porter unicode61 remove_diacritics 2'`;

/** Every migration, in order. */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'core',
    sql: `
CREATE TABLE meta (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
) STRICT;

CREATE TABLE episodes (
  id          INTEGER PRIMARY KEY,
  kind        TEXT NOT NULL CHECK (kind IN (${list(EPISODE_KINDS)})),
  channel     TEXT NOT NULL,
  role        TEXT NOT NULL CHECK (role IN (${list(ROLES)})),
  speaker     TEXT,
  text        TEXT NOT NULL,
  occurred_at INTEGER NOT NULL,
  created_at  INTEGER NOT NULL,
  source_id   TEXT,
  source_doc  TEXT,
  session_key TEXT,
  meta        TEXT,
  redacted_at INTEGER
) STRICT;
CREATE UNIQUE INDEX episodes_provenance ON episodes (source_doc, source_id)
  WHERE source_id IS NOT NULL;
CREATE INDEX episodes_occurred ON episodes (occurred_at);

-- Episodes are the raw record: never deleted; only a purge may redact the text.
CREATE TRIGGER episodes_no_delete BEFORE DELETE ON episodes
BEGIN SELECT RAISE(ABORT, 'episodes are append-only'); END;
CREATE TRIGGER episodes_redact_only BEFORE UPDATE ON episodes
WHEN NOT (new.redacted_at IS NOT NULL AND new.id = old.id AND new.kind = old.kind
          AND new.channel = old.channel AND new.role = old.role
          AND new.occurred_at = old.occurred_at AND new.source_id IS old.source_id
          AND new.source_doc IS old.source_doc)
BEGIN SELECT RAISE(ABORT, 'episodes are append-only (only a purge may redact text)'); END;

CREATE TABLE facts (
  id                INTEGER PRIMARY KEY,
  scope             TEXT NOT NULL CHECK (scope IN (${list(SCOPES)})),
  kind              TEXT NOT NULL CHECK (kind IN (${list(KINDS)})),
  key               TEXT NOT NULL CHECK (length(key) BETWEEN 1 AND 120),
  value             TEXT NOT NULL,
  value_hash        TEXT NOT NULL,
  status            TEXT NOT NULL CHECK (status IN (${list(STATUSES)})),
  source            TEXT NOT NULL CHECK (source IN (${list(SOURCES)})),
  confidence        REAL NOT NULL CHECK (confidence >= 0.0 AND confidence <= 1.0),
  evidence_count    INTEGER NOT NULL DEFAULT 1 CHECK (evidence_count >= 1),
  access_count      INTEGER NOT NULL DEFAULT 0 CHECK (access_count >= 0),
  created_at        INTEGER NOT NULL,
  updated_at        INTEGER NOT NULL,
  last_seen_at      INTEGER NOT NULL,
  last_accessed_at  INTEGER,
  last_decayed_at   INTEGER,
  valid_from        INTEGER,
  valid_to          INTEGER,
  supersedes_id     INTEGER REFERENCES facts (id),
  superseded_by_id  INTEGER REFERENCES facts (id),
  conflicts_with_id INTEGER REFERENCES facts (id),
  status_reason     TEXT,
  purged_at         INTEGER,
  -- The evidence gate, in the schema itself: only the owner's word reaches past 0.95.
  CHECK (source IN ('owner_stated', 'owner_confirmed') OR confidence <= 0.95)
) STRICT;
-- One current value per slot.
CREATE UNIQUE INDEX facts_one_active_per_slot ON facts (scope, kind, key) WHERE status = 'active';
CREATE INDEX facts_slot ON facts (scope, kind, key, status);
CREATE INDEX facts_status ON facts (status, confidence);

-- Every reader of current beliefs goes through this view: an allowlist on 'active'.
CREATE VIEW active_facts AS SELECT * FROM facts WHERE status = 'active';

CREATE TABLE fact_evidence (
  id          INTEGER PRIMARY KEY,
  fact_id     INTEGER NOT NULL REFERENCES facts (id),
  episode_id  INTEGER NOT NULL REFERENCES episodes (id),
  source      TEXT NOT NULL CHECK (source IN (${list(SOURCES)})),
  observed_at INTEGER NOT NULL,
  UNIQUE (fact_id, episode_id)
) STRICT;
CREATE INDEX fact_evidence_episode ON fact_evidence (episode_id);
CREATE TRIGGER fact_evidence_no_update BEFORE UPDATE ON fact_evidence
BEGIN SELECT RAISE(ABORT, 'fact_evidence is append-only'); END;
CREATE TRIGGER fact_evidence_no_delete BEFORE DELETE ON fact_evidence
BEGIN SELECT RAISE(ABORT, 'fact_evidence is append-only'); END;

CREATE TABLE tombstones (
  id         INTEGER PRIMARY KEY,
  scope      TEXT NOT NULL CHECK (scope IN (${list(SCOPES)})),
  kind       TEXT NOT NULL CHECK (kind IN (${list(KINDS)})),
  key        TEXT NOT NULL,
  value_hash TEXT NOT NULL,
  reason     TEXT NOT NULL CHECK (reason IN ('forgotten', 'purged', 'pruned', 'rejected')),
  fact_id    INTEGER REFERENCES facts (id),
  created_at INTEGER NOT NULL,
  lifted_at  INTEGER,
  lifted_by  INTEGER REFERENCES facts (id)
) STRICT;
CREATE INDEX tombstones_slot ON tombstones (scope, kind, key, value_hash) WHERE lifted_at IS NULL;

-- Append-only, hash-chained log of every mutation and every refused write.
CREATE TABLE journal (
  seq          INTEGER PRIMARY KEY,
  at           INTEGER NOT NULL,
  actor        TEXT NOT NULL,
  op           TEXT NOT NULL,
  entity       TEXT NOT NULL,
  entity_id    INTEGER,
  payload      TEXT NOT NULL,
  payload_hash TEXT NOT NULL,
  prev_hash    TEXT NOT NULL,
  hash         TEXT NOT NULL,
  redacted_at  INTEGER
) STRICT;
CREATE INDEX journal_entity ON journal (entity, entity_id);
CREATE TRIGGER journal_no_delete BEFORE DELETE ON journal
BEGIN SELECT RAISE(ABORT, 'journal is append-only'); END;
-- The one permitted change: a purge redacts a payload; the hashes stay, so the chain still verifies.
CREATE TRIGGER journal_redact_only BEFORE UPDATE ON journal
WHEN NOT (new.redacted_at IS NOT NULL AND new.seq = old.seq AND new.at = old.at
          AND new.actor = old.actor AND new.op = old.op AND new.entity = old.entity
          AND new.entity_id IS old.entity_id AND new.payload_hash = old.payload_hash
          AND new.prev_hash = old.prev_hash AND new.hash = old.hash)
BEGIN SELECT RAISE(ABORT, 'journal is append-only'); END;
`,
  },
  {
    version: 2,
    name: 'full-text search',
    sql: `
-- Contentless FTS5 indexes kept in sync by triggers: a row cannot be written without being indexed.
-- facts_fts holds exactly the active facts; episodes_fts the conversation episodes (not keel's
-- own command records or mechanism events).
CREATE VIRTUAL TABLE facts_fts USING fts5 (
  key, value, content = '', contentless_delete = 1, ${FTS_TOKENIZER}
);
CREATE VIRTUAL TABLE episodes_fts USING fts5 (
  text, speaker, content = '', contentless_delete = 1, ${FTS_TOKENIZER}
);

CREATE TRIGGER facts_fts_insert AFTER INSERT ON facts WHEN new.status = 'active'
BEGIN
  INSERT INTO facts_fts (rowid, key, value)
  VALUES (new.id, keel_fold(new.kind || ' ' || new.key), keel_fold(new.value));
END;
CREATE TRIGGER facts_fts_update AFTER UPDATE OF status, kind, key, value ON facts
BEGIN
  DELETE FROM facts_fts WHERE rowid = old.id AND old.status = 'active';
  INSERT INTO facts_fts (rowid, key, value)
  SELECT new.id, keel_fold(new.kind || ' ' || new.key), keel_fold(new.value)
  WHERE new.status = 'active';
END;

CREATE TRIGGER episodes_fts_insert AFTER INSERT ON episodes WHEN new.kind = 'conversation'
BEGIN
  INSERT INTO episodes_fts (rowid, text, speaker)
  VALUES (new.id, keel_fold(new.text), keel_fold(coalesce(new.speaker, '')));
END;
CREATE TRIGGER episodes_fts_update AFTER UPDATE OF text ON episodes WHEN new.kind = 'conversation'
BEGIN
  DELETE FROM episodes_fts WHERE rowid = old.id;
  INSERT INTO episodes_fts (rowid, text, speaker)
  VALUES (new.id, keel_fold(new.text), keel_fold(coalesce(new.speaker, '')));
END;
`,
  },
  {
    version: 3,
    name: 'imports',
    sql: `
-- One row per import run, so an interrupted import is visible and a rerun can say what it added.
CREATE TABLE imports (
  id          INTEGER PRIMARY KEY,
  path        TEXT NOT NULL,
  format      TEXT NOT NULL,
  file_sha256 TEXT NOT NULL,
  started_at  INTEGER NOT NULL,
  finished_at INTEGER,
  turns_total INTEGER NOT NULL,
  turns_added INTEGER NOT NULL DEFAULT 0
) STRICT;
`,
  },
  {
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
  },
  {
    version: 5,
    name: 'vector queue',
    // The vec0 tables themselves are created when an embedder is first bound (their dimension
    // depends on it; see vectors.ts). This step adds the queue every writer fills.
    sql: VECTOR_QUEUE_SQL,
  },
  {
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
  },
  {
    version: 7,
    name: 'vector queue only with vectors',
    // Step 5's triggers again, filling the queue only once an embedder has been bound (the vector
    // fingerprint is in meta); binding one queues every row written before. See vectors.ts.
    sql: VECTOR_QUEUE_GATE_SQL,
  },
];

/** The newest schema version this code knows. */
export const LATEST_VERSION = MIGRATIONS[MIGRATIONS.length - 1]!.version;

/** The schema version a database is at (0 for a new file). */
export function schemaVersion(db: Database.Database): number {
  const table = db
    .prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'`)
    .get();
  if (!table) return 0;
  const row = db.prepare('SELECT max(version) AS v FROM schema_migrations').get() as {
    v: number | null;
  };
  return row.v ?? 0;
}

/**
 * Applies every pending migration up to `to` (default: the newest) in one transaction: either all
 * of them are applied or none is.
 *
 * @param now - ms since epoch recorded as `applied_at`.
 * @returns the versions applied.
 * @throws KeelError `SCHEMA_FROM_FUTURE` when the database is newer than this code.
 */
export function migrate(db: Database.Database, now: number, to: number = LATEST_VERSION): number[] {
  const run = db.transaction(() => {
    db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version    INTEGER PRIMARY KEY,
      name       TEXT NOT NULL,
      applied_at INTEGER NOT NULL
    ) STRICT`);
    const current = schemaVersion(db);
    if (current > LATEST_VERSION) {
      throw new KeelError(
        'SCHEMA_FROM_FUTURE',
        `database schema version ${current} is newer than this keel knows (${LATEST_VERSION})`,
        { details: { databaseVersion: current, codeVersion: LATEST_VERSION } },
      );
    }
    const applied: number[] = [];
    const record = db.prepare(
      'INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)',
    );
    for (const m of MIGRATIONS) {
      if (m.version <= current || m.version > to) continue;
      db.exec(m.sql);
      record.run(m.version, m.name, now);
      applied.push(m.version);
    }
    return applied;
  });
  return run.immediate();
}
