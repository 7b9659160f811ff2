/**
 * User text as an FTS5 query. User text never reaches FTS5 as syntax: every term is emitted as a
 * double-quoted FTS5 string, so `AND`, `NEAR`, `*`, `^`, `:`, `-`, quotes and parentheses are
 * plain text.
 *
 * @module
 */
import { foldForIndex, queryPhrases } from '@keel/language';

/**
 * Builds an FTS5 MATCH expression from query terms: each term's phrases ({@link queryPhrases}: the
 * term folded as the index folds text, and a Hebrew or Arabic word's bare forms) as quoted
 * strings, OR-ed, so a row matching any term is a candidate and BM25 ranks rows matching more and
 * rarer terms higher.
 *
 * @returns `null` when there is nothing to search for.
 */
export function ftsMatch(terms: readonly string[]): string | null {
  const phrases = ftsPhrases(terms);
  return phrases.length > 0 ? phrases.map(quoted).join(' OR ') : null;
}

/**
 * Builds an FTS5 MATCH expression that a row matches only when it holds every term (any of the
 * term's phrases, {@link queryPhrases}: a Hebrew word or its bare form): `("a") AND ("b" OR "c")`.
 *
 * @returns `null` when there is nothing to search for.
 */
export function ftsMatchAll(terms: readonly string[]): string | null {
  const groups = terms
    .map(queryPhrases)
    .filter((phrases) => phrases.length > 0)
    .map((phrases) => `(${phrases.map(quoted).join(' OR ')})`);
  return groups.length > 0 ? groups.join(' AND ') : null;
}

/** A phrase as an FTS5 string: double-quoted, its quotes doubled. */
function quoted(phrase: string): string {
  return `"${phrase.replaceAll('"', '""')}"`;
}

/**
 * The phrases of {@link ftsMatch}'s expression for `terms`, in order, as FTS5 reads them inside
 * their quotes (each term's {@link queryPhrases}; a term with no word gives none).
 */
export function ftsPhrases(terms: readonly string[]): string[] {
  return terms.flatMap(queryPhrases);
}

/** Text as space-separated lower-case tokens, with a space at each end (letters, digits, marks). */
function tokenLine(text: string): string {
  const tokens = text
    .toLowerCase()
    .split(/[^\p{L}\p{N}\p{M}]+/u)
    .filter(Boolean);
  return tokens.length > 0 ? ` ${tokens.join(' ')} ` : '';
}

/**
 * A counter of the `terms` a text holds, matched as the full-text index matches them but without
 * stemming: a term is held when one of its phrases ({@link queryPhrases}: a Thai word, a Hebrew word
 * or its bare form) is a run of whole tokens of the text folded as the index folds it
 * ({@link foldForIndex}), case aside. For matching rows the index does not hold (facts as they
 * were at a past moment).
 *
 * @returns a function giving how many of `terms` its text holds (0 to `terms.length`).
 */
export function termCounter(terms: readonly string[]): (text: string) => number {
  const wanted = terms
    .map((t) => queryPhrases(t).map(tokenLine).filter(Boolean))
    .filter((phrases) => phrases.length > 0);
  return (text) => {
    const held = tokenLine(foldForIndex(text));
    return wanted.filter((phrases) => phrases.some((p) => held.includes(p))).length;
  };
}
