/**
 * Step 9, validity that is never nonsense: a fact's validity interval never ends before it starts.
 * SQLite cannot add a CHECK to an existing table without rebuilding it (and `facts` carries the
 * full-text and vector triggers and the foreign keys of evidence, tombstones and review flags), so
 * the rule is kept by two triggers that refuse an insert or update leaving `valid_to` before
 * `valid_from` — the same refusal a CHECK would make. Rows written before this step with such an
 * interval (a backdated write once ended the value it replaced before that value began) are
 * mended first: their interval ends where it starts.
 *
 * @module
 */
import type { Migration } from './index.js';

/** Step 9. */
export const validity: Migration = {
  version: 9,
  name: 'validity',
  sql: `
UPDATE facts SET valid_to = valid_from
WHERE valid_to IS NOT NULL AND valid_from IS NOT NULL AND valid_to < valid_from;
CREATE TRIGGER facts_validity_insert BEFORE INSERT ON facts
WHEN new.valid_to IS NOT NULL AND new.valid_from IS NOT NULL AND new.valid_to < new.valid_from
BEGIN SELECT RAISE(ABORT, 'CHECK constraint failed: valid_to >= valid_from'); END;
CREATE TRIGGER facts_validity_update BEFORE UPDATE OF valid_from, valid_to ON facts
WHEN new.valid_to IS NOT NULL AND new.valid_from IS NOT NULL AND new.valid_to < new.valid_from
BEGIN SELECT RAISE(ABORT, 'CHECK constraint failed: valid_to >= valid_from'); END;
`,
};
