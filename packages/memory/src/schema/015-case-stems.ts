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
import { scriptTokens } from './012-script-tokens.js';
import type { Migration } from './index.js';

/**
 * Step 15: the SQL of step 12 run again (the same tables, tokenizer and fill), with the fold of
 * this code registered on the connection.
 */
export const caseStems: Migration = {
  version: 15,
  name: 'case stems',
  sql: scriptTokens.sql,
};
