/**
 * Text handling shared by the write path and recall: value normalisation for comparing beliefs,
 * folding for the full-text index, and turning user text into a safe FTS5 query.
 *
 * User text never reaches FTS5 as syntax: every term is emitted as a double-quoted FTS5 string,
 * so `AND`, `NEAR`, `*`, `^`, `:`, `-`, quotes and parentheses are plain text.
 *
 * @module
 */
import { createHash } from 'node:crypto';
import { eng } from 'stopword';

const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;
const CJK_GLOBAL = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/gu;
// C0/C1 control characters other than tab and newline; NUL included.
const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/g;

/**
 * Folds text for the FTS5 index and for queries, so both sides agree: Unicode NFKC (NFC and NFD
 * forms of an accented word, and full-width forms, become one), control characters (NUL included)
 * become spaces, and each CJK character stands as its own token so a word inside an unspaced
 * sentence is findable ("绿茶" in "我喜欢喝绿茶"). Registered as the SQL function `keel_fold`.
 */
export function foldForIndex(text: string): string {
  return text.normalize('NFKC').replace(CONTROL, ' ').replace(CJK_GLOBAL, ' $& ');
}

/**
 * Normalises a fact value for comparison: NFKC, case-folded, punctuation and runs of white space
 * collapsed to one space. "Dr. Ortiz on Elm Street" and "dr ortiz on elm street!" compare equal.
 */
export function normalizeValue(value: string): string {
  return value
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\p{M}]+/gu, ' ')
    .trim();
}

/** sha256 (hex) of a string, UTF-8. */
export function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** The hash tombstones and duplicate checks key on: sha256 of {@link normalizeValue}. */
export function valueHash(value: string): string {
  return sha256(normalizeValue(value));
}

const STOPWORDS = new Set(eng);

/** How much of a query text recall reads, in characters. */
export const QUERY_MAX_CHARS = 4000;
/** The most terms a query searches for (the first distinct content words). */
export const QUERY_MAX_TERMS = 64;
const segmenter = new Intl.Segmenter('en', { granularity: 'word' });

/**
 * Splits user text into query terms with the platform's Unicode word segmenter (`Intl.Segmenter`).
 * Non-word segments (punctuation, emoji, symbols) are dropped; English stopwords (the `stopword`
 * package's list) are dropped unless nothing else is left. Terms are NFKC-folded and lower-cased;
 * a CJK run stays one term (it becomes a phrase of single characters in {@link ftsMatch}).
 *
 * Only the first {@link QUERY_MAX_CHARS} characters are read, and at most {@link QUERY_MAX_TERMS}
 * terms are returned.
 *
 * @returns the distinct terms in order of first appearance; `[]` for emoji- or punctuation-only text.
 */
export function queryTerms(query: string): string[] {
  // A query is a question, not a document: only its start is searched for (a megabyte message
  // would otherwise cost seconds in the segmenter and match nothing better).
  const folded = query.slice(0, QUERY_MAX_CHARS).normalize('NFKC').replace(CONTROL, ' ');
  const all: string[] = [];
  const content: string[] = [];
  const add = (list: string[], term: string) => {
    if (!list.includes(term)) list.push(term);
  };
  for (const seg of segmenter.segment(folded)) {
    if (!seg.isWordLike) continue;
    const word = seg.segment.toLowerCase();
    if (!/[\p{L}\p{N}]/u.test(word)) continue;
    const stop = STOPWORDS.has(word) || STOPWORDS.has(word.replace(/['’]/g, ''));
    // The segmenter joins letters across ":", ".", "_" and apostrophes ("re:dentist",
    // "dentist's"); split those into their parts, dropping a one-letter tail like the "s" of a
    // possessive. A CJK run stays whole.
    const parts = hasCjk(word) ? [word] : word.split(/[^\p{L}\p{N}\p{M}]+/u).filter(Boolean);
    const kept = parts.length > 1 ? parts.filter((p) => p.length > 1 || /\p{N}/u.test(p)) : parts;
    for (const part of kept) {
      add(all, part);
      if (!stop && !STOPWORDS.has(part)) add(content, part);
    }
  }
  return (content.length > 0 ? content : all).slice(0, QUERY_MAX_TERMS);
}

/** Quotes one term as an FTS5 string literal (a phrase), folding it like the index does. */
function ftsString(term: string): string {
  const folded = foldForIndex(term).trim().replace(/\s+/g, ' ');
  return `"${folded.replaceAll('"', '""')}"`;
}

/**
 * Builds an FTS5 MATCH expression from query terms: each term a quoted string, OR-ed, so a row
 * matching any term is a candidate and BM25 ranks rows matching more and rarer terms higher.
 *
 * @returns `null` when there is nothing to search for.
 */
export function ftsMatch(terms: readonly string[]): string | null {
  const parts = terms.map(ftsString).filter((p) => p !== '""');
  return parts.length > 0 ? parts.join(' OR ') : null;
}

/** True when the text contains CJK characters. */
export function hasCjk(text: string): boolean {
  return CJK.test(text);
}

/**
 * A short human age: "now", "5m", "3h", "3d", "2mo", "1y".
 *
 * @param ms - age in milliseconds.
 */
export function humanAge(ms: number): string {
  const s = Math.max(0, ms) / 1000;
  if (s < 60) return 'now';
  if (s < 3600) return `${Math.floor(s / 60)}m`;
  if (s < 86_400) return `${Math.floor(s / 3600)}h`;
  if (s < 86_400 * 60) return `${Math.floor(s / 86_400)}d`;
  if (s < 86_400 * 365) return `${Math.floor(s / (86_400 * 30))}mo`;
  return `${Math.floor(s / (86_400 * 365))}y`;
}

/**
 * A pattern that finds `value` inside other text the way {@link normalizeValue} compares values:
 * case, punctuation and spacing between its words ignored, whole words only. Match it against
 * NFKC-normalised text. Used by purge to find every stored form of a value.
 *
 * @returns a global, case-insensitive pattern, or null for a value with no words.
 */
export function valuePattern(value: string): RegExp | null {
  const tokens = normalizeValue(value).split(' ').filter(Boolean);
  if (tokens.length === 0) return null;
  const escaped = tokens.map((t) => t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(
    `(?<![\\p{L}\\p{N}\\p{M}])${escaped.join('[^\\p{L}\\p{N}\\p{M}]+')}(?![\\p{L}\\p{N}\\p{M}])`,
    'giu',
  );
}
