/**
 * The journal's anchor: its head (the newest entry's sequence and hash) kept *outside* the
 * database file, in a small JSON file beside it (`keel.db.anchor`), so that a writer who can write
 * the database but does not know about the anchor cannot cut the journal's tail (and move the
 * in-file head back) or append entries of their own without `keel verify` seeing it.
 *
 * Every transaction that appends to the journal (see {@link anchorWrites}) first checks, holding
 * the write lock, that the journal ends where the anchor says (else the write is refused as
 * `JOURNAL_BROKEN`), then records the new head, with where the write began (`prev`), in the anchor
 * before it commits, and confirms it (drops `prev`) under the write lock right after: a process
 * killed between the two leaves a write that never happened, not a break. The anchor is written
 * atomically (a temporary file renamed over it; not fsynced per write, as SQLite in WAL mode does
 * not sync each commit either). Written under the write lock, anchors of several keel processes
 * follow the journal's order; when the commit itself fails, the previous anchor is put back.
 *
 * A store that has never been anchored (created before anchors, or whose anchor was never
 * written) is anchored by its first write; from then on `meta.journal_anchored` says it has one,
 * so a deleted anchor is a break, not a first use. A writer who controls both the file and the
 * anchor can still rewrite both consistently: the owner can keep the head elsewhere
 * (`keel verify --head`) and check against it (`keel verify --against <seq>:<hash>`).
 *
 * @module
 */
import { readFileSync, rmSync } from 'node:fs';
import { KeelError } from '@keel/errors';
import Database from 'better-sqlite3';
import { stmt } from '../context.js';
import { getMeta, setMeta } from '../repos/meta.js';
import { writeRaw } from './atomic-file.js';
import { dropCheckpoint } from './checkpoint.js';

/** The anchor file of a database file: `<db>.anchor` (e.g. `keel.db.anchor`). */
export function anchorPathFor(dbPath: string): string {
  return `${dbPath}.anchor`;
}

/** The `meta` key saying the store has been anchored (so a missing anchor is a break). */
export const ANCHORED_META = 'journal_anchored';
/** The `meta` key a backup carries its anchor in (see {@link carryAnchor}). */
export const CARRIED_META = 'journal_anchor';

/** A journal head: the newest entry's sequence number and hash (seq 0: an empty journal). */
export interface HeadMark {
  seq: number;
  hash: string;
}

/** What the anchor file holds. */
export interface JournalAnchor extends HeadMark {
  /** When keel wrote it, ms since epoch. */
  at: number;
  /**
   * Present while the write that recorded this head has not yet been seen to commit: the head
   * before it. The anchor is recorded before the commit and confirmed (this field dropped) right
   * after it, so a process killed in between leaves the journal ending here — a write that never
   * happened, not a cut — and keel goes on from it.
   */
  prev?: HeadMark;
}

/** The journal's newest entry, or seq 0 for an empty journal. */
export function lastEntry(db: Database.Database): HeadMark {
  const r = stmt(db, 'SELECT seq, hash FROM journal ORDER BY seq DESC LIMIT 1').get() as
    | HeadMark
    | undefined;
  return r ?? { seq: 0, hash: '' };
}

/** A head as the owner keeps it: `<seq>:<hash>`. */
export function formatHead(head: HeadMark): string {
  return `${head.seq}:${head.hash}`;
}

/**
 * Parses a head the owner kept (`<seq>:<hash>`, as {@link formatHead} prints it).
 *
 * @throws KeelError `INVALID_INPUT` when it is not a sequence number and a 64-digit hex hash.
 */
export function parseHead(text: string): HeadMark {
  const m = /^\s*(\d+):([0-9a-f]{64})\s*$/i.exec(text);
  if (!m) {
    throw new KeelError(
      'INVALID_INPUT',
      `"${text}" is not a journal head: expected <seq>:<64 hex digits>, as keel verify --head prints it`,
    );
  }
  return { seq: Number(m[1]), hash: m[2]!.toLowerCase() };
}

/**
 * Reads an anchor file.
 *
 * @returns the anchor; null when the file is missing; `unreadable` when it is not an anchor.
 */
export function readAnchor(file: string): JournalAnchor | null | 'unreadable' {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    return 'unreadable';
  }
  return parseAnchor(text) ?? 'unreadable';
}

function parseAnchor(text: string): JournalAnchor | null {
  try {
    const a = JSON.parse(text) as Partial<JournalAnchor>;
    if (
      Number.isSafeInteger(a.seq) &&
      (a.seq as number) >= 0 &&
      typeof a.hash === 'string' &&
      typeof a.at === 'number'
    ) {
      const p = a.prev;
      const prev =
        p && Number.isSafeInteger(p.seq) && p.seq >= 0 && typeof p.hash === 'string'
          ? { prev: { seq: p.seq, hash: p.hash } }
          : {};
      return { seq: a.seq as number, hash: a.hash, at: a.at, ...prev };
    }
  } catch {
    // not JSON
  }
  return null;
}

/**
 * Writes an anchor file atomically: a temporary file beside it, fsynced, renamed over it, so a
 * crash leaves the old anchor or the new one, never half of one. Mode 0600. (The folder is not
 * fsynced after the rename: that doubled the cost of every write, and the database itself commits
 * without an fsync in WAL mode; after a power loss the two may disagree, and verify says so.)
 *
 * @throws the file system's error (the caller's transaction then rolls back).
 */
export function writeAnchor(file: string, anchor: JournalAnchor, sync = true): void {
  writeRaw(file, `${JSON.stringify(anchor)}\n`, sync);
}

/** How the journal's end disagrees with a head kept outside the file. */
export interface AnchorBreak {
  /**
   * - `anchor_missing`: the store was anchored, and its anchor is gone;
   * - `anchor_unreadable`: the anchor file is not an anchor;
   * - `cut_tail`: the journal ends before the head keel recorded (entries were removed);
   * - `unanchored_entries`: the journal goes on past the head keel recorded (written outside keel);
   * - `rewritten`: the entry at the recorded head is not the one keel wrote.
   */
  problem: 'anchor_missing' | 'anchor_unreadable' | 'cut_tail' | 'unanchored_entries' | 'rewritten';
  detail: string;
}

/** The hash of entry `seq`, or null when there is none. */
function hashAt(db: Database.Database, seq: number): string | null {
  const r = stmt(db, 'SELECT hash FROM journal WHERE seq = ?').get(seq) as
    | { hash: string }
    | undefined;
  return r?.hash ?? null;
}

/**
 * Compares the journal's end with a head kept outside the file (the anchor, or one the owner
 * kept). `what` names that head in the detail ("the anchor", "the head you kept").
 *
 * @param exact - the journal must end at `head` (the anchor); false: it may go on past it, provided
 *   the entry at `head` is the one recorded (a head the owner kept earlier).
 * @returns the break, or null when they agree.
 */
export function compareHead(
  db: Database.Database,
  head: HeadMark,
  what: string,
  exact: boolean,
): AnchorBreak | null {
  const last = lastEntry(db);
  if (last.seq < head.seq) {
    return {
      problem: 'cut_tail',
      detail:
        last.seq === 0
          ? `the journal is empty; ${what} records entry ${head.seq}: its entries were removed`
          : `the journal ends at entry ${last.seq}; ${what} records entry ${head.seq}: entries ${last.seq + 1}-${head.seq} were removed`,
    };
  }
  if (head.seq > 0 && hashAt(db, head.seq) !== head.hash) {
    return {
      problem: 'rewritten',
      detail: `entry ${head.seq} is not the one ${what} records: the journal was rewritten`,
    };
  }
  if (exact && last.seq > head.seq) {
    return {
      problem: 'unanchored_entries',
      detail: `the journal goes on past entry ${head.seq}, where ${what} records keel's last write: entries ${head.seq + 1}-${last.seq} were written outside keel`,
    };
  }
  return null;
}

/**
 * Checks the journal's end against its anchor file.
 *
 * @returns the break, or null when they agree (or the store was never anchored).
 */
export function checkAnchor(db: Database.Database, file: string): AnchorBreak | null {
  const anchor = readAnchor(file);
  if (anchor === 'unreadable') {
    return { problem: 'anchor_unreadable', detail: `${file} is not a journal anchor` };
  }
  if (anchor === null) {
    if (getMeta(db, ANCHORED_META) === undefined) return null;
    return {
      problem: 'anchor_missing',
      detail: `${file} is missing, though keel anchored this journal: its end cannot be checked`,
    };
  }
  const found = compareHead(db, anchor, 'the anchor', true);
  // A write recorded but never committed (keel was killed between the two): the journal ends
  // where that write began, which the anchor records too.
  if (found && anchor.prev && compareHead(db, anchor.prev, 'the anchor', true) === null)
    return null;
  return found;
}

/** Whether `head` is where `anchor` says the journal ends (or began its unconfirmed write). */
function endsAt(anchor: JournalAnchor, head: HeadMark): boolean {
  const same = (m: HeadMark) => m.seq === head.seq && (m.seq === 0 || m.hash === head.hash);
  return same(anchor) || (anchor.prev !== undefined && same(anchor.prev));
}

/** Per anchored connection: its anchor file and the state of the current transaction. */
interface AnchorState {
  file: string;
  now: () => number;
  /** Depth of nested transaction functions running. */
  depth: number;
  /** The journal's end was checked against the anchor in this transaction. */
  checked: boolean;
  /** The journal was appended to in this transaction. */
  appended: boolean;
  /** The anchor as it was before this transaction wrote it (null: it wrote none yet). */
  previous: { text: string | null } | null;
  /** The journal's end before this transaction's first append. */
  before: HeadMark | null;
  /** The head this transaction recorded, to confirm once it has committed. */
  recorded: JournalAnchor | null;
}

const anchored = new WeakMap<Database.Database, AnchorState>();

function broken(b: AnchorBreak): KeelError {
  return new KeelError(
    'JOURNAL_BROKEN',
    `the journal does not end where keel last wrote it (${b.detail}); keel writes nothing to it`,
    { details: { problem: b.problem } },
  );
}

/**
 * Called by every journal append, inside its transaction, after the entry's row is written (the
 * write lock is held, so no other keel process can move the journal or the anchor meanwhile). The
 * first append of a transaction checks that the journal ended, before it, where the anchor says.
 *
 * @throws KeelError `JOURNAL_BROKEN` (the transaction rolls back: nothing is written).
 */
export function journalAppended(db: Database.Database, before: HeadMark): void {
  const s = anchored.get(db);
  if (!s) return;
  if (!s.checked) {
    const anchor = readAnchor(s.file);
    if (anchor === 'unreadable') {
      throw broken({ problem: 'anchor_unreadable', detail: `${s.file} is not a journal anchor` });
    }
    if (anchor === null) {
      if (getMeta(db, ANCHORED_META) !== undefined) {
        throw broken({ problem: 'anchor_missing', detail: `${s.file} is missing` });
      }
    } else if (!endsAt(anchor, before)) {
      const b =
        before.seq < anchor.seq
          ? {
              problem: 'cut_tail' as const,
              detail: `it ends at entry ${before.seq}, the anchor records ${anchor.seq}`,
            }
          : {
              problem: 'unanchored_entries' as const,
              detail: `entry ${before.seq} is not entry ${anchor.seq} that the anchor records`,
            };
      throw broken(b);
    }
    s.checked = true;
    s.before = before;
  }
  s.appended = true;
}

/**
 * Before an entry is appended: the head the file keeps (`journal_head`) must be the journal's
 * newest entry, as keel leaves it; otherwise the schema's trigger would refuse the append with a
 * bare SQLite error. Checked first, so the refusal is a clear state.
 *
 * @throws KeelError `JOURNAL_BROKEN` naming where the head and the journal disagree.
 */
export function assertHeadFollows(db: Database.Database, last: HeadMark): void {
  const has = stmt(
    db,
    `SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name = 'journal_head'`,
  ).get() as { n: number };
  if (has.n === 0) return; // a schema from before the head (a migration step in progress)
  const r = (stmt(db, 'SELECT seq, hash FROM journal_head WHERE id = 1').get() as
    | { seq: number; hash: string }
    | undefined) ?? { seq: null, hash: null };
  if (r.seq === null) {
    throw broken({
      problem: 'anchor_missing',
      detail: 'the journal head is missing from the file',
    });
  }
  const genesis = last.seq === 0;
  if (r.seq !== last.seq || (!genesis && r.hash !== last.hash)) {
    throw broken({
      problem: r.seq < last.seq ? 'unanchored_entries' : 'cut_tail',
      detail: `the head in the file records entry ${r.seq}, the journal ends at entry ${last.seq}`,
    });
  }
}

/** Records the new head in the anchor, before the transaction commits. */
function settle(db: Database.Database, s: AnchorState): void {
  if (!s.appended || s.previous) return;
  if (getMeta(db, ANCHORED_META) === undefined) setMeta(db, ANCHORED_META, String(s.now()));
  let text: string | null = null;
  try {
    text = readFileSync(s.file, 'utf8');
  } catch {
    // none yet
  }
  s.previous = { text };
  const head: JournalAnchor = { ...lastEntry(db), at: s.now() };
  s.recorded = head;
  // Not fsynced: a process killed keeps what it wrote to the page cache; after a power loss the
  // database itself may lose its last commits (WAL without a sync per commit), and verify says so.
  writeAnchor(s.file, s.before ? { ...head, prev: s.before } : head, false);
}

/**
 * The transaction committed: the anchor drops its `prev`, so the journal must now end at the new
 * head. Written under the write lock again (an empty IMMEDIATE transaction on the raw connection),
 * and only while the journal still ends at this transaction's head: another keel process that
 * wrote since has recorded a newer anchor, which this must not replace. Whatever stops it (the
 * lock is busy, the file system refuses) leaves the pending anchor, which is still right.
 */
function confirm(db: Database.Database, s: AnchorState): void {
  const recorded = s.recorded;
  if (!recorded) return;
  let began = false;
  try {
    db.exec('BEGIN IMMEDIATE');
    began = true;
    const end = lastEntry(db);
    if (end.seq === recorded.seq && end.hash === recorded.hash) {
      writeAnchor(s.file, recorded, false);
    }
  } catch {
    // the pending anchor stays, and is right
  } finally {
    if (began) db.exec('COMMIT');
  }
}

/** A commit failed after the anchor was written: the anchor goes back to what it was. */
function unsettle(s: AnchorState): void {
  if (!s.previous) return;
  try {
    if (s.previous.text === null) rmSync(s.file, { force: true });
    else writeRaw(s.file, s.previous.text);
  } catch {
    // verify will report the anchor ahead of the journal
  }
}

type TransactionFn = ReturnType<Database.Database['transaction']>;
const VARIANTS = ['default', 'deferred', 'immediate', 'exclusive'] as const;

/**
 * Anchors a connection's journal in `file`: every transaction made through `db.transaction` that
 * appends to the journal checks the anchor first ({@link journalAppended}) and records the new head
 * before it commits. An append outside a transaction is made inside one by `appendJournal`.
 *
 * @param now - the clock for the anchor's `at`, ms since epoch.
 */
export function anchorWrites(db: Database.Database, file: string, now: () => number): void {
  if (anchored.has(db)) return;
  const s: AnchorState = {
    file,
    now,
    depth: 0,
    checked: false,
    appended: false,
    previous: null,
    before: null,
    recorded: null,
  };
  anchored.set(db, s);
  const original = db.transaction.bind(db);
  const wrap = (fn: (...args: unknown[]) => unknown): TransactionFn => {
    const txn = original(function (this: unknown, ...args: unknown[]) {
      s.depth++;
      try {
        const value = fn.apply(this, args);
        if (s.depth === 1) settle(db, s);
        return value;
      } finally {
        s.depth--;
      }
    });
    const outer =
      (call: (...args: unknown[]) => unknown) =>
      (...args: unknown[]) => {
        const outermost = !db.inTransaction;
        try {
          const value = call(...args);
          if (outermost) confirm(db, s);
          return value;
        } catch (err) {
          if (outermost) unsettle(s);
          throw err;
        } finally {
          if (outermost) {
            s.checked = false;
            s.appended = false;
            s.previous = null;
            s.before = null;
            s.recorded = null;
          }
        }
      };
    const wrapped = outer(txn) as TransactionFn;
    for (const v of VARIANTS) {
      Object.defineProperty(wrapped, v, { value: outer(txn[v]), enumerable: true });
    }
    Object.defineProperty(wrapped, 'database', { value: db, enumerable: true });
    return wrapped;
  };
  (db as unknown as { transaction: typeof wrap }).transaction = wrap;
}

/**
 * Gives a backup its anchor, so the anchor travels with it: in the copy's `meta` (key
 * `journal_anchor`), the source's anchor read after the copy was made, or the copy's own head when
 * keel wrote more to the source after the copy (the copy's head then lies on the anchored chain up
 * to the anchor read before the copy). Nothing is carried for a store never anchored.
 *
 * @param anchorBefore - the source's anchor read before the copy began.
 */
export function carryAnchor(
  copy: Database.Database,
  sourceDb: string,
  anchorBefore: ReturnType<typeof readAnchor>,
): void {
  const after = readAnchor(anchorPathFor(sourceDb));
  if (after === null || after === 'unreadable') return;
  const head = lastEntry(copy);
  let carried: JournalAnchor = after;
  if (
    head.seq < after.seq &&
    anchorBefore &&
    anchorBefore !== 'unreadable' &&
    head.seq >= anchorBefore.seq &&
    compareHead(copy, anchorBefore, 'the anchor', false) === null
  ) {
    carried = { ...head, at: after.at };
  }
  if (carried.prev) {
    // The source's last write was recorded but not yet confirmed: the copy holds it or not.
    const { prev, ...recorded } = carried;
    carried =
      head.seq === prev.seq && head.hash === prev.hash ? { ...prev, at: carried.at } : recorded;
  }
  setMeta(copy, CARRIED_META, JSON.stringify(carried));
  setMeta(copy, ANCHORED_META, String(after.at));
}

/**
 * After a restore: the restored file's anchor is the one its backup carried (`meta.journal_anchor`),
 * or, for a backup made before anchors, its own journal's end. Written beside `dbPath`.
 *
 * @param now - the anchor's `at` when none was carried, ms since epoch.
 */
export function anchorRestored(dbPath: string, now: number): void {
  const db = new Database(dbPath, { readonly: true, fileMustExist: true });
  try {
    const carried = getMeta(db, CARRIED_META);
    const anchor = (carried && parseAnchor(carried)) || { ...lastEntry(db), at: now };
    writeAnchor(anchorPathFor(dbPath), anchor);
  } finally {
    db.close();
  }
  // The checkpoint beside it was another file's: the next check is a whole one.
  dropCheckpoint(dbPath);
}

/**
 * After keel wrote to a copy of the store (a backup rewritten by a purge, a restore's incoming file,
 * each opened with the anchor {@link anchorRestored} put beside it): the copy carries its new head
 * in its `meta` again, as a backup does, and the anchor file beside it is removed (the copy's
 * anchor travels inside it). Nothing for a copy with no anchor beside it.
 *
 * @throws SQLite's error when the copy cannot be written.
 */
export function carryOwnAnchor(dbPath: string): void {
  const file = anchorPathFor(dbPath);
  const anchor = readAnchor(file);
  if (anchor === null || anchor === 'unreadable') return;
  const db = new Database(dbPath, { fileMustExist: true });
  try {
    const { prev: _pending, ...head } = anchor;
    setMeta(db, CARRIED_META, JSON.stringify(head));
    if (getMeta(db, ANCHORED_META) === undefined) setMeta(db, ANCHORED_META, String(head.at));
  } finally {
    db.close();
  }
  rmSync(file, { force: true });
}
