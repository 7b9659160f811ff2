/**
 * The vocabulary of keel's memory: the enumerations the database enforces with CHECK constraints,
 * and the row shapes readers see.
 *
 * @module
 */

/** Whose belief a fact is about: the owner, or keel itself. Filtered before any scoring. */
export const SCOPES = ['owner', 'agent'] as const;
export type Scope = (typeof SCOPES)[number];

/** The fixed vocabulary of fact kinds. */
export const KINDS = [
  'preference',
  'profile',
  'fact',
  'goal',
  'relationship',
  'constraint',
  'project',
  'setting',
  'learned',
  'note',
] as const;
export type Kind = (typeof KINDS)[number];

/** Lifecycle of a fact row. Only `active` rows are ever recalled (an allowlist). */
export const STATUSES = ['active', 'pending', 'superseded', 'retracted', 'rejected'] as const;
export type Status = (typeof STATUSES)[number];

/** Who a belief came from. */
export const SOURCES = [
  'owner_stated',
  'owner_confirmed',
  'observed',
  'inferred',
  'imported',
  'system',
] as const;
export type Source = (typeof SOURCES)[number];

/** What separates the owner's conversation from keel's own mechanism events. */
export const EPISODE_KINDS = ['conversation', 'command', 'mechanism'] as const;
export type EpisodeKind = (typeof EPISODE_KINDS)[number];

/** Who spoke in an episode. `other` is a third party (e.g. a speaker in an imported dialogue). */
export const ROLES = ['owner', 'assistant', 'other', 'keel'] as const;
export type Role = (typeof ROLES)[number];

/** The outcome of the write review. */
export type Decision =
  | 'create'
  | 'corroborate'
  | 'update'
  | 'conflict'
  | 'history'
  | 'withheld'
  | 'ignore';

/**
 * Who performed a mutation, as recorded in the journal: the owner; the chat model (its tool
 * calls); the think service's reflection (each tick) or its curator (each night, and the weekly
 * review); an import; another agent through MCP (`mcp`, or `mcp:<client>` naming the client that
 * `keel mcp` served, e.g. `mcp:claude-code`: every rule treats both alike, see {@link isMcpActor});
 * the owner's local web page; keel itself (a mechanism with no one behind it). Journal entries
 * written before these names existed may say `think`.
 */
export type Actor =
  | 'owner'
  | 'model'
  | 'reflection'
  | 'curator'
  | 'import'
  | 'mcp'
  | `mcp:${string}`
  | 'web'
  | 'system';

/** Whether `actor` is another agent through MCP: `mcp` itself or a named client, `mcp:<client>`. */
export function isMcpActor(actor: Actor): actor is 'mcp' | `mcp:${string}` {
  return actor === 'mcp' || actor.startsWith('mcp:');
}

/** A fact row as readers see it. Times are ms since the Unix epoch (UTC). */
export interface Fact {
  id: number;
  scope: Scope;
  kind: Kind;
  key: string;
  value: string;
  /** sha256 of the normalised value; kept after a purge erases the value. */
  value_hash: string;
  status: Status;
  source: Source;
  /** How sure keel is, 0..1. */
  confidence: number;
  /** Number of independent episodes (distinct) that support this value. */
  evidence_count: number;
  /** How many times recall returned this fact (slows decay; never raises confidence). */
  access_count: number;
  created_at: number;
  updated_at: number;
  last_seen_at: number;
  last_accessed_at: number | null;
  last_decayed_at: number | null;
  valid_from: number | null;
  valid_to: number | null;
  supersedes_id: number | null;
  superseded_by_id: number | null;
  /** For a `pending` row: the active fact it contradicts. */
  conflicts_with_id: number | null;
  /** Why the row is in its status (e.g. the refusal or retraction reason). */
  status_reason: string | null;
  /** Set when the value was erased by `forget --purge`. */
  purged_at: number | null;
}

/** An episode row: one turn or notable event. Times are ms since the Unix epoch (UTC). */
export interface Episode {
  id: number;
  kind: EpisodeKind;
  /** Front door or origin: terminal, discord, cli, import:locomo, keel, ... */
  channel: string;
  role: Role;
  speaker: string | null;
  text: string;
  /** When it was said (for an import: the session's date). */
  occurred_at: number;
  /** When keel stored it. */
  created_at: number;
  /** Provenance inside the source: a LoCoMo dia_id, a LongMemEval `session#turn`. */
  source_id: string | null;
  /** Provenance document: `locomo:conv-26`, `longmemeval`, ... */
  source_doc: string | null;
  session_key: string | null;
  /** JSON-encoded extra fields. */
  meta: string | null;
  redacted_at: number | null;
}

/** The slot a fact lives in: one active value per slot. */
export interface Slot {
  scope: Scope;
  kind: Kind;
  key: string;
}
