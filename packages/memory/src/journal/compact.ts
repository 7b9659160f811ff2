/**
 * Journal compaction, run by the nightly curator: redundant snapshots in old entries' payloads are
 * redacted while every entry, its hashes and the chain are kept.
 *
 * @module
 */
import { KeelError } from '@keel/errors';
import { type StoreContext, stmt } from '../context.js';
import { appendJournal, redactPayload } from './journal.js';

/** Options for {@link compactJournal}. */
export interface CompactOptions {
  /** Only entries written strictly before this instant (ms since epoch) are compacted. */
  before: number;
}

/** The fields a compacted fact snapshot keeps: what can differ between two entries of one row. */
const SNAPSHOT_KEEPS = ['id', 'status', 'source', 'confidence', 'evidence_count'] as const;
/** Actors whose entries are the owner's own acts (at a door, or on the web page): never compacted. */
const OWNER_ACTORS = new Set(['owner', 'web']);
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
 * `redacted_at` change, each rewrite preceded by its redaction entry (actor curator, reason
 * `compact`), as the journal's triggers require).
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
 * Never compacted: anything the owner did (actor owner, or web: the owner on the web page), supersessions (`update`, `dedupe`),
 * forget, purge, reject, prune and retract records, refusals (`ignore`), corroborations, episodes,
 * imports, redactions, the `state` records replay reads, and each fact's newest entry. Each
 * compacted payload stays valid JSON and is marked with a `compacted` field. A run that compacted
 * anything appends one redaction entry per compacted entry and one `compact` entry listing the
 * seqs.
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
      /** seq → the payload now and the compacted one. */
      const rewrites = new Map<number, { before: string; after: string }>();

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
        if (row.at >= before || OWNER_ACTORS.has(row.actor)) continue;
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
        rewrites.set(row.seq, { before: row.payload, after: JSON.stringify(next) });
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
        if (row.at >= before || OWNER_ACTORS.has(row.actor) || !SNAPSHOT_OPS.has(row.op)) continue;
        if (row.entity_id === null || !isFullSnapshot(payload.after)) continue;
        if ((lastFull.get(row.entity_id) ?? row.seq) <= row.seq) continue;
        const after = payload.after as Json;
        const next = {
          ...payload,
          after: Object.fromEntries(SNAPSHOT_KEEPS.map((k) => [k, after[k] ?? null])),
          compacted: { rule: 'fact row repeated by a later entry' },
        };
        rewrites.set(row.seq, { before: row.payload, after: JSON.stringify(next) });
      }

      if (rewrites.size === 0) return { compacted: 0 };
      const seqs = [...rewrites.keys()].sort((a, b) => a - b);
      for (const seq of seqs) {
        redactPayload(
          ctx.db,
          { seq, ...rewrites.get(seq)! },
          { reason: 'compact', actor: 'curator', at: now },
        );
      }
      appendJournal(ctx.db, {
        at: now,
        actor: 'curator',
        op: 'compact',
        entity: 'store',
        entityId: null,
        payload: { before, compacted: seqs.length, seqs },
      });
      return { compacted: seqs.length };
    })
    .immediate();
}
