/**
 * Mentions of a value inside stored text, found in folded form and mapped back to where they sit
 * in the original text, so a purge can cut out exactly the words that mention the value ("Sao
 * Paulo" finds "São Paulo" and "SÃO PAULO!") and keep the rest; and the word test a tombstone
 * applies to a new write (every content word of what was forgotten is among the write's words).
 *
 * Folding here is {@link foldText}'s, done one code point at a time so each folded character
 * knows the original character it came from: NFKD, accents dropped on Latin, Greek and Cyrillic
 * letters, lower case, ß as ss, final sigma as sigma, anything not a letter, digit or mark a
 * word break.
 *
 * Inflection: a stored word mentions a value's word when it is that word, or (for a value word of
 * at least {@link INFLECTED_MIN} characters) that word followed by at most
 * {@link INFLECTION_MAX} more letters — a plural or a case ending ("Kowalskis", "Королёве" for
 * "Королёв"), never a longer different word ("Portobello" is not "Porto"). Texts of scripts
 * written without spaces (Han, kana, Thai, Lao, Khmer, Myanmar) have no word breaks to go by: a
 * value in those scripts is found wherever its folded characters occur.
 *
 * @module
 */

import { prefixForms, prefixPattern } from './scripts.js';

/** The shortest value word that may carry an inflected ending in a text (characters). */
export const INFLECTED_MIN = 4;
/** The most letters an inflected ending adds to a value word. */
export const INFLECTION_MAX = 2;

const LGC = /[\p{Script=Latin}\p{Script=Greek}\p{Script=Cyrillic}]/u;
const MARK = /\p{Mn}/u;
const WORD_CHAR = /[\p{L}\p{N}\p{M}]/u;
const UNSPACED =
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u;

/** Text in folded form, each folded character mapped to the original characters it came from. */
export interface FoldedText {
  /** The folded text: words separated by single spaces, trimmed. */
  folded: string;
  /** For each UTF-16 unit of `folded`, the UTF-16 offset in the original where its source starts. */
  start: number[];
  /** For each UTF-16 unit of `folded`, the UTF-16 offset in the original just past its source. */
  end: number[];
}

/** A span of the original text, UTF-16 offsets, `end` exclusive. */
export interface TextSpan {
  start: number;
  end: number;
}

/** Folds `text` as {@link foldText} does, keeping where each folded character came from. */
export function foldWithOffsets(text: string): FoldedText {
  const out: string[] = [];
  const start: number[] = [];
  const end: number[] = [];
  let baseIsLgc = false;
  let pendingSpace = false;
  let offset = 0;
  for (const ch of text) {
    const from = offset;
    offset += ch.length;
    let piece = '';
    for (const d of ch.normalize('NFKD')) {
      if (MARK.test(d)) {
        if (!baseIsLgc) piece += d;
        // A dropped accent written as its own character belongs to the letter before it.
        else if (piece === '' && out.length > 0 && !pendingSpace) end[end.length - 1] = offset;
        continue;
      }
      baseIsLgc = LGC.test(d);
      piece += d;
    }
    piece = piece.toLowerCase().replaceAll('ß', 'ss').replaceAll('ς', 'σ');
    for (const c of piece) {
      if (!WORD_CHAR.test(c)) {
        pendingSpace = out.length > 0;
        continue;
      }
      if (pendingSpace) {
        out.push(' ');
        start.push(from);
        end.push(from);
        pendingSpace = false;
      }
      for (let i = 0; i < c.length; i++) {
        out.push(c[i]!);
        start.push(from);
        end.push(offset);
      }
    }
  }
  return { folded: out.join(''), start, end };
}

/** The folded words of `text` ({@link foldWithOffsets}), in order. */
export function foldedWords(text: string): string[] {
  return foldWithOffsets(text).folded.split(' ').filter(Boolean);
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** An apostrophe inside a word ("O'Neill", "Dmitri's"), as typed or typeset. */
const INNER_APOSTROPHE = /(?<=[\p{L}\p{N}])['\u2019\u02bc](?=[\p{L}\p{N}])/gu;

/**
 * The spellings of `text` an apostrophe inside a word allows: as written (the apostrophe breaks
 * the word, as folding does: "o neill") and with it dropped ("oneill"). One form when there is no
 * such apostrophe.
 */
export function apostropheForms(text: string): string[] {
  const joined = text.replace(INNER_APOSTROPHE, '');
  return joined === text ? [text] : [text, joined];
}

/**
 * The pattern that finds a value's folded `needles` (one per spelling of {@link apostropheForms})
 * in folded text (global), or null for a value with no word. Words in order, one space apart; each
 * word of {@link INFLECTED_MIN} characters or more may carry an ending of up to
 * {@link INFLECTION_MAX} letters, and a Hebrew or Arabic word the prefixes its grammar attaches
 * ({@link prefixPattern}); whole words, except in scripts written without spaces.
 */
function foldedPattern(needles: readonly string[]): RegExp | null {
  if (needles.length === 0) return null;
  if (needles.some((n) => UNSPACED.test(n))) {
    return new RegExp(needles.map(escapeRe).join('|'), 'gu');
  }
  const bodies = needles.map((needle) =>
    needle
      .split(' ')
      .map(
        (w) =>
          `${prefixPattern(w) ?? ''}${[...w].length >= INFLECTED_MIN ? `${escapeRe(w)}\\p{L}{0,${INFLECTION_MAX}}` : escapeRe(w)}`,
      )
      .join(' '),
  );
  return new RegExp(
    `(?<![\\p{L}\\p{N}\\p{M}])(?:${bodies.join('|')})(?![\\p{L}\\p{N}\\p{M}])`,
    'gu',
  );
}

/**
 * `text` with its accents and other marks dropped, lower case, ß as ss, final sigma as sigma, and
 * everything but letters and digits removed: a fast over-approximation of folding, where the
 * letters of any folded word are contiguous (a quick test before folding a text in full).
 */
function squash(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replaceAll('ß', 'ss')
    .replaceAll('ς', 'σ')
    .replace(/[^\p{L}\p{N}]/gu, '');
}

/** A finder of one value's mentions, compiled once for many texts. */
export interface MentionFinder {
  /** The value's folded form ('' never happens: see {@link mentionFinder}). */
  readonly folded: string;
  /** True when `text` mentions the value. */
  test(text: string): boolean;
  /** Where `text` mentions the value, in order, not overlapping. */
  spans(text: string): TextSpan[];
  /** `text` with each mention replaced by `placeholder`; the rest of the text kept as it was. */
  replace(text: string, placeholder: string): string;
  /**
   * A short excerpt of `text` around its first mention (about `radius` characters either side,
   * `…` where cut), or null when it has none.
   */
  excerpt(text: string, radius?: number): string | null;
}

/**
 * A finder of the mentions of `value` in other texts, or null when `value` has no word to find.
 *
 * @example mentionFinder('Sao Paulo')!.replace('I moved to São Paulo!', '[purged]')
 *   === 'I moved to [purged]!'
 */
export function mentionFinder(value: string): MentionFinder | null {
  const needles = [...new Set(apostropheForms(value).map((v) => foldWithOffsets(v).folded))].filter(
    Boolean,
  );
  const pattern = foldedPattern(needles);
  if (!pattern) return null;
  const folded = foldWithOffsets(value).folded;
  // Folding each text character by character is the cost; a text whose squashed letters hold none
  // of the needles' first words (where every mention starts) cannot mention the value.
  const starts = [...new Set(needles.map((n) => squash(n.split(' ')[0]!)))];
  const spans = (text: string): TextSpan[] => {
    if (!text) return [];
    const squashed = squash(text);
    if (!starts.some((w) => squashed.includes(w))) return [];
    const f = foldWithOffsets(text);
    const found: TextSpan[] = [];
    pattern.lastIndex = 0;
    for (let m = pattern.exec(f.folded); m; m = pattern.exec(f.folded)) {
      if (m[0].length === 0) {
        pattern.lastIndex++;
        continue;
      }
      const first = m.index;
      const last = m.index + m[0].length - 1;
      found.push({ start: f.start[first]!, end: f.end[last]! });
    }
    return found;
  };
  return {
    folded,
    test: (text) => spans(text).length > 0,
    spans,
    replace(text, placeholder) {
      const found = spans(text);
      if (found.length === 0) return text;
      let out = '';
      let at = 0;
      for (const s of found) {
        out += text.slice(at, s.start) + placeholder;
        at = s.end;
      }
      return out + text.slice(at);
    },
    excerpt(text, radius = 40) {
      const s = spans(text)[0];
      if (!s) return null;
      const from = Math.max(0, s.start - radius);
      const to = Math.min(text.length, s.end + radius);
      const body = text.slice(from, to).replace(/\s+/g, ' ').trim();
      return `${from > 0 ? '…' : ''}${body}${to < text.length ? '…' : ''}`;
    },
  };
}

/**
 * True when `words` (folded words of a text, {@link foldedWords}) hold `word` (a folded word) as
 * a word, as the word with an inflected ending (see the module), or, in Hebrew and Arabic, with
 * a prefix attached ({@link prefixForms}).
 */
export function holdsWord(words: readonly string[], word: string): boolean {
  const inflects = [...word].length >= INFLECTED_MIN;
  return words.some(
    (w) =>
      w === word ||
      prefixForms(w).includes(word) ||
      (inflects &&
        w.startsWith(word) &&
        [...w.slice(word.length)].length <= INFLECTION_MAX &&
        /^\p{L}*$/u.test(w.slice(word.length))),
  );
}

/**
 * The forms of a folded `word` under which {@link holdsWord} may have found a shorter word: the
 * word itself, the word without an attached Hebrew or Arabic prefix, and the word less up to {@link INFLECTION_MAX} final letters (kept while at least
 * {@link INFLECTED_MIN} characters). For matching against words kept only as hashes.
 */
export function wordStems(word: string): string[] {
  const chars = [...word];
  const out = [word, ...prefixForms(word)];
  for (let cut = 1; cut <= INFLECTION_MAX; cut++) {
    const stem = chars.slice(0, chars.length - cut);
    if (stem.length < INFLECTED_MIN) break;
    if (!/^\p{L}$/u.test(chars[chars.length - cut]!)) break;
    out.push(stem.join(''));
  }
  return out;
}
