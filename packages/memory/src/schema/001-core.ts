/**
 * Step 1, the core: `meta`; `episodes`, the raw record (append-only; only a purge may redact the
 * text); `facts` with one active row per slot and the evidence gate as a CHECK; the `active_facts`
 * view every reader of current beliefs goes through; `fact_evidence` (append-only); `tombstones`;
 * and the hash-chained `journal` (append-only; a purge may only redact a payload).
 *
 * The vocabularies in the CHECK constraints are written out as released: `types.ts` may grow, this
 * step may not (a new value needs a new step; `001-core.test.ts` fails until there is one).
 *
 * @module
 */
import type { Migration } from './index.js';

/** Step 1. */
export const core: Migration = {
  version: 1,
  name: 'core',
  sql: `
CREATE TABLE meta (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
) STRICT;

CREATE TABLE episodes (
  id          INTEGER PRIMARY KEY,
  kind        TEXT NOT NULL CHECK (kind IN ('conversation', 'command', 'mechanism')),
  channel     TEXT NOT NULL,
  role        TEXT NOT NULL CHECK (role IN ('owner', 'assistant', 'other', 'keel')),
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
  scope             TEXT NOT NULL CHECK (scope IN ('owner', 'agent')),
  kind              TEXT NOT NULL CHECK (kind IN ('preference', 'profile', 'fact', 'goal', 'relationship', 'constraint', 'project', 'setting', 'learned', 'note')),
  key               TEXT NOT NULL CHECK (length(key) BETWEEN 1 AND 120),
  value             TEXT NOT NULL,
  value_hash        TEXT NOT NULL,
  status            TEXT NOT NULL CHECK (status IN ('active', 'pending', 'superseded', 'retracted', 'rejected')),
  source            TEXT NOT NULL CHECK (source IN ('owner_stated', 'owner_confirmed', 'observed', 'inferred', 'imported', 'system')),
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
  source      TEXT NOT NULL CHECK (source IN ('owner_stated', 'owner_confirmed', 'observed', 'inferred', 'imported', 'system')),
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
  scope      TEXT NOT NULL CHECK (scope IN ('owner', 'agent')),
  kind       TEXT NOT NULL CHECK (kind IN ('preference', 'profile', 'fact', 'goal', 'relationship', 'constraint', 'project', 'setting', 'learned', 'note')),
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
};
