/**
 * Recovery (seed) phrases found by their words: a wallet's recovery phrase is 12 to 24 words of one
 * BIP39 wordlist, and almost no prose has twelve such words in a row (the lists hold no "the",
 * "a", "is", "and", "I" or "my"). A run of at least {@link MIN_WORDS} words of one list, joined
 * only by spaces, commas, line breaks or the numbers of a numbered list, is withheld whatever the
 * sentence around it says ("here too: zone orbit burden …") when its words are in lower case as
 * wallets print them, nearly all different, and no more than a few phrases long. The checksum
 * word is not asked for: a phrase with a typo or a word left out is still one guess from the
 * wallet. A list of capitalised words ("5. Fire 6. Gold 7. Home …") is a list, not a phrase, and a
 * word said over and over ("word word word …") is none.
 *
 * Source: the wordlists of BIP-0039
 * (https://github.com/bitcoin/bips/blob/master/bip-0039.mediawiki), through `@scure/bip39`.
 *
 * Cost: one pass over the text's words with a set lookup each; linear.
 *
 * @module
 */
import { wordlist as czech } from '@scure/bip39/wordlists/czech.js';
import { wordlist as english } from '@scure/bip39/wordlists/english.js';
import { wordlist as french } from '@scure/bip39/wordlists/french.js';
import { wordlist as italian } from '@scure/bip39/wordlists/italian.js';
import { wordlist as portuguese } from '@scure/bip39/wordlists/portuguese.js';
import { wordlist as spanish } from '@scure/bip39/wordlists/spanish.js';
import type { SecretFinding } from './kinds.js';

/** The fewest words of one list in a row that make a recovery phrase (BIP39's shortest). */
export const MIN_WORDS = 12;

/** A word as compared with a list: lower case, accents removed (owners type "eleve" for "élève"). */
function bare(word: string): string {
  const lower = word.toLowerCase();
  return /^[a-z]+$/.test(lower) ? lower : lower.normalize('NFKD').replace(/\p{M}/gu, '');
}

/** The lists, in order; a word's entry in {@link LISTS_OF} has bit `i` set for list `i`. */
const WORDLISTS = [english, spanish, french, italian, portuguese, czech];
/** Each bare word of any list, with the bit mask of the lists that hold it. */
const LISTS_OF: ReadonlyMap<string, number> = (() => {
  const map = new Map<string, number>();
  WORDLISTS.forEach((list, i) => {
    for (const w of list) map.set(bare(w), (map.get(bare(w)) ?? 0) | (1 << i));
  });
  return map;
})();

/** The most letters a word of any list has (with its accents as separate marks). */
const LONGEST = Math.max(...WORDLISTS.flat().map((w) => w.normalize('NFKD').length));

/** A word of the text that some list holds, and where it stands. */
interface Word {
  text: string;
  /** The lists that hold it ({@link LISTS_OF}). */
  lists: number;
  start: number;
  end: number;
}

const WORD = /[\p{L}\p{M}]+/gu;
/**
 * What may stand between two words of a phrase: spaces and line breaks, commas, bullets, and the
 * numbers of a numbered list ("1. zone 2. orbit", "(3) burden"); at most a short stretch.
 */
const GAP = /^(?:[\s,;·•|/-]|\(?\d{1,2}[.):]?)*$/u;
const MAX_GAP = 12;

/** Whether the run is in lower case as wallets print it (its first word may open a sentence). */
function lowerCase(words: readonly Word[]): boolean {
  return words.slice(1).every((w) => w.text === w.text.toLowerCase());
}

/** The most words a run may have and still be phrases (two 24-word phrases pasted together, and some). */
const MAX_WORDS = 60;

/**
 * Whether a run is shaped like recovery phrases: at most {@link MAX_WORDS} words, nearly all
 * different (twelve words drawn from 2048 repeat one about 3% of the time; "word word word …" is
 * no phrase).
 */
function phraseLike(words: readonly Word[]): boolean {
  if (words.length > MAX_WORDS) return false;
  return new Set(words.map((w) => w.text.toLowerCase())).size >= words.length * 0.75;
}

/** Whether `a` and `b` stand next to each other in a phrase: only a list's separators between. */
function adjacent(text: string, a: Word, b: Word): boolean {
  const gap = text.slice(a.end, b.start);
  return gap.length <= MAX_GAP && /\s|,/u.test(gap) && GAP.test(gap);
}

/** The phrases inside `run` (adjacent words each held by some list): each list's runs long enough. */
function phrasesIn(run: readonly Word[], out: SecretFinding[]): void {
  for (let list = 0; list < WORDLISTS.length; list++) {
    const bit = 1 << list;
    let from = -1;
    for (let i = 0; i <= run.length; i++) {
      if (i < run.length && run[i]!.lists & bit) {
        if (from < 0) from = i;
        continue;
      }
      if (from >= 0 && i - from >= MIN_WORDS) {
        const words = run.slice(from, i);
        if (lowerCase(words) && phraseLike(words)) {
          out.push({ kind: 'recovery code', start: words[0]!.start, end: words.at(-1)!.end });
        }
      }
      from = -1;
    }
  }
}

/**
 * Every recovery phrase in `text`: a run of at least {@link MIN_WORDS} words of one BIP39 list
 * (English, Spanish, French, Italian, Portuguese or Czech) in lower case; kind `recovery code`,
 * its span from the first word to the last.
 *
 * @param text - any text (linear time: one map lookup per word).
 */
export function recoveryPhrases(text: string): SecretFinding[] {
  if (typeof text !== 'string' || text.length < MIN_WORDS * 3) return [];
  const out: SecretFinding[] = [];
  let run: Word[] = [];
  const close = () => {
    if (run.length >= MIN_WORDS) phrasesIn(run, out);
    run = [];
  };
  for (const m of text.matchAll(WORD)) {
    const lists = m[0].length <= LONGEST ? (LISTS_OF.get(bare(m[0])) ?? 0) : 0;
    if (lists === 0) {
      close();
      continue;
    }
    const word = { text: m[0], lists, start: m.index, end: m.index + m[0].length };
    if (run.length > 0 && !adjacent(text, run.at(-1)!, word)) close();
    run.push(word);
  }
  close();
  return out.sort((a, b) => a.start - b.start);
}
