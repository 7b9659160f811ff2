/**
 * Text handling shared by the write path and recall: value normalisation for comparing beliefs,
 * folding for the full-text index, and turning user text into query terms.
 *
 * @module
 */
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { eng } from 'stopword';
import {
  bareForms,
  normalizeForWords,
  normalizeSemitic,
  spaceUnspaced,
  withPrefixForms,
} from './scripts.js';

const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;
// C0/C1 control characters other than tab and newline; NUL included.
const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/g;

/** Combining marks that follow no letter or digit (an emoji's variation selector, a stray accent). */
const ORPHAN_MARK = /(?<![\p{L}\p{N}\p{M}])\p{M}+/gu;

/**
 * Folds text into words the way both sides of full-text search read it: Unicode NFKC (NFC and NFD
 * forms of an accented word, and full-width forms, become one; NFC in Thai and Lao:
 * {@link normalizeForWords}), control characters (NUL
 * included) as spaces, combining marks that follow no letter dropped, Hebrew and Arabic written
 * one way ({@link normalizeSemitic}: pointing dropped, Arabic letter variants made one), and
 * spaces put between words where a script writes none ({@link spaceUnspaced}: Thai, Lao, Khmer,
 * Burmese, Japanese and Chinese cut by `Intl.Segmenter`, "我喜欢喝绿茶" → "我 喜欢 喝 绿茶"; each
 * Hangul syllable alone).
 *
 * The index holds this with each Hebrew/Arabic word's bare forms beside it
 * ({@link foldForIndex}); a query's term is this, searched with its bare forms as alternatives
 * ({@link queryPhrases}).
 */
export function foldWords(text: string): string {
  return spaceUnspaced(
    normalizeSemitic(normalizeForWords(text).replace(CONTROL, ' ').replace(ORPHAN_MARK, '')),
  );
}

/**
 * Folds text for the FTS5 index: {@link foldWords}, each Hebrew or Arabic word followed by its
 * forms without the prefixes it may carry, and each Russian, Ukrainian or Greek word its stem
 * ({@link withPrefixForms}: "גר בחיפה" → "גר בחיפה חיפה",
 * "والقهوة" → "والقهوه قهوه"), so a word is found by its bare form and a bare word by its prefixed
 * form. Registered as the SQL function `keel_fold` (the FTS5 triggers call it); the tables'
 * tokenizer keeps combining marks inside words (`categories 'L* N* Co M*'`), so a Thai, Khmer or
 * Devanagari word stays one token.
 */
export function foldForIndex(text: string): string {
  return withPrefixForms(foldWords(text));
}

/**
 * What full-text search looks for, for one query term: the term folded by {@link foldWords} (one
 * phrase: "绿茶", "เชียงใหม่", or "서 울" for a Korean word), then, for a Hebrew, Arabic, Russian,
 * Ukrainian or Greek word, each of its bare forms ({@link bareForms}: "בחיפה" → "חיפה",
 * "Сбербанке" → "сбербанк"), each its own alternative. The index holds a word and its bare forms
 * ({@link foldForIndex}), so either side's prefix or case ending is found.
 *
 * @returns the phrases, space-separated tokens each, in order; `[]` for a term with no word.
 */
export function queryPhrases(term: string): string[] {
  const phrase = foldWords(term).trim().replace(/\s+/g, ' ');
  if (phrase === '') return [];
  return phrase.includes(' ') ? [phrase] : [phrase, ...bareForms(phrase)];
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

/** Half of a UTF-16 surrogate pair without its other half (read by code unit: no `u` flag). */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * `text` as keel stores it: well-formed Unicode, each lone surrogate ("\ud800": half of a UTF-16
 * pair without its other half, from a JSON import, a cut stream or a bad client) replaced by
 * U+FFFD, as `String.prototype.toWellFormed` does. SQLite keeps text as UTF-8, where a lone
 * surrogate has no encoding: stored as it is, the row would read back as other characters than
 * were hashed into the journal, and `keel verify` would report it altered. Every other character,
 * pairs included, is kept.
 */
export function wellFormed(text: string): string {
  return text.replace(LONE_SURROGATE, '\uFFFD');
}

/** sha256 (hex) of a string, UTF-8. */
export function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** The hash tombstones and duplicate checks key on: sha256 of {@link normalizeValue}. */
export function valueHash(value: string): string {
  return sha256(normalizeValue(value));
}

/**
 * NLTK's English stopword list (179 words; nltk_data `corpora/stopwords/english`; Bird, Klein &
 * Loper, "Natural Language Processing with Python", O'Reilly 2009): pronouns, determiners,
 * auxiliaries (do, does, did, have, has), prepositions, conjunctions, question words and the tails
 * of contractions ("ve", "ll", "re"); no content verb (get, make, take and like stay searchable).
 */
export const NLTK_ENGLISH_STOPWORDS: readonly string[] = `i me my myself we our ours ourselves you
you're you've you'll you'd your yours yourself yourselves he him his himself she she's her hers
herself it it's its itself they them their theirs themselves what which who whom this that that'll
these those am is are was were be been being have has had having do does did doing a an the and but
if or because as until while of at by for with about against between into through during before
after above below to from up down in out on off over under again further then once here there when
where why how all any both each few more most other some such no nor not only own same so than too
very s t can will just don don't should should've now d ll m o re ve y ain aren aren't couldn
couldn't didn didn't doesn doesn't hadn hadn't hasn hasn't haven haven't isn isn't ma mightn
mightn't mustn mustn't needn needn't shan shan't shouldn shouldn't wasn wasn't weren weren't won
won't wouldn wouldn't`.split(/\s+/);

const require = createRequire(import.meta.url);

/** The stopwords of {@link queryTerms}: the `stopword` package's English list. */
const STOPWORDS: ReadonlySet<string> = new Set(eng);

/**
 * The stopwords of {@link recallTerms}: {@link NLTK_ENGLISH_STOPWORDS} less "won" (the past of
 * "win" there only as the stem of "won't"), and the modal and quantity words the `stopword`
 * package adds to it (also, another, could, might, must, would, shall, many, much, still). Content
 * verbs (get, got, make, take, like, come, said) are kept; "does", "when" and "during" are dropped.
 * Measured: docs/decisions/2026-12-01-recall-as-lived.md.
 */
export const RECALL_STOPWORDS: ReadonlySet<string> = new Set([
  ...NLTK_ENGLISH_STOPWORDS.filter((w) => w !== 'won'),
  ...['also', 'another', 'could', 'might', 'must', 'would', 'shall', 'many', 'much', 'still'],
]);

/**
 * Whether `form` is a regular inflection of `base` that Porter stemming already joins to it: the
 * base (its final "e" or "y" changed or dropped, its last consonant perhaps doubled) and a regular
 * ending: "going", "goes", "tripped", "studied", "totalling" — not "went", "gone", "bought".
 */
function regular(form: string, base: string): boolean {
  const stems = [base, base.slice(0, -1), `${base.slice(0, -1)}i`, `${base}${base.at(-1)}`];
  return stems.some(
    (st) => form.startsWith(st) && /^(s|es|ed|d|ing|er|est|ies|ied)$/.test(form.slice(st.length)),
  );
}

/**
 * Irregular English verb forms and their base forms: WordNet 3's verb exception list
 * (`verb.exc`, Princeton University; as shipped by the `wink-lexicon` package, MIT), less the
 * regular inflections Porter stemming already joins ({@link regular}). Nouns' and adjectives'
 * exceptions are left out (measured: no gain; "media" → "medium", "better" → "good").
 */
let irregular: { forms: ReadonlyMap<string, string>; of: ReadonlyMap<string, string[]> } | null =
  null;

/** The exception list, read on first use: no process pays for it before recall asks. */
function irregularTables(): NonNullable<typeof irregular> {
  if (irregular) return irregular;
  const forms = new Map(
    Object.entries(
      require('wink-lexicon/src/wn-verb-exceptions.js') as Record<string, string>,
    ).filter(
      ([form, base]) =>
        form !== base && /^[a-z]+$/.test(form) && /^[a-z]+$/.test(base) && !regular(form, base),
    ),
  );
  const of = new Map<string, string[]>();
  for (const [form, base] of forms) {
    const list = of.get(base);
    if (list) list.push(form);
    else of.set(base, [form]);
  }
  irregular = { forms, of };
  return irregular;
}

/**
 * The other forms of an English verb that stemming cannot reach: its base when it is an irregular
 * form ("won" → "win", "bought" → "buy"), and a base's irregular forms ("win" → "won", "get" →
 * "got", "gotten"). Stopwords are never added.
 *
 * @returns the forms besides `term`, possibly none.
 */
export function irregularForms(term: string): string[] {
  const { forms, of } = irregularTables();
  const base = forms.get(term);
  const root = base ?? term;
  const out = new Set([root, ...(of.get(root) ?? [])]);
  out.delete(term);
  return [...out].filter((w) => !RECALL_STOPWORDS.has(w));
}

/** The part-of-speech tags of English words (wink-lexicon's lexicon, MIT), read on first use. */
let lexicon: Readonly<Record<string, readonly string[]>> | null = null;

/**
 * Whether an English word, lower case, is a verb in the present (Penn Treebank tags `VBP`,
 * `VBZ`, or the base form `VB`) and never a past (`VBD`): "drive", "take", "use", "owns" — not
 * "drove", "put", "read" (both), nor a word the lexicon does not know. From the lexicon of the
 * `wink-lexicon` package (GRAYPE Systems, MIT).
 */
export function presentTenseVerb(word: string): boolean {
  lexicon ??= require('wink-lexicon/src/lexicon.js') as Record<string, string[]>;
  const tags = lexicon[word];
  if (!tags) return false;
  return tags.some((t) => t === 'VBP' || t === 'VBZ' || t === 'VB') && !tags.includes('VBD');
}

/** The English word list of the `an-array-of-english-words` package, read on first use. */
let englishWords: ReadonlySet<string> | null = null;

/**
 * Whether `word`, lower case, is an English word: one the lexicon of the `wink-lexicon` package
 * (GRAYPE Systems, MIT) knows under any part of speech, or one of the ~275,000 words of the
 * `an-array-of-english-words` package (Sindre Sorhus, MIT; "oat", "latte", "sushi"). Names
 * written in lower case, as chats write them ("toyota", "japanese", "koramangala"), are in
 * neither.
 */
export function englishWord(word: string): boolean {
  lexicon ??= require('wink-lexicon/src/lexicon.js') as Record<string, string[]>;
  if (Object.hasOwn(lexicon, word)) return true;
  englishWords ??= new Set(require('an-array-of-english-words') as string[]);
  return englishWords.has(word);
}

/** How much of a query text recall reads, in characters. */
export const QUERY_MAX_CHARS = 4000;
/** The most terms a query searches for (the first distinct content words). */
export const QUERY_MAX_TERMS = 64;
const segmenter = new Intl.Segmenter('en', { granularity: 'word' });

/**
 * Splits user text into query terms with the platform's Unicode word segmenter (`Intl.Segmenter`).
 * Non-word segments (punctuation, emoji, symbols) are dropped; English stopwords (the `stopword`
 * package's list) are dropped unless nothing else is left. Terms are NFKC-folded (NFC in Thai and
 * Lao: {@link normalizeForWords}) and lower-cased;
 * a CJK run stays one term ({@link queryPhrases} cuts it into words as the index is cut).
 *
 * Only the first {@link QUERY_MAX_CHARS} characters are read, and at most {@link QUERY_MAX_TERMS}
 * terms are returned.
 *
 * @returns the distinct terms in order of first appearance; `[]` for emoji- or punctuation-only text.
 */
export function queryTerms(query: string): string[] {
  return terms(query, STOPWORDS);
}

/**
 * The terms recall searches for: as {@link queryTerms}, with {@link RECALL_STOPWORDS} (a standard
 * list that keeps content verbs) instead of the `stopword` package's.
 */
export function recallTerms(query: string): string[] {
  return terms(query, RECALL_STOPWORDS);
}

function terms(query: string, stopwords: ReadonlySet<string>): string[] {
  // A query is a question, not a document: only its start is searched for (a megabyte message
  // would otherwise cost seconds in the segmenter and match nothing better).
  const folded = normalizeForWords(query.slice(0, QUERY_MAX_CHARS)).replace(CONTROL, ' ');
  const all: string[] = [];
  const content: string[] = [];
  const add = (list: string[], term: string) => {
    if (!list.includes(term)) list.push(term);
  };
  for (const seg of segmenter.segment(folded)) {
    if (!seg.isWordLike) continue;
    const word = seg.segment.toLowerCase();
    if (!/[\p{L}\p{N}]/u.test(word)) continue;
    const stop = stopwords.has(word) || stopwords.has(word.replace(/['’]/g, ''));
    // The segmenter joins letters across ":", ".", "_" and apostrophes ("re:dentist",
    // "dentist's"); split those into their parts, dropping a one-letter tail like the "s" of a
    // possessive. A CJK run stays whole.
    const parts = hasCjk(word) ? [word] : word.split(/[^\p{L}\p{N}\p{M}]+/u).filter(Boolean);
    const kept = parts.length > 1 ? parts.filter((p) => p.length > 1 || /\p{N}/u.test(p)) : parts;
    for (const part of kept) {
      add(all, part);
      if (!stop && !stopwords.has(part)) add(content, part);
    }
  }
  return (content.length > 0 ? content : all).slice(0, QUERY_MAX_TERMS);
}

/**
 * What recall searches for, for its `terms`: each term, then their irregular forms ("won" also
 * searches "win"; {@link irregularForms}), in that order (the order of the FTS5 expression's
 * phrases, which BM25 sums in).
 */
export function searchedForms(terms: readonly string[]): string[] {
  return [...terms, ...terms.flatMap(irregularForms)];
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
