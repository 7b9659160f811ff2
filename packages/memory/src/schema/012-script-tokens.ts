/**
 * Step 12, every script's words in the full-text indexes: `facts_fts` and `episodes_fts` made
 * again with a tokenizer that keeps combining marks inside a token (`categories 'L* N* Co M*'`:
 * a Thai, Lao, Khmer, Burmese or Devanagari word is one token, not pieces cut at its vowel
 * signs), and filled again from the rows through `keel_fold`, which now cuts unspaced scripts into
 * words and holds Hebrew and Arabic words' bare forms beside them. Rows indexed by the earlier fold
 * would not be found by queries folded the new way. The triggers of step 2 are kept (they name the
 * tables, which are the same names).
 *
 * Cost: one `keel_fold` and one FTS5 insert per indexed row, once, inside the migration's
 * transaction at the first open: 3.0 s (2.2-3.7 s over three runs; 0.6 s of it folding) for a
 * 100k-row store of the shared data's turns, 96,506 indexed rows and 18.7 M characters
 * (`bench/fts-rebuild.ts`).
 *
 * @module
 */
import type { Migration } from './index.js';

/** Step 12. */
export const scriptTokens: Migration = {
  version: 12,
  name: 'script tokens',
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
