/**
 * Step 3, imports: one row per import run, so an interrupted import is visible and a rerun can say
 * what it added.
 *
 * @module
 */
import type { Migration } from './index.js';

/** Step 3. */
export const imports: Migration = {
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
};
