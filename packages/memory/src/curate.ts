/**
 * The store's side of the nightly curator and the weekly review: dedupe over active rows, journal
 * compaction, and flagging stale beliefs for the owner's review. Each runs in one IMMEDIATE
 * transaction of its own, or as a savepoint inside a caller's unit of work
 * (`MemoryStore.transaction`), so a night that fails keeps nothing half-done.
 *
 * @module
 */

import { KeelError } from '@keel/errors';
import { type StoreContext, stmt } from './context.js';
import { addEpisode } from './episodes.js';
import { factById } from './facts.js';
import { appendJournal } from './journal.js';
import { normalizeValue } from './text.js';
import type { Fact, Kind, Scope, Source } from './types.js';
import {
  addEvidence,
  clearReviewFlags,
  confidenceCeiling,
  isOwnerSource,
  REPEAT_STEP,
  round,
} from './write.js';

const DAY_MS = 86_400_000;

// ---------------------------------------------------------------------------------------------
// Dedupe

/**
 * The fewest words (after value normalisation) a value needs before two keys holding it count as
 * duplicates. A short value ("blue", "on", "3") takes its meaning from its key: "car colour" and
 * "favourite colour" can both be "blue" and are still two beliefs.
 */
export const DEDUPE_MIN_WORDS = 3;

/** The reason recorded on a duplicate merged by {@link dedupeActive} (journal and status_reason). */
export const DEDUPE_REASON = 'the same value under another key: merged into the stronger belief';

/** One duplicate merged by {@link dedupeActive}. */
export interface DedupeChange {
  /** The duplicate, now `superseded` with `superseded_by_id` = {@link keptId}. */
  id: number;
  /** The belief kept. */
  keptId: number;
  scope: Scope;
  kind: Kind;
  /** The duplicate's key. */
  key: string;
  /** The kept belief's key. */
  keptKey: string;
  /** Episodes newly counted as the kept belief's evidence (those it already had are not repeated). */
  movedEvidence: number[];
  /** The kept belief's confidence (0..1) and evidence count after the merge. */
  confidence: number;
  evidenceCount: number;
}

/** Owner source first, then confidence, evidence, the older row, the lower id. */
function stronger(a: Fact, b: Fact): number {
  return (
    Number(isOwnerSource(b.source)) - Number(isOwnerSource(a.source)) ||
    b.confidence - a.confidence ||
    b.evidence_count - a.evidence_count ||
    a.created_at - b.created_at ||
    a.id - b.id
  );
}

/**
 * Merges duplicate current beliefs: active facts of the same scope and kind whose values are the
 * same after normalisation (same `value_hash`) under different keys.
 *
 * Rules:
 * - Only `active` rows are read or changed; pending, superseded, retracted and rejected rows are
 *   never touched. Scopes and kinds are never mixed.
 * - Values of fewer than {@link DEDUPE_MIN_WORDS} words are never merged (their meaning is in the key).
 * - The keeper is the strongest row: an owner source first, then confidence, evidence count, the
 *   older `created_at`.
 * - The owner's word is never retired by a mechanism: a duplicate that is owner_stated or
 *   owner_confirmed stays active even when another owner row is kept (two owner statements under
 *   two keys are both kept). Only non-owner duplicates are merged.
 * - A merged duplicate becomes `superseded` with `superseded_by_id` → the keeper (no tombstone: the
 *   value is still believed, under the keeper's key); its open review flags are cleared.
 * - Its evidence episodes are added to the keeper (`fact_evidence` is append-only; an episode the
 *   keeper already has is not counted twice). The keeper's `evidence_count` is recounted and its
 *   confidence rises by {@link REPEAT_STEP} per newly counted episode, never past the evidence
 *   gate's {@link confidenceCeiling} and never lowered; `last_seen_at` becomes the later of the two.
 * - Each merge is journaled (`dedupe`, actor think) with {@link DEDUPE_REASON}; a run that merged
 *   anything records one mechanism episode.
 *
 * Idempotent: a second run finds nothing to merge.
 *
 * @returns one change per duplicate merged, in the order merged.
 */
export function dedupeActive(ctx: StoreContext): DedupeChange[] {
  return ctx.db
    .transaction((): DedupeChange[] => {
      const now = ctx.now();
      const rows = stmt(
        ctx.db,
        `SELECT * FROM active_facts WHERE (scope, kind, value_hash) IN (
           SELECT scope, kind, value_hash FROM active_facts
           GROUP BY scope, kind, value_hash HAVING count(*) > 1)
         ORDER BY scope, kind, value_hash, id`,
      ).all() as Fact[];
      const groups = new Map<string, Fact[]>();
      for (const r of rows) {
        if (normalizeValue(r.value).split(' ').length < DEDUPE_MIN_WORDS) continue;
        const k = `${r.scope}\u001f${r.kind}\u001f${r.value_hash}`;
        groups.set(k, [...(groups.get(k) ?? []), r]);
      }
      const changes: DedupeChange[] = [];
      for (const group of groups.values()) {
        if (group.length < 2) continue;
        group.sort(stronger);
        let keeper = group[0]!;
        for (const dup of group.slice(1)) {
          if (isOwnerSource(dup.source)) continue;
          const change = merge(ctx, keeper, dup, now);
          changes.push(change);
          keeper = factById(ctx, keeper.id)!;
        }
      }
      if (changes.length > 0) {
        addEpisode(ctx, {
          kind: 'mechanism',
          channel: 'keel',
          role: 'keel',
          text: `dedupe merged ${changes.length} duplicate belief(s)`,
          actor: 'think',
        });
      }
      return changes;
    })
    .immediate();
}

function merge(ctx: StoreContext, keeper: Fact, dup: Fact, now: number): DedupeChange {
  const evidence = stmt(
    ctx.db,
    'SELECT episode_id, source, observed_at FROM fact_evidence WHERE fact_id = ? ORDER BY id',
  ).all(dup.id) as { episode_id: number; source: string; observed_at: number }[];
  const moved: number[] = [];
  for (const e of evidence) {
    // Each piece keeps its original source and time.
    if (addEvidence(ctx, keeper.id, e.episode_id, e.source as Source, e.observed_at)) {
      moved.push(e.episode_id);
    }
  }
  stmt(
    ctx.db,
    `UPDATE facts SET status = 'superseded', superseded_by_id = ?, updated_at = ?, status_reason = ?
     WHERE id = ? AND status = 'active'`,
  ).run(keeper.id, now, `${DEDUPE_REASON} (f${keeper.id})`, dup.id);
  clearReviewFlags(ctx, dup.id, now);
  const evidenceCount = (
    stmt(ctx.db, 'SELECT count(*) AS n FROM fact_evidence WHERE fact_id = ?').get(keeper.id) as {
      n: number;
    }
  ).n;
  const ceiling = confidenceCeiling(keeper.source, evidenceCount);
  const confidence = Math.max(
    keeper.confidence,
    Math.min(ceiling, round(keeper.confidence + REPEAT_STEP * moved.length)),
  );
  stmt(
    ctx.db,
    `UPDATE facts SET evidence_count = ?, confidence = ?, last_seen_at = max(last_seen_at, ?),
       updated_at = ? WHERE id = ?`,
  ).run(evidenceCount, confidence, dup.last_seen_at, now, keeper.id);
  appendJournal(ctx.db, {
    at: now,
    actor: 'think',
    op: 'dedupe',
    entity: 'fact',
    entityId: dup.id,
    payload: {
      scope: dup.scope,
      kind: dup.kind,
      key: dup.key,
      value_hash: dup.value_hash,
      reason: DEDUPE_REASON,
      kept: { id: keeper.id, key: keeper.key },
      before: {
        status: dup.status,
        source: dup.source,
        confidence: dup.confidence,
        evidence_count: dup.evidence_count,
      },
      after: { status: 'superseded', superseded_by_id: keeper.id },
      keeper: {
        before: { confidence: keeper.confidence, evidence_count: keeper.evidence_count },
        after: { confidence, evidence_count: evidenceCount },
      },
      moved_evidence: moved,
    },
  });
  return {
    id: dup.id,
    keptId: keeper.id,
    scope: dup.scope,
    kind: dup.kind,
    key: dup.key,
    keptKey: keeper.key,
    movedEvidence: moved,
    confidence,
    evidenceCount,
  };
}

// ---------------------------------------------------------------------------------------------
// Journal compaction

/** Options for {@link compactJournal}. */
export interface CompactOptions {
  /** Only entries written strictly before this instant (ms since epoch) are compacted. */
  before: number;
}

/** The fields a compacted fact snapshot keeps: what can differ between two entries of one row. */
const SNAPSHOT_KEEPS = ['id', 'status', 'source', 'confidence', 'evidence_count'] as const;
/** Ops whose `after` full-row snapshot may be compacted. */
const SNAPSHOT_OPS = new Set(['create', 'conflict']);
/** Ops whose `after` is a full fact row (a later one of the same fact makes earlier ones redundant). */
const FULL_SNAPSHOT_OPS = ['create', 'conflict', 'update', 'confirm'];

interface Row {
  seq: number;
  at: number;
  actor: string;
  op: string;
  entity_id: number | null;
  payload: string;
}

type Json = Record<string, unknown>;

const isFullSnapshot = (after: unknown): after is Json =>
  typeof after === 'object' &&
  after !== null &&
  !Array.isArray(after) &&
  'id' in after &&
  'value' in after;

/**
 * Redacts redundant snapshots from the journal's payloads while keeping every entry, its hashes and
 * the chain (`verifyJournal` and `keel verify` still report no breaks: only `payload` and
 * `redacted_at` change, as the journal's redact-only trigger allows).
 *
 * An entry is compacted only when it was written before `options.before`, its actor is not the
 * owner, and its payload holds one of these redundant snapshots:
 * - **decay numbers repeated later**: a `decay` entry's `{id, before, after}` for a fact that a
 *   later `decay` entry also lists. The redundant changes leave `changes`; their fact ids are kept
 *   under `compacted.ids`. The newest decay numbers of every fact are never compacted.
 * - **a fact row repeated later**: the full-row `after` of a `create` or `conflict` entry (a new
 *   belief, a pending conflict, evidence added to a pending conflict) when a later entry of the same
 *   fact (`create`, `conflict`, `update` or `confirm`) holds a full row again. `after` is cut to
 *   `{id, status, source, confidence, evidence_count}`; the value, key and timestamps it dropped
 *   are in the later row. The newest full row of every fact is never compacted.
 *
 * Never compacted: anything the owner did (actor owner), supersessions (`update`, `dedupe`),
 * forget, purge, reject, prune and retract records, refusals (`ignore`), corroborations, episodes,
 * imports, and each fact's newest entry. Each compacted payload stays valid JSON and is marked with
 * a `compacted` field. A run that compacted anything appends one `compact` entry listing the seqs.
 *
 * Idempotent: a second run with the same `before` compacts nothing.
 *
 * @returns how many entries were compacted by this run.
 * @throws KeelError `INVALID_INPUT` when `before` is not a finite number.
 */
export function compactJournal(ctx: StoreContext, options: CompactOptions): { compacted: number } {
  const before = options?.before;
  if (typeof before !== 'number' || !Number.isFinite(before)) {
    throw new KeelError('INVALID_INPUT', 'compactJournal needs `before`, an instant in ms');
  }
  return ctx.db
    .transaction(() => {
      const now = ctx.now();
      const rewrites = new Map<number, string>();

      // Decay numbers: the newest decay entry that mentions each fact.
      const decays = (
        stmt(
          ctx.db,
          `SELECT seq, at, actor, op, entity_id, payload FROM journal
           WHERE entity = 'store' AND op = 'decay' ORDER BY seq`,
        ).all() as Row[]
      ).map((r) => ({ row: r, payload: JSON.parse(r.payload) as Json }));
      const changesOf = (p: Json) =>
        Array.isArray(p.changes) ? (p.changes as { id: number }[]) : [];
      const compactedIdsOf = (p: Json) => {
        const c = p.compacted as { ids?: unknown } | undefined;
        return Array.isArray(c?.ids) ? (c.ids as number[]) : [];
      };
      const lastDecay = new Map<number, number>();
      for (const { row, payload } of decays) {
        for (const id of [...changesOf(payload).map((c) => c.id), ...compactedIdsOf(payload)]) {
          lastDecay.set(id, row.seq);
        }
      }
      for (const { row, payload } of decays) {
        if (row.at >= before || row.actor === 'owner') continue;
        const changes = changesOf(payload);
        const redundant = changes.filter((c) => (lastDecay.get(c.id) ?? row.seq) > row.seq);
        if (redundant.length === 0) continue;
        const next = {
          ...payload,
          changes: changes.filter((c) => !redundant.includes(c)),
          compacted: {
            rule: 'decay numbers repeated by a later decay',
            ids: [...compactedIdsOf(payload), ...redundant.map((c) => c.id)],
          },
        };
        rewrites.set(row.seq, JSON.stringify(next));
      }

      // Fact rows: the newest entry holding a full row of each fact.
      const placeholders = FULL_SNAPSHOT_OPS.map(() => '?').join(', ');
      const snapshots = (
        ctx.db
          .prepare(
            `SELECT seq, at, actor, op, entity_id, payload FROM journal
             WHERE entity = 'fact' AND op IN (${placeholders}) ORDER BY seq`,
          )
          .all(...FULL_SNAPSHOT_OPS) as Row[]
      ).map((r) => ({ row: r, payload: JSON.parse(r.payload) as Json }));
      const lastFull = new Map<number, number>();
      for (const { row, payload } of snapshots) {
        if (row.entity_id !== null && isFullSnapshot(payload.after)) {
          lastFull.set(row.entity_id, row.seq);
        }
      }
      for (const { row, payload } of snapshots) {
        if (row.at >= before || row.actor === 'owner' || !SNAPSHOT_OPS.has(row.op)) continue;
        if (row.entity_id === null || !isFullSnapshot(payload.after)) continue;
        if ((lastFull.get(row.entity_id) ?? row.seq) <= row.seq) continue;
        const after = payload.after as Json;
        const next = {
          ...payload,
          after: Object.fromEntries(SNAPSHOT_KEEPS.map((k) => [k, after[k] ?? null])),
          compacted: { rule: 'fact row repeated by a later entry' },
        };
        rewrites.set(row.seq, JSON.stringify(next));
      }

      if (rewrites.size === 0) return { compacted: 0 };
      const redact = stmt(ctx.db, 'UPDATE journal SET payload = ?, redacted_at = ? WHERE seq = ?');
      const seqs = [...rewrites.keys()].sort((a, b) => a - b);
      for (const seq of seqs) redact.run(rewrites.get(seq)!, now, seq);
      appendJournal(ctx.db, {
        at: now,
        actor: 'think',
        op: 'compact',
        entity: 'store',
        entityId: null,
        payload: { before, compacted: seqs.length, seqs },
      });
      return { compacted: seqs.length };
    })
    .immediate();
}

// ---------------------------------------------------------------------------------------------
// Stale beliefs

/** Days without new evidence after which a belief is flagged for the owner's review. */
export const STALE_AFTER_DAYS = 180;

/** Options for {@link flagStaleBeliefs}. */
export interface StaleOptions {
  /** Days (> 0) since the newest evidence after which a belief is stale. Default 180. */
  olderThanDays?: number;
}

/**
 * The weekly review's re-validation: flags every active belief (the owner's included) whose newest
 * evidence is older than `olderThanDays` with an open `stale` review flag, once. The age of a piece
 * of evidence is when its episode occurred (`episodes.occurred_at`: for an import, when it was
 * said, not when it was imported). A belief with an open flag is not flagged again; after the
 * flag is cleared (a new sighting, confirm, reject, forget, prune) it can be flagged again once it
 * is stale again. The flags are listed as `ReviewQueue.stale`. A run that flagged anything is
 * journaled (`flag_stale`, actor think).
 *
 * @returns the ids of the facts flagged by this run, ascending.
 * @throws KeelError `INVALID_INPUT` when `olderThanDays` is not a positive number.
 */
export function flagStaleBeliefs(ctx: StoreContext, options: StaleOptions = {}): number[] {
  const days = options.olderThanDays ?? STALE_AFTER_DAYS;
  if (typeof days !== 'number' || !Number.isFinite(days) || days <= 0) {
    throw new KeelError('INVALID_INPUT', 'olderThanDays must be a positive number of days');
  }
  return ctx.db
    .transaction((): number[] => {
      const now = ctx.now();
      const cutoff = now - days * DAY_MS;
      const ids = (
        stmt(
          ctx.db,
          `SELECT f.id FROM active_facts f
           WHERE (SELECT max(e.occurred_at) FROM fact_evidence fe
                  JOIN episodes e ON e.id = fe.episode_id WHERE fe.fact_id = f.id) < ?
             AND NOT EXISTS (SELECT 1 FROM review_flags r
                             WHERE r.fact_id = f.id AND r.reason = 'stale' AND r.cleared_at IS NULL)
           ORDER BY f.id`,
        ).all(cutoff) as { id: number }[]
      ).map((r) => r.id);
      const insert = stmt(
        ctx.db,
        `INSERT INTO review_flags (fact_id, reason, flagged_at) VALUES (?, 'stale', ?)`,
      );
      for (const id of ids) insert.run(id, now);
      if (ids.length > 0) {
        appendJournal(ctx.db, {
          at: now,
          actor: 'think',
          op: 'flag_stale',
          entity: 'store',
          entityId: null,
          payload: { older_than_days: days, cutoff, ids },
        });
      }
      return ids;
    })
    .immediate();
}
