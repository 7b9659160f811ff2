/**
 * Episodes: the raw stream of turns and events, the owner's and keel's own. Append-only: a row is
 * never deleted, and only a purge may redact its text (the schema's triggers refuse anything
 * else). Secrets are withheld before a row is written.
 *
 * @module
 */

import { KeelError } from '@keel/errors';
import {
  queryTerms,
  redactSecrets,
  type SecretLedger,
  sha256,
  wellFormed,
  withholdSecrets,
} from '@keel/language';
import { type StoreContext, stmt } from '../context.js';
import { appendJournal, journalRedaction } from '../journal/journal.js';
import { ftsMatch, ftsMatchAll } from '../recall/fts-query.js';
import type { OwnerTextHolder, OwnerTextMention, Scrubber } from '../redaction.js';
import {
  type Actor,
  EPISODE_KINDS,
  type Episode,
  type EpisodeKind,
  ROLES,
  type Role,
} from '../types.js';

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

/**
 * Row parameters for an insert: where every episode's text enters the store (a turn, a model's
 * reply, an import). Its text fields are made well-formed ({@link wellFormed}: a lone surrogate
 * becomes U+FFFD, so the stored UTF-8 reads back as hashed). Secrets in the text and the metadata
 * are withheld (see {@link redactSecrets}); with a unit of work's `ledger`, so are the secrets it
 * withheld already; with `context` (the owner's previous turn as stored), so is the secret half
 * of a key pair whose id half that turn held.
 */
export function episodeRow(
  input: EpisodeInput,
  now: number,
  ledger?: SecretLedger,
  context?: string,
) {
  const text = (value: string | null | undefined) => (value == null ? null : wellFormed(value));
  return {
    kind: input.kind ?? 'conversation',
    channel: wellFormed(input.channel),
    role: input.role,
    speaker: text(input.speaker),
    text: redactSecrets(wellFormed(input.text), ledger, context),
    occurred_at: input.occurredAt ?? now,
    created_at: now,
    source_id: text(input.sourceId),
    source_doc: text(input.sourceDoc),
    session_key: text(input.sessionKey),
    meta: input.meta ? JSON.stringify(withholdSecrets(input.meta, ledger)) : null,
  };
}

const LAST_OWNER_TURN = `SELECT text FROM episodes
  WHERE role = 'owner' AND kind = 'conversation' ORDER BY id DESC LIMIT 1`;

/**
 * The text of the owner's latest conversation turn as stored (secrets already withheld), or null
 * when there is none: what the scan of their next turn reads as context.
 */
export function lastOwnerTurn(ctx: StoreContext): string | null {
  const row = stmt(ctx.db, LAST_OWNER_TURN).get() as { text: string } | undefined;
  return row?.text ?? null;
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
  // An owner's conversation turn is scanned after their previous one (a key pair said in two).
  const ownerTurn = input.role === 'owner' && (input.kind ?? 'conversation') === 'conversation';
  const context = ownerTurn ? (lastOwnerTurn(ctx) ?? undefined) : undefined;
  const row = episodeRow(input, now, ctx.ledger, context);
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
        // When it happened (ms): replay checks it, so a time moved is a break.
        occurred_at: row.occurred_at,
      },
    });
    return id;
  });
  return getEpisode(ctx, run.immediate())!;
}

/**
 * One episode's time as an import entry's `times_sha256` covers it: id and occurred_at (ms),
 * joined by U+001F.
 */
export function importedTimes(row: { id: number; occurred_at: number }): string {
  return [row.id, row.occurred_at].join('\u001f');
}

/**
 * One episode as an import entry's `episodes_sha256` covers it: id, kind, channel, role and the
 * sha256 of its text as stored, joined by U+001F.
 */
export function importedLine(row: {
  id: number;
  kind: string;
  channel: string;
  role: string;
  textSha256: string;
}): string {
  return [row.id, row.kind, row.channel, row.role, row.textSha256].join('\u001f');
}

/**
 * Imported rows one digest of an import entry's `chunks_sha256` covers: the batch's ids cut in
 * runs of this many from its first, so recall can check one imported turn by reading its run
 * alone instead of its whole batch (see `journal/episodes.ts`).
 */
export const IMPORT_CHUNK_ROWS = 16;

/**
 * The digest of one run of imported rows as an import entry's `chunks_sha256` holds it: sha256
 * over each row's {@link importedLine} and {@link importedTimes} (joined by U+001E), one row a
 * line, in id order.
 */
export function importedChunk(lines: readonly string[], times: readonly string[]): string {
  return sha256(lines.map((line, i) => `${line}\u001e${times[i]}`).join('\n'));
}

/**
 * The `chunks_sha256` of a batch: its rows (`ids` ascending, with their lines and times) cut in
 * runs of {@link IMPORT_CHUNK_ROWS} ids from the first, each run's {@link importedChunk}.
 */
export function importedChunks(
  ids: readonly number[],
  lines: readonly string[],
  times: readonly string[],
): string[] {
  const runs: { lines: string[]; times: string[] }[] = [];
  for (let i = 0; i < ids.length; i++) {
    const k = Math.floor((ids[i]! - ids[0]!) / IMPORT_CHUNK_ROWS);
    runs[k] ??= { lines: [], times: [] };
    const run = runs[k];
    run.lines.push(lines[i]!);
    run.times.push(times[i]!);
  }
  return Array.from(runs, (run) => importedChunk(run?.lines ?? [], run?.times ?? []));
}

/** An imported turn's row: {@link episodeRow}'s, always with its provenance. */
export type ImportedRow = ReturnType<typeof episodeRow> & { source_doc: string; source_id: string };

/**
 * Rows one `INSERT` statement of {@link insertImported} writes (11 parameters each, far below
 * SQLite's limit of 32,766). FTS5 writes its pending terms to disk as a new segment at the start
 * of every statement that changes the index inside a transaction (its `xSavepoint`), so a
 * statement per row leaves a one-row segment per turn for automerge to merge: 100k turns imported
 * a row per statement spent about 20 µs a turn there. With 100 rows a statement the index holds
 * the same rows and terms (see docs/decisions/2026-12-02-import-throughput.md).
 */
export const IMPORT_ROWS_PER_STATEMENT = 100;

const IMPORT_COLUMNS =
  '(kind, channel, role, speaker, text, occurred_at, created_at, source_id, source_doc, session_key, meta)';

/** `INSERT OR IGNORE` of `n` rows, returning the provenance of each row written. */
const insertImportedSql = (n: number) =>
  `INSERT OR IGNORE INTO episodes ${IMPORT_COLUMNS} VALUES ${Array(n).fill('(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)').join(', ')}
  RETURNING id, source_doc, source_id`;

/** The SQL text of {@link insertImportedSql} by row count, built once. */
const importSql = new Map<number, string>();

/**
 * Writes imported turns' rows, {@link IMPORT_ROWS_PER_STATEMENT} to a statement, each unless a
 * turn with the same provenance (source document and id) is stored already or comes earlier in
 * `rows`. Runs inside the caller's transaction; the caller journals the batch.
 *
 * @returns for each of `rows`, in order: the new row's id, or null when it was already stored.
 */
export function insertImported(ctx: StoreContext, rows: readonly ImportedRow[]): (number | null)[] {
  const ids: (number | null)[] = [];
  for (let from = 0; from < rows.length; from += IMPORT_ROWS_PER_STATEMENT) {
    const chunk = rows.slice(from, from + IMPORT_ROWS_PER_STATEMENT);
    let sql = importSql.get(chunk.length);
    if (sql === undefined) {
      sql = insertImportedSql(chunk.length);
      importSql.set(chunk.length, sql);
    }
    const params: unknown[] = [];
    for (const r of chunk) {
      params.push(
        r.kind,
        r.channel,
        r.role,
        r.speaker,
        r.text,
        r.occurred_at,
        r.created_at,
        r.source_id,
        r.source_doc,
        r.session_key,
        r.meta,
      );
    }
    // RETURNING's rows come in no promised order: they are matched by provenance. Of two rows
    // with the same provenance the first was written (the rows are inserted in order).
    const written = new Map<string, number>();
    for (const w of stmt(ctx.db, sql).all(params) as {
      id: number;
      source_doc: string;
      source_id: string;
    }[]) {
      written.set(`${w.source_doc}\u0000${w.source_id}`, w.id);
    }
    for (const r of chunk) {
      const key = `${r.source_doc}\u0000${r.source_id}`;
      const id = written.get(key);
      if (id === undefined) ids.push(null);
      else {
        ids.push(id);
        written.delete(key);
      }
    }
  }
  return ids;
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

/** True when an episode with this id exists. */
export function episodeExists(ctx: StoreContext, id: number): boolean {
  return stmt(ctx.db, 'SELECT 1 FROM episodes WHERE id = ?').get(id) !== undefined;
}

/** A conversation turn as the weekly review reads it. */
export interface ConversationTurn {
  id: number;
  role: Role;
  channel: string;
  text: string;
  occurred_at: number;
}

/**
 * The owner's conversation with keel (the owner's turns and keel's replies, not imports, not
 * redacted) that occurred in `[from, to)`, oldest first.
 *
 * @param from - ms since epoch, inclusive.
 * @param to - ms since epoch, exclusive.
 */
export function conversationBetween(
  ctx: StoreContext,
  from: number,
  to: number,
): ConversationTurn[] {
  return stmt(
    ctx.db,
    `SELECT id, role, channel, text, occurred_at FROM episodes
     WHERE kind = 'conversation' AND role IN ('owner', 'assistant') AND channel NOT LIKE 'import:%'
       AND redacted_at IS NULL AND occurred_at >= ? AND occurred_at < ?
     ORDER BY occurred_at, id`,
  ).all(from, to) as ConversationTurn[];
}

/** The episode filed under a source document and id (an import's turn, a weekly summary). */
export function episodeBySource(
  ctx: StoreContext,
  sourceDoc: string | null,
  sourceId: string,
): Episode | undefined {
  return stmt(ctx.db, 'SELECT * FROM episodes WHERE source_doc IS ? AND source_id = ?').get(
    sourceDoc,
    sourceId,
  ) as Episode | undefined;
}

/**
 * The episodes as a holder of the owner's words: a purge redacts the value from the text of every
 * episode that holds it — the owner's turns, keel's own replies, command records — whatever fact
 * it was evidence for, each rewrite journaled first as a redaction entry (the schema refuses a
 * text change without one). The full-text index follows (its triggers), and so do the vectors (the
 * vector queue's triggers).
 */
export function episodesHolder(ctx: StoreContext): OwnerTextHolder {
  return {
    place: 'episodes',
    ownerText: [{ table: 'episodes', column: 'text' }],
    find(scrubber: Scrubber): OwnerTextMention[] {
      const found: OwnerTextMention[] = [];
      for (const e of ctx.db.prepare('SELECT id, text FROM episodes ORDER BY id').all() as {
        id: number;
        text: string;
      }[]) {
        const excerpt = scrubber.excerpt(e.text);
        if (excerpt !== null) found.push({ id: e.id, column: 'text', excerpt });
      }
      return found;
    },
    redact(scrubber: Scrubber, now: number, actor: Actor = 'owner'): number[] {
      const update = stmt(ctx.db, 'UPDATE episodes SET text = ?, redacted_at = ? WHERE id = ?');
      const changed: number[] = [];
      for (const e of ctx.db.prepare('SELECT id, text FROM episodes ORDER BY id').all() as {
        id: number;
        text: string;
      }[]) {
        if (!scrubber.holds(e.text)) continue;
        const text = scrubber.scrub(e.text);
        journalRedaction(
          ctx.db,
          { entity: 'episode', id: e.id, before: e.text, after: text },
          { reason: 'purge', actor, at: now },
        );
        update.run(text, now, e.id);
        changed.push(e.id);
      }
      return changed;
    },
  };
}

/**
 * Whether an episode's words support `text`: the episode (a conversation turn, as the full-text
 * index holds it) contains `any` or `all` of the content words of `text`, matched as recall
 * matches them (NFKC, case-folded, Porter-stemmed: "teas" supports "tea"; a Hebrew or Arabic word
 * with or without its prefix: "בחיפה" supports "חיפה"). Used by the write review
 * so that a sighting counts as evidence only when the turn it rests on is about the value, and by
 * reflection to tell what the owner said outright from what was inferred.
 *
 * @returns false for an episode that is not an indexed conversation turn, or text with no words.
 */
export function episodeSupports(
  ctx: StoreContext,
  episodeId: number,
  text: string,
  mode: 'any' | 'all',
): boolean {
  const terms = queryTerms(text);
  const expr = mode === 'any' ? ftsMatch(terms) : ftsMatchAll(terms);
  if (!expr) return false;
  // `rowid BETWEEN ? AND ?`, not `rowid = ?`: with an equality on rowid this SQLite's FTS5 answers
  // the row whether or not it matches (seen with 3.53 on the contentless index).
  return (
    stmt(
      ctx.db,
      'SELECT 1 FROM episodes_fts WHERE episodes_fts MATCH ? AND rowid BETWEEN ? AND ?',
    ).get(expr, episodeId, episodeId) !== undefined
  );
}
