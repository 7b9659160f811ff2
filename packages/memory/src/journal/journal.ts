/**
 * The journal: an append-only, hash-chained log of every mutation and every refused write.
 *
 * Each entry's `hash` is sha256 over the previous entry's hash and this entry's fields, with the
 * payload represented by its own sha256 (`payload_hash`). A purge may redact a payload (the
 * triggers allow nothing else); the chain still verifies because it covers the payload's hash.
 *
 * @module
 */
import type Database from 'better-sqlite3';
import { type StoreContext, stmt } from '../context.js';
import type { OwnerTextHolder, Scrubber } from '../redaction.js';
import { withholdSecrets } from '../secrets/redact.js';
import { sha256 } from '../text.js';
import type { Actor } from '../types.js';

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
  entity: 'fact' | 'episode' | 'tombstone' | 'import' | 'store';
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
 * it records commit together. Every string of the payload passes through `withholdSecrets` first:
 * the writers keep secrets out of what they journal, and this is the last net.
 *
 * @returns the new entry's sequence number.
 */
export function appendJournal(db: Database.Database, input: JournalInput): number {
  const last = stmt(db, 'SELECT seq, hash FROM journal ORDER BY seq DESC LIMIT 1').get() as
    | { seq: number; hash: string }
    | undefined;
  const seq = (last?.seq ?? 0) + 1;
  const payload = JSON.stringify(withholdSecrets(input.payload));
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
  return seq;
}

/** One problem found by {@link verifyJournal}. */
export interface JournalBreak {
  seq: number;
  problem: 'prev_hash' | 'hash' | 'payload_hash' | 'sequence_gap';
  detail: string;
}

/**
 * Walks the whole chain and reports every break; a break is never skipped silently.
 *
 * @returns the entries checked and every break found (empty when the chain is intact).
 */
export function verifyJournal(db: Database.Database): { entries: number; breaks: JournalBreak[] } {
  const breaks: JournalBreak[] = [];
  let prev = GENESIS_HASH;
  let expectedSeq = 1;
  let entries = 0;
  for (const row of db
    .prepare('SELECT * FROM journal ORDER BY seq')
    .iterate() as IterableIterator<JournalEntry>) {
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
    if (row.redacted_at === null && sha256(row.payload) !== row.payload_hash) {
      breaks.push({
        seq: row.seq,
        problem: 'payload_hash',
        detail: 'payload altered without redaction',
      });
    }
    prev = row.hash;
  }
  return { entries, breaks };
}

/**
 * The journal as a holder of the owner's words: a purge redacts every payload string that carries
 * the value (the only change the journal's trigger allows: `payload` and `redacted_at`). The
 * chain covers each payload's hash, so it still verifies.
 */
export function journalHolder(ctx: StoreContext): OwnerTextHolder {
  return {
    place: 'journal',
    ownerText: [{ table: 'journal', column: 'payload' }],
    redact(scrubber: Scrubber, now: number): number[] {
      const changed: number[] = [];
      const redact = stmt(ctx.db, 'UPDATE journal SET payload = ?, redacted_at = ? WHERE seq = ?');
      const rows = ctx.db.prepare('SELECT seq, payload FROM journal ORDER BY seq').all() as {
        seq: number;
        payload: string;
      }[];
      for (const e of rows) {
        if (!scrubber.holds(e.payload)) continue;
        const payload = scrubber.scrubJson(e.payload);
        if (payload === e.payload) continue;
        redact.run(payload, now, e.seq);
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
