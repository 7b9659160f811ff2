/**
 * The words and slots the owner's capture compares and writes through: a text's subject words
 * (folded, cut to five letters), the owner's own beliefs, and the one write of a statement or a
 * slot's new value as the owner's word. Shared by the capture of a line (`capture.ts`) and what
 * it reads as holding instead (`capture-instead.ts`).
 *
 * @module
 */
import type { Capture } from '@keel/gate';
import { contentWords, foldText, hasCjk, mentions, resolveStart } from '@keel/language';
import { type Fact, isOwnerSource, type MemoryStore, type WriteResult } from '@keel/memory';

/** Letters of scripts written without spaces, whose words are compared by two-letter runs. */
const UNSPACED_RUN =
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}]{2,}/gu;

/**
 * The words of `text` that say what it is about, for telling whether two texts share a subject:
 * its content words (folded, stopwords out, at least 3 letters unless the word is in a script
 * without case) and, for runs of a script written without spaces, every two-letter run
 * ("阿里巴巴工作" → "阿里", "里巴", …), since such a run has no word boundaries to compare.
 */
export function subjectWords(text: string): Set<string> {
  const words = new Set<string>();
  for (const w of contentWords(text)) {
    if (w.length >= 3 || /^[^\p{Script=Latin}\p{N}]/u.test(w)) words.add(truncated(w));
  }
  if (hasCjk(text) || UNSPACED_RUN.test(text)) {
    UNSPACED_RUN.lastIndex = 0;
    for (const run of foldText(text).match(UNSPACED_RUN) ?? []) {
      const letters = [...run];
      for (let i = 0; i + 1 < letters.length; i++) words.add(letters[i]! + letters[i + 1]!);
    }
  }
  return words;
}

/** How many letters of a word of an alphabetic script {@link truncated} keeps. */
export const TRUNCATION_LETTERS = 5;

/**
 * A word of an alphabetic script cut to its first {@link TRUNCATION_LETTERS} letters, so the
 * forms of one word compare equal ("Studium", "studiere" → "studi"; "vegano", "vegana" →
 * "vegan"); a shorter word, or one in another script, as it is.
 *
 * Source: truncation to five characters as a language-independent stemmer, McNamee, Nicholas and
 * Mayfield, "Addressing morphological variation in alphabetic languages", SIGIR 2009.
 */
function truncated(word: string): string {
  const letters = [...word];
  if (letters.length <= TRUNCATION_LETTERS) return word;
  if (!/^[\p{Script=Latin}\p{Script=Cyrillic}\p{Script=Greek}]+$/u.test(word)) return word;
  return letters.slice(0, TRUNCATION_LETTERS).join('');
}

/** True when `a` and `b` share a subject word (see {@link subjectWords}). */
export function overlaps(a: Set<string>, b: Set<string>): boolean {
  for (const w of a) if (b.has(w)) return true;
  return false;
}

/** Whether `subject` names `value` itself, not something of its ("Sam's dad" names no "Sam"). */
export function holdsWhole(subject: string, value: string): boolean {
  if (!mentions(subject, value)) return false;
  // Folding turns "Sam's" into "sam s": the possessive is the value followed by a lone "s".
  const words = foldText(subject).split(/\s+/u);
  const v = foldText(value).split(/\s+/u);
  for (let i = 0; i + v.length <= words.length; i++) {
    if (v.every((w, j) => words[i + j] === w) && words[i + v.length] !== 's') return true;
  }
  return false;
}

/** The owner's current beliefs about themself (not about someone else: `sam.employer`). */
export function ownBeliefs(store: MemoryStore): Fact[] {
  return store.activeFacts('owner').filter((f) => !f.key.includes('.'));
}

export interface LineContext {
  store: MemoryStore;
  episodeId: number;
  /** The owner's whole line, when a sentence is read from it. */
  line?: string;
  /** When the line was said (ms since epoch). */
  said: number;
  tz: string;
}

/** Writes a capture as the owner's word, its start from its time phrase when it names a day. */
export function write(ctx: LineContext, capture: Capture): WriteResult {
  return ctx.store.remember({
    kind: capture.kind,
    key: capture.key,
    value: capture.value,
    source: 'owner_stated',
    episodeId: ctx.episodeId,
    actor: 'owner',
    // Said in the past ("J'ai commencé chez Airbus vendredi"), a weekday alone is the last one.
    ...startFrom(ctx, capture.when, capture.past === true),
  });
}

/**
 * Writes `value` in `slot`'s place as the owner's word (the slot's value superseded), true since
 * the day `when` names ("new barber since last tuesday — Emeka") when it names one at or before
 * the line.
 */
export function rewrite(ctx: LineContext, slot: Fact, value: string, when?: string): WriteResult {
  return ctx.store.remember({
    kind: slot.kind,
    key: slot.key,
    value,
    source: 'owner_stated',
    episodeId: ctx.episodeId,
    actor: 'owner',
    ...startFrom(ctx, when, true),
  });
}

/**
 * The start a time phrase said with a value gives it: `{ validFrom }`, the start in ms of the day
 * it names in the owner's zone, when it names one at or before the line; else `{}` (no phrase, a
 * month or a year alone, the present, a day to come).
 *
 * @param pastWeekday - a weekday alone is the last one (said of something done).
 */
export function startFrom(
  ctx: LineContext,
  when: string | undefined,
  pastWeekday: boolean,
): { validFrom?: number } {
  const day = when ? resolveStart(when, ctx.said, ctx.tz, { pastWeekday }) : null;
  return day && day.startMs <= ctx.said ? { validFrom: day.startMs } : {};
}

/**
 * The slot an owner's capture names in fewer words than a belief already held: when the
 * capture's slot is empty and exactly one owner belief of the same kind has a key holding all of
 * its words ("my new number is …" → the held `phone_number`), the capture is about that slot.
 */
export function heldSlotFor(store: MemoryStore, capture: Capture): Capture {
  if (capture.kind === 'note' || capture.about !== 'owner') return capture;
  if (store.current({ scope: 'owner', kind: capture.kind, key: capture.key })) return capture;
  const words = capture.key.split(/[_.-]+/).filter(Boolean);
  const held = ownBeliefs(store).filter(
    (f) =>
      f.kind === capture.kind &&
      isOwnerSource(f.source) &&
      words.every((w) => f.key.split(/[_.-]+/).includes(w)),
  );
  return held.length === 1 ? { ...capture, key: held[0]!.key } : capture;
}
