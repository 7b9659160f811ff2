/**
 * What every language's capture table is made of: the shape of a table, the slot a statement
 * lands in, and the helpers the tables share (keys from words in any script, values kept in the
 * owner's words).
 *
 * @module
 */
import { queryTerms } from '@keel/language';
import { type Kind, normalizeKey } from '@keel/memory';

/** The languages whose trigger phrases capture understands (ISO 639-1). */
export const CAPTURE_LANGUAGES = ['en', 'es', 'fr', 'de', 'pt'] as const;
/** One of {@link CAPTURE_LANGUAGES}. */
export type CaptureLanguage = (typeof CAPTURE_LANGUAGES)[number];

/**
 * Languages whose "remember that …" capture understands beyond the tables (ISO 639-1): the
 * statement after it is a note in the owner's words, or a slot when the rules can place it.
 */
export const SCRIPT_LANGUAGES = [
  'ru',
  'uk',
  'el',
  'he',
  'ar',
  'ja',
  'zh',
  'ko',
  'hi',
  'th',
] as const;
/** One of {@link SCRIPT_LANGUAGES}. */
export type ScriptLanguage = (typeof SCRIPT_LANGUAGES)[number];

/**
 * Which phrase made a line a capture: "remember that …", "note that …", "from now on …",
 * "call me …" (in any of the languages), a correction that opens with "actually …", or none:
 * `plain`, a present-tense statement about the owner that lands in a known slot on its own ("I
 * live in Lyon now").
 */
export type CaptureTrigger =
  | 'remember'
  | 'note'
  | 'from_now_on'
  | 'call_me'
  | 'correction'
  | 'plain';

/** Where a statement lands: a slot and the value in the owner's words. */
export interface CaptureSlot {
  kind: Kind;
  key: string;
  value: string;
  /** Whom the statement is about: `owner`, or the key of the other person ("sam"). */
  about: string;
}

/** What a slot rule gets besides its match. */
export interface RuleHelpers {
  /** The whole statement as a value: the owner's words, first letter capitalised. */
  readonly sentence: string;
  /** True when the statement adds to what is known ("also", "too", "también", "auch"). */
  readonly additive: boolean;
  /** A key of up to `words` content words of `text` (see {@link slugOf}); '' when none. */
  slug(text: string, words?: number): string;
  /** True when one of the words of `text` names a relation ("sister", "hermana", "Zahnarzt"). */
  isRelation(text: string): boolean;
  /** A value without fillers at its ends ("now Dr. Ruiz" → "Dr. Ruiz"). */
  trim(text: string): string;
  /** A value cut to its first clause, without fillers ("Lyon, and I love it" → "Lyon"). */
  clip(text: string): string;
  /** True when a value denies rather than states ("not Dr. Ortiz"). */
  negated(value: string): boolean;
  /** A person's name as said after "call me" or "my name is", or null when it is not a name. */
  name(text: string): string | null;
}

/**
 * A trigger phrase: `phrase` is matched at the start of the line (after the table's openers),
 * then `connector` ("that", "que", ", dass", ":"), and the statement is what follows.
 */
export interface TriggerPhrase {
  readonly trigger: CaptureTrigger;
  /** A regular-expression source (matched case-insensitively). */
  readonly phrase: string;
  /** A regular-expression source between the phrase and the statement. */
  readonly connector: string;
  /** When false, a phrase without its connector is not a trigger ("recuerda" alone). */
  readonly connectorOptional: boolean;
}

/** One way a statement maps to a slot. */
export interface SlotRule {
  /** A short name, for tests and reasons. */
  readonly name: string;
  readonly re: RegExp;
  /** The slot, or null when the match is not one after all (then later rules are tried). */
  slot(m: RegExpExecArray, h: RuleHelpers): CaptureSlot | null;
}

/**
 * One language's capture table. Every pattern is matched against a statement already cut to its
 * first sentence, with the trigger phrase removed; the `i` and `u` flags are the tables' own.
 */
export interface LanguageRules {
  readonly lang: CaptureLanguage;
  /**
   * Words that may open a line before its trigger ("please", "oh and", "por favor"), as a regular
   * expression source matched repeatedly, each followed by spaces or punctuation.
   */
  readonly openers: string;
  /** Trigger phrases, tried in order; the first that matches wins. */
  readonly triggers: readonly TriggerPhrase[];
  /** Right after a "remember" trigger, the start of a question: "remember what …", "recuerda qué …". */
  readonly recallQuestion: RegExp;
  /**
   * Right after a "remember" trigger whose connector was left out, the start of a request:
   * "remember to buy milk". (Languages whose triggers need their connector have none: "acuérdate
   * de comprar leche" is no trigger, and {@link request} reads it.)
   */
  readonly recallRequest?: RegExp;
  /** A line that asks keel to do something ("remind me to …", "recuérdame …"). */
  readonly request: RegExp;
  /** A statement that opens like a question ("do you …", "¿…", "est-ce que …"). */
  readonly asks: RegExp;
  /** A tag after a statement that leaves it a statement: ", ok?", ", ¿vale?". */
  readonly tag: RegExp;
  /** Correction markers at a statement's start ("actually", "en realidad"), removed. */
  readonly correction: RegExp;
  /** "I told you (that) …" at a statement's start: removed; what remains must say something. */
  readonly toldYou: RegExp;
  /** A statement that only supposes: "what if I were …", "y si …", "stell dir vor …". */
  readonly hypothetical: RegExp;
  /**
   * Statements reporting what someone else said or thinks ("Sam said …", "según Lucía, …"), each
   * with the named groups `who` (the speaker) and `rest` (what they said).
   */
  readonly report: readonly RegExp[];
  /** After "call me", words that make it a request ("when", "back", "at"), lower case. */
  readonly notNames: ReadonlySet<string>;
  /** Function words left out of keys, lower case. */
  readonly functionWords: ReadonlySet<string>;
  /** Relation words, lower case, whole words: "sister", "hermana", "zahnarzt". */
  readonly relations: RegExp;
  /** Cuts a value at the end of its first clause (", and I …", " y vive …"). */
  readonly cut: RegExp;
  /** Fillers removed from a value's ends, one at a time ("now", "ahora", "jetzt"). */
  readonly fillers: RegExp;
  /** Words that make a statement add to what is known rather than replace it ("also"). */
  readonly additive: RegExp;
  /** Words that make a value a denial ("not", "no", "nicht"), at the value's start. */
  readonly negation: RegExp;
  /** Rewrites a statement before the rules read it (English: "I'm" → "I am"). */
  readonly expand?: (statement: string) => string;
  /**
   * The statement with the subject a chat leaves out restored ("started at Initech" → "I started
   * at Initech"), or null when it does not open that way. Read only when the statement as written
   * places nothing, and only for the owner's own slots.
   */
  readonly dropped?: (statement: string) => string | null;
  /**
   * The owner as a statement's subject, at its start ("I …", "je …", "ich …" once expanded); in a
   * language that leaves its subject out, a verb in the first person ("juego …", "comecei …").
   */
  readonly firstPerson: RegExp;
  /**
   * A first-person statement that something began: a start verb in the past ("I started …",
   * "empecé a …", "j'ai commencé …", "ich habe … angefangen", "comecei …").
   */
  readonly began: RegExp;
  /**
   * A first-person statement of a change of state, in the past: a move, a marriage, an adoption,
   * a purchase, becoming something ("I got married", "me mudé", "j'ai adopté", "ich bin
   * umgezogen", "casei"). With a time phrase that says when, it is a note that began then.
   */
  readonly changed: RegExp;
  /**
   * A first-person statement of a state that holds now, its verb in the present: a possession, a
   * pursuit, a membership, a way of living ("I drive a Honda Civic", "I'm taking a course at
   * George Brown", "tengo un Seat Ibiza", "j'ai un chien", "ich studiere an der TU München",
   * "jogo no Flamengo"), never a verb of thinking, wanting or liking ("I think …", "quiero …"),
   * a future ("I'm going to …") or a past. Read on the statement once expanded, the subject a
   * chat leaves out restored.
   *
   * @returns the words after the verb (what the state is of), or null when it is no such state.
   */
  readonly holds: (statement: string) => string | null;
  /**
   * Whether the words after a state's verb name something in particular: a name, a brand, a
   * number ("a Honda Civic", "at George Brown", "TU München"), not only common words ("a car").
   */
  readonly names: (words: string) => boolean;
  /** How a relation is found in a noun phrase: its last word (English, German) or any word. */
  readonly relationHead: 'last' | 'any';
  /** The language's slot rules, in order. */
  readonly slots: readonly SlotRule[];
}

/**
 * Spanish and Portuguese verbs of thinking, wanting, liking, going and having to, in the first
 * person: not a state of the owner's life. One list for both, since each language's rules also
 * read the other's lines ("quiero un Seat" must not pass the Portuguese rule).
 */
export const IBERIAN_THINKING =
  'creo|pienso|quiero|necesito|espero|supongo|odio|amo|adoro|prefiero|digo|opino|voy|vengo|echo|tengo que|me gusta|acho|penso|quero|preciso|sei|odeio|prefiro|vou|venho|tenho que|gosto';

/** The locales whose names of languages {@link languageName} knows: the languages capture reads. */
const NAME_LOCALES = ['en', 'es', 'fr', 'de', 'pt'] as const;
/** Every language's name in each of {@link NAME_LOCALES}, lower case, made on first use. */
let languageNames: ReadonlySet<string> | undefined;

/**
 * Whether `word` is the name of a language in one of the languages capture reads, as a chat
 * writes it in lower case ("néerlandais", "francés", "alemán", "japonês"): from the platform's
 * CLDR data (`Intl.DisplayNames`), for every two-letter ISO 639-1 code.
 */
export function languageName(word: string): boolean {
  if (!languageNames) {
    const names = new Set<string>();
    const letters = 'abcdefghijklmnopqrstuvwxyz';
    for (const locale of NAME_LOCALES) {
      const display = new Intl.DisplayNames([locale], { type: 'language', fallback: 'none' });
      for (const a of letters) {
        for (const b of letters) {
          const name = display.of(a + b);
          if (name && !/\s/u.test(name)) names.add(name.toLocaleLowerCase(locale));
        }
      }
    }
    languageNames = names;
  }
  return languageNames.has(word.toLowerCase());
}

/** A word's letters, the punctuation around it left out. */
const bare = (w: string) => w.replace(/^[("'“«¿¡„]+|[)"'“”»,.;:!?]+$/gu, '');

/**
 * Whether `words` (what follows a state's verb) name something in particular: a digit, a
 * capitalised word other than the owner's "I" ("a Honda Civic", "Spurs", "at George Brown"), or a
 * language's name in a chat's lower case ("j'apprends le néerlandais": {@link languageName}).
 */
export function namesSomething(words: string): boolean {
  if (/\p{N}/u.test(words)) return true;
  return words
    .split(/\s+/u)
    .map(bare)
    .some((w) => (w !== 'I' && /^\p{Lu}/u.test(w)) || languageName(w));
}

/**
 * {@link namesSomething} for a language that capitalises every noun (German): a digit, a word
 * with a capital inside ("TU", "McFit", "VW"), or two capitalised words in a row ("Siemens
 * Energy", "TU München") — not one noun alone ("einen Hund").
 */
export function namesSomethingAmongNouns(words: string): boolean {
  if (/\p{N}/u.test(words)) return true;
  const list = words.split(/\s+/u).map((w) => w.replace(/^[("'„“«]+|[)"'“”»,.;:!?]+$/gu, ''));
  return list.some(
    (w, i) =>
      /^\p{L}+\p{Lu}/u.test(w) ||
      (/^\p{Lu}/u.test(w) && /^\p{Lu}/u.test(list[i + 1] ?? '')) ||
      languageName(w),
  );
}

/** The most characters of a line capture reads. A longer first sentence is not captured. */
export const CAPTURE_MAX_CHARS = 2000;
/** How many letters of a statement in a script without spaces make its key. */
export const UNSPACED_KEY_CHARS = 12;

/** Scripts written without spaces between words. */
const UNSPACED =
  /^[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}\p{Script=Tibetan}]/u;
/** The grapheme segmenter, made on first use (not at start-up). */
let graphemes: Intl.Segmenter | undefined;

/**
 * A key of up to `words` content words of `text`, in any script, or '' when it has none.
 *
 * Words come from the platform's Unicode word segmenter ({@link queryTerms}: NFKC, lower case,
 * English stopwords left out), then `functionWords` are left out too. A text that starts in a
 * script written without spaces (Chinese, Japanese, Thai, …) is keyed by its first
 * {@link UNSPACED_KEY_CHARS} letters instead (grapheme clusters, marks kept, punctuation and
 * spaces dropped): a dictionary segmenter's word boundaries change between ICU versions, and a
 * key must not.
 *
 * The result is a valid slot key (`normalizeKey` accepts it), or ''.
 */
export function slugOf(text: string, words = 3, functionWords?: ReadonlySet<string>): string {
  const start = text.replace(/^[^\p{L}\p{N}]+/u, '');
  let key: string;
  if (UNSPACED.test(start)) {
    const letters: string[] = [];
    graphemes ??= new Intl.Segmenter('und', { granularity: 'grapheme' });
    for (const { segment } of graphemes.segment(start.normalize('NFKC'))) {
      if (!/^[\p{L}\p{N}]/u.test(segment)) continue;
      letters.push(segment);
      if (letters.length === UNSPACED_KEY_CHARS) break;
    }
    key = letters.join('');
  } else {
    key = queryTerms(text)
      .map((t) => t.replace(/['’]/g, ''))
      .filter((t) => t.length > 0 && !functionWords?.has(t))
      .slice(0, words)
      .join('_');
  }
  return validKey(key.slice(0, 80));
}

/** `key` as the store will keep it, or '' when the store would refuse it. */
export function validKey(key: string): string {
  if (!key) return '';
  try {
    return normalizeKey(key);
  } catch {
    return '';
  }
}

/** The first letter in upper case ("i love sushi" → "I love sushi"); other scripts unchanged. */
export function capitalise(s: string): string {
  const first = s.charAt(0);
  const upper = first.toUpperCase();
  return upper.length === 1 ? upper + s.slice(1) : s;
}

/** A regular expression over a list of words (their alternation, longest first). */
export function wordsRe(words: readonly string[], flags = 'iu'): RegExp {
  const sorted = [...words].sort((a, b) => b.length - a.length);
  return new RegExp(`(?<![\\p{L}\\p{M}])(?:${sorted.join('|')})(?![\\p{L}\\p{M}])`, flags);
}
