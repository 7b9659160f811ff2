/**
 * The schema, as numbered steps, one per file, applied in one place ({@link migrate}) and recorded
 * in `schema_migrations`:
 *
 * 1. `001-core.ts`: meta, episodes, facts, the `active_facts` view, evidence, tombstones, journal;
 * 2. `002-full-text-search.ts`: the FTS5 indexes of facts and episodes and their triggers;
 * 3. `003-imports.ts`: one row per import run;
 * 4. `004-owner-session.ts`: sessions, turns, messages, the belief queue;
 * 5. `005-vector-queue.ts`: the queue of rows whose vector must change ({@link VECTOR_QUEUE});
 * 6. `006-think-service.ts`: the think service's runs, diary, interrupts and review flags;
 * 7. `007-vector-queue-gate.ts`: the queue fills only once vectors are in use
 *    ({@link META_VECTOR_FINGERPRINT});
 * 8. `008-reflected-state.ts`: a believed turn, once reflected on, says so (`reflected`);
 * 9. `009-validity.ts`: a fact's validity never ends before it starts;
 * 10. `010-forget-requests.ts`: a model's request to forget waits for the owner;
 * 11. `011-journal-evidence.ts`: the journal's head, journaled redactions, the baseline of earlier
 *     redactions, and the newest recorded digest of each fact;
 * 12. `012-script-tokens.ts`: the full-text indexes made again with every script's words (marks
 *     kept inside tokens, unspaced scripts cut into words, Hebrew/Arabic bare forms).
 * 13. `013-tombstone-content.ts`: a tombstone records its value's folded content, and may bind
 *     content alone across its scope.
 * 14. `014-questions.ts`: a pending question on a belief waits for the owner's answer.
 * 15. `015-case-stems.ts`: the full-text indexes filled again with Russian, Ukrainian and Greek
 *     words' stems beside them.
 * 16. `016-tool-calls.ts`: the tool log (every call the model asked for, run or not) and the
 *     owner's standing "always" grants.
 * 17. `017-reminders.ts`: reminders the owner asked for, and their delivery.
 *
 * A step is never edited once released (`index.test.ts` holds a checksum of each); a change is a
 * new step. A step imports no runtime module: names that runtime code shares with the schema are
 * defined by the step that made them and imported from here.
 *
 * @module
 */

import { KeelError } from '@keel/errors';
import type Database from 'better-sqlite3';
import { core } from './001-core.js';
import { fullTextSearch } from './002-full-text-search.js';
import { imports } from './003-imports.js';
import { ownerSession } from './004-owner-session.js';
import { vectorQueue } from './005-vector-queue.js';
import { thinkService } from './006-think-service.js';
import { vectorQueueGate } from './007-vector-queue-gate.js';
import { reflectedState } from './008-reflected-state.js';
import { validity } from './009-validity.js';
import { forgetRequests } from './010-forget-requests.js';
import { journalEvidence } from './011-journal-evidence.js';
import { scriptTokens } from './012-script-tokens.js';
import { tombstoneContent } from './013-tombstone-content.js';
import { questions } from './014-questions.js';
import { caseStems } from './015-case-stems.js';
import { toolCalls } from './016-tool-calls.js';
import { reminders } from './017-reminders.js';

export { VECTOR_QUEUE } from './005-vector-queue.js';
export { META_VECTOR_FINGERPRINT } from './007-vector-queue-gate.js';

/** One numbered schema step. */
export interface Migration {
  /** Its number, 1 upwards without gaps; recorded in `schema_migrations`. */
  version: number;
  /** A short description, recorded beside the number. */
  name: string;
  /** The statements, run as one script inside the migration transaction. */
  sql: string;
}

/** Every migration, in order. */
export const MIGRATIONS: readonly Migration[] = [
  core,
  fullTextSearch,
  imports,
  ownerSession,
  vectorQueue,
  thinkService,
  vectorQueueGate,
  reflectedState,
  validity,
  forgetRequests,
  journalEvidence,
  scriptTokens,
  tombstoneContent,
  questions,
  caseStems,
  toolCalls,
  reminders,
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
