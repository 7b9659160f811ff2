/**
 * Tombstones: the value-keyed record of what was forgotten, purged, pruned or rejected (slot, hash
 * of the value, reason, when). Every write consults them so that nothing but the owner's word can
 * bring a removed value back; the owner saying the value again in its slot lifts them.
 *
 * @module
 */
import { type StoreContext, stmt } from '../context.js';
import { noteChange, noteInsert } from '../journal/rows.js';
import type { Fact, Slot } from '../types.js';

/** Why a value was tombstoned. */
export type TombstoneReason = 'forgotten' | 'purged' | 'pruned' | 'rejected';

/** An unlifted tombstone of a slot's value. */
export interface Tombstone {
  id: number;
  reason: TombstoneReason;
}

/** Leaves a tombstone for a fact's value in its slot. */
export function bury(ctx: StoreContext, fact: Fact, reason: TombstoneReason, now: number): void {
  const id = stmt(
    ctx.db,
    `INSERT INTO tombstones (scope, kind, key, value_hash, reason, fact_id, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?)`,
  ).run(fact.scope, fact.kind, fact.key, fact.value_hash, reason, fact.id, now).lastInsertRowid;
  noteInsert(ctx.db, 'tombstones', Number(id));
}

/** The unlifted tombstones of `hash` in `slot`. */
export function tombstonesOf(ctx: StoreContext, slot: Slot, hash: string): Tombstone[] {
  return stmt(
    ctx.db,
    `SELECT id, reason FROM tombstones
     WHERE scope = ? AND kind = ? AND key = ? AND value_hash = ? AND lifted_at IS NULL`,
  ).all(slot.scope, slot.kind, slot.key, hash) as Tombstone[];
}

/** Lifts tombstones: the owner restored the value as fact `byFactId`. */
export function lift(ctx: StoreContext, ids: readonly number[], byFactId: number, now: number) {
  const update = stmt(ctx.db, 'UPDATE tombstones SET lifted_at = ?, lifted_by = ? WHERE id = ?');
  for (const id of ids) {
    noteChange(ctx.db, 'tombstones', id);
    update.run(now, byFactId, id);
  }
}

/**
 * The oldest unlifted `forgotten` or `purged` tombstone of `hash` anywhere in `scope` (the owner's
 * forgetting binds every key of the scope), or undefined.
 */
export function forgottenAnywhere(
  ctx: StoreContext,
  scope: Slot['scope'],
  hash: string,
): { id: number } | undefined {
  return stmt(
    ctx.db,
    `SELECT id FROM tombstones
     WHERE scope = ? AND value_hash = ? AND reason IN ('forgotten', 'purged') AND lifted_at IS NULL
     ORDER BY id LIMIT 1`,
  ).get(scope, hash) as { id: number } | undefined;
}

/** A fact of `scope` that `episodeId` supported and that the owner forgot or purged. */
export interface ForgottenFromEpisode {
  tombstone_id: number;
  fact_id: number;
  kind: string;
  value: string;
  purged_at: number | null;
}

/** The facts of `scope` the owner forgot or purged that `episodeId` was evidence for. */
export function forgottenFromEpisode(
  ctx: StoreContext,
  episodeId: number,
  scope: Slot['scope'],
): ForgottenFromEpisode[] {
  return stmt(
    ctx.db,
    `SELECT t.id AS tombstone_id, g.id AS fact_id, g.kind, g.value, g.purged_at
     FROM fact_evidence fe JOIN facts g ON g.id = fe.fact_id JOIN tombstones t ON t.fact_id = g.id
     WHERE fe.episode_id = ? AND g.scope = ?
       AND t.reason IN ('forgotten', 'purged') AND t.lifted_at IS NULL
     ORDER BY t.id`,
  ).all(episodeId, scope) as ForgottenFromEpisode[];
}

/** The reasons of every tombstone of `hash`, oldest first (audit). */
export function tombstoneReasons(ctx: StoreContext, hash: string): TombstoneReason[] {
  return (
    stmt(ctx.db, 'SELECT reason FROM tombstones WHERE value_hash = ? ORDER BY id').all(hash) as {
      reason: TombstoneReason;
    }[]
  ).map((t) => t.reason);
}
