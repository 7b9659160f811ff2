/**
 * Folding for matching by meaning: the form in which "São Paulo", "SAO PAULO!" and "sao-paulo"
 * are one text, and the content words a value is made of. Forgetting, purge by mention and the
 * evidence check compare texts in this form, never by their exact strings.
 *
 * @module
 */
import { ara, deu, ell, eng, fra, heb, ita, nld, por, rus, spa, ukr } from 'stopword';
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
 * in order and next to each other (whole words: "Porto" is in "Porto, Portugal", not in
 * "Portobello"). A value with no word is mentioned nowhere.
 */
export function mentions(text: string, value: string): boolean {
  const needle = foldText(value);
  if (!needle) return false;
  return ` ${foldText(text)} `.includes(` ${needle} `);
}
