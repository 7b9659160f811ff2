/**
 * Step 11, the journal is evidence:
 *
 * - `journal_head`: the chain's head (the newest entry's sequence and hash), kept outside the
 *   journal so that deleting entries does not delete it. Every append moves it (a trigger on the
 *   journal), nothing else may: its own triggers refuse an insert, a delete, and any change that is
 *   not the next entry of the journal. It also records, once, where replay begins: the first entry
 *   and the first fact, evidence, tombstone and episode ids written by code that journals what
 *   replay needs (1 for a store created at this version; the next ids for an older store).
 * - A journal entry must chain to the head (`prev_hash`, `seq`).
 * - A journal payload, or an episode's text, changes only to the hash that the newest redaction
 *   entry of that row recorded (op `redact`, entity `journal` or `episode`, `entity_id` the row):
 *   a purge or a compaction appends the redaction entry first, then rewrites the row.
 * - `journal_baseline`: the hashes of payloads and episode texts already redacted when this step
 *   ran (before redactions were journaled), fixed from then on.
 * - `journal_facts`: for each fact row, the newest state entry that recorded it, the row's digest
 *   there, and whether the row was ever found changed outside the journal (`broken`, which never
 *   clears); written only with that entry (recall checks a fact against it).
 *
 * @module
 */
import type { Migration } from './index.js';

/** The hash that precedes the first journal entry (as the journal module defines it). */
const GENESIS = '0'.repeat(64);

/** Step 11. */
export const journalEvidence: Migration = {
  version: 11,
  name: 'journal evidence',
  sql: `
CREATE TABLE journal_head (
  id               INTEGER PRIMARY KEY CHECK (id = 1),
  seq              INTEGER NOT NULL,
  hash             TEXT NOT NULL,
  replay_seq       INTEGER NOT NULL,
  replay_fact      INTEGER NOT NULL,
  replay_evidence  INTEGER NOT NULL,
  replay_tombstone INTEGER NOT NULL,
  replay_episode   INTEGER NOT NULL
) STRICT;
INSERT INTO journal_head
  SELECT 1, coalesce(max(seq), 0),
         coalesce((SELECT hash FROM journal ORDER BY seq DESC LIMIT 1), '${GENESIS}'),
         coalesce(max(seq), 0) + 1,
         (SELECT coalesce(max(id), 0) + 1 FROM facts),
         (SELECT coalesce(max(id), 0) + 1 FROM fact_evidence),
         (SELECT coalesce(max(id), 0) + 1 FROM tombstones),
         (SELECT coalesce(max(id), 0) + 1 FROM episodes)
  FROM journal;
CREATE TRIGGER journal_head_no_insert BEFORE INSERT ON journal_head
BEGIN SELECT RAISE(ABORT, 'the journal head moves only with an append'); END;
CREATE TRIGGER journal_head_no_delete BEFORE DELETE ON journal_head
BEGIN SELECT RAISE(ABORT, 'the journal head moves only with an append'); END;
CREATE TRIGGER journal_head_append_only BEFORE UPDATE ON journal_head
WHEN NOT (new.id = old.id AND new.seq = old.seq + 1
          AND new.hash IS (SELECT hash FROM journal WHERE seq = new.seq)
          AND new.replay_seq = old.replay_seq AND new.replay_fact = old.replay_fact
          AND new.replay_evidence = old.replay_evidence
          AND new.replay_tombstone = old.replay_tombstone
          AND new.replay_episode = old.replay_episode)
BEGIN SELECT RAISE(ABORT, 'the journal head moves only with an append'); END;

-- Each entry chains to the head, and moves it.
CREATE TRIGGER journal_chains_to_head BEFORE INSERT ON journal
WHEN NOT EXISTS (SELECT 1 FROM journal_head
                 WHERE seq + 1 = new.seq AND hash = new.prev_hash)
BEGIN SELECT RAISE(ABORT, 'journal is append-only (an entry chains to the head)'); END;
CREATE TRIGGER journal_head_follows AFTER INSERT ON journal
BEGIN UPDATE journal_head SET seq = new.seq, hash = new.hash WHERE id = 1; END;

-- A payload changes only to what the newest redaction entry of that entry recorded.
CREATE TRIGGER journal_redaction_journaled BEFORE UPDATE OF payload ON journal
WHEN new.payload IS NOT old.payload
 AND keel_sha256(new.payload) IS NOT (
   SELECT json_extract(r.payload, '$.payload_sha256') FROM journal r
   WHERE r.entity = 'journal' AND r.entity_id = old.seq AND r.op = 'redact'
   ORDER BY r.seq DESC LIMIT 1)
BEGIN SELECT RAISE(ABORT, 'journal is append-only (a payload changes only with its redaction entry)'); END;

-- So does an episode's text.
CREATE TRIGGER episodes_redaction_journaled BEFORE UPDATE OF text ON episodes
WHEN new.text IS NOT old.text
 AND keel_sha256(new.text) IS NOT (
   SELECT json_extract(r.payload, '$.text_sha256') FROM journal r
   WHERE r.entity = 'episode' AND r.entity_id = old.id AND r.op = 'redact'
   ORDER BY r.seq DESC LIMIT 1)
BEGIN SELECT RAISE(ABORT, 'episodes are append-only (only a journaled purge may redact text)'); END;

CREATE TABLE journal_baseline (
  entity TEXT NOT NULL CHECK (entity IN ('journal', 'episode')),
  id     INTEGER NOT NULL,
  sha256 TEXT NOT NULL,
  PRIMARY KEY (entity, id)
) STRICT, WITHOUT ROWID;
INSERT INTO journal_baseline (entity, id, sha256)
  SELECT 'journal', seq, keel_sha256(payload) FROM journal WHERE redacted_at IS NOT NULL;
INSERT INTO journal_baseline (entity, id, sha256)
  SELECT 'episode', id, keel_sha256(text) FROM episodes WHERE redacted_at IS NOT NULL;
CREATE TRIGGER journal_baseline_fixed_insert BEFORE INSERT ON journal_baseline
BEGIN SELECT RAISE(ABORT, 'the journal baseline is fixed'); END;
CREATE TRIGGER journal_baseline_fixed_update BEFORE UPDATE ON journal_baseline
BEGIN SELECT RAISE(ABORT, 'the journal baseline is fixed'); END;
CREATE TRIGGER journal_baseline_fixed_delete BEFORE DELETE ON journal_baseline
BEGIN SELECT RAISE(ABORT, 'the journal baseline is fixed'); END;

CREATE TABLE journal_facts (
  fact_id INTEGER PRIMARY KEY,
  seq     INTEGER NOT NULL,
  sha256  TEXT NOT NULL,
  broken  INTEGER NOT NULL DEFAULT 0 CHECK (broken IN (0, 1))
) STRICT;
CREATE TRIGGER journal_facts_with_entry BEFORE INSERT ON journal_facts
WHEN new.seq IS NOT (SELECT seq FROM journal_head)
BEGIN SELECT RAISE(ABORT, 'journal_facts is written only with its journal entry'); END;
CREATE TRIGGER journal_facts_forward BEFORE UPDATE ON journal_facts
WHEN NOT (new.fact_id = old.fact_id AND new.seq > old.seq AND new.broken >= old.broken
          AND new.seq IS (SELECT seq FROM journal_head))
BEGIN SELECT RAISE(ABORT, 'journal_facts is written only with its journal entry'); END;
CREATE TRIGGER journal_facts_no_delete BEFORE DELETE ON journal_facts
BEGIN SELECT RAISE(ABORT, 'journal_facts is written only with its journal entry'); END;
`,
};
