/**
 * The journal: an append-only, hash-chained log of every mutation and every refused write.
 *
 * Each entry's `hash` is sha256 over the previous entry's hash and this entry's fields, with the
 * payload represented by its own sha256 (`payload_hash`). The chain's head (the newest entry's
 * sequence and hash) is kept in `journal_head` too, moved by every append and by nothing else, so
 * a missing tail or a missing journal shows.
 *
 * A decision that changed facts, evidence or tombstones is preceded by a `state` entry recording
 * the rows it changed (see `rows.ts`); `keel verify` replays them against the tables.
 *
 * A purge or a compaction may redact a payload, and a purge an episode's text: the redaction is
 * itself an entry (op `redact`, entity `journal` or `episode`, `entity_id` the row) that records
 * the hash before and after, appended first; the triggers allow the row to change only to the hash
 * its newest redaction entry recorded, and `verify` checks every row against it.
 *
 * @module
 */

import { sha256, withholdSecrets } from '@keel/language';
import type Database from 'better-sqlite3';
import { type StoreContext, stmt } from '../context.js';
import type { OwnerTextHolder, OwnerTextMention, Scrubber } from '../redaction.js';
import type { Actor } from '../types.js';
import { assertHeadFollows, journalAppended } from './anchor.js';
import { journalHead } from './head.js';
import { indexFacts, takeChanges } from './rows.js';

/** The hash that precedes the first entry. */
export const GENESIS_HASH = '0'.repeat(64);

/** One journal row. */
export interface JournalEntry {
  seq: number;
  at: number;
  actor: string;
  op: string;
  entity: string;
  entity_id: number | null;
  payload: string;
  payload_hash: string;
  prev_hash: string;
  hash: string;
  redacted_at: number | null;
}

/** What a caller appends. */
export interface JournalInput {
  at: number;
  actor: Actor;
  op: string;
  /** What the entry is about (`journal`: a redaction of another entry's payload). */
  entity: 'fact' | 'episode' | 'tombstone' | 'import' | 'store' | 'journal';
  entityId: number | null;
  payload: unknown;
}

/** The chain hash of an entry, from its fields and the previous entry's hash. */
export function entryHash(e: Omit<JournalEntry, 'hash' | 'payload' | 'redacted_at'>): string {
  return sha256(
    [e.prev_hash, e.seq, e.at, e.actor, e.op, e.entity, e.entity_id ?? '', e.payload_hash].join(
      '\u001f',
    ),
  );
}

/**
 * Appends an entry. Must run inside the caller's write transaction so the entry and the mutation
 * it records commit together (outside one, the append is made a transaction of its own). The
 * journal's anchor is checked and moved with it (see `anchor.ts`): a journal that does not end
 * where the anchor says is `JOURNAL_BROKEN`, and nothing is written. Every string of the payload passes through `withholdSecrets` first:
 * the writers keep secrets out of what they journal, and this is the last net.
 *
 * A fact or store entry is preceded by a `state` entry (same actor and time, payload
 * `{for: op, rows}`) when the transitions noted changed rows since the last one: the rows as they
 * are now with their digests before and after (see `rows.ts`). A state entry, and a redaction
 * entry (op `redact`: hashes only), is written as given, not scanned for secrets: it copies rows
 * the store already holds, and its hashes must reach the journal exactly.
 *
 * @returns the new entry's sequence number.
 */
export function appendJournal(db: Database.Database, input: JournalInput): number {
  // An append is always a transaction's: its anchor is checked and moved with it (`anchor.ts`).
  if (!db.inTransaction) return db.transaction(() => appendJournal(db, input)).immediate();
  if (input.entity === 'fact' || input.entity === 'store') {
    const rows = takeChanges(db);
    if (rows.length > 0) {
      // Copies of rows the store holds, and their digests: not scanned for secrets again (a
      // digest must reach the journal exactly as computed, or replay would report a false break).
      const seq = appendEntry(
        db,
        {
          at: input.at,
          actor: input.actor,
          op: 'state',
          entity: 'store',
          entityId: null,
          payload: { for: input.op, rows },
        },
        false,
      );
      indexFacts(db, seq, rows);
    }
  }
  return appendEntry(db, input, input.op !== 'redact');
}

function appendEntry(db: Database.Database, input: JournalInput, scan: boolean): number {
  const last = stmt(db, 'SELECT seq, hash FROM journal ORDER BY seq DESC LIMIT 1').get() as
    | { seq: number; hash: string }
    | undefined;
  assertHeadFollows(db, last ?? { seq: 0, hash: '' });
  const seq = (last?.seq ?? 0) + 1;
  const payload = JSON.stringify(scan ? withholdSecrets(input.payload) : input.payload);
  const base = {
    seq,
    at: input.at,
    actor: input.actor,
    op: input.op,
    entity: input.entity,
    entity_id: input.entityId,
    payload_hash: sha256(payload),
    prev_hash: last?.hash ?? GENESIS_HASH,
  };
  stmt(
    db,
    `INSERT INTO journal (seq, at, actor, op, entity, entity_id, payload, payload_hash, prev_hash, hash)
     VALUES (@seq, @at, @actor, @op, @entity, @entity_id, @payload, @payload_hash, @prev_hash, @hash)`,
  ).run({ ...base, payload, hash: entryHash(base) });
  journalAppended(db, last ?? { seq: 0, hash: '' });
  return seq;
}

/** Why a row was redacted, and by whom. */
export interface RedactionInput {
  /** `purge` (the owner's forget --purge) or `compact` (the nightly journal compaction). */
  reason: 'purge' | 'compact';
  actor: Actor;
  /** ms since epoch. */
  at: number;
}

/**
 * Appends the redaction entry for a row about to be rewritten (before the rewrite, in the same
 * transaction): op `redact`, entity `journal` (a payload) or `episode` (a text), `entity_id` the
 * row, payload `{reason, before_sha256, payload_sha256 | text_sha256}`, the hashes of the text
 * before and after. The schema's triggers then allow the row to change to that hash only.
 *
 * @returns the redaction entry's sequence number.
 */
export function journalRedaction(
  db: Database.Database,
  row: { entity: 'journal' | 'episode'; id: number; before: string; after: string },
  how: RedactionInput,
): number {
  return appendJournal(db, {
    at: how.at,
    actor: how.actor,
    op: 'redact',
    entity: row.entity,
    entityId: row.id,
    payload: {
      reason: how.reason,
      before_sha256: sha256(row.before),
      [row.entity === 'journal' ? 'payload_sha256' : 'text_sha256']: sha256(row.after),
    },
  });
}

/**
 * Rewrites entry `seq`'s payload as a redaction (a purge or a compaction): its redaction entry
 * first, then the payload and `redacted_at`. The entry's hashes are untouched, so the chain still
 * verifies. Inside the caller's transaction.
 */
export function redactPayload(
  db: Database.Database,
  entry: { seq: number; before: string; after: string },
  how: RedactionInput,
): void {
  journalRedaction(
    db,
    { entity: 'journal', id: entry.seq, before: entry.before, after: entry.after },
    how,
  );
  stmt(db, 'UPDATE journal SET payload = ?, redacted_at = ? WHERE seq = ?').run(
    entry.after,
    how.at,
    entry.seq,
  );
}

/** One problem found by {@link verifyJournal}. */
export interface JournalBreak {
  seq: number;
  /**
   * - `prev_hash`, `hash`, `sequence_gap`: the chain is broken at `seq`;
   * - `payload_hash`: the payload is not the one the chain covers, nor the one its newest
   *   redaction entry (or the baseline of earlier redactions) recorded;
   * - `redaction`: a redaction entry that names no earlier entry;
   * - `missing_tail`: the head records entries the journal no longer has (`seq` is the head's);
   * - `head`: the head is missing, or does not match the journal's newest entry.
   */
  problem:
    | 'prev_hash'
    | 'hash'
    | 'payload_hash'
    | 'sequence_gap'
    | 'redaction'
    | 'missing_tail'
    | 'head';
  detail: string;
}

/**
 * Where an incremental walk of the chain starts: an entry a whole walk found intact (`keel doctor`
 * keeps it in `keel.db.checked`, see `checkpoint.ts`).
 */
export interface ChainCheckpoint {
  seq: number;
  hash: string;
}

/** What {@link verifyJournal} found. */
export interface JournalWalk {
  /** Entries in the journal. */
  entries: number;
  /** Every break, by seq (empty when the chain is intact). */
  breaks: JournalBreak[];
  /** The first entry whose fields and payload were hashed again (1: the whole chain). */
  from: number;
  /** The newest entry walked (null: an empty journal): where a next incremental walk may start. */
  last: ChainCheckpoint | null;
}

/** Per entry walked: the payload's sha256, the one the chain covers, and whether it is redacted. */
type Payloads = Map<number, { actual: string; chained: string; redacted: boolean }>;
/** The newest redaction entry of each redacted entry. */
type Redactions = Map<number, { seq: number; sha256: unknown }>;

/**
 * Walks the chain and reports every break; a break is never skipped silently. Checks each
 * entry's links and hash, each payload against the chain's `payload_hash` or, for a redacted or
 * once-redacted row, against its newest redaction entry (or the fixed baseline of redactions
 * made before they were journaled), and the journal's end against the head.
 *
 * With `since` (an entry an earlier whole walk found intact), only the entries after it are
 * hashed again, and the ones before it are checked for what SQL can tell without hashing: that
 * they are all still there, still linked by their stored hashes, and that `since` still has its
 * hash. An older entry whose payload was edited without its hash is then not seen: that is for
 * the next whole walk (`keel verify` always walks it all). The caller decides that `since` still
 * belongs to this journal ({@link checkpointHolds}).
 *
 * @returns the entries, every break found by seq, and where hashing began.
 */
export function verifyJournal(db: Database.Database, since?: ChainCheckpoint): JournalWalk {
  const breaks: JournalBreak[] = [];
  const payloads: Payloads = new Map();
  const redactions: Redactions = new Map();
  const from = since ? since.seq + 1 : 1;
  if (since) breaks.push(...checkBefore(db, since));
  const walked = walkChain(db, since ?? { seq: 0, hash: GENESIS_HASH }, {
    breaks,
    payloads,
    redactions,
  });
  if (since) addRedactedTargets(db, since.seq, redactions, payloads);
  breaks.push(...checkPayloads(db, payloads, redactions));
  breaks.push(...checkHead(db, walked.last));
  // By entry; for one entry, in the order found (stable sort).
  breaks.sort((a, b) => a.seq - b.seq);
  const entries = since ? since.seq + walked.entries : walked.entries;
  return { entries, breaks, from, last: walked.last };
}

/**
 * Whether `since` is an entry of this journal as it was when checked: the entry is there with
 * that hash, and its fields still hash to it. False after a restore of an older file, or when the
 * entry was changed: then only a whole walk can say what happened.
 */
export function checkpointHolds(db: Database.Database, since: ChainCheckpoint): boolean {
  const row = db.prepare('SELECT * FROM journal WHERE seq = ?').get(since.seq) as
    | JournalEntry
    | undefined;
  return !!row && row.hash === since.hash && entryHash(row) === row.hash;
}

/** The entries up to `since`, unhashed: none gone or added, each linked to the one before it. */
function checkBefore(db: Database.Database, since: ChainCheckpoint): JournalBreak[] {
  const found: JournalBreak[] = [];
  const { n } = db.prepare('SELECT count(*) AS n FROM journal WHERE seq <= ?').get(since.seq) as {
    n: number;
  };
  if (n !== since.seq) {
    found.push({
      seq: since.seq,
      problem: 'sequence_gap',
      detail: `${n} entries up to entry ${since.seq}, expected ${since.seq}: entries were deleted or added`,
    });
  }
  const unlinked = db
    .prepare(
      `SELECT b.seq FROM journal b LEFT JOIN journal a ON a.seq = b.seq - 1
       WHERE b.seq <= ? AND b.prev_hash IS NOT coalesce(a.hash, ?) ORDER BY b.seq`,
    )
    .all(since.seq, GENESIS_HASH) as { seq: number }[];
  for (const r of unlinked) {
    found.push({ seq: r.seq, problem: 'prev_hash', detail: 'does not match the previous entry' });
  }
  return found;
}

/** Walks the entries after `start`, checking seq, links and hashes; notes payloads and redactions. */
function walkChain(
  db: Database.Database,
  start: ChainCheckpoint,
  into: { breaks: JournalBreak[]; payloads: Payloads; redactions: Redactions },
): { entries: number; last: ChainCheckpoint | null } {
  const { breaks, payloads, redactions } = into;
  let prev = start.hash;
  let expectedSeq = start.seq + 1;
  let entries = 0;
  let last: ChainCheckpoint | null = start.seq > 0 ? start : null;
  for (const row of db
    .prepare('SELECT * FROM journal WHERE seq > ? ORDER BY seq')
    .iterate(start.seq) as IterableIterator<JournalEntry>) {
    entries++;
    if (row.seq !== expectedSeq) {
      breaks.push({ seq: row.seq, problem: 'sequence_gap', detail: `expected seq ${expectedSeq}` });
    }
    expectedSeq = row.seq + 1;
    if (row.prev_hash !== prev) {
      breaks.push({
        seq: row.seq,
        problem: 'prev_hash',
        detail: 'does not match the previous entry',
      });
    }
    if (entryHash(row) !== row.hash) {
      breaks.push({ seq: row.seq, problem: 'hash', detail: 'entry fields do not match its hash' });
    }
    payloads.set(row.seq, {
      actual: sha256(row.payload),
      chained: row.payload_hash,
      redacted: row.redacted_at !== null,
    });
    if (row.op === 'redact' && row.entity === 'journal') {
      if (row.entity_id === null || row.entity_id >= row.seq) {
        breaks.push({
          seq: row.seq,
          problem: 'redaction',
          detail: 'a redaction entry must name an earlier entry',
        });
      } else {
        redactions.set(row.entity_id, {
          seq: row.seq,
          sha256: parsedPayload(row.payload)?.payload_sha256,
        });
      }
    }
    prev = row.hash;
    last = { seq: row.seq, hash: row.hash };
  }
  return { entries, last };
}

/**
 * An incremental walk's redactions of entries before it (a purge rewrites old payloads): each
 * named entry's payload is read and checked against its redaction too.
 */
function addRedactedTargets(
  db: Database.Database,
  before: number,
  redactions: Redactions,
  payloads: Payloads,
): void {
  const read = db.prepare('SELECT payload, payload_hash, redacted_at FROM journal WHERE seq = ?');
  for (const seq of redactions.keys()) {
    if (seq > before || payloads.has(seq)) continue;
    const row = read.get(seq) as
      | { payload: string; payload_hash: string; redacted_at: number | null }
      | undefined;
    if (!row) continue; // a missing entry is a gap checkBefore names
    payloads.set(seq, {
      actual: sha256(row.payload),
      chained: row.payload_hash,
      redacted: row.redacted_at !== null,
    });
  }
}

/** Each payload walked against what the chain, its redaction or the baseline says it is. */
function checkPayloads(
  db: Database.Database,
  payloads: Payloads,
  redactions: Redactions,
): JournalBreak[] {
  const found: JournalBreak[] = [];
  const baseline = baselineOf(db, 'journal');
  for (const [seq, p] of payloads) {
    const redaction = redactions.get(seq);
    const base = baseline.get(seq);
    const expected = redaction ? redaction.sha256 : (base ?? p.chained);
    if (p.actual === expected) continue;
    found.push({
      seq,
      problem: 'payload_hash',
      detail: redaction
        ? `payload differs from its redaction (entry ${redaction.seq})`
        : base !== undefined
          ? 'payload differs from its redaction made before redactions were journaled'
          : p.redacted
            ? 'payload rewritten as redacted; no redaction entry records it'
            : 'payload altered without redaction',
    });
  }
  return found;
}

/** The journal's end against the head `journal_head` keeps. */
function checkHead(db: Database.Database, last: ChainCheckpoint | null): JournalBreak[] {
  const head = journalHead(db);
  if (!head) {
    return [
      {
        seq: last?.seq ?? 0,
        problem: 'head',
        detail: 'the journal head is missing: a missing tail cannot be ruled out',
      },
    ];
  }
  if (head.seq > (last?.seq ?? 0)) {
    return [
      {
        seq: head.seq,
        problem: 'missing_tail',
        detail: last
          ? `the journal ends at entry ${last.seq}; its head records entry ${head.seq}`
          : `the journal is empty; its head records entry ${head.seq}`,
      },
    ];
  }
  if (head.seq < (last?.seq ?? 0)) {
    return [
      {
        seq: head.seq + 1,
        problem: 'head',
        detail: `entries after ${head.seq} were written without moving the head`,
      },
    ];
  }
  if (head.hash !== (last?.hash ?? GENESIS_HASH)) {
    return [
      { seq: head.seq, problem: 'head', detail: "the newest entry does not match the head's hash" },
    ];
  }
  return [];
}

/** A journal payload as an object; undefined when it is not JSON or not an object. */
export function parsedPayload(payload: string): Record<string, unknown> | undefined {
  try {
    const p = JSON.parse(payload) as unknown;
    return p && typeof p === 'object' && !Array.isArray(p)
      ? (p as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The hashes of rows already redacted when redactions began to be journaled (schema step 11),
 * by id; empty when the table is missing.
 */
export function baselineOf(
  db: Database.Database,
  entity: 'journal' | 'episode',
): Map<number, string> {
  try {
    return new Map(
      (
        db.prepare('SELECT id, sha256 FROM journal_baseline WHERE entity = ?').all(entity) as {
          id: number;
          sha256: string;
        }[]
      ).map((r) => [r.id, r.sha256]),
    );
  } catch {
    return new Map();
  }
}

/**
 * The journal as a holder of the owner's words: a purge redacts every payload string that carries
 * the value, each rewrite journaled as a redaction entry first ({@link redactPayload}; the owner
 * is its actor). The chain covers each payload's original hash, so it still verifies.
 */
export function journalHolder(ctx: StoreContext): OwnerTextHolder {
  return {
    place: 'journal',
    ownerText: [{ table: 'journal', column: 'payload' }],
    find(scrubber: Scrubber): OwnerTextMention[] {
      const found: OwnerTextMention[] = [];
      for (const e of ctx.db.prepare('SELECT seq, payload FROM journal ORDER BY seq').all() as {
        seq: number;
        payload: string;
      }[]) {
        const excerpt = scrubber.excerpt(e.payload);
        if (excerpt !== null) found.push({ id: e.seq, column: 'payload', excerpt });
      }
      return found;
    },
    redact(scrubber: Scrubber, now: number, actor: Actor = 'owner'): number[] {
      const changed: number[] = [];
      const rows = ctx.db.prepare('SELECT seq, payload FROM journal ORDER BY seq').all() as {
        seq: number;
        payload: string;
      }[];
      for (const e of rows) {
        if (!scrubber.holds(e.payload)) continue;
        const payload = scrubber.scrubJson(e.payload);
        if (payload === e.payload) continue;
        redactPayload(
          ctx.db,
          { seq: e.seq, before: e.payload, after: payload },
          { reason: 'purge', actor, at: now },
        );
        changed.push(e.seq);
      }
      return changed;
    },
  };
}

/** One recorded failure of a step that never fails the turn it belongs to (e.g. capture). */
export interface StepFailure {
  /** When, ms since epoch. */
  at: number;
  /** The episode the step was about. */
  episodeId: number | null;
  /** The error's code (a KeelError code, or INTERNAL). */
  code: string;
  message: string;
}

/**
 * Records that a step failed without failing the turn (`op` e.g. `capture_error`): a journal entry
 * by `system` with the error's code and message, for `keel doctor` to show.
 */
export function recordStepFailure(
  ctx: StoreContext,
  op: string,
  failure: Omit<StepFailure, 'at'>,
): void {
  appendJournal(ctx.db, {
    at: ctx.now(),
    actor: 'system',
    op,
    entity: 'episode',
    entityId: failure.episodeId,
    payload: { code: failure.code, message: failure.message },
  });
}

/** The newest recorded failures of `op`, newest first. */
export function stepFailures(ctx: StoreContext, op: string, limit: number): StepFailure[] {
  return (
    stmt(
      ctx.db,
      'SELECT at, entity_id, payload FROM journal WHERE op = ? ORDER BY seq DESC LIMIT ?',
    ).all(op, limit) as { at: number; entity_id: number | null; payload: string }[]
  ).map((r) => {
    const p = JSON.parse(r.payload) as { code?: string; message?: string };
    return {
      at: r.at,
      episodeId: r.entity_id,
      code: p.code ?? 'INTERNAL',
      message: p.message ?? '',
    };
  });
}
