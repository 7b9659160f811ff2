/**
 * Taking the owner's memory out: the one place a keel export is assembled (`keel export` only
 * formats and writes it). Every fact row in any status with its evidence episodes and the
 * journal's changes, every tombstone (hashes only), and with `includeEpisodes` every episode. The
 * shape is documented in `format.ts`.
 *
 * A row the journal does not explain (changed outside keel; `unexplainedFacts`) is written with
 * `unexplained: true`, as it is: recall does not trust it, and an import leaves it out.
 *
 * What never leaves: a purged value (the belief says `purged: true`, `value: null`; episode and
 * journal text was redacted by the purge itself) and a credential (the store keeps none: every
 * writer withholds them).
 *
 * @module
 */
import { type StoreContext, stmt } from '../context.js';
import { changesOf } from '../facts/why.js';
import { unexplainedFacts } from '../journal/rows.js';
import { PURGED } from '../redaction.js';
import type { Episode, Fact, Source } from '../types.js';
import {
  EXPORT_FORMAT,
  EXPORT_VERSION,
  type ExportedBelief,
  type ExportedChange,
  type ExportedEpisode,
  type ExportedEvidence,
  type ExportedTombstone,
  isoOf,
  isoOrNull,
  type KeelExport,
} from './format.js';

/** Options for {@link exportMemory}. */
export interface ExportOptions {
  /** Include every episode (the whole conversation), not only the evidence ones. Default false. */
  includeEpisodes?: boolean;
}

/** An episode row as an export holds it. */
function exportedEpisode(e: Episode): ExportedEpisode {
  return {
    id: e.id,
    kind: e.kind,
    channel: e.channel,
    role: e.role,
    speaker: e.speaker,
    occurred_at: isoOf(e.occurred_at),
    text: e.text,
    source_doc: e.source_doc,
    source_id: e.source_id,
    session_key: e.session_key,
  };
}

/** True when the row's value was erased by a purge (only its hash is kept). */
export function isPurgedValue(f: Pick<Fact, 'value' | 'purged_at'>): boolean {
  return f.purged_at !== null && f.value === PURGED;
}

/** Every fact's evidence, in the order it was recorded, by fact id. */
function evidenceByFact(ctx: StoreContext): Map<number, ExportedEvidence[]> {
  const rows = stmt(
    ctx.db,
    `SELECT fe.fact_id, fe.source AS evidence_source, fe.observed_at AS evidence_at, e.*
     FROM fact_evidence fe JOIN episodes e ON e.id = fe.episode_id ORDER BY fe.id`,
  ).all() as (Episode & { fact_id: number; evidence_source: Source; evidence_at: number })[];
  const out = new Map<number, ExportedEvidence[]>();
  for (const r of rows) {
    const list = out.get(r.fact_id) ?? [];
    list.push({
      source: r.evidence_source,
      observed_at: isoOf(r.evidence_at),
      episode: exportedEpisode(r),
    });
    out.set(r.fact_id, list);
  }
  return out;
}

/** The journal's changes of every fact, by fact id. */
function changesByFact(ctx: StoreContext, ids: readonly number[]): Map<number, ExportedChange[]> {
  const out = new Map<number, ExportedChange[]>();
  for (const c of changesOf(ctx, ids)) {
    if (c.factId === null) continue;
    const list = out.get(c.factId) ?? [];
    list.push({ seq: c.seq, at: isoOf(c.at), actor: c.actor, op: c.op, summary: c.summary });
    out.set(c.factId, list);
  }
  return out;
}

/**
 * One fact row as an export holds it (a purged value left out); `unexplained` marks a row the
 * journal does not explain (changed outside keel), which an import leaves out.
 */
function exportedBelief(
  f: Fact,
  evidence: ExportedEvidence[],
  changes: ExportedChange[],
  unexplained: boolean,
): ExportedBelief {
  const purged = isPurgedValue(f);
  return {
    ...(unexplained ? { unexplained: true } : {}),
    id: f.id,
    scope: f.scope,
    kind: f.kind,
    key: f.key,
    value: purged ? null : f.value,
    purged,
    value_hash: f.value_hash,
    status: f.status,
    source: f.source,
    confidence: f.confidence,
    evidence_count: f.evidence_count,
    created_at: isoOf(f.created_at),
    updated_at: isoOf(f.updated_at),
    last_seen_at: isoOf(f.last_seen_at),
    last_decayed_at: isoOrNull(f.last_decayed_at),
    valid_from: isoOrNull(f.valid_from),
    valid_to: isoOrNull(f.valid_to),
    purged_at: isoOrNull(f.purged_at),
    supersedes: f.supersedes_id,
    superseded_by: f.superseded_by_id,
    conflicts_with: f.conflicts_with_id,
    status_reason: f.status_reason,
    evidence,
    changes,
  };
}

/** Every tombstone, hashes only. */
function exportedTombstones(ctx: StoreContext): ExportedTombstone[] {
  const rows = stmt(ctx.db, 'SELECT * FROM tombstones ORDER BY id').all() as {
    scope: 'owner' | 'agent';
    kind: ExportedTombstone['kind'];
    key: string | null;
    value_hash: string;
    content: string | null;
    reason: ExportedTombstone['reason'];
    created_at: number;
    fact_id: number | null;
    lifted_at: number | null;
    lifted_by: number | null;
  }[];
  return rows.map((t) => ({
    scope: t.scope,
    kind: t.kind,
    key: t.key,
    value_hash: t.value_hash,
    content_hashes: t.content === null ? null : (JSON.parse(t.content) as string[][]),
    reason: t.reason,
    created_at: isoOf(t.created_at),
    fact: t.fact_id,
    lifted_at: isoOrNull(t.lifted_at),
    lifted_by: t.lifted_by,
  }));
}

/**
 * The whole memory as a keel export (see `format.ts`): every belief in any status, oldest first,
 * with its evidence and changes; every tombstone; with `includeEpisodes` every episode, oldest
 * first. Read in one transaction, so the parts agree with each other.
 */
export function exportMemory(ctx: StoreContext, options: ExportOptions = {}): KeelExport {
  return ctx.db.transaction(() => {
    const facts = stmt(ctx.db, 'SELECT * FROM facts ORDER BY id').all() as Fact[];
    const evidence = evidenceByFact(ctx);
    const changes = changesByFact(
      ctx,
      facts.map((f) => f.id),
    );
    const unexplained = unexplainedFacts(ctx.db, facts);
    const out: KeelExport = {
      format: EXPORT_FORMAT,
      version: EXPORT_VERSION,
      exported_at: isoOf(ctx.now()),
      beliefs: facts.map((f) =>
        exportedBelief(f, evidence.get(f.id) ?? [], changes.get(f.id) ?? [], unexplained.has(f.id)),
      ),
      tombstones: exportedTombstones(ctx),
    };
    if (options.includeEpisodes) {
      const episodes = stmt(ctx.db, 'SELECT * FROM episodes ORDER BY id').all() as Episode[];
      out.episodes = episodes.map(exportedEpisode);
    }
    return out;
  })();
}
