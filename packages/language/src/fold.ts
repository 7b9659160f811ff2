/**
 * Folding for matching by meaning: the form in which "São Paulo", "SAO PAULO!" and "sao-paulo"
 * are one text, and the content words a value is made of. Forgetting, purge by mention and the
 * evidence check compare texts in this form, never by their exact strings.
 *
 * @module
 */
import { stemmer } from 'stemmer';
import { ara, deu, ell, eng, fra, heb, ita, nld, por, rus, spa, ukr } from 'stopword';
import { mentionFinder } from './mention.js';
import { NLTK_ENGLISH_STOPWORDS } from './text.js';

/** Letters whose combining marks are accents to ignore (Latin, Greek, Cyrillic). */
const ACCENTED = /([\p{Script=Latin}\p{Script=Greek}\p{Script=Cyrillic}])\p{Mn}+/gu;
/** Anything that is not a letter, a digit or a mark. */
const NOT_WORD = /[^\p{L}\p{N}\p{M}]+/gu;

/**
 * Folds text: Unicode compatibility form (NFKD), accents on Latin, Greek and Cyrillic letters
 * dropped (a mark in another script, such as a Devanagari vowel sign, is part of the word and
 * stays), case folded, ß as ss, and every run of punctuation, symbols and white space one space.
 *
 * @example foldText('São Paulo!') === 'sao paulo'; foldText('Straße') === 'strasse'
 * @returns the folded text, trimmed ('' for text with no word).
 */
export function foldText(text: string): string {
  return text
    .normalize('NFKD')
    .replace(ACCENTED, '$1')
    .normalize('NFC')
    .toLowerCase()
    .replaceAll('ß', 'ss')
    .replace(NOT_WORD, ' ')
    .trim();
}

/**
 * Stopwords of the languages keel captures and recalls, folded (the `stopword` package's lists,
 * from stopwords-iso, and NLTK's English list): words that say nothing about what a value is.
 */
const STOPWORDS: ReadonlySet<string> = new Set(
  [eng, NLTK_ENGLISH_STOPWORDS, spa, fra, deu, por, ita, nld, rus, ukr, ell, heb, ara]
    .flat()
    .map((w) => foldText(w))
    .filter(Boolean),
);

/**
 * The content words of `text`: its folded words without stopwords, in order, each once. A text
 * made only of stopwords keeps them all (its words are then what it is about).
 *
 * @example contentWords('my sister lives in São Paulo') → ['sister', 'lives', 'sao', 'paulo']
 */
export function contentWords(text: string): string[] {
  const words = foldText(text).split(' ').filter(Boolean);
  const content = words.filter((w) => !STOPWORDS.has(w));
  return [...new Set(content.length > 0 ? content : words)];
}

/**
 * True when `text` mentions `value`: the folded words of `value` appear in `text`'s folded words,
 * in order and next to each other, as whole words that may carry a short inflected ending or an
 * attached Hebrew or Arabic prefix ("Porto" is in "Porto, Portugal" and "Portos", not in
 * "Portobello"; "Яндекс" in "в Яндексе"; "חיפה" in "בחיפה"). The one test of a mention: purge
 * and tombstones read it through {@link mentionFinder}. A value with no word is mentioned nowhere.
 */
export function mentions(text: string, value: string): boolean {
  return mentionFinder(value)?.test(text) ?? false;
}

/**
 * A calendar day written as `YYYY-MM-DD`: the form keel writes a resolved time phrase in ("Initech
 * (2025-03-03)", "moved on 2026-03-08"); the owner said it in words, so it is not matched by word.
 */
const ISO_DAY = /(?<!\d)\d{4}-\d{2}-\d{2}(?!\d)/gu;

/** The shortest stem that may match a longer one it begins ("allerg" / "allergi"), in letters. */
const MIN_SHARED_STEM = 5;
/** The most letters a longer stem may add to a shorter one it begins and still be one word. */
const MAX_STEM_TAIL = 2;

/**
 * A word's stem: Porter's algorithm (M. F. Porter, "An algorithm for suffix stripping", Program
 * 14(3), 1980; the `stemmer` package), the stemmer SQLite's FTS5 `porter` tokenizer runs, so
 * this agrees with what recall and the store's full-text evidence check match.
 */
function stem(word: string): string {
  return /^[a-z]+$/.test(word) ? stemmer(word) : word;
}

/** Two stems are one word: equal, or one begins the other and the shorter is long enough. */
function sameStem(a: string, b: string): boolean {
  if (a === b) return true;
  const [short, long] = a.length <= b.length ? [a, b] : [b, a];
  return (
    short.length >= MIN_SHARED_STEM &&
    long.length - short.length <= MAX_STEM_TAIL &&
    long.startsWith(short)
  );
}

/**
 * True when `turn` (what someone said) mentions `value` (a belief written from it), which is what
 * a belief a model or reflection creates must rest on. "Mentions" means: at least half of the
 * value's content words ({@link contentWords}: folded for case, accents and punctuation,
 * stopwords of every captured language left out), and at least one, are among the turn's content
 * words, compared by their Porter stems; two stems count as one word when they are equal or the
 * shorter (at least 5 letters) begins the longer and the longer adds at most 2 letters, so a
 * derived form the stemmer leaves apart still matches ("allergic" / "allergy") and a word inside
 * another does not ("Porto" / "Portobello"). "I'm allergic to peanuts" mentions "peanut allergy";
 * "hello" mentions nothing; "my sister lives in Porto" does not mention "owner lives in Lisbon"
 * (one word of three). A day in the value written as `YYYY-MM-DD` (how keel writes a time phrase it
 * resolved: "Initech (2025-03-03)") is left out of the words compared.
 *
 * @returns false for a value with no word.
 */
export function supportsValue(turn: string, value: string): boolean {
  const wanted = contentWords(value.replace(ISO_DAY, ' ')).map(stem);
  if (wanted.length === 0) return false;
  const said = contentWords(turn).map(stem);
  const found = wanted.filter((w) => said.some((s) => sameStem(w, s))).length;
  return found > 0 && found * 2 >= wanted.length;
}
