/**
 * Bringing a keel export (`export/format.ts`) into a store that holds no beliefs yet: the same
 * beliefs in the same statuses, with their sources, confidence, evidence (and its episodes),
 * times, supersession chains and pending conflicts, and the tombstones, so a value forgotten
 * before the move stays forgotten after it.
 *
 * Everything is written in one transaction. The evidence episodes (and, when the export holds
 * them, every episode) are stored as episodes journaled by the `import` actor; each belief's row
 * and its evidence are recorded in the journal like every other write (the rows, then an `import`
 * entry per belief by the `import` actor), so `keel verify` replays them and recall trusts them.
 * The journal of the store the export came from is not replayed: its record travels in the file
 * (`changes`), for reading.
 *
 * The file is not believed on its word: each belief is held to keel's own rules before anything
 * is written (see {@link parseKeelExport}). A belief the export marks `unexplained` (its row was
 * changed outside keel's journal) is left out, with its links, and counted in `leftOut`.
 *
 * Importing into a store that holds beliefs or tombstones is refused (`STORE_NOT_EMPTY`): two
 * memories are not merged. So importing the same file a second time is refused the same way.
 *
 * @module
 */
import { KeelError } from '@keel/errors';
import { secretInSlot, valueHash } from '@keel/language';
import type { z } from 'zod';
import { countRows, type StoreContext } from '../context.js';
import {
  type ExportedBelief,
  type ExportedEpisode,
  type KeelExport,
  keelExportSchema,
} from '../export/format.js';
import { confidenceCeiling } from '../facts/evidence-gate.js';
import { restoreTombstone } from '../facts/tombstones.js';
import { restore, restoreLinks } from '../facts/transitions.js';
import { appendJournal } from '../journal/journal.js';
import { PURGED } from '../redaction.js';
import { addEpisode } from '../repos/episodes.js';

/** What importing a keel export did. */
export interface KeelExportImportResult {
  /** Beliefs written (every status). */
  beliefs: number;
  /** Of them, current (active). */
  active: number;
  /** Tombstones written. */
  tombstones: number;
  /** Episodes written (evidence episodes, and every episode when the export held them). */
  episodes: number;
  /** Beliefs left out: the export marked them `unexplained` (changed outside keel's journal). */
  leftOut: number;
  /** When the export was made (ms since epoch). */
  exportedAt: number;
}

const ms = (iso: string) => Date.parse(iso);
const msOrNull = (iso: string | null) => (iso === null ? null : Date.parse(iso));

/**
 * The export, checked against its schema and its own references.
 *
 * @throws KeelError `IMPORT_FORMAT` naming the first problem.
 */
export function parseKeelExport(data: unknown): KeelExport {
  const version = (data as { version?: unknown } | null)?.version;
  if (typeof version === 'number' && version > 1) {
    throw new KeelError(
      'IMPORT_FORMAT',
      `this keel export is version ${version}; this keel reads version 1`,
      { fix: 'Upgrade keel (git pull && npm start), then import the file again.' },
    );
  }
  const parsed = keelExportSchema.safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0] as z.core.$ZodIssue;
    throw new KeelError(
      'IMPORT_FORMAT',
      `not a well-formed keel export: ${issue.path.join('.') || '(top)'}: ${issue.message}`,
      {
        fix: 'Use a file written by keel export --format json, unchanged.',
        details: { path: issue.path.map(String) },
      },
    );
  }
  checkReferences(parsed.data);
  checkRules(keptBeliefs(parsed.data));
  return parsed.data;
}

const UNCHANGED = 'Use a file written by keel export --format json, unchanged.';

/** @throws KeelError `IMPORT_FORMAT` for a link to a belief the file does not hold. */
function checkReferences(x: KeelExport): void {
  const ids = new Set(x.beliefs.map((b) => b.id));
  const bad = (what: string) => {
    throw new KeelError('IMPORT_FORMAT', `not a well-formed keel export: ${what}`, {
      fix: UNCHANGED,
    });
  };
  if (ids.size !== x.beliefs.length) bad('two beliefs share an id');
  for (const b of x.beliefs) {
    for (const link of [b.supersedes, b.superseded_by, b.conflicts_with]) {
      if (link !== null && !ids.has(link)) bad(`belief ${b.id} links to ${link}, not in the file`);
    }
  }
  for (const t of x.tombstones) {
    for (const link of [t.fact, t.lifted_by]) {
      if (link !== null && !ids.has(link))
        bad(`a tombstone links to belief ${link}, not in the file`);
    }
  }
}

/**
 * Why one belief breaks keel's own rules, or null: its evidence, purge, hash and confidence must
 * be what keel itself would have written.
 */
function brokenRule(b: ExportedBelief): string | null {
  if (b.evidence.length !== b.evidence_count) {
    return `counts ${b.evidence_count} pieces of evidence and lists ${b.evidence.length}`;
  }
  const episodes = new Set(b.evidence.map((e) => e.episode.id));
  if (episodes.size !== b.evidence.length) return 'cites the same episode twice as evidence';
  if ((b.value === null) !== b.purged) return 'a value is null exactly when purged';
  if (b.value !== null && valueHash(b.value) !== b.value_hash) {
    return 'its value_hash is not the hash of its value';
  }
  const ceiling = confidenceCeiling(b.source, episodes.size);
  if (b.confidence > ceiling) {
    return `confidence ${b.confidence} is above what ${episodes.size} piece(s) of evidence allow a ${b.source} belief (${ceiling})`;
  }
  return null;
}

/**
 * Holds every belief the import keeps to keel's own rules: the file is not believed on its word.
 *
 * @throws KeelError `IMPORT_FORMAT` naming the belief: evidence not as counted or an episode cited
 *   twice, a value present though purged (or missing though not), a `value_hash` that is not the
 *   hash of the value, a confidence past the evidence gate, two current values in one slot, or a
 *   credential (judged on the slot, as a write is).
 */
function checkRules(beliefs: readonly ExportedBelief[]): void {
  const current = new Map<string, number>();
  for (const b of beliefs) {
    const name = `belief ${b.id} (${b.kind}/${b.key})`;
    const broken = brokenRule(b);
    if (broken) {
      throw new KeelError('IMPORT_FORMAT', `not a well-formed keel export: ${name}: ${broken}`, {
        fix: UNCHANGED,
        details: { belief: b.id },
      });
    }
    if (b.status === 'active') {
      const slot = JSON.stringify([b.scope, b.kind, b.key]);
      const other = current.get(slot);
      if (other !== undefined) {
        throw new KeelError(
          'IMPORT_FORMAT',
          `not a well-formed keel export: ${name} and belief ${other} are both current in one slot`,
          { fix: UNCHANGED, details: { belief: b.id } },
        );
      }
      current.set(slot, b.id);
    }
    // keel keeps no credential, from any writer: a file that holds one is refused whole.
    if (b.value !== null && secretInSlot(b.key, b.value)) {
      throw new KeelError(
        'IMPORT_FORMAT',
        `${name} holds what looks like a credential; keel keeps none`,
        {
          fix: 'Remove that belief from the file (or its value), then import it again.',
          details: { belief: b.id },
        },
      );
    }
  }
}

/** The beliefs an import writes: those the export does not mark `unexplained`. */
const keptBeliefs = (x: KeelExport) => x.beliefs.filter((b) => b.unexplained !== true);

/** @throws KeelError `STORE_NOT_EMPTY` when the store holds a belief or a tombstone. */
function assertEmpty(ctx: StoreContext): void {
  const facts = countRows(ctx.db, 'SELECT count(*) AS n FROM facts');
  const tombstones = countRows(ctx.db, 'SELECT count(*) AS n FROM tombstones');
  if (facts + tombstones > 0) {
    throw new KeelError(
      'STORE_NOT_EMPTY',
      `this store already holds ${facts} belief(s) and ${tombstones} tombstone(s); a keel export is imported only into a store with none (two memories are not merged), and nothing was written`,
      { details: { facts, tombstones } },
    );
  }
}

/** Stores each export-local episode once (actor `import`); returns their ids in this store. */
function storeEpisodes(
  ctx: StoreContext,
  x: KeelExport,
  beliefs: readonly ExportedBelief[],
): Map<number, number> {
  const all = new Map<number, ExportedEpisode>();
  for (const e of x.episodes ?? []) all.set(e.id, e);
  for (const b of beliefs) for (const ev of b.evidence) all.set(ev.episode.id, ev.episode);
  const ids = new Map<number, number>();
  for (const e of [...all.values()].sort((a, b) => a.id - b.id)) {
    const stored = addEpisode(ctx, {
      kind: e.kind,
      channel: e.channel,
      role: e.role,
      speaker: e.speaker,
      text: e.text,
      occurredAt: ms(e.occurred_at),
      sourceId: e.source_id,
      sourceDoc: e.source_doc,
      sessionKey: e.session_key,
      actor: 'import',
    });
    ids.set(e.id, stored.id);
  }
  return ids;
}

/** Writes one belief's row and evidence (links later); returns its id in this store. */
function storeBelief(ctx: StoreContext, b: ExportedBelief, episodes: Map<number, number>): number {
  return restore(ctx, {
    slot: { scope: b.scope, kind: b.kind, key: b.key },
    value: b.value ?? PURGED,
    // Recomputed, never taken from the file; a purged value's hash is all that is left of it.
    valueHash: b.value === null ? b.value_hash : valueHash(b.value),
    status: b.status,
    source: b.source,
    confidence: b.confidence,
    createdAt: ms(b.created_at),
    updatedAt: ms(b.updated_at),
    lastSeenAt: ms(b.last_seen_at),
    lastDecayedAt: msOrNull(b.last_decayed_at),
    validFrom: msOrNull(b.valid_from),
    validTo: msOrNull(b.valid_to),
    purgedAt: msOrNull(b.purged_at),
    statusReason: b.status_reason,
    evidence: b.evidence.map((e) => ({
      episodeId: episodes.get(e.episode.id)!,
      source: e.source,
      observedAt: ms(e.observed_at),
    })),
  });
}

/**
 * Imports a keel export into a store without beliefs (see the module description).
 *
 * @param data - the parsed JSON of the file.
 * @throws KeelError `IMPORT_FORMAT` (not a well-formed export, a newer version, a credential in
 *   it), `STORE_NOT_EMPTY` (the store holds beliefs or tombstones); nothing is written then.
 */
export function importKeelExport(ctx: StoreContext, data: unknown): KeelExportImportResult {
  const x = parseKeelExport(data);
  const beliefs = keptBeliefs(x);
  return ctx.db
    .transaction((): KeelExportImportResult => {
      assertEmpty(ctx);
      const now = ctx.now();
      const episodes = storeEpisodes(ctx, x, beliefs);
      const ids = new Map<number, number>();
      for (const b of beliefs) ids.set(b.id, storeBelief(ctx, b, episodes));
      // A link to a belief left out is dropped with it.
      const local = (id: number | null) => (id === null ? null : (ids.get(id) ?? null));
      for (const b of beliefs) {
        if (b.supersedes === null && b.superseded_by === null && b.conflicts_with === null)
          continue;
        restoreLinks(ctx, ids.get(b.id)!, {
          supersedesId: local(b.supersedes),
          supersededById: local(b.superseded_by),
          conflictsWithId: local(b.conflicts_with),
        });
      }
      for (const t of x.tombstones) {
        restoreTombstone(ctx, {
          scope: t.scope,
          kind: t.kind,
          key: t.key,
          valueHash: t.value_hash,
          content: t.content_hashes,
          reason: t.reason,
          factId: local(t.fact),
          createdAt: ms(t.created_at),
          liftedAt: msOrNull(t.lifted_at),
          liftedBy: local(t.lifted_by),
        });
      }
      // One entry per belief (the first carries the record of every row written above).
      for (const b of beliefs) {
        appendJournal(ctx.db, {
          at: now,
          actor: 'import',
          op: 'import',
          entity: 'fact',
          entityId: ids.get(b.id)!,
          payload: {
            reason: `belief ${b.id} of the export made ${x.exported_at}`,
            status: b.status,
          },
        });
      }
      appendJournal(ctx.db, {
        at: now,
        actor: 'import',
        op: 'import_export',
        entity: 'store',
        entityId: null,
        payload: {
          exported_at: x.exported_at,
          beliefs: beliefs.length,
          left_out: x.beliefs.length - beliefs.length,
          tombstones: x.tombstones.length,
          episodes: episodes.size,
        },
      });
      return {
        beliefs: beliefs.length,
        active: beliefs.filter((b) => b.status === 'active').length,
        tombstones: x.tombstones.length,
        episodes: episodes.size,
        leftOut: x.beliefs.length - beliefs.length,
        exportedAt: ms(x.exported_at),
      };
    })
    .immediate();
}
