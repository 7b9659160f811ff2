/**
 * `keel verify`: walks the journal's hash chain and its head, compares the journal's end with its
 * anchor outside the file (`journal/anchor.ts`) and with a head the owner kept, checks the schema's
 * triggers against the ones the migrations make, replays the journal against the tables it
 * explains (facts, evidence, tombstones, episodes; decision entries against their state records),
 * and checks the store's invariants, reporting every break. Nothing is skipped silently and nothing
 * is repaired here. What it cannot detect is said in {@link CANNOT_DETECT}: a writer who rewrites
 * the whole file and its anchor consistently.
 *
 * @module
 */
import { countRows, type StoreContext } from './context.js';
import { openDatabase } from './db.js';
import { checkAnchor, compareHead, type HeadMark, lastEntry } from './journal/anchor.js';
import { journalHead } from './journal/head.js';
import {
  type ChainCheckpoint,
  checkpointHolds,
  type JournalWalk,
  verifyJournal,
} from './journal/journal.js';
import { CANNOT_DETECT, type ReplayReport, replayJournal } from './journal/replay.js';
import { LATEST_VERSION, schemaVersion } from './schema/index.js';
import { checkVectors } from './vectors/index.js';

/** One broken invariant. */
export interface VerifyProblem {
  check: string;
  detail: string;
  /** The command that mends it, when there is one (e.g. `keel reindex`). */
  fix?: string;
}

/** What {@link verify} checks the journal's end against, besides the file itself. */
export interface VerifyOptions {
  /** The journal's anchor file (`keel.db.anchor`); none: not checked (an in-memory store). */
  anchorFile?: string;
  /**
   * A head the owner kept (`keel verify --head` printed it): the journal must still hold that
   * entry, with that hash (it may go on past it).
   */
  against?: HeadMark;
  /**
   * Check incrementally from this checkpoint (`keel doctor`; see `journal/checkpoint.ts`): the
   * chain is hashed from the entry after it, and SQLite's quick check stands in for its full
   * integrity check. Ignored (the check is whole) when the checkpoint's entry is no longer there
   * with its hash.
   */
  since?: ChainCheckpoint;
  /**
   * The caller has just had SQLite's quick check pass on this file (`keel doctor` opens the store
   * with it): an incremental check then does not run it again.
   */
  quickChecked?: boolean;
}

/** The fix named for a journal that does not end where a head kept outside the file says. */
export const ANCHOR_FIX =
  'restore keel.db from a backup taken before the change (keel restore <file> --force), then keel recover';

/** The verification report. */
export interface VerifyReport {
  ok: boolean;
  schemaVersion: number;
  /** The chain walk: entries, breaks, and the first entry hashed again (1: the whole chain). */
  journal: JournalWalk;
  /** `whole`, or `incremental` from a checkpoint ({@link VerifyOptions.since}). */
  scope: 'whole' | 'incremental';
  problems: VerifyProblem[];
  counts: { facts: number; active: number; episodes: number; tombstones: number };
  /** The chain's head as `journal_head` keeps it (null when it is missing: a break). */
  head: { seq: number; hash: string } | null;
  /** The journal's newest entry (seq 0: empty): what `keel verify --head` prints. */
  end: HeadMark;
  /** The anchor file checked, or null when none was (an in-memory store). */
  anchorFile: string | null;
  /**
   * What replay covered: the first entry replayed (`from`; entries before it predate replay
   * records), the entries replayed, the rows checked, and the rows written before replay records
   * began and never changed since (`predate`, not checked). Its breaks are in `problems`
   * (check `replay`).
   */
  replay: Omit<ReplayReport, 'problems'>;
  /** What verify cannot detect, in words. */
  cannotDetect: string;
}

const count = (ctx: StoreContext, sql: string) => countRows(ctx.db, sql);

/**
 * Runs every check. Read-only: nothing is repaired here (a problem names its fix).
 *
 * @returns the report; `ok` is false when any problem was found.
 */
export function verify(ctx: StoreContext, options: VerifyOptions = {}): VerifyReport {
  const problems: VerifyProblem[] = [];
  const add = (check: string, detail: string) => problems.push({ check, detail });

  const since = options.since && checkpointHolds(ctx.db, options.since) ? options.since : undefined;
  const check = since ? 'quick_check' : 'integrity_check';
  if (!(since && options.quickChecked)) {
    const integrity = ctx.db.pragma(check) as Record<string, string>[];
    for (const r of integrity) if (r[check] !== 'ok') add('sqlite_integrity', r[check]!);
  }
  const fk = ctx.db.pragma('foreign_key_check') as {
    table: string;
    rowid: number;
    parent: string;
  }[];
  for (const r of fk)
    add('foreign_keys', `${r.table} row ${r.rowid} points at a missing ${r.parent}`);

  const version = schemaVersion(ctx.db);
  if (version !== LATEST_VERSION)
    add('schema', `schema version ${version}, expected ${LATEST_VERSION}`);

  for (const r of ctx.db
    .prepare(
      `SELECT scope, kind, key, count(*) AS n FROM facts WHERE status = 'active'
       GROUP BY scope, kind, key HAVING n > 1`,
    )
    .all() as { scope: string; kind: string; key: string; n: number }[]) {
    add('one_active_per_slot', `${r.scope}:${r.kind}/${r.key} has ${r.n} active rows`);
  }
  for (const r of ctx.db
    .prepare(
      `SELECT f.id, f.evidence_count AS claimed, (SELECT count(*) FROM fact_evidence e WHERE e.fact_id = f.id) AS actual
       FROM facts f WHERE claimed <> actual`,
    )
    .all() as { id: number; claimed: number; actual: number }[]) {
    add('evidence_count', `fact ${r.id} claims ${r.claimed} pieces of evidence, has ${r.actual}`);
  }
  for (const r of ctx.db
    .prepare(
      `SELECT id, confidence, source FROM facts
       WHERE source NOT IN ('owner_stated', 'owner_confirmed') AND confidence > 0.95`,
    )
    .all() as { id: number; confidence: number; source: string }[]) {
    add('evidence_gate', `fact ${r.id} (${r.source}) holds confidence ${r.confidence} > 0.95`);
  }
  // Supersession links: a superseded row names an existing successor, and a row that claims to
  // supersede another is that row's named successor. (A successor need not link back: a merged
  // duplicate or a resolved pending row is superseded by a row whose own predecessor is another.)
  for (const r of ctx.db
    .prepare(
      `SELECT a.id FROM facts a LEFT JOIN facts b ON b.id = a.superseded_by_id
       WHERE a.status = 'superseded' AND b.id IS NULL`,
    )
    .all() as { id: number }[]) {
    add('supersession_chain', `fact ${r.id} is superseded but names no existing successor`);
  }
  for (const r of ctx.db
    .prepare(
      `SELECT b.id, b.supersedes_id AS prev FROM facts b JOIN facts a ON a.id = b.supersedes_id
       WHERE a.superseded_by_id IS NOT b.id`,
    )
    .all() as { id: number; prev: number }[]) {
    add(
      'supersession_chain',
      `fact ${r.id} claims to supersede fact ${r.prev}, which names another successor`,
    );
  }
  const missingFts = ctx.db
    .prepare('SELECT id FROM active_facts EXCEPT SELECT rowid FROM facts_fts')
    .all() as { id: number }[];
  for (const r of missingFts) add('facts_fts', `active fact ${r.id} is not in the full-text index`);
  const extraFts = ctx.db
    .prepare('SELECT rowid AS id FROM facts_fts EXCEPT SELECT id FROM active_facts')
    .all() as { id: number }[];
  for (const r of extraFts) add('facts_fts', `index holds fact ${r.id}, which is not active`);
  const epIndexed = count(ctx, 'SELECT count(*) AS n FROM episodes_fts');
  const epExpected = count(ctx, `SELECT count(*) AS n FROM episodes WHERE kind = 'conversation'`);
  if (epIndexed !== epExpected) {
    add('episodes_fts', `index holds ${epIndexed} episodes, expected ${epExpected}`);
  }
  for (const table of ['facts_fts', 'episodes_fts']) {
    try {
      ctx.db.prepare(`INSERT INTO ${table} (${table}, rank) VALUES ('integrity-check', 0)`).run();
    } catch (err) {
      add(table, `FTS5 integrity-check failed: ${(err as Error).message}`);
    }
  }
  // The vector tables (once an embedder has been bound): fingerprint, dimension, both copies of
  // each vector, no vector for a row that is not active, none missing beyond the queue.
  for (const p of checkVectors(ctx)) problems.push(p);

  const journal = verifyJournal(ctx.db, since);
  // A journal break has no mend in place (the file from before it is the only one): no `fix`.
  for (const b of journal.breaks) add('journal', `entry ${b.seq}: ${b.problem} (${b.detail})`);
  const { problems: replayed, ...replay } = replayJournal(ctx.db);
  problems.push(...replayed);
  const head = journalHead(ctx.db);
  problems.push(...checkTriggers(ctx), ...checkEnd(ctx, options));

  return {
    ok: problems.length === 0,
    schemaVersion: version,
    journal,
    scope: since ? 'incremental' : 'whole',
    problems,
    counts: {
      facts: count(ctx, 'SELECT count(*) AS n FROM facts'),
      active: count(ctx, 'SELECT count(*) AS n FROM active_facts'),
      episodes: count(ctx, 'SELECT count(*) AS n FROM episodes'),
      tombstones: count(ctx, 'SELECT count(*) AS n FROM tombstones WHERE lifted_at IS NULL'),
    },
    head: head && { seq: head.seq, hash: head.hash },
    end: lastEntry(ctx.db),
    anchorFile: options.anchorFile ?? null,
    replay,
    cannotDetect: CANNOT_DETECT,
  };
}

/** The journal's end against its anchor and against a head the owner kept. */
function checkEnd(ctx: StoreContext, options: VerifyOptions): VerifyProblem[] {
  const found: VerifyProblem[] = [];
  if (options.anchorFile) {
    const b = checkAnchor(ctx.db, options.anchorFile);
    if (b) found.push({ check: 'anchor', detail: b.detail, fix: ANCHOR_FIX });
  }
  if (options.against) {
    const b = compareHead(ctx.db, options.against, 'the head you kept', false);
    if (b) found.push({ check: 'kept_head', detail: b.detail, fix: ANCHOR_FIX });
  }
  return found;
}

/** One trigger as `sqlite_master` keeps it. */
interface TriggerRow {
  name: string;
  sql: string;
}

let expected: Map<string, string> | null = null;

/** The triggers the migrations make, by name: read once from a fresh in-memory store. */
function expectedTriggers(): Map<string, string> {
  if (expected) return expected;
  const fresh = openDatabase(':memory:');
  try {
    expected = triggersOf(
      fresh
        .prepare(`SELECT name, sql FROM sqlite_master WHERE type = 'trigger'`)
        .all() as TriggerRow[],
    );
  } finally {
    fresh.close();
  }
  return expected;
}

function triggersOf(rows: readonly TriggerRow[]): Map<string, string> {
  return new Map(rows.map((r) => [r.name, r.sql.replace(/\s+/g, ' ').trim()]));
}

/**
 * The schema's triggers (the journal's append-only guards among them) against the set the
 * migrations make: a dropped, altered or added trigger is a break (a guard dropped and put back
 * unchanged cannot be told).
 */
function checkTriggers(ctx: StoreContext): VerifyProblem[] {
  if (schemaVersion(ctx.db) !== LATEST_VERSION) return []; // reported as a schema problem
  const want = expectedTriggers();
  const have = triggersOf(
    ctx.db
      .prepare(`SELECT name, sql FROM sqlite_master WHERE type = 'trigger'`)
      .all() as TriggerRow[],
  );
  const found: VerifyProblem[] = [];
  const fix = 'restore keel.db from a backup taken before the change (keel restore <file> --force)';
  for (const [name, sql] of want) {
    const got = have.get(name);
    if (got === undefined)
      found.push({ check: 'triggers', detail: `trigger ${name} is missing`, fix });
    else if (got !== sql)
      found.push({ check: 'triggers', detail: `trigger ${name} was altered`, fix });
  }
  for (const name of have.keys()) {
    if (!want.has(name))
      found.push({ check: 'triggers', detail: `trigger ${name} was added outside keel`, fix });
  }
  return found;
}
