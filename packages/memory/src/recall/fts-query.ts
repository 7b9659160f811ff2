/**
 * User text as an FTS5 query. User text never reaches FTS5 as syntax: every term is emitted as a
 * double-quoted FTS5 string, so `AND`, `NEAR`, `*`, `^`, `:`, `-`, quotes and parentheses are
 * plain text.
 *
 * @module
 */
import { foldForIndex } from '@keel/language';

/** One term as an FTS5 phrase's text (unquoted), folded like the index folds text. */
function ftsPhrase(term: string): string {
  return foldForIndex(term).trim().replace(/\s+/g, ' ');
}

/**
 * Builds an FTS5 MATCH expression from query terms: each term a quoted string, OR-ed, so a row
 * matching any term is a candidate and BM25 ranks rows matching more and rarer terms higher.
 *
 * @returns `null` when there is nothing to search for.
 */
export function ftsMatch(terms: readonly string[]): string | null {
  const phrases = ftsPhrases(terms);
  return phrases.length > 0
    ? phrases.map((p) => `"${p.replaceAll('"', '""')}"`).join(' OR ')
    : null;
}

/**
 * The phrases of {@link ftsMatch}'s expression for `terms`, in order, as FTS5 reads them inside
 * their quotes (each term folded like the index; empty ones dropped).
 */
export function ftsPhrases(terms: readonly string[]): string[] {
  return terms.map(ftsPhrase).filter((p) => p !== '');
}
