/**
 * Episodes: the raw stream of turns and events. Append-only; a purge may redact text.
 *
 * @module
 */

import { KeelError } from '@keel/errors';
import { type StoreContext, stmt } from './context.js';
import { appendJournal } from './journal.js';
import { redactSecrets } from './scan.js';
import { sha256 } from './text.js';
import {
  type Actor,
  EPISODE_KINDS,
  type Episode,
  type EpisodeKind,
  ROLES,
  type Role,
} from './types.js';

/** The longest episode text stored, in UTF-16 code units (about 2 MB of text). */
export const MAX_EPISODE_CHARS = 2_000_000;

/** What a caller supplies to record an episode. */
export interface EpisodeInput {
  kind?: EpisodeKind;
  channel: string;
  role: Role;
  text: string;
  speaker?: string | null;
  /** When it was said, ms since epoch; default now. */
  occurredAt?: number;
  sourceId?: string | null;
  sourceDoc?: string | null;
  sessionKey?: string | null;
  meta?: Record<string, unknown> | null;
  actor?: Actor;
}

/** Checks an episode's fields. @throws KeelError `INVALID_INPUT`, `TOO_LARGE`. */
export function validateEpisode(input: EpisodeInput): void {
  if (input.kind !== undefined && !EPISODE_KINDS.includes(input.kind)) {
    throw new KeelError('INVALID_INPUT', `unknown episode kind "${input.kind}"`);
  }
  if (!ROLES.includes(input.role))
    throw new KeelError('INVALID_INPUT', `unknown role "${input.role}"`);
  if (typeof input.text !== 'string')
    throw new KeelError('INVALID_INPUT', 'episode text must be a string');
  if (input.text.length > MAX_EPISODE_CHARS) {
    throw new KeelError(
      'TOO_LARGE',
      `episode text is ${input.text.length} characters; the limit is ${MAX_EPISODE_CHARS}`,
      { details: { length: input.text.length, limit: MAX_EPISODE_CHARS } },
    );
  }
  if (!input.channel) throw new KeelError('INVALID_INPUT', 'episode channel is required');
}

const INSERT_EPISODE = `INSERT INTO episodes
  (kind, channel, role, speaker, text, occurred_at, created_at, source_id, source_doc, session_key, meta)
  VALUES (@kind, @channel, @role, @speaker, @text, @occurred_at, @created_at, @source_id, @source_doc, @session_key, @meta)`;

/** Row parameters for an insert. Secrets in the text are withheld (see {@link redactSecrets}). */
export function episodeRow(input: EpisodeInput, now: number) {
  return {
    kind: input.kind ?? 'conversation',
    channel: input.channel,
    role: input.role,
    speaker: input.speaker ?? null,
    text: redactSecrets(input.text),
    occurred_at: input.occurredAt ?? now,
    created_at: now,
    source_id: input.sourceId ?? null,
    source_doc: input.sourceDoc ?? null,
    session_key: input.sessionKey ?? null,
    meta: input.meta ? JSON.stringify(input.meta) : null,
  };
}

/**
 * Records one episode (inside the caller's transaction, or its own). Journaled with the text's
 * hash, not the text.
 *
 * @throws KeelError `INVALID_INPUT`, `TOO_LARGE`.
 */
export function addEpisode(ctx: StoreContext, input: EpisodeInput): Episode {
  validateEpisode(input);
  const now = ctx.now();
  const row = episodeRow(input, now);
  const run = ctx.db.transaction(() => {
    const id = Number(stmt(ctx.db, INSERT_EPISODE).run(row).lastInsertRowid);
    appendJournal(ctx.db, {
      at: now,
      actor: input.actor ?? (input.role === 'owner' ? 'owner' : 'system'),
      op: 'episode',
      entity: 'episode',
      entityId: id,
      payload: {
        kind: row.kind,
        channel: row.channel,
        role: row.role,
        text_sha256: sha256(row.text),
      },
    });
    return id;
  });
  return getEpisode(ctx, run.immediate())!;
}

/** One episode by id, or undefined. */
export function getEpisode(ctx: StoreContext, id: number): Episode | undefined {
  return stmt(ctx.db, 'SELECT * FROM episodes WHERE id = ?').get(id) as Episode | undefined;
}

/** The newest episodes, newest first. */
export function recentEpisodes(ctx: StoreContext, limit = 20): Episode[] {
  return stmt(ctx.db, 'SELECT * FROM episodes ORDER BY occurred_at DESC, id DESC LIMIT ?').all(
    limit,
  ) as Episode[];
}

export { INSERT_EPISODE };
