/**
 * The one module that changes fact state: the only code that writes `INSERT INTO facts`,
 * `UPDATE facts` or `INSERT INTO fact_evidence` (a test enforces it). Policy lives elsewhere: the
 * write review (`review.ts`), the owner's verbs (`owner.ts`), retraction (`retract.ts`), decay and
 * prune (`maintenance.ts`) and dedupe (`dedupe.ts`) decide; these functions carry it out, each
 * keeping the schema's invariants (one active row per slot, the evidence gate, append-only
 * evidence, a supersession chain with both links).
 *
 * The transitions the design has:
 *
 * | transition        | from                | to                                   |
 * |-------------------|---------------------|--------------------------------------|
 * | {@link create}    | (nothing)           | active, pending (a conflict), or superseded (history: an earlier value) |
 * | {@link corroborate} | active or pending | the same, one more piece of evidence |
 * | {@link supersede} | active or pending   | superseded (linked to its successor) |
 * | {@link confirm}   | active or pending   | active, owner_confirmed, 1.0         |
 * | {@link retire}    | active or pending   | rejected, or retracted               |
 * | {@link decayTo}   | active              | active, lower confidence             |
 * | {@link erase}     | any but current     | the same, value purged               |
 * | {@link scrubValue}| any                 | the same, a purged value cut out of it |
 * | {@link mergeInto} | active (a duplicate)| superseded by the keeper, evidence moved |
 * | {@link restore}   | (nothing)           | any, as a keel export recorded it (import) |
 *
 * Every function runs inside the caller's transaction; none journals (the caller does, with the
 * decision's reason), but each notes the rows it writes (`journal/rows.ts`) so that the caller's
 * journal entry is preceded by the record of them that `keel verify` replays. Recall's access
 * counters ({@link recordAccess}) are not noted: they are not part of a fact's journaled state.
 *
 * @module
 */
import { type StoreContext, stmt } from '../context.js';
import { noteChange, noteInsert } from '../journal/rows.js';
import { PURGED } from '../redaction.js';
import type { Fact, Slot, Source } from '../types.js';
import { authority, confidenceCeiling, isOwnerSource, raisedConfidence } from './evidence-gate.js';
import { factById } from './read.js';

/** What {@link create} writes. */
export interface NewFact {
  slot: Slot;
  value: string;
  /** `valueHash(value)`. */
  valueHash: string;
  source: Source;
  status: 'active' | 'pending' | 'superseded';
  /** 0..1, already capped by the caller's use of the evidence gate. */
  confidence: number;
  /** The episode of the first sighting (its evidence row). */
  episodeId: number;
  /** True since, ms since epoch. */
  validFrom: number | null;
  supersedesId: number | null;
  /** For a pending row: the active fact it contradicts. */
  conflictsWithId: number | null;
  /** For a history row (status superseded): when it stopped being true, and what replaced it. */
  validTo?: number | null;
  supersededById?: number | null;
  /** Why the row is in its status. */
  reason: string;
  /** ms since epoch. */
  now: number;
}

/** Every column of a fact row as {@link insertRow} writes it (times in ms since epoch). */
interface FactRow {
  slot: Slot;
  value: string;
  valueHash: string;
  status: Fact['status'];
  source: Source;
  confidence: number;
  evidenceCount: number;
  createdAt: number;
  updatedAt: number;
  lastSeenAt: number;
  lastDecayedAt: number | null;
  validFrom: number | null;
  validTo: number | null;
  supersedesId: number | null;
  supersededById: number | null;
  conflictsWithId: number | null;
  statusReason: string | null;
  purgedAt: number | null;
}

/** The one INSERT of a fact row (noted for the journal); its evidence is the caller's. */
function insertRow(ctx: StoreContext, f: FactRow): number {
  const id = Number(
    stmt(
      ctx.db,
      `INSERT INTO facts
        (scope, kind, key, value, value_hash, status, source, confidence, evidence_count, created_at,
         updated_at, last_seen_at, last_decayed_at, valid_from, valid_to, supersedes_id,
         superseded_by_id, conflicts_with_id, status_reason, purged_at)
        VALUES (@scope, @kind, @key, @value, @value_hash, @status, @source, @confidence, @evidence,
         @created_at, @updated_at, @last_seen_at, @last_decayed_at, @valid_from, @valid_to,
         @supersedes_id, @superseded_by_id, @conflicts_with_id, @status_reason, @purged_at)`,
    ).run({
      scope: f.slot.scope,
      kind: f.slot.kind,
      key: f.slot.key,
      value: f.value,
      value_hash: f.valueHash,
      status: f.status,
      source: f.source,
      confidence: f.confidence,
      evidence: f.evidenceCount,
      created_at: f.createdAt,
      updated_at: f.updatedAt,
      last_seen_at: f.lastSeenAt,
      last_decayed_at: f.lastDecayedAt,
      valid_from: f.validFrom,
      valid_to: f.validTo,
      supersedes_id: f.supersedesId,
      superseded_by_id: f.supersededById,
      conflicts_with_id: f.conflictsWithId,
      status_reason: f.statusReason,
      purged_at: f.purgedAt,
    }).lastInsertRowid,
  );
  noteInsert(ctx.db, 'facts', id);
  return id;
}

/**
 * Writes a new fact row and its first piece of evidence.
 *
 * @returns the row as stored.
 */
export function create(ctx: StoreContext, f: NewFact): Fact {
  const id = insertRow(ctx, {
    slot: f.slot,
    value: f.value,
    valueHash: f.valueHash,
    status: f.status,
    source: f.source,
    confidence: f.confidence,
    evidenceCount: 1,
    createdAt: f.now,
    updatedAt: f.now,
    lastSeenAt: f.now,
    lastDecayedAt: null,
    validFrom: f.validFrom,
    validTo: f.validTo ?? null,
    supersedesId: f.supersedesId,
    supersededById: f.supersededById ?? null,
    conflictsWithId: f.conflictsWithId,
    statusReason: f.reason,
    purgedAt: null,
  });
  addEvidence(ctx, id, f.episodeId, f.source, f.now);
  return factById(ctx, id)!;
}

/**
 * Records that `episodeId` supports `factId`, seen at `observedAt` (ms). `fact_evidence` is
 * append-only; an episode counts once per fact.
 *
 * @returns false if it already did.
 */
export function addEvidence(
  ctx: StoreContext,
  factId: number,
  episodeId: number,
  source: Source,
  observedAt: number,
): boolean {
  const r = stmt(
    ctx.db,
    'INSERT OR IGNORE INTO fact_evidence (fact_id, episode_id, source, observed_at) VALUES (?, ?, ?, ?)',
  ).run(factId, episodeId, source, observedAt);
  if (r.changes !== 1) return false;
  noteInsert(ctx.db, 'fact_evidence', Number(r.lastInsertRowid));
  return true;
}

/** Independent pieces of evidence a fact has (distinct episodes). */
export function evidenceCount(ctx: StoreContext, factId: number): number {
  return (
    stmt(ctx.db, 'SELECT count(*) AS n FROM fact_evidence WHERE fact_id = ?').get(factId) as {
      n: number;
    }
  ).n;
}

/**
 * Adds a sighting from a new episode to an active or pending row: one more piece of evidence, the
 * confidence raised by the evidence gate's rule ({@link raisedConfidence}), and the row's source
 * promoted when the sighting's source is more authoritative (an owner sighting of a guess makes it
 * the owner's, at 1.0).
 *
 * @returns the row after, or null when this episode already supported it (nothing changed).
 */
export function corroborate(
  ctx: StoreContext,
  row: Fact,
  sighting: { episodeId: number; source: Source; now: number },
): Fact | null {
  if (!addEvidence(ctx, row.id, sighting.episodeId, sighting.source, sighting.now)) return null;
  const evidence = row.evidence_count + 1;
  const promote = authority(sighting.source) > authority(row.source);
  const source = promote ? sighting.source : row.source;
  const confidence = raisedConfidence(row.confidence, source, evidence, 1, promote);
  noteChange(ctx.db, 'facts', row.id);
  stmt(
    ctx.db,
    `UPDATE facts SET evidence_count = ?, confidence = ?, source = ?, last_seen_at = ?, updated_at = ?
     WHERE id = ?`,
  ).run(evidence, confidence, source, sighting.now, sighting.now, row.id);
  return factById(ctx, row.id)!;
}

/**
 * Moves an active or pending row to `superseded`. An active row must leave before its successor
 * enters (one active row per slot): pass `byId` null then and {@link linkSuccessor} once the
 * successor exists.
 *
 * @param change.validTo - when the value stopped being true (ms); kept if the row already has one,
 *   and never before the row's own `valid_from` (an interval never ends before it starts). Omit
 *   for a pending row that never was current.
 */
export function supersede(
  ctx: StoreContext,
  id: number,
  change: { byId: number | null; now: number; reason: string; validTo?: number },
): void {
  noteChange(ctx.db, 'facts', id);
  stmt(
    ctx.db,
    `UPDATE facts SET status = 'superseded', superseded_by_id = coalesce(?, superseded_by_id),
       updated_at = ?, valid_to = CASE WHEN ? IS NULL THEN valid_to
         ELSE coalesce(valid_to, max(coalesce(valid_from, ?), ?)) END,
       status_reason = ? WHERE id = ?`,
  ).run(
    change.byId,
    change.now,
    change.validTo ?? null,
    change.validTo ?? null,
    change.validTo ?? null,
    change.reason,
    id,
  );
}

/** Links a superseded row to the row that replaced it. */
export function linkSuccessor(ctx: StoreContext, id: number, successorId: number): void {
  noteChange(ctx.db, 'facts', id);
  stmt(ctx.db, 'UPDATE facts SET superseded_by_id = ? WHERE id = ?').run(successorId, id);
}

/**
 * The owner confirms a row: active, `owner_confirmed`, 1.0, with the confirmation's episode as
 * evidence; a pending row's conflict link is cleared and, when it replaced a current value,
 * `supersedesId` names it.
 */
export function confirm(
  ctx: StoreContext,
  id: number,
  change: { episodeId: number; supersedesId: number | null; now: number },
): void {
  addEvidence(ctx, id, change.episodeId, 'owner_confirmed', change.now);
  noteChange(ctx.db, 'facts', id);
  stmt(
    ctx.db,
    `UPDATE facts SET status = 'active', source = 'owner_confirmed', confidence = 1.0,
       evidence_count = ?, supersedes_id = coalesce(?, supersedes_id), conflicts_with_id = NULL,
       last_seen_at = ?, updated_at = ?, status_reason = 'confirmed by the owner' WHERE id = ?`,
  ).run(evidenceCount(ctx, id), change.supersedesId, change.now, change.now, id);
}

/**
 * Takes an active or pending row out of belief: `rejected` (the owner said no) or `retracted`
 * (forgotten, pruned, or no longer true). `validTo` defaults to now; a row that already ended keeps
 * its end.
 */
export function retire(
  ctx: StoreContext,
  id: number,
  change: { status: 'rejected' | 'retracted'; now: number; reason: string; validTo?: number },
): void {
  noteChange(ctx.db, 'facts', id);
  stmt(
    ctx.db,
    `UPDATE facts SET status = ?, updated_at = ?,
       valid_to = coalesce(valid_to, max(coalesce(valid_from, ?), ?)), status_reason = ? WHERE id = ?`,
  ).run(
    change.status,
    change.now,
    change.validTo ?? change.now,
    change.validTo ?? change.now,
    change.reason,
    id,
  );
}

/**
 * Retraction with a known end: the row ends at `validTo` (the episode that said so), or where it
 * starts when that is later (an interval never ends before it starts).
 */
export function retractAt(
  ctx: StoreContext,
  id: number,
  change: { now: number; validTo: number; reason: string },
): void {
  noteChange(ctx.db, 'facts', id);
  stmt(
    ctx.db,
    `UPDATE facts SET status = 'retracted', updated_at = ?,
       valid_to = max(coalesce(valid_from, ?), ?), status_reason = ? WHERE id = ?`,
  ).run(change.now, change.validTo, change.validTo, change.reason, id);
}

/** Decay lowers an idle belief's confidence; `last_decayed_at` records when (never `last_seen_at`). */
export function decayTo(ctx: StoreContext, id: number, confidence: number, now: number): void {
  noteChange(ctx.db, 'facts', id);
  stmt(ctx.db, 'UPDATE facts SET confidence = ?, last_decayed_at = ? WHERE id = ?').run(
    confidence,
    now,
    id,
  );
}

/** A purge erases a row's value ({@link PURGED} stands in); its hash stays. */
export function erase(ctx: StoreContext, id: number, now: number): void {
  noteChange(ctx.db, 'facts', id);
  stmt(ctx.db, 'UPDATE facts SET value = ?, purged_at = ?, updated_at = ? WHERE id = ?').run(
    PURGED,
    now,
    now,
    id,
  );
}

/**
 * A purge by mention cuts a purged value out of a retired row's key (`key` as the caller scrubbed
 * it): a key such as `sister_in_porto` holds the owner's words too. The row must not be active
 * (one active row per slot: its slot changes).
 */
export function eraseKey(ctx: StoreContext, id: number, key: string, now: number): void {
  noteChange(ctx.db, 'facts', id);
  stmt(
    ctx.db,
    `UPDATE facts SET key = ?, purged_at = coalesce(purged_at, ?), updated_at = ?
     WHERE id = ? AND status <> 'active'`,
  ).run(key, now, now, id);
}

/**
 * A purge cuts a value out of a belief in another slot that quoted it: the row keeps the rest of
 * its words (`value` as the caller scrubbed it) and its status; `purged_at` records the cut. Its
 * hash stays the original's.
 */
export function scrubValue(ctx: StoreContext, id: number, value: string, now: number): void {
  noteChange(ctx.db, 'facts', id);
  stmt(ctx.db, 'UPDATE facts SET value = ?, purged_at = ?, updated_at = ? WHERE id = ?').run(
    value,
    now,
    now,
    id,
  );
}

/**
 * Merges a duplicate into its keeper: the duplicate's evidence is added to the keeper (each piece
 * keeps its source and time; an episode the keeper already has is not counted twice), the
 * duplicate becomes `superseded` by the keeper, and the keeper's evidence is recounted and its
 * confidence raised by the evidence gate's rule for each newly counted episode.
 *
 * @returns the episodes newly counted for the keeper, and its confidence and evidence after.
 */
export function mergeInto(
  ctx: StoreContext,
  keeper: Fact,
  dup: Fact,
  change: { now: number; reason: string },
): { moved: number[]; confidence: number; evidenceCount: number } {
  const evidence = stmt(
    ctx.db,
    'SELECT episode_id, source, observed_at FROM fact_evidence WHERE fact_id = ? ORDER BY id',
  ).all(dup.id) as { episode_id: number; source: Source; observed_at: number }[];
  const moved: number[] = [];
  for (const e of evidence) {
    if (addEvidence(ctx, keeper.id, e.episode_id, e.source, e.observed_at))
      moved.push(e.episode_id);
  }
  noteChange(ctx.db, 'facts', dup.id);
  stmt(
    ctx.db,
    `UPDATE facts SET status = 'superseded', superseded_by_id = ?, updated_at = ?, status_reason = ?
     WHERE id = ? AND status = 'active'`,
  ).run(keeper.id, change.now, change.reason, dup.id);
  const count = evidenceCount(ctx, keeper.id);
  const confidence = raisedConfidence(keeper.confidence, keeper.source, count, moved.length);
  noteChange(ctx.db, 'facts', keeper.id);
  stmt(
    ctx.db,
    `UPDATE facts SET evidence_count = ?, confidence = ?, last_seen_at = max(last_seen_at, ?),
       updated_at = ? WHERE id = ?`,
  ).run(count, confidence, dup.last_seen_at, change.now, keeper.id);
  return { moved, confidence, evidenceCount: count };
}

/** What {@link restore} writes: a fact row as a keel export recorded it, ids already mapped. */
export interface RestoredFact {
  slot: Slot;
  value: string;
  valueHash: string;
  status: Fact['status'];
  source: Source;
  confidence: number;
  createdAt: number;
  updatedAt: number;
  lastSeenAt: number;
  lastDecayedAt: number | null;
  validFrom: number | null;
  validTo: number | null;
  purgedAt: number | null;
  statusReason: string | null;
  /** Each piece of evidence: the episode (its id in this store), its source and when it was seen. */
  evidence: readonly { episodeId: number; source: Source; observedAt: number }[];
}

/**
 * Writes a fact row as a keel export recorded it (status, source, confidence, times), with its
 * evidence; its links are set afterwards by {@link restoreLinks}, once every row of the export
 * exists. Only an import into a store without beliefs calls this (one active row per slot holds
 * as it held where the export was made).
 *
 * @returns the new row's id.
 */
export function restore(ctx: StoreContext, f: RestoredFact): number {
  const id = insertRow(ctx, {
    ...f,
    evidenceCount: f.evidence.length,
    supersedesId: null,
    supersededById: null,
    conflictsWithId: null,
  });
  for (const e of f.evidence) addEvidence(ctx, id, e.episodeId, e.source, e.observedAt);
  return id;
}

/** Sets a restored row's supersession and conflict links (ids in this store). */
export function restoreLinks(
  ctx: StoreContext,
  id: number,
  links: {
    supersedesId: number | null;
    supersededById: number | null;
    conflictsWithId: number | null;
  },
): void {
  noteChange(ctx.db, 'facts', id);
  stmt(
    ctx.db,
    'UPDATE facts SET supersedes_id = ?, superseded_by_id = ?, conflicts_with_id = ? WHERE id = ?',
  ).run(links.supersedesId, links.supersededById, links.conflictsWithId, id);
}

/** Uses of one fact that recall counted and the store has not written yet. */
export interface AccessCount {
  /** How many recalls returned it. */
  count: number;
  /** The latest of them, ms since epoch. */
  at: number;
}

/**
 * Recall's documented side effect, written later (recall itself never writes; the store applies
 * what it counted with its next write): the facts' access count and last access time. Use slows
 * decay; it never raises confidence. A fact's last access time never moves back.
 */
export function recordAccess(ctx: StoreContext, uses: ReadonlyMap<number, AccessCount>): void {
  const bump = stmt(
    ctx.db,
    `UPDATE facts SET access_count = access_count + ?,
       last_accessed_at = max(coalesce(last_accessed_at, 0), ?) WHERE id = ?`,
  );
  for (const [id, use] of uses) bump.run(use.count, use.at, id);
}

/** The evidence gate's ceiling for a first sighting (re-exported for the write review). */
export const firstSightingCeiling = (source: Source) => confidenceCeiling(source, 1);

/** True when a row's source lets it decay and be pruned (never the owner's word). */
export function isDecayable(fact: Pick<Fact, 'source' | 'evidence_count'>): boolean {
  return !isOwnerSource(fact.source) && fact.evidence_count === 1;
}
