/**
 * Redaction: how a value the owner purges is erased from every place that can hold their words.
 *
 * Every repository whose table can hold the owner's words implements {@link OwnerTextHolder}:
 * it names the columns it covers and erases a value from them. `forget --purge` walks every
 * holder the store has (see `MemoryStore.forget`), so a new table that holds owner text is covered
 * by giving its repository a `redact`. A schema test lists every TEXT and BLOB column of every
 * table and fails unless a holder covers it or {@link NO_OWNER_TEXT} says why it never holds the
 * owner's words — so the next table cannot be forgotten by "forget".
 *
 * @module
 */

import { mentionFinder, redactSecrets, type SecretLedger, wellFormed } from '@keel/language';
import { type StoreContext, stmt } from './context.js';
import type { Actor } from './types.js';

/**
 * `text` as a column that may hold the owner's words stores it: well-formed (a lone surrogate as
 * U+FFFD, see `wellFormed`: SQLite would keep it as bytes that are not UTF-8 and read back three
 * other characters) and with every credential withheld (`redactSecrets`, with the unit of work's
 * `ledger`). Every repository writing such a column writes it through this.
 */
export function storedText(text: string, ledger?: SecretLedger): string {
  return redactSecrets(wellFormed(text), ledger);
}

/** The text that replaces a purged value. */
export const PURGED = '[purged]';

/**
 * Finds and replaces every stored mention of one value, folded (case, accents, punctuation and
 * Unicode form aside; see `mentionFinder` in `@keel/language`).
 */
export interface Scrubber {
  /** True when `text` mentions the value. */
  holds(text: string): boolean;
  /** `text` with every mention of the value replaced by {@link PURGED}, the rest kept. */
  scrub(text: string): string;
  /** Every string inside a JSON document scrubbed; keys and structure kept. */
  scrubJson(json: string): string;
  /** A short excerpt of `text` around its first mention (for a door to show), or null. */
  excerpt(text: string): string | null;
}

/** One stored text that mentions a value, as a holder reports it. */
export interface OwnerTextMention {
  /** The row's primary key (rowid; `seq` for the journal). */
  id: number;
  /** The column that holds the mention. */
  column: string;
  /** A short excerpt of the text around the mention. */
  excerpt: string;
}

/** A table column. */
export interface OwnerTextColumn {
  table: string;
  column: string;
}

/** A repository whose table can hold the owner's words, and can erase a value from them. */
export interface OwnerTextHolder {
  /** The place, as purge reports it (e.g. `messages`, `belief_queue`). */
  readonly place: string;
  /** The columns it covers. */
  readonly ownerText: readonly OwnerTextColumn[];
  /** Every covered text that mentions the value, by row (ascending) then column. Reads only. */
  find(scrubber: Scrubber): OwnerTextMention[];
  /**
   * Erases the value from every covered column, inside the caller's transaction.
   *
   * @param now - ms since epoch (recorded where the table keeps when a row was redacted).
   * @param actor - who erases, for the journal's redaction entries (default the owner).
   * @returns the ids (primary keys) of the rows changed, ascending.
   */
  redact(scrubber: Scrubber, now: number, actor?: Actor): number[];
}

/**
 * The columns a purge erases itself rather than through a holder: the value of every row of the
 * forgotten slot and of every belief that mentions a purged value (its hash stays, so the
 * tombstone binds), and the mention in a retired belief's key or a tombstone's key (a key such as
 * `sister_in_porto` holds the owner's words; see `facts/mentions.ts`).
 */
export const ERASED_BY_PURGE: readonly OwnerTextColumn[] = [
  { table: 'facts', column: 'value' },
  { table: 'facts', column: 'key' },
  { table: 'tombstones', column: 'key' },
];

/**
 * A scrubber made of `holds`, `scrub` and `excerpt`: its `scrubJson` scrubs every string inside a
 * JSON document (keys and structure kept), or the text as text when it is not JSON.
 */
function scrubberOf(
  holds: (text: string) => boolean,
  scrub: (text: string) => string,
  excerpt: (text: string) => string | null,
): Scrubber {
  const walk = (node: unknown): unknown => {
    if (typeof node === 'string') return scrub(node);
    if (Array.isArray(node)) return node.map(walk);
    if (node && typeof node === 'object') {
      return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, walk(v)]));
    }
    return node;
  };
  return {
    holds,
    scrub,
    excerpt,
    scrubJson: (json) => {
      if (!holds(json)) return json;
      try {
        return JSON.stringify(walk(JSON.parse(json)));
      } catch {
        return scrub(json); // not JSON after all: scrubbed as text
      }
    },
  };
}

/**
 * A scrubber for `value`, or null when it has no words to find. Matching is folded (case,
 * accents, punctuation and spacing between the value's words do not matter; whole words, a longer
 * word may carry a short inflected ending): `mentionFinder` of `@keel/language`. Only the
 * mention is replaced; the rest of a text is kept as it was stored.
 */
export function scrubberFor(value: string): Scrubber | null {
  const finder = mentionFinder(value);
  if (!finder) return null;
  return scrubberOf(
    (text) => finder.test(text),
    (text) => finder.replace(text, PURGED),
    (text) => finder.excerpt(text),
  );
}

/**
 * `base`, and also the keys a purge renamed: a key derived from a purged value ("used_work_
 * sunnyvale" for "I used to work at Sunnyvale Dynamics") holds only some of its words, so the
 * phrase is not found in it; where the old key is stored (a journal payload, a review record) it
 * is replaced by the new one, whole.
 *
 * @param renamed - old key → new key.
 */
export function withRenamedKeys(base: Scrubber, renamed: ReadonlyMap<string, string>): Scrubber {
  if (renamed.size === 0) return base;
  const olds = [...renamed.keys()];
  const holds = (text: string) => base.holds(text) || olds.some((k) => text.includes(k));
  const scrub = (text: string) => {
    let out = base.scrub(text);
    for (const [old, next] of renamed) out = out.replaceAll(old, next);
    return out;
  };
  return scrubberOf(holds, scrub, (text) => {
    const found = base.excerpt(text);
    if (found !== null) return found;
    return olds.find((k) => text.includes(k)) ?? null;
  });
}

/** Every non-null text of `table.column`, by rowid. */
function textRows(
  ctx: StoreContext,
  table: string,
  column: string,
): { id: number; text: string }[] {
  return ctx.db
    .prepare(
      `SELECT rowid AS id, ${column} AS text FROM ${table} WHERE ${column} IS NOT NULL ORDER BY rowid`,
    )
    .all() as { id: number; text: string }[];
}

/**
 * A holder for plain text (or JSON) columns of one table, redacted row by row (by rowid): the
 * shape most repositories need.
 *
 * @param columns - the columns; `json` ones are scrubbed string by string inside the document.
 */
export function columnHolder(
  ctx: StoreContext,
  table: string,
  columns: readonly { column: string; json?: boolean }[],
  place = table,
): OwnerTextHolder {
  return {
    place,
    ownerText: columns.map(({ column }) => ({ table, column })),
    find(scrubber: Scrubber): OwnerTextMention[] {
      const found: OwnerTextMention[] = [];
      for (const { column } of columns) {
        for (const row of textRows(ctx, table, column)) {
          const excerpt = scrubber.excerpt(row.text);
          if (excerpt !== null) found.push({ id: row.id, column, excerpt });
        }
      }
      return found.sort((a, b) => a.id - b.id);
    },
    redact(scrubber: Scrubber): number[] {
      const changed = new Set<number>();
      for (const { column, json } of columns) {
        const update = stmt(ctx.db, `UPDATE ${table} SET ${column} = ? WHERE rowid = ?`);
        for (const row of textRows(ctx, table, column)) {
          if (!scrubber.holds(row.text)) continue;
          update.run(json ? scrubber.scrubJson(row.text) : scrubber.scrub(row.text), row.id);
          changed.add(row.id);
        }
      }
      return [...changed].sort((a, b) => a - b);
    },
  };
}

/**
 * Every TEXT or BLOB column no holder covers, with why it never holds the owner's words
 * (`table.column` → reason). Tables created at run time (the vector tables) and the full-text
 * indexes (contentless: derived from rows that are covered) are listed too.
 */
export const NO_OWNER_TEXT: Readonly<Record<string, string>> = {
  'schema_migrations.name': 'the name of a schema step',
  'meta.key': 'the name of a setting keel keeps',
  'meta.value': 'keel bookkeeping: the embedder fingerprint, watermarks, message ids',
  'episodes.kind': 'an enumeration',
  'episodes.channel': 'the front door or source an episode came from',
  'episodes.role': 'an enumeration',
  'episodes.speaker': 'who spoke (keel, the owner, or a named speaker of an import), not what',
  'episodes.source_id': 'a position in an imported file (e.g. D1:3) or a message id',
  'episodes.source_doc': 'the name of an imported document',
  'episodes.session_key': 'a session label from an import or the weekly review',
  'episodes.meta': 'ids and flags (discord message id, caught up)',
  'facts.scope': 'an enumeration',
  'facts.kind': 'an enumeration',
  'facts.value_hash': 'a hash, kept on purpose so forgotten values stay forgotten',
  'facts.status': 'an enumeration',
  'facts.source': 'an enumeration',
  'facts.status_reason': "keel's own words for why a row is in its status",
  'fact_evidence.source': 'an enumeration',
  'tombstones.scope': 'an enumeration',
  'tombstones.kind': 'an enumeration',
  'tombstones.content':
    "hashes of the buried value's folded content words, kept on purpose so it stays forgotten",
  'tombstones.value_hash': 'a hash, kept on purpose',
  'tombstones.reason': 'an enumeration',
  'journal.actor': 'an enumeration',
  'journal.op': 'an enumeration',
  'journal.entity': 'an enumeration',
  'journal.payload_hash': 'a hash',
  'journal.prev_hash': 'a hash',
  'journal.hash': 'a hash',
  'journal_head.hash': "a hash (the chain's newest)",
  'journal_baseline.entity': 'an enumeration',
  'journal_baseline.sha256': 'a hash',
  'journal_facts.sha256': "a hash (a fact row's digest)",
  'imports.path': 'the path of an imported file',
  'imports.format': 'an enumeration',
  'imports.file_sha256': 'a hash',
  'sessions.name': "the session's name (owner)",
  'turns.channel': 'the front door',
  'turns.status': 'an enumeration',
  'turns.error_code': 'a KeelError code',
  'turns.provider': 'the model provider',
  'turns.model': 'the model name',
  'turns.facts_used': 'fact ids',
  'messages.role': 'an enumeration',
  'belief_queue.state': 'an enumeration',
  'belief_queue.gate': 'which gate decided',
  'think_runs.kind': 'an enumeration',
  'think_runs.status': 'an enumeration',
  'think_runs.gate': 'which gate ran',
  'think_runs.period': 'a night or week label',
  'think_runs.error_code': 'a KeelError code',
  'curator_diary.night': 'a date',
  'interrupts.item_key': "a hash of the item's name",
  'reminders.channel': 'the front door a reminder was asked from',
  'reminders.created_by': 'an enumeration',
  'reminders.status': 'an enumeration',
  'review_flags.reason': 'an enumeration',
  'review_flags.actor': 'who raised a question (an actor name)',
  'review_flags.answer': 'yes or no',
  'vector_queue.entity': 'an enumeration',
  'tool_calls.channel': 'the front door',
  'tool_calls.tool': "a tool's name",
  'tool_calls.origin': 'an enumeration',
  'tool_calls.effect': 'an enumeration',
  'tool_calls.policy': 'an enumeration',
  'tool_calls.approval': 'an enumeration',
  'tool_calls.approved_by': 'who approved a call (the owner and their door, policy, grant)',
  'tool_calls.exit': "a call's short outcome (an exit code, an HTTP status, timeout)",
  'tool_calls.result_sha256':
    "a hash of a call's result; cleared when a purge reaches the row (ToolCallsRepo.holder)",
  'tool_grants.tool': "a tool's name",
  'tool_grants.scope': 'an enumeration',
  'tool_grants.exact_sha256':
    'a hash of the exact call a grant allows, kept so it still matches; replaced by purged:<id> when a purge reaches the key (ToolGrantsRepo.holder)',
  'tool_grants.channel': 'the front door',
  'vec_facts_codes.code':
    'sign bits of an embedding; rebuilt from the redacted text by the vector queue',
  'vec_facts_codes.q8': 'an 8-bit embedding; rebuilt from the redacted text by the vector queue',
  'vec_episodes_codes.code':
    'sign bits of an embedding; rebuilt from the redacted text by the vector queue',
  'vec_episodes_codes.q8': 'an 8-bit embedding; rebuilt from the redacted text by the vector queue',
};
