/**
 * Words in scripts that English-shaped tokenizing misses: scripts written without spaces between
 * words (Thai, Lao, Khmer, Burmese, Japanese, Chinese), cut into words by the platform's Unicode
 * word segmenter; Korean, one token per syllable; Hebrew and Arabic words that carry a
 * preposition, a conjunction or the article as a prefix, whose bare forms are found beside them;
 * and Russian, Ukrainian and Greek words in a case of their own, whose stems are found beside them.
 *
 * @module
 */
import { stemmer as greek } from '@orama/stemmers/greek';
import { stemmer as russian } from '@orama/stemmers/russian';
import { stemmer as ukrainian } from '@orama/stemmers/ukrainian';

/**
 * The scripts written without spaces between words, each with the language its text is
 * segmented as (`Intl.Segmenter`'s locale; ICU picks its word dictionary by script: Thai, Lao,
 * Khmer and Burmese dictionaries, and one Chinese-Japanese dictionary). Kana marks a run as
 * Japanese; Han alone is segmented as Chinese (the same dictionary).
 */
const UNSPACED: readonly { script: RegExp; locale: string }[] = [
  { script: /\p{Script=Thai}/u, locale: 'th' },
  { script: /\p{Script=Lao}/u, locale: 'lo' },
  { script: /\p{Script=Khmer}/u, locale: 'km' },
  { script: /\p{Script=Myanmar}/u, locale: 'my' },
  { script: /[\p{Script=Hiragana}\p{Script=Katakana}]/u, locale: 'ja' },
  { script: /\p{Script=Han}/u, locale: 'zh' },
];

/**
 * A run of text in the unspaced scripts: their letters and marks, and the characters those
 * scripts share with others ("ー", "々", CJK punctuation: Unicode's Script_Extensions).
 */
const UNSPACED_RUN =
  /[\p{scx=Thai}\p{scx=Lao}\p{scx=Khmer}\p{scx=Myanmar}\p{scx=Hiragana}\p{scx=Katakana}\p{scx=Han}]+/gu;
const HANGUL = /\p{Script=Hangul}/gu;

const segmenters = new Map<string, Intl.Segmenter>();

/** The word segmenter for `locale`, made once. */
function segmenterFor(locale: string): Intl.Segmenter {
  let s = segmenters.get(locale);
  if (!s) {
    s = new Intl.Segmenter(locale, { granularity: 'word' });
    segmenters.set(locale, s);
  }
  return s;
}

/** The locale a run of unspaced text is segmented as: the first of {@link UNSPACED} it holds. */
function localeOf(run: string): string {
  return UNSPACED.find((u) => u.script.test(run))?.locale ?? 'und';
}

/** A run of unspaced text as its words, space-separated (punctuation between them dropped). */
function spaceWords(run: string): string {
  const words: string[] = [];
  for (const seg of segmenterFor(localeOf(run)).segment(run)) {
    if (seg.isWordLike) words.push(seg.segment);
  }
  return ` ${words.join(' ')} `;
}

/**
 * Puts spaces between words where a script writes none: each run of Thai, Lao, Khmer, Burmese,
 * Japanese or Chinese is cut into its words by `Intl.Segmenter` (word granularity, ICU's
 * dictionaries: "我喜欢喝绿茶" → "我 喜欢 喝 绿茶", "ไปเชียงใหม่" → "ไป เชียงใหม่"), and each Hangul
 * syllable stands alone (a Korean word carries its particles: "서울에" → "서 울 에", found by
 * "서울" as a phrase).
 */
export function spaceUnspaced(text: string): string {
  return text.replace(UNSPACED_RUN, spaceWords).replace(HANGUL, ' $& ');
}

/** Runs of Thai and Lao, whose compatibility characters NFKC would take apart. */
const THAI_LAO = /[\p{Script=Thai}\p{Script=Lao}]+/gu;
/** Runs of anything else. */
const NOT_THAI_LAO = /[^\p{Script=Thai}\p{Script=Lao}]+/gu;

/**
 * Unicode NFKC (full-width and compatibility forms become one: "ｃａｆé" and "café"), except in
 * Thai and Lao, which get NFC: NFKC takes apart their vowel SARA AM (ำ → ํา, ຳ → ໍາ) and the Lao
 * ligatures ໜ ໝ, which ICU's dictionaries spell whole, and that moves where `Intl.Segmenter`
 * cuts a sentence into words ("…ໄປຫຼວງພະບາງກັບໝູ່" lost "ຫຼວງພະບາງ").
 */
export function normalizeForWords(text: string): string {
  return text
    .replace(NOT_THAI_LAO, (run) => run.normalize('NFKC'))
    .replace(THAI_LAO, (run) => run.normalize('NFC'));
}

/**
 * Hebrew points and cantillation (niqqud), and Arabic harakat, Quranic marks and the tatweel:
 * writing aids a word is spelled with or without (Larkey, Ballesteros & Connell, "Improving
 * stemming for Arabic information retrieval", SIGIR 2002, normalisation step; as Lucene's
 * `ArabicNormalizer`).
 */
const POINTING =
  /[\u0591-\u05BD\u05BF\u05C1\u05C2\u05C4\u05C5\u05C7\u0610-\u061A\u064B-\u065F\u0670\u06D6-\u06ED\u0640]/g;

/**
 * Writes Hebrew and Arabic words one way: pointing dropped ({@link POINTING}), and the Arabic
 * letters written in several ways made one (Larkey et al. 2002, as Lucene's `ArabicNormalizer`):
 * alef with hamza or madda (أ إ آ) as alef (ا), alef maqsura (ى) as yeh (ي), teh marbuta (ة) as
 * heh (ه).
 */
export function normalizeSemitic(text: string): string {
  return text
    .replace(POINTING, '')
    .replace(/[\u0622\u0623\u0625]/g, '\u0627')
    .replace(/\u0649/g, '\u064A')
    .replace(/\u0629/g, '\u0647');
}

/** The Hebrew letters that attach to a word as a prefix: ו ה ב ל מ ש כ. */
const HEBREW_PREFIX = new Set(['ו', 'ה', 'ב', 'ל', 'מ', 'ש', 'כ']);
/**
 * The two-letter prefixes Hebrew grammar writes, in their order (ו first; then ש or כש; then
 * ב ל מ כ ה; ה after ב ל כ is not written): a pair outside it is part of the word ("בשבת" is
 * "ב" + "שבת", never "בש" + "בת"). Measured: on the real Hebrew of the shared data and written
 * sentences, any two prefix letters link 13 word pairs (8 right); these pairs 11 (8 right); one
 * letter only 9 (6 right).
 */
const HEBREW_PAIRS = new Set([
  'וה',
  'וב',
  'ול',
  'ומ',
  'וש',
  'וכ',
  'שב',
  'של',
  'שמ',
  'שה',
  'שכ',
  'כש',
  'מה',
]);
/** The fewest letters a Hebrew word keeps once a prefix is taken off ("בתל" → "תל"). */
const HEBREW_MIN_STEM = 2;

/**
 * The Arabic prefixes of Larkey et al.'s light10 stemmer (Larkey, Ballesteros & Connell, "Light
 * Stemming for Arabic Information Retrieval", 2007; as Lucene's `ArabicStemmer`), longest first:
 * the article ال alone and after و ب ك ف, لل (ل before the article), and و. The article's
 * forms keep at least two letters; و, at least three.
 */
const ARABIC_PREFIXES: readonly { prefix: string; minStem: number }[] = [
  { prefix: 'وال', minStem: 2 },
  { prefix: 'بال', minStem: 2 },
  { prefix: 'كال', minStem: 2 },
  { prefix: 'فال', minStem: 2 },
  { prefix: 'ال', minStem: 2 },
  { prefix: 'لل', minStem: 2 },
  { prefix: 'و', minStem: 3 },
];

const HEBREW_WORD = /^(?:(?=\p{L})\p{Script=Hebrew})+$/u;
const ARABIC_WORD = /^(?:(?=\p{L})\p{Script=Arabic})+$/u;

/**
 * The forms of a Hebrew or Arabic word without the prefixes it may carry, besides the word itself
 * (which may begin with those letters as part of the word: both are kept, and BM25 ranks a match
 * of the whole word above a match of a stripped form alone).
 *
 * - Hebrew: one of ו ה ב ל מ ש כ taken off, or two that grammar writes together
 *   ({@link HEBREW_PAIRS}), at least {@link HEBREW_MIN_STEM} letters left: "בחיפה" → ["חיפה"],
 *   "ובתל" → ["בתל", "תל"].
 * - Arabic: the first of light10's prefixes it carries ({@link ARABIC_PREFIXES}): "والقهوه" →
 *   ["قهوه"], "بالقطار" → ["قطار"], "للبيت" → ["بيت"].
 *
 * @param word - one word, folded as the index folds it ({@link normalizeSemitic}).
 * @returns the stripped forms, shortest last; `[]` for a word of another script or without a
 *   prefix.
 */
export function prefixForms(word: string): string[] {
  if (HEBREW_WORD.test(word)) {
    const letters = [...word];
    const out: string[] = [];
    if (HEBREW_PREFIX.has(letters[0]!) && letters.length - 1 >= HEBREW_MIN_STEM) {
      out.push(letters.slice(1).join(''));
      if (HEBREW_PAIRS.has(letters[0]! + letters[1]!) && letters.length - 2 >= HEBREW_MIN_STEM) {
        out.push(letters.slice(2).join(''));
      }
    }
    return out;
  }
  if (ARABIC_WORD.test(word)) {
    for (const { prefix, minStem } of ARABIC_PREFIXES) {
      if (word.startsWith(prefix) && [...word].length - prefix.length >= minStem) {
        return [word.slice(prefix.length)];
      }
    }
  }
  return [];
}

/**
 * A regular-expression source for the prefixes {@link prefixForms} takes off a Hebrew or Arabic
 * `word`, optional, to stand before that word where it is searched for ("חיפה" is found in
 * "בחיפה", "قطار" in "بالقطار"); null for a word of another script.
 */
export function prefixPattern(word: string): string | null {
  if (HEBREW_WORD.test(word)) {
    return `(?:${[...HEBREW_PAIRS, ...HEBREW_PREFIX].join('|')})?`;
  }
  if (ARABIC_WORD.test(word)) {
    return `(?:${ARABIC_PREFIXES.map((p) => p.prefix).join('|')})?`;
  }
  return null;
}

/** A Hebrew, Arabic, Cyrillic or Greek word (letters and marks) as the index holds it. */
const BARE_WORD =
  /(?:(?=[\p{L}\p{M}])[\p{Script=Hebrew}\p{Script=Arabic}\p{Script=Cyrillic}\p{Script=Greek}])+/gu;
const CYRILLIC_WORD = /^\p{Script=Cyrillic}+$/u;
const GREEK_WORD = /^[\p{Script=Greek}\p{M}]+$/u;
/** Letters only Ukrainian writes among the Cyrillic alphabets keel reads. */
const UKRAINIAN = /[іїєґ]/u;
/** The fewest letters a stem keeps to be searched on its own. */
const MIN_STEM = 3;

/**
 * The stem of a Russian, Ukrainian or Greek word, lower case, by the Snowball stemmers (Porter's
 * Snowball algorithms for Russian, Ukrainian and Greek, as `@orama/stemmers` ports them): a case
 * ending taken off ("Сбербанке" → "сбербанк", "Житомирі" → "житомир", "каву" → "кав") and, in
 * Greek, the accents too ("Θεσσαλονίκη" and "θεσσαλονικη" → "θεσσαλονικ"). A word with an
 * `і ї є ґ` is read as Ukrainian, any other Cyrillic word as Russian.
 *
 * @returns the stem when it differs from the word and keeps {@link MIN_STEM} letters; `[]` else.
 */
export function stemForms(word: string): string[] {
  const lower = word.toLocaleLowerCase();
  let stem: string;
  if (CYRILLIC_WORD.test(lower)) stem = UKRAINIAN.test(lower) ? ukrainian(lower) : russian(lower);
  else if (GREEK_WORD.test(lower)) stem = greek(lower);
  else return [];
  return stem !== lower && [...stem].length >= MIN_STEM ? [stem] : [];
}

/**
 * The forms of a word searched besides it: a Hebrew or Arabic word without its prefixes
 * ({@link prefixForms}), a Russian, Ukrainian or Greek word's stem ({@link stemForms}).
 */
export function bareForms(word: string): string[] {
  const forms = prefixForms(word);
  return forms.length > 0 ? forms : stemForms(word);
}

/**
 * Each Hebrew, Arabic, Cyrillic or Greek word followed by its bare forms ({@link bareForms}):
 * "גר בחיפה" → "גר בחיפה חיפה", "в Сбербанке" → "в Сбербанке сбербанк". Index side only: a query
 * searches a word's forms as alternatives.
 */
export function withPrefixForms(text: string): string {
  return text.replace(BARE_WORD, (word) => {
    const forms = bareForms(word);
    return forms.length > 0 ? `${word} ${forms.join(' ')}` : word;
  });
}
