/**
 * What replay needs: the rows each change wrote, recorded in the journal beside the decision.
 *
 * The transitions (`facts/transitions.ts`) and tombstones (`facts/tombstones.ts`) note every row
 * they are about to change ({@link noteChange}) or have just inserted ({@link noteInsert}). The
 * notes live in a TEMP table, so a rolled-back write leaves none. When the decision is journaled
 * (`appendJournal` of a fact or store entry), the notes are taken ({@link takeChanges}) and
 * written first as a `state` entry: for each row its digest before, its digest now, and the row
 * itself. `keel verify` replays these (see `replay.ts`): a row whose digest is not the journal's
 * newest, a row the journal never recorded, or a row that changed between two records, is a
 * break.
 *
 * A row's digest ({@link rowDigest}) is the first 128 bits of sha256 over the table's name and its
 * journaled columns ({@link JOURNALED_COLUMNS}) as a JSON array. Recall's side effect on a fact
 * (`access_count`, `last_accessed_at`) is not journaled and not in the digest. A record holds the
 * whole row the first time the journal records it and, for a fact recorded before, only the
 * columns that changed (a nightly decay of a thousand beliefs records two columns of each).
 *
 * @module
 */

import { sha256 } from '@keel/language';
import type Database from 'better-sqlite3';
import { stmt } from '../context.js';
import type { Fact } from '../types.js';
import { journalHead } from './head.js';

/** The tables whose rows the journal records. */
export type JournaledTable = 'facts' | 'fact_evidence' | 'tombstones';

/** The columns of each journaled table that the journal records, in digest order. */
export const JOURNALED_COLUMNS: Readonly<Record<JournaledTable, readonly string[]>> = {
  facts: [
    'id',
    'scope',
    'kind',
    'key',
    'value',
    'value_hash',
    'status',
    'source',
    'confidence',
    'evidence_count',
    'created_at',
    'updated_at',
    'last_seen_at',
    'last_decayed_at',
    'valid_from',
    'valid_to',
    'supersedes_id',
    'superseded_by_id',
    'conflicts_with_id',
    'status_reason',
    'purged_at',
  ],
  fact_evidence: ['id', 'fact_id', 'episode_id', 'source', 'observed_at'],
  tombstones: [
    'id',
    'scope',
    'kind',
    'key',
    'value_hash',
    'reason',
    'fact_id',
    'created_at',
    'lifted_at',
    'lifted_by',
  ],
};

/**
 * The digest of a row of `table`: the first 32 hex digits (128 bits) of sha256 over
 * `[table, ...journaled columns]` as JSON (a column the row lacks counts as null).
 */
export function rowDigest(table: JournaledTable, row: object): string {
  const r = row as Readonly<Record<string, unknown>>;
  return sha256(
    JSON.stringify([table, ...JOURNALED_COLUMNS[table].map((c) => r[c] ?? null)]),
  ).slice(0, 32);
}

/** One row as a `state` entry records it. */
export interface RecordedRow {
  /** The table. */
  t: JournaledTable;
  id: number;
  /** The row's digest before the change; null for a row the change inserted. */
  before: string | null;
  /** The row's digest after the change. */
  sha256: string;
  /**
   * The row after the change: its journaled columns (null ones left out) the first time the
   * journal records the row; for a fact the journal recorded before, the columns that changed
   * (a column that became null is there as null). Beside a fact's `value`, `value_sha256` (sha256
   * of the value, so the value can be checked once a purge has redacted it from this record).
   */
  row: Record<string, unknown>;
}

const PENDING = `CREATE TEMP TABLE IF NOT EXISTS journal_pending (
  tbl        TEXT NOT NULL,
  id         INTEGER NOT NULL,
  before     TEXT,
  before_row TEXT,
  PRIMARY KEY (tbl, id)
)`;

/** The journaled columns of `row`, as an object. */
const journaled = (table: JournaledTable, row: Readonly<Record<string, unknown>>) =>
  Object.fromEntries(JOURNALED_COLUMNS[table].map((c) => [c, row[c] ?? null]));

function pending(db: Database.Database): void {
  stmt(db, PENDING).run();
}

/**
 * Notes that row `id` of `table` is about to change (call before the write): its digest now is
 * kept as the change's `before`, once per journal entry.
 */
export function noteChange(db: Database.Database, table: JournaledTable, id: number): void {
  pending(db);
  if (stmt(db, 'SELECT 1 FROM temp.journal_pending WHERE tbl = ? AND id = ?').get(table, id)) {
    return;
  }
  const row = stmt(db, `SELECT * FROM ${table} WHERE id = ?`).get(id) as
    | Record<string, unknown>
    | undefined;
  stmt(
    db,
    'INSERT INTO temp.journal_pending (tbl, id, before, before_row) VALUES (?, ?, ?, ?)',
  ).run(
    table,
    id,
    row ? rowDigest(table, row) : null,
    row ? JSON.stringify(journaled(table, row)) : null,
  );
}

/** Notes that row `id` of `table` was just inserted (its `before` is null). */
export function noteInsert(db: Database.Database, table: JournaledTable, id: number): void {
  pending(db);
  stmt(db, 'INSERT OR IGNORE INTO temp.journal_pending (tbl, id, before) VALUES (?, ?, NULL)').run(
    table,
    id,
  );
}

/**
 * Takes the noted changes, in the order they were noted: each row that exists and differs from its
 * `before`, as the journal records it. Afterwards nothing is noted.
 */
export function takeChanges(db: Database.Database): RecordedRow[] {
  pending(db);
  const notes = stmt(
    db,
    'SELECT tbl, id, before, before_row FROM temp.journal_pending ORDER BY rowid',
  ).all() as {
    tbl: JournaledTable;
    id: number;
    before: string | null;
    before_row: string | null;
  }[];
  if (notes.length === 0) return [];
  stmt(db, 'DELETE FROM temp.journal_pending').run();
  const recordedBefore = stmt(db, 'SELECT 1 FROM journal_facts WHERE fact_id = ?');
  const out: RecordedRow[] = [];
  for (const n of notes) {
    const current = stmt(db, `SELECT * FROM ${n.tbl} WHERE id = ?`).get(n.id) as
      | Record<string, unknown>
      | undefined;
    if (!current) continue;
    const digest = rowDigest(n.tbl, current);
    if (digest === n.before) continue;
    const after = journaled(n.tbl, current);
    const was =
      n.tbl === 'facts' && n.before_row !== null && recordedBefore.get(n.id)
        ? (JSON.parse(n.before_row) as Record<string, unknown>)
        : null;
    const row: Record<string, unknown> = was
      ? Object.fromEntries(Object.entries(after).filter(([c, v]) => was[c] !== v))
      : Object.fromEntries(Object.entries(after).filter(([, v]) => v !== null));
    if ('value' in row) row.value_sha256 = sha256(String(current.value));
    out.push({ t: n.tbl, id: n.id, before: n.before, sha256: digest, row });
  }
  return out;
}

/**
 * Records, for recall's check, that entry `seq` holds the newest digest of each fact in `rows`
 * (the `journal_facts` table; its triggers accept only the newest entry). A fact whose recorded
 * `before` is not the digest the journal last held for it — it was changed outside the journal
 * since — or that the journal first records as already existing although it was written after
 * replay records began, is marked `broken`, for good: a later decision does not make it trusted.
 */
export function indexFacts(db: Database.Database, seq: number, rows: readonly RecordedRow[]): void {
  const facts = rows.filter((r) => r.t === 'facts');
  if (facts.length === 0) return;
  const firstRecorded = journalHead(db)?.replay.facts ?? 1;
  const known = stmt(db, 'SELECT sha256, broken FROM journal_facts WHERE fact_id = ?');
  const upsert = stmt(
    db,
    `INSERT INTO journal_facts (fact_id, seq, sha256, broken) VALUES (?, ?, ?, ?)
     ON CONFLICT (fact_id) DO UPDATE SET seq = excluded.seq, sha256 = excluded.sha256,
       broken = excluded.broken`,
  );
  for (const r of facts) {
    const k = known.get(r.id) as { sha256: string; broken: number } | undefined;
    const broken = k
      ? k.broken === 1 || r.before !== k.sha256
      : r.before !== null && r.id >= firstRecorded;
    upsert.run(r.id, seq, r.sha256, broken ? 1 : 0);
  }
}

/**
 * The facts among `facts` whose row the journal does not explain: its digest is not the one the
 * journal last recorded for it (`journal_facts`), that record is not backed by the journal entry
 * it names (the entry is gone, its payload was altered, or it records another digest: the index
 * was rewritten behind keel's back), it was once found changed outside the journal (`broken`),
 * its evidence rows are not the ones it counts (evidence deleted or planted), or the journal never
 * recorded it although it was written after replay records began (a fact from before then, never
 * changed since, is taken as it is). Recall and the prompt's standing beliefs leave these out;
 * `keel verify` names each.
 *
 * @returns their ids.
 */
export function unexplainedFacts(db: Database.Database, facts: readonly Fact[]): Set<number> {
  const out = new Set<number>();
  if (facts.length === 0) return out;
  const firstRecorded = journalHead(db)?.replay.facts ?? 1;
  const ids = JSON.stringify(facts.map((f) => f.id));
  // One query for all of them (a primary-key lookup each), not one per fact.
  const recorded = new Map(
    (
      stmt(
        db,
        `SELECT jf.fact_id AS id, jf.seq, jf.sha256, jf.broken FROM json_each(?) j
         CROSS JOIN journal_facts jf ON jf.fact_id = j.value`,
      ).all(ids) as { id: number; seq: number; sha256: string; broken: number }[]
    ).map((r) => [r.id, r]),
  );
  const evidence = new Map(
    (
      stmt(
        db,
        `SELECT e.fact_id AS id, count(*) AS n FROM json_each(?) j
         CROSS JOIN fact_evidence e ON e.fact_id = j.value GROUP BY e.fact_id`,
      ).all(ids) as { id: number; n: number }[]
    ).map((r) => [r.id, r.n]),
  );
  const backed = backedDigests(db, [...new Set([...recorded.values()].map((r) => r.seq))]);
  for (const f of facts) {
    const r = recorded.get(f.id);
    const explained = r
      ? r.broken === 0 &&
        r.sha256 === rowDigest('facts', f) &&
        backed.get(r.seq)?.get(f.id) === r.sha256
      : f.id < firstRecorded;
    if (!explained || (evidence.get(f.id) ?? 0) !== f.evidence_count) out.add(f.id);
  }
  return out;
}

/**
 * The fact digests each of the entries `seqs` records, by entry and fact id: only for an entry
 * whose payload is the one its chain covers (or was redacted through a journaled redaction,
 * which verify checks); an entry that is gone or altered backs nothing.
 */
function backedDigests(
  db: Database.Database,
  seqs: readonly number[],
): Map<number, Map<number, string>> {
  const out = new Map<number, Map<number, string>>();
  if (seqs.length === 0) return out;
  const rows = stmt(
    db,
    `SELECT j.seq, j.payload, j.payload_hash, j.redacted_at FROM json_each(?) s
     CROSS JOIN journal j ON j.seq = s.value`,
  ).all(JSON.stringify(seqs)) as {
    seq: number;
    payload: string;
    payload_hash: string;
    redacted_at: number | null;
  }[];
  for (const e of rows) {
    if (e.redacted_at === null && sha256(e.payload) !== e.payload_hash) continue;
    const digests = new Map<number, string>();
    try {
      const p = JSON.parse(e.payload) as { rows?: unknown };
      for (const r of Array.isArray(p.rows) ? p.rows : []) {
        const x = r as Partial<RecordedRow>;
        if (x.t === 'facts' && typeof x.id === 'number' && typeof x.sha256 === 'string') {
          digests.set(x.id, x.sha256);
        }
      }
    } catch {
      // not a state record: backs nothing
    }
    out.set(e.seq, digests);
  }
  return out;
}
