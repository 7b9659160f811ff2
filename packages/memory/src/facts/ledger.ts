/**
 * The purge ledger: what the owner purged, kept as hashes so a purge can be applied again to a
 * copy of the store made before it (a backup restored later, one the owner copied elsewhere).
 *
 * Each purge appends one line ({@link PurgeLedgerEntry}) to a file beside the database
 * ({@link PURGE_LEDGER_FILE}): when, the value's hash and its folded content as a tombstone keeps
 * it (`contentOf` of `tombstones.ts`: each content word as a hash, per spelling) — never the value
 * itself. Applying an entry to a store ({@link purgedPhrases}) finds, in the texts purge walks, the
 * phrases whose folded content words hash to the entry's, and the store purges each phrase by
 * mention (`purgeMentions`): the same mechanism as the purge the owner ran, with the text read
 * back from the copy that still holds it.
 *
 * @module
 */
import { appendFileSync, chmodSync } from 'node:fs';
import { contentWords, foldedWords, sha256, valueHash, wordStems } from '@keel/language';
import { z } from 'zod';
import { type StoreContext, stmt } from '../context.js';
import { ERASED_BY_PURGE, type OwnerTextColumn, type OwnerTextHolder } from '../redaction.js';
import { contentOf } from './tombstones.js';

/** The ledger's file name, beside the database (`$KEEL_HOME/purged.jsonl`). */
export const PURGE_LEDGER_FILE = 'purged.jsonl';

/** One purge as the ledger keeps it: hashes only. */
export interface PurgeLedgerEntry {
  /** When it was purged, ms since epoch. */
  at: number;
  /** The purged value's hash (`valueHash` of `@keel/language`). */
  value_hash: string;
  /** Its folded content words as hashes, per spelling (as a tombstone keeps them). */
  content: string[][];
}

const Entry = z.object({
  at: z.number(),
  value_hash: z.string().regex(/^[0-9a-f]{64}$/u),
  content: z.array(z.array(z.string().regex(/^[0-9a-f]{32}$/u)).min(1)).min(1),
});

/** The ledger entry of a purge of `value` at `at` (ms), or null for a value with no word. */
export function ledgerEntry(value: string, at: number): PurgeLedgerEntry | null {
  const content = contentOf(value);
  if (content.length === 0) return null;
  return { at, value_hash: valueHash(value), content };
}

/**
 * Appends `entry` to the ledger at `path` (created with mode 0600).
 *
 * @throws the file system's error when it cannot be written.
 */
export function appendPurgeLedger(path: string, entry: PurgeLedgerEntry): void {
  appendFileSync(path, `${JSON.stringify(entry)}\n`, { mode: 0o600 });
  chmodSync(path, 0o600);
}

/**
 * The entries of a ledger's text, oldest first, and how many lines could not be read (a line cut
 * short by a crash; they are skipped, never guessed at).
 */
export function parsePurgeLedger(text: string): {
  entries: PurgeLedgerEntry[];
  unreadable: number;
} {
  const entries: PurgeLedgerEntry[] = [];
  let unreadable = 0;
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    try {
      entries.push(Entry.parse(JSON.parse(line)));
    } catch {
      unreadable++;
    }
  }
  return { entries, unreadable };
}

/**
 * Whether the owner said the value of `entry` again after that purge, in the store of `ctx`: a
 * `purged` tombstone of the same value (by its hash, or by the same hashed content) lifted at or
 * after the entry's time. The owner's word is the one way back, so such an entry is not applied
 * to that store: a backup made after the owner said it again keeps what they said. A store that
 * never heard it again (a copy made before the purge) has no such tombstone and gives it up.
 */
export function saidAgainSince(ctx: StoreContext, entry: PurgeLedgerEntry): boolean {
  const content = entry.content.map((f) => JSON.stringify(f));
  const lifted = stmt(
    ctx.db,
    `SELECT value_hash, content FROM tombstones
     WHERE reason = 'purged' AND lifted_at IS NOT NULL AND lifted_at >= ?`,
  ).all(entry.at) as { value_hash: string; content: string | null }[];
  return lifted.some(
    (t) =>
      t.value_hash === entry.value_hash || (t.content !== null && sameContent(t.content, content)),
  );
}

/** Whether a tombstone's content (JSON of its forms) shares a form with `forms` (each JSON). */
function sameContent(stored: string, forms: readonly string[]): boolean {
  try {
    const own = (JSON.parse(stored) as unknown[]).map((f) => JSON.stringify(f));
    return own.some((f) => forms.includes(f));
  } catch {
    return false;
  }
}

/** The hash a content word is kept as (as `tombstones.ts` keeps it). */
const wordHash = (word: string) => sha256(word).slice(0, 32);

/** Words that may sit between two words of a purged value (its stopwords: "Bank of America"). */
const MAX_GAP = 3;

/** The columns a purge walks: those it erases itself and those of every holder. */
function purgedColumns(holders: readonly OwnerTextHolder[]): OwnerTextColumn[] {
  const seen = new Map<string, OwnerTextColumn>();
  for (const c of [...ERASED_BY_PURGE, ...holders.flatMap((h) => h.ownerText)]) {
    seen.set(`${c.table}.${c.column}`, c);
  }
  return [...seen.values()];
}

/**
 * The phrases of the store's texts that say a purged value: a run of folded words whose content
 * words hash, in order, to one spelling of `content` (a word may carry the short inflected ending
 * a mention allows; up to {@link MAX_GAP} words between two of them, as stopwords of the value
 * sit), each given back as the value's own folded words so a purge by mention of it finds every
 * form. Reads only; every text purge walks (`holders` and the beliefs' own columns).
 *
 * @param content - the purged value's content, as {@link PurgeLedgerEntry.content} keeps it.
 * @returns the distinct phrases, in the order found.
 */
export function purgedPhrases(
  ctx: StoreContext,
  content: readonly (readonly string[])[],
  holders: readonly OwnerTextHolder[],
): string[] {
  const forms = content.filter((f) => f.length > 0);
  if (forms.length === 0) return [];
  const wanted = new Set(forms.flat());
  const firsts = new Set(forms.map((f) => f[0]!));
  // Each folded word once: which wanted hashes it says, and the stem that says each.
  const said = new Map<string, Map<string, string>>();
  const hits = (word: string): Map<string, string> => {
    let m = said.get(word);
    if (!m) {
      m = new Map();
      for (const stem of wordStems(word)) {
        const h = wordHash(stem);
        if (wanted.has(h) && !m.has(h)) m.set(h, stem);
      }
      said.set(word, m);
    }
    return m;
  };
  const phrases = new Set<string>();
  const scan = (text: string) => {
    const words = foldedWords(text);
    for (let i = 0; i < words.length; i++) {
      const first = hits(words[i]!);
      if (![...first.keys()].some((h) => firsts.has(h))) continue;
      for (const form of forms) {
        const phrase = matchAt(words, i, form, hits);
        if (phrase !== null) phrases.add(phrase);
      }
    }
  };
  for (const { table, column } of purgedColumns(holders)) {
    const rows = ctx.db
      .prepare(`SELECT ${column} AS text FROM ${table} WHERE ${column} IS NOT NULL`)
      .raw()
      .iterate() as Iterable<[unknown]>;
    for (const [text] of rows) if (typeof text === 'string') scan(text);
  }
  return [...phrases];
}

/**
 * The phrase that says `form` starting at `words[i]`, or null: its words in order, each the stem
 * that hashes to the form's word, with at most {@link MAX_GAP} other words between two (none of
 * them a word of the value); the phrase's
 * own content must be exactly the form (no other content word inside it).
 */
function matchAt(
  words: readonly string[],
  i: number,
  form: readonly string[],
  hits: (word: string) => Map<string, string>,
): string | null {
  const out: string[] = [];
  let k = 0;
  let gap = 0;
  for (let j = i; j < words.length && k < form.length; j++) {
    const stem = hits(words[j]!).get(form[k]!);
    if (stem !== undefined) {
      out.push(stem);
      k++;
      gap = 0;
    } else if (k === 0 || ++gap > MAX_GAP || hits(words[j]!).size > 0) {
      return null; // a word of the value out of order starts a match of its own
    } else {
      out.push(words[j]!);
    }
  }
  if (k < form.length) return null;
  const phrase = out.join(' ');
  const own = [...new Set(contentWords(phrase))].map(wordHash);
  return own.length === form.length && own.every((h, n) => h === form[n]) ? phrase : null;
}
