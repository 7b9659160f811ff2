/**
 * Step 2, full-text search: contentless FTS5 indexes of the active facts and the conversation
 * episodes, kept in sync by triggers (so no row can be written without being indexed). The
 * triggers call `keel_fold`, the SQL function `db.ts` registers on every connection.
 *
 * @module
 */
import type { Migration } from './index.js';

/** Step 2. */
export const fullTextSearch: Migration = {
  version: 2,
  name: 'full-text search',
  sql: `
-- Contentless FTS5 indexes kept in sync by triggers: a row cannot be written without being indexed.
-- facts_fts holds exactly the active facts; episodes_fts the conversation episodes (not keel's
-- own command records or mechanism events).
CREATE VIRTUAL TABLE facts_fts USING fts5 (
  key, value, content = '', contentless_delete = 1, tokenize = 'porter unicode61 remove_diacritics 2'
);
CREATE VIRTUAL TABLE episodes_fts USING fts5 (
  text, speaker, content = '', contentless_delete = 1, tokenize = 'porter unicode61 remove_diacritics 2'
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
};
