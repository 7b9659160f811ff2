/**
 * The one accessor for reading facts. Current beliefs are read through the `active_facts` view
 * (an allowlist on status = 'active'); raw-table reads below are for history and audit only.
 *
 * @module
 */
import { type StoreContext, stmt } from '../context.js';
import { unexplainedFacts } from '../journal/rows.js';
import type { Fact, Kind, Scope, Slot, Source, Status } from '../types.js';

/** The current value of a slot, or undefined. */
export function activeFact(ctx: StoreContext, slot: Slot): Fact | undefined {
  return stmt(ctx.db, 'SELECT * FROM active_facts WHERE scope = ? AND kind = ? AND key = ?').get(
    slot.scope,
    slot.kind,
    slot.key,
  ) as Fact | undefined;
}

/** Every current belief in a scope, strongest first. */
export function activeFacts(ctx: StoreContext, scope?: Scope): Fact[] {
  return (
    scope
      ? stmt(ctx.db, 'SELECT * FROM active_facts WHERE scope = ? ORDER BY confidence DESC, id').all(
          scope,
        )
      : stmt(ctx.db, 'SELECT * FROM active_facts ORDER BY confidence DESC, id').all()
  ) as Fact[];
}

/** The owner's own current beliefs (owner_stated, owner_confirmed) of one scope and kind, by id. */
export function ownerFactsOfKind(ctx: StoreContext, scope: Scope, kind: Kind): Fact[] {
  return stmt(
    ctx.db,
    `SELECT * FROM active_facts WHERE scope = ? AND kind = ?
       AND source IN ('owner_stated', 'owner_confirmed') ORDER BY id`,
  ).all(scope, kind) as Fact[];
}

/**
 * The strongest current beliefs of the given kinds: confidence, then evidence, then kind/key;
 * at most `limit` rows (for the prompt's static block, which never needs the whole store). A
 * belief the journal does not explain (changed or written outside keel; see `unexplainedFacts`)
 * is left out, so the model is never given it as a standing belief, and the next strongest takes
 * its place: `limit` explained beliefs are returned whenever the store holds that many, however
 * many tampered rows rank above them (only the rows read are checked, a page at a time).
 */
export function strongestFacts(
  ctx: StoreContext,
  scope: Scope,
  kinds: readonly string[],
  limit: number,
): Fact[] {
  const page = stmt(
    ctx.db,
    `SELECT * FROM active_facts WHERE scope = ? AND kind IN (SELECT value FROM json_each(?))
     ORDER BY confidence DESC, evidence_count DESC, kind, key LIMIT ? OFFSET ?`,
  );
  const out: Fact[] = [];
  for (let offset = 0; out.length < limit; ) {
    const want = limit - out.length;
    const rows = page.all(scope, JSON.stringify(kinds), want, offset) as Fact[];
    offset += rows.length;
    const unexplained = unexplainedFacts(ctx.db, rows);
    for (const f of rows) if (!unexplained.has(f.id)) out.push(f);
    if (rows.length < want) break; // no more rows
  }
  return out;
}

/** Audit read: a fact row in any status. */
export function factById(ctx: StoreContext, id: number): Fact | undefined {
  return stmt(ctx.db, 'SELECT * FROM facts WHERE id = ?').get(id) as Fact | undefined;
}

/** Audit read: the rows of a slot in the given statuses. */
export function slotRows(ctx: StoreContext, slot: Slot, statuses: readonly Status[]): Fact[] {
  const rows = stmt(
    ctx.db,
    'SELECT * FROM facts WHERE scope = ? AND kind = ? AND key = ? ORDER BY id DESC',
  ).all(slot.scope, slot.kind, slot.key) as Fact[];
  return rows.filter((r) => statuses.includes(r.status));
}

/**
 * History read: every version of a slot, newest first, with the links between them. Includes
 * superseded, retracted, rejected and pending rows.
 */
export function history(ctx: StoreContext, slot: Slot): Fact[] {
  return stmt(
    ctx.db,
    'SELECT * FROM facts WHERE scope = ? AND kind = ? AND key = ? ORDER BY created_at DESC, id DESC',
  ).all(slot.scope, slot.kind, slot.key) as Fact[];
}

/** Episode ids that support a fact, oldest first. */
export function evidenceEpisodes(ctx: StoreContext, factId: number): number[] {
  return (
    stmt(ctx.db, 'SELECT episode_id FROM fact_evidence WHERE fact_id = ? ORDER BY id').all(
      factId,
    ) as {
      episode_id: number;
    }[]
  ).map((r) => r.episode_id);
}

/** Every row of a slot holding a value (by hash), in any status (audit read, for purge). */
export function slotRowsWithValue(ctx: StoreContext, slot: Slot, valueHash: string): Fact[] {
  return stmt(
    ctx.db,
    'SELECT * FROM facts WHERE scope = ? AND kind = ? AND key = ? AND value_hash = ?',
  ).all(slot.scope, slot.kind, slot.key, valueHash) as Fact[];
}

/** Pending conflicts, oldest first (the review surface's audit read). */
export function pendingFacts(ctx: StoreContext): Fact[] {
  return stmt(
    ctx.db,
    `SELECT * FROM facts WHERE status = 'pending' ORDER BY created_at, id`,
  ).all() as Fact[];
}

/** Active beliefs not from the owner below `threshold`, weakest first. */
export function weakFacts(ctx: StoreContext, threshold: number): Fact[] {
  return stmt(
    ctx.db,
    `SELECT * FROM active_facts
     WHERE confidence < ? AND source NOT IN ('owner_stated', 'owner_confirmed')
     ORDER BY confidence, id`,
  ).all(threshold) as Fact[];
}

/** Active beliefs with an open `stale` review flag, oldest flag first. */
export function staleFacts(ctx: StoreContext): Fact[] {
  return stmt(
    ctx.db,
    `SELECT f.* FROM review_flags r JOIN active_facts f ON f.id = r.fact_id
     WHERE r.reason = 'stale' AND r.cleared_at IS NULL
     ORDER BY r.flagged_at, f.id`,
  ).all() as Fact[];
}

/** Row counts for `keel doctor` and `keel verify`. */
export function factCounts(ctx: StoreContext): { facts: number; active: number; pending: number } {
  return stmt(
    ctx.db,
    `SELECT count(*) AS facts, coalesce(sum(status = 'active'), 0) AS active,
            coalesce(sum(status = 'pending'), 0) AS pending FROM facts`,
  ).get() as { facts: number; active: number; pending: number };
}

/**
 * Audit read for purge: every fact row not yet purged whose value holds a value (as `scrubber`
 * finds it: case, punctuation and Unicode form aside), in any status, by id.
 */
export function factsHolding(
  ctx: StoreContext,
  scrubber: { holds(text: string): boolean },
): Fact[] {
  return (
    stmt(ctx.db, 'SELECT * FROM facts WHERE purged_at IS NULL ORDER BY id').all() as Fact[]
  ).filter((f) => scrubber.holds(f.value));
}

/** How {@link currentBeliefs} sorts: by kind then key, or strongest first. */
export const BELIEF_ORDERS = ['kind', 'confidence'] as const;
/** One of {@link BELIEF_ORDERS}. */
export type BeliefOrder = (typeof BELIEF_ORDERS)[number];

/** Which current beliefs {@link currentBeliefs} lists; every field narrows, none is required. */
export interface BeliefFilter {
  /** Whose beliefs: the owner's or keel's own. Default both. */
  scope?: Scope;
  kind?: Kind;
  /** Who the belief came from (`owner_stated`, `inferred`, `imported`, …). */
  source?: Source;
  /** At least this confident, 0..1 (inclusive). */
  minConfidence?: number;
  /** At most this confident, 0..1 (inclusive). */
  maxConfidence?: number;
  /**
   * `kind` (the default): by kind, then key, a slot's current value before a conflict pending
   * on it; `confidence`: strongest first (confidence, then evidence), then kind and key.
   */
  order?: BeliefOrder;
}

/** What {@link currentBeliefs} found. */
export interface BeliefListing {
  /**
   * Every current belief (`active`) that passes the filter, and every pending conflict (`pending`:
   * a value waiting for the owner's review, which names the belief it contradicts in
   * `conflicts_with_id`). Superseded, retracted (forgotten) and rejected rows are never listed.
   */
  beliefs: Fact[];
  /**
   * Beliefs that pass the filter but that the journal does not explain (changed or written
   * outside keel; see `unexplainedFacts`): left out of `beliefs`, as recall leaves them out, and
   * named here by id, ascending, for `keel verify` to explain.
   */
  unexplained: number[];
}

/**
 * Every belief keel holds now, with a filter and an order (`keel beliefs`): the current value of
 * each slot and each pending conflict, never a superseded, forgotten or rejected one; those the
 * journal does not explain are left out and named (see {@link BeliefListing}).
 */
export function currentBeliefs(ctx: StoreContext, filter: BeliefFilter = {}): BeliefListing {
  const order =
    filter.order === 'confidence'
      ? 'confidence DESC, evidence_count DESC, kind, key, id'
      : "kind, key, status = 'pending', id";
  const rows = stmt(
    ctx.db,
    `SELECT * FROM facts WHERE status IN ('active', 'pending')
       AND (@scope IS NULL OR scope = @scope) AND (@kind IS NULL OR kind = @kind)
       AND (@source IS NULL OR source = @source)
       AND (@min IS NULL OR confidence >= @min) AND (@max IS NULL OR confidence <= @max)
     ORDER BY ${order}`,
  ).all({
    scope: filter.scope ?? null,
    kind: filter.kind ?? null,
    source: filter.source ?? null,
    min: filter.minConfidence ?? null,
    max: filter.maxConfidence ?? null,
  }) as Fact[];
  const unexplained = unexplainedFacts(ctx.db, rows);
  return {
    beliefs: rows.filter((f) => !unexplained.has(f.id)),
    unexplained: [...unexplained].sort((a, b) => a - b),
  };
}
