/**
 * Step 15, words in a case of their own: `facts_fts` and `episodes_fts` filled again through
 * `keel_fold`, which now holds each Russian, Ukrainian and Greek word's Snowball stem beside it
 * ("в Сбербанке" → "в Сбербанке сбербанк"; a Greek word's stem without its accents), as it holds a
 * Hebrew or Arabic word's bare forms. Rows indexed by the earlier fold would not be found by a
 * query for another case of the word ("Сбербанк" for "Сбербанке"). The tables are made again
 * exactly as step 12 made them (its tokenizer; the triggers of step 2 name them and are kept).
 *
 * Cost: as step 12's, one `keel_fold` and one FTS5 insert per indexed row, once, at the first
 * open (`bench/fts-rebuild.ts` measures it).
 *
 * @module
 */
import type { Migration } from './index.js';

/** Step 15. */
export const caseStems: Migration = {
  version: 15,
  name: 'case stems',
  sql: `
DROP TABLE facts_fts;
DROP TABLE episodes_fts;
CREATE VIRTUAL TABLE facts_fts USING fts5 (
  key, value, content = '', contentless_delete = 1,
  tokenize = 'porter unicode61 remove_diacritics 2 categories ''L* N* Co M*'''
);
CREATE VIRTUAL TABLE episodes_fts USING fts5 (
  text, speaker, content = '', contentless_delete = 1,
  tokenize = 'porter unicode61 remove_diacritics 2 categories ''L* N* Co M*'''
);
INSERT INTO facts_fts (rowid, key, value)
  SELECT id, keel_fold(kind || ' ' || key), keel_fold(value) FROM facts WHERE status = 'active'
  ORDER BY id;
INSERT INTO episodes_fts (rowid, text, speaker)
  SELECT id, keel_fold(text), keel_fold(coalesce(speaker, '')) FROM episodes
  WHERE kind = 'conversation' ORDER BY id;
INSERT INTO facts_fts (facts_fts) VALUES ('optimize');
INSERT INTO episodes_fts (episodes_fts) VALUES ('optimize');
`,
};
