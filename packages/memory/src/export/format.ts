/**
 * The shape of a keel export (`keel export --format json`), written by `export.ts` and read back
 * by `import/keel-export.ts`: one place that says what the file holds.
 *
 * ```json
 * {
 *   "format": "keel-export",
 *   "version": 1,
 *   "exported_at": "2026-12-07T23:30:00.000Z",
 *   "beliefs": [
 *     {
 *       "id": 3, "scope": "owner", "kind": "profile", "key": "dentist", "value": "Dr. Park",
 *       "purged": false, "value_hash": "…", "status": "active", "source": "owner_stated",
 *       "confidence": 1, "evidence_count": 1,
 *       "created_at": "…", "updated_at": "…", "last_seen_at": "…", "last_decayed_at": null,
 *       "valid_from": null, "valid_to": null, "purged_at": null,
 *       "supersedes": 1, "superseded_by": null, "conflicts_with": null, "status_reason": "…",
 *       "evidence": [{ "source": "owner_stated", "observed_at": "…", "episode": { "id": 5,
 *         "kind": "conversation", "channel": "cli", "role": "owner", "speaker": null,
 *         "occurred_at": "…", "text": "…", "source_doc": null, "source_id": null,
 *         "session_key": null } }],
 *       "changes": [{ "seq": 12, "at": "…", "actor": "owner", "op": "update", "summary": "…" }]
 *     }
 *   ],
 *   "tombstones": [{ "scope": "owner", "kind": "preference", "key": "gym", "value_hash": "…",
 *     "content_hashes": [["…"]], "reason": "forgotten", "created_at": "…", "fact": 7,
 *     "lifted_at": null, "lifted_by": null }],
 *   "episodes": [ … the episodes, as under "evidence", only with --include episodes … ]
 * }
 * ```
 *
 * - Every instant is ISO 8601 text in UTC (ms kept); every key is snake_case.
 * - Ids are export-local: a belief's `supersedes`, `superseded_by`, `conflicts_with` and a
 *   tombstone's `fact`/`lifted_by` name other beliefs of the same file by their `id`; an
 *   evidence episode's `id` names the same episode wherever it appears (under several beliefs, and
 *   in `episodes`). Importing gives every row a new id.
 * - A purged value is never in the file: the belief says `"purged": true` and `"value": null`
 *   (its hash stays, so the value stays refused). Episode and evidence text is as the store keeps
 *   it (purged words already cut out, credentials already withheld). Tombstones carry hashes only.
 * - A belief whose row the journal does not explain (changed outside keel) says
 *   `"unexplained": true`; an import leaves it out (and its links to it), and says how many.
 * - `changes` is the journal's record of the belief (who decided what, when), for reading: an
 *   import journals its own entries (actor `import`) and does not replay these.
 *
 * @module
 */
import { z } from 'zod';
import { EPISODE_KINDS, KINDS, ROLES, SOURCES, STATUSES } from '../types.js';

/** The `format` field that marks a keel export. */
export const EXPORT_FORMAT = 'keel-export';
/** The newest version of the export this keel writes and reads. */
export const EXPORT_VERSION = 1;

const instant = z.iso.datetime({ offset: true });
const nullableInstant = instant.nullable();

/** One episode in an export. */
export const exportedEpisodeSchema = z.object({
  id: z.number().int().positive(),
  kind: z.enum(EPISODE_KINDS),
  channel: z.string().min(1),
  role: z.enum(ROLES),
  speaker: z.string().nullable(),
  occurred_at: instant,
  text: z.string(),
  source_doc: z.string().nullable(),
  source_id: z.string().nullable(),
  session_key: z.string().nullable(),
});

/** One piece of a belief's evidence: who it came from, when it was seen, and its episode. */
export const exportedEvidenceSchema = z.object({
  source: z.enum(SOURCES),
  observed_at: instant,
  episode: exportedEpisodeSchema,
});

/** One journal decision about a belief, for reading. */
export const exportedChangeSchema = z.object({
  seq: z.number().int().positive(),
  at: instant,
  actor: z.string(),
  op: z.string(),
  summary: z.string(),
});

/** One belief (a fact row in any status). */
export const exportedBeliefSchema = z.object({
  id: z.number().int().positive(),
  scope: z.enum(['owner', 'agent']),
  kind: z.enum(KINDS),
  key: z.string().min(1).max(120),
  value: z.string().nullable(),
  purged: z.boolean(),
  value_hash: z.string().min(1),
  status: z.enum(STATUSES),
  source: z.enum(SOURCES),
  confidence: z.number().min(0).max(1),
  evidence_count: z.number().int().min(1),
  created_at: instant,
  updated_at: instant,
  last_seen_at: instant,
  last_decayed_at: nullableInstant,
  valid_from: nullableInstant,
  valid_to: nullableInstant,
  purged_at: nullableInstant,
  supersedes: z.number().int().positive().nullable(),
  superseded_by: z.number().int().positive().nullable(),
  conflicts_with: z.number().int().positive().nullable(),
  status_reason: z.string().nullable(),
  /** True when the journal does not explain the row (changed outside keel): not imported. */
  unexplained: z.literal(true).optional(),
  evidence: z.array(exportedEvidenceSchema).min(1),
  changes: z.array(exportedChangeSchema),
});

/** One tombstone: hashes only, never a value. */
export const exportedTombstoneSchema = z.object({
  scope: z.enum(['owner', 'agent']),
  kind: z.enum(KINDS).nullable(),
  key: z.string().nullable(),
  value_hash: z.string().min(1),
  content_hashes: z.array(z.array(z.string())).nullable(),
  reason: z.enum(['forgotten', 'purged', 'pruned', 'rejected']),
  created_at: instant,
  fact: z.number().int().positive().nullable(),
  lifted_at: nullableInstant,
  lifted_by: z.number().int().positive().nullable(),
});

/** A whole keel export. */
export const keelExportSchema = z.object({
  format: z.literal(EXPORT_FORMAT),
  version: z.literal(EXPORT_VERSION),
  exported_at: instant,
  beliefs: z.array(exportedBeliefSchema),
  tombstones: z.array(exportedTombstoneSchema),
  episodes: z.array(exportedEpisodeSchema).optional(),
});

/** An episode as an export holds it. */
export type ExportedEpisode = z.infer<typeof exportedEpisodeSchema>;
/** A piece of evidence as an export holds it. */
export type ExportedEvidence = z.infer<typeof exportedEvidenceSchema>;
/** A journal decision as an export holds it. */
export type ExportedChange = z.infer<typeof exportedChangeSchema>;
/** A belief as an export holds it. */
export type ExportedBelief = z.infer<typeof exportedBeliefSchema>;
/** A tombstone as an export holds it. */
export type ExportedTombstone = z.infer<typeof exportedTombstoneSchema>;
/** A keel export (see the module description). */
export type KeelExport = z.infer<typeof keelExportSchema>;

/** ms since the epoch as ISO 8601 in UTC. */
export const isoOf = (ms: number) => new Date(ms).toISOString();
/** ms since the epoch as ISO 8601 in UTC, or null. */
export const isoOrNull = (ms: number | null) => (ms === null ? null : isoOf(ms));

/** True when `data` says it is a keel export (its `format` field), whatever else it holds. */
export function isKeelExport(data: unknown): boolean {
  return (
    data !== null &&
    typeof data === 'object' &&
    (data as { format?: unknown }).format === EXPORT_FORMAT
  );
}
