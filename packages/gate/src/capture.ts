/**
 * Explicit capture: the owner's own statements introduced by "remember that …", "note that …",
 * "from now on …", "call me …" or a correction ("actually, …") become owner_stated facts under a
 * stable key, so saying the same thing twice corroborates one row instead of minting a second
 * (never a timestamp key), and saying something new about the same subject updates its slot,
 * however it is worded ("I moved to Lyon", "I live in Lyon now" → profile/home).
 *
 * Only statements are captured. A line that asks ("do you remember …", "remember what I told
 * you …?"), requests ("call me when the build finishes", "remember to buy milk"), supposes ("what
 * if I were …") is never the owner's belief; a report of what someone else said ("Sam said he
 * hates sushi") is kept as a note about them, never as the owner's own preference.
 * {@link speechActOf} tells these apart for any line.
 *
 * Trigger phrases are understood in English, Spanish, French, German and Portuguese (one table
 * per language under `capture/`); the statement after them may be in any script. Values keep the
 * owner's words and language; keys are derived from those words (see `capture/common.ts`).
 *
 * Deterministic patterns, no model. Anything they do not recognise is not captured here.
 *
 * @module
 */
import { foldText, namesPresent, splitTimePhrase } from '@keel/language';
import type { Kind } from '@keel/memory';
import { aboutSomeone, nameLike } from './capture/build.js';
import {
  type ChangeReading,
  othersByName,
  othersBySubject,
  readChangeClause,
} from './capture/change.js';
import {
  CAPTURE_MAX_CHARS,
  type CaptureLanguage,
  type CaptureSlot,
  type CaptureTrigger,
  capitalise,
  type LanguageRules,
  type RuleHelpers,
  type ScriptLanguage,
  slugOf,
  type TriggerPhrase,
} from './capture/common.js';
import { DE } from './capture/de.js';
import { EN } from './capture/en.js';
import { ES } from './capture/es.js';
import { FR } from './capture/fr.js';
import { PT } from './capture/pt.js';
import { NOT_NAMES } from './patterns/vocabulary.js';

export {
  type ChangeReading,
  type ChangeShape,
  PARTNER_KEYS,
  type SlotFamily,
} from './capture/change.js';
export {
  CAPTURE_LANGUAGES,
  CAPTURE_MAX_CHARS,
  type CaptureLanguage,
  type CaptureTrigger,
  SCRIPT_LANGUAGES,
  type ScriptLanguage,
} from './capture/common.js';
export { type Fragment, readFragment } from './capture/fragment.js';

/** A statement the owner asked keel to keep. */
export interface Capture {
  kind: Kind;
  /** A stable slug derived from the statement's subject (a valid slot key). */
  key: string;
  /** The owner's words, in their language. */
  value: string;
  /** Which phrase triggered the capture. */
  trigger: CaptureTrigger;
  /** The statement after the trigger phrase (its first sentence). */
  statement: string;
  /** The language of the trigger phrase (of the slot rule, for a plain statement). */
  language: CaptureLanguage | ScriptLanguage;
  /** Whom the statement is about: `owner`, or the key of the person it is about ("sam"). */
  about: string;
  /**
   * The statement's time phrase, wherever it stands, kept out of the key and the value ("I moved
   * to Porto in March": value "Porto", `when` "in March"; "since 2024 I work at Acme": "Acme",
   * "since 2024"; "dass ich seit gestern bei Siemens arbeite": "Siemens", "seit gestern"; see
   * `splitTimePhrase`), for the validity's start; absent when there was none, and never taken
   * from a setting, nor from a note's words unless it opens them (a note's words are its value:
   * "the boiler service is due in March").
   */
  when?: string;
  /**
   * Set when the statement says in the past that its state began or changed ("J'ai commencé
   * chez Airbus vendredi", "I joined Globex on Monday"): a weekday alone in `when` is then the
   * most recent one at or before the line, never the coming one.
   */
  past?: true;
  /**
   * Set on a plain statement (no trigger phrase) whose slot is open-ended ("my usual coffee order
   * is a cortado"): it restates a slot, so the caller keeps it only when the slot already holds a
   * belief; a fixed slot (home, employer, diet, a relation …) is kept either way.
   */
  restates?: true;
}

/**
 * What a line of the owner's does:
 * - `statement`: says something (the only act capture keeps);
 * - `question`: asks, or asks keel to recall ("do you remember …", "remember what …");
 * - `request`: asks keel to do something ("call me when …", "remind me to …");
 * - `hypothetical`: supposes ("what if I were …");
 * - `report`: says what someone else said or thinks ("Sam said …").
 */
export type SpeechAct = 'statement' | 'question' | 'request' | 'hypothetical' | 'report';

/** The language tables, English first. */
const TABLES: readonly LanguageRules[] = [EN, ES, FR, DE, PT];

interface CompiledPhrase {
  readonly phrase: TriggerPhrase;
  /** Openers and the phrase, at the start of a line. */
  readonly start: RegExp;
  readonly connector: RegExp;
}

interface Compiled {
  readonly rules: LanguageRules;
  readonly phrases: readonly CompiledPhrase[];
  /** A "call me" phrase at the start of a statement ("call me Sam" after "from now on"). */
  readonly callMe: RegExp;
  /** A line asking keel to do something. */
  readonly request: RegExp;
}

const COMPILED: readonly Compiled[] = TABLES.map((rules) => {
  const phrases = rules.triggers.map((phrase) => ({
    phrase,
    start: new RegExp(
      `^(?:(?:${rules.openers})[\\s,:;!.¡-]+)*(?:${phrase.phrase})(?![\\p{L}\\p{M}\\p{N}])`,
      'iu',
    ),
    connector: new RegExp(`^(?:${phrase.connector})`, 'iu'),
  }));
  const callMe = rules.triggers
    .filter((t) => t.trigger === 'call_me')
    .map((t) => t.phrase)
    .join('|');
  return {
    rules,
    phrases,
    callMe: new RegExp(`^(?:to\\s+|please\\s+)?(?:${callMe})\\s+`, 'iu'),
    request: rules.request,
  };
});

/**
 * The kinds a bare correction ("actually, my dentist is Dr. Ruiz") may capture: facts of a
 * single-valued slot, never a preference or a note said in passing.
 */
const CORRECTABLE: ReadonlySet<Kind> = new Set([
  'profile',
  'relationship',
  'project',
  'constraint',
]);

/** Abbreviations whose full stop does not end a sentence ("Dr. Ortiz"). */
const ABBREVIATION =
  /(?:^|[\s("'])(?:dr|dra|mr|mrs|ms|mx|st|prof|jr|sr|sra|srta|mt|no|nr|vs|etc|e\.g|i\.e|mme|mlle|hr|fr|str|av|ave|rd|inc|ltd|co|corp|dept|approx|[\p{Lu}])$/iu;
/** A sentence's end: terminal punctuation before a space or the end, or a line break. */
const SENTENCE_END = /[.!?。！？؟…]+(?=\s|$)|\n/gu;
const QUESTION_MARK = /[?？؟]/u;
/** What follows "I told you" when it points back at a conversation instead of saying something. */
const POINTS_BACK =
  /^(?:about|of|regarding|something|some|that story|the story|what|sobre|de|del|do|da|dos|das|à propos|von|über)(?![\p{L}\p{M}])/iu;

/**
 * Languages that write a day as an ordinal number with a full stop ("am 15. März", "den 3.
 * marts", "3. května"): their month names, as the platform's `Intl` spells them.
 */
const ORDINAL_DOT_LOCALES = ['de', 'da', 'nb', 'fi', 'cs', 'sk', 'pl', 'hu', 'sl', 'hr', 'et'];
let monthNames: ReadonlySet<string> | undefined;

/** Whether the full stop at `at` in `text` closes a day's ordinal number before a month name. */
function ordinalDay(text: string, at: number): boolean {
  if (!/(?<![\p{N}.])\p{N}{1,2}$/u.test(text.slice(0, at))) return false;
  const next = /^\.\s+([\p{L}]+)/u.exec(text.slice(at))?.[1];
  if (!next) return false;
  monthNames ??= new Set(
    ORDINAL_DOT_LOCALES.flatMap((locale) =>
      ['long', 'short'].flatMap((month) => {
        const f = new Intl.DateTimeFormat(locale, { month: month as 'long' | 'short' });
        const forms = new Intl.DateTimeFormat(locale, { day: 'numeric', month: month as 'long' });
        return Array.from({ length: 12 }, (_, i) => {
          const d = new Date(Date.UTC(2026, i, 15));
          const inDate = forms.formatToParts(d).find((p) => p.type === 'month')?.value ?? '';
          return [f.format(d), inDate];
        }).flat();
      }),
    )
      .map((n) => n.toLocaleLowerCase().replace(/\.$/u, ''))
      .filter((n) => n.length >= 3),
  );
  return monthNames.has(next.toLocaleLowerCase());
}

/** The first sentence of `text`, or null when it is longer than {@link CAPTURE_MAX_CHARS}. */
function firstSentence(text: string): string | null {
  const t = text.trim();
  SENTENCE_END.lastIndex = 0;
  for (let m = SENTENCE_END.exec(t); m; m = SENTENCE_END.exec(t)) {
    if (m[0] === '.' && ABBREVIATION.test(t.slice(0, m.index))) continue;
    if (m[0] === '.' && ordinalDay(t, m.index)) continue;
    const end = m.index + m[0].length;
    return end > CAPTURE_MAX_CHARS ? null : t.slice(0, end).trim();
  }
  return t.length > CAPTURE_MAX_CHARS ? null : t;
}

/** The most sentences of one line {@link sentencesOf} reads. */
export const MAX_SENTENCES = 4;

/**
 * The sentences of an owner's line, in order, at most {@link MAX_SENTENCES} (the rest of a long
 * message is kept as its episode, not read for statements): cut where {@link firstSentence} cuts
 * (terminal punctuation, a line break; not after "Dr." or a day's ordinal "15."). Empty when the
 * first sentence is longer than the capture reads.
 */
export function sentencesOf(text: string): string[] {
  const out: string[] = [];
  let rest = typeof text === 'string' ? text.trim() : '';
  while (rest && out.length < MAX_SENTENCES) {
    const first = firstSentence(rest);
    if (first === null) break;
    if (/[\p{L}\p{N}]/u.test(first)) out.push(first);
    rest = rest.slice(rest.indexOf(first) + first.length).trim();
  }
  return out;
}

/** The statement without its final punctuation (and quotes around it). */
function cleanStatement(s: string): string {
  return s
    .trim()
    .replace(/[.!?。！？؟…\s]+$/u, '')
    .replace(/^["“«]\s*(.*?)\s*["”»]$/u, '$1')
    .trim();
}

/** Tables in the order to try them: `first`'s language, then the others. */
function ordered(first: LanguageRules): LanguageRules[] {
  return [first, ...TABLES.filter((t) => t !== first)];
}

function helpersFor(rules: LanguageRules, s: string): RuleHelpers {
  const trim = (text: string): string => {
    let v = text.trim().replace(/[.!?。！…\s]+$/u, '');
    for (let prev = ''; prev !== v; ) {
      prev = v;
      v = v.replace(rules.fillers, '').trim();
    }
    return v;
  };
  const clip = (text: string): string => {
    const cut = rules.cut.exec(text);
    return trim(cut ? text.slice(0, cut.index) : text);
  };
  return {
    sentence: capitalise(s),
    additive: rules.additive.test(s),
    slug: (text, words) => slugOf(text, words, rules.functionWords),
    isRelation: (text) => {
      const words = text.toLowerCase().split(/\s+/).filter(Boolean);
      const heads = rules.relationHead === 'last' ? words.slice(-1) : words;
      return heads.some((w) => rules.relations.test(w));
    },
    trim,
    clip,
    negated: (value) => rules.negation.test(value),
    name: (text) => nameOf(rules, clip(text.replace(/^["“«'‘]+|["”»'’]+$/gu, ''))),
  };
}

/** A person's name after "call me" or "my name is", or null ("call me when …", "call me at 5"). */
function nameOf(rules: LanguageRules, text: string): string | null {
  const t = text.replace(/^["“«'‘]+|["”»'’]+$/gu, '').trim();
  if (!t || /\p{N}/u.test(t) || !/^\p{L}/u.test(t) || QUESTION_MARK.test(t)) return null;
  const words = t.split(/\s+/);
  if (words.length > 4) return null;
  if (words.some((w) => rules.notNames.has(w.toLowerCase().replace(/[,.!]+$/u, '')))) return null;
  return t;
}

/** The person a report is about ("Sam", "my sister Ana" → "Ana", "my doctor" → "doctor"). */
function speakerOf(rules: LanguageRules, who: string): string | null {
  const words = who
    .trim()
    .replace(/^(?:o|a|os|as|the) (?=\S+ )/iu, '')
    .split(/\s+/);
  const first = words[0]!.toLowerCase();
  if (
    /^(?:my|our|mi|mis|nuestr[oa]s?|mon|ma|mes|notre|nos|mein|meine|meinem|meiner|unser|unsere|meu|minha|meus|minhas|nosso|nossa)$/u.test(
      first,
    )
  ) {
    const last = words.at(-1)!;
    return words.length > 1 ? (/^\p{Lu}/u.test(last) ? last : words.slice(1).join(' ')) : null;
  }
  if (/^(?:the|el|la|le|der|die|das|o|a)$/u.test(first)) {
    return words.length > 1 ? words.slice(1).join(' ') : null;
  }
  if (
    /^(?:he|she|they|someone|somebody|everyone|everybody|people|él|ella|ellos|ellas|alguien|il|elle|ils|elles|quelqu['’]un|er|sie|jemand|ele|ela|eles|elas|alguém)$/u.test(
      first,
    )
  ) {
    return first;
  }
  const head = words[0]!;
  if (!/^\p{Lu}/u.test(head) || NOT_NAMES.has(head) || head === 'I') return null;
  if (rules.functionWords.has(first) || EN.notNames.has(first)) return null;
  return who.trim();
}

interface Analysis {
  act: SpeechAct;
  capture: Capture | null;
  /**
   * Set when the line asks for a statement to be kept (a trigger phrase) whose first sentence is
   * longer than capture reads ({@link CAPTURE_MAX_CHARS}): how many characters follow the phrase.
   */
  oversized?: number;
}

const none = (act: SpeechAct): Analysis => ({ act, capture: null });
/** A statement asked to be kept that is longer than capture reads (see `oversized`). */
const tooLong = (statement: string): Analysis => ({
  act: 'statement',
  capture: null,
  oversized: statement.trim().length,
});

/** Reads a line after its trigger phrase. */
function afterTrigger(
  rules: LanguageRules,
  trigger: CaptureTrigger,
  rest: string,
  connected: boolean,
): Analysis {
  const first = firstSentence(rest);
  if (first === null) return tooLong(rest);
  let raw = first;
  if (QUESTION_MARK.test(raw.slice(-2)) || raw.startsWith('¿')) {
    const tag = TABLES.find((t) => t.tag.test(raw));
    if (!tag) return none('question');
    raw = raw.replace(tag.tag, '');
  }
  let statement = cleanStatement(raw);
  const tables = ordered(rules);
  // Correction markers and "I told you (that)" are not part of what is said.
  for (let prev = ''; prev !== statement; ) {
    prev = statement;
    for (const t of tables) statement = statement.replace(t.correction, '');
    for (const t of tables) {
      const told = t.toldYou.exec(statement);
      if (told && told[0].length > 0) {
        const linked = /(?:that|que|qu['’]|dass)\s*$/iu.test(told[0]);
        statement = statement.slice(told[0].length).trim();
        // "I told you about my cat" points back at a conversation; it states nothing.
        if (!statement || (!linked && POINTS_BACK.test(statement))) return none('question');
      }
    }
  }
  if (!statement || /^(?:that|eso|ça|cela|das|isso|isto)$/iu.test(statement))
    return none('statement');

  // "from now on, call me Sam", "remember to call me Sam".
  let callMe = trigger === 'call_me' ? statement : null;
  if (callMe === null) {
    for (const c of COMPILED) {
      const m = c.callMe.exec(statement);
      if (m) {
        callMe = statement.slice(m[0].length);
        break;
      }
    }
  }
  if (callMe !== null) {
    const h = helpersFor(rules, statement);
    const name = h.name(callMe);
    if (!name) return none('request');
    return captured(rules, 'call_me', statement, {
      kind: 'profile',
      key: 'preferred_name',
      value: name,
      about: 'owner',
    });
  }
  if (trigger === 'remember' && !connected && rules.recallRequest?.test(statement)) {
    return none('request');
  }
  if (tables.some((t) => t.hypothetical.test(statement))) return none('hypothetical');

  if (trigger === 'from_now_on') {
    const key = slugOf(statement, 3, rules.functionWords);
    return key
      ? captured(rules, trigger, statement, {
          kind: 'setting',
          key,
          value: capitalise(statement),
          about: 'owner',
        })
      : none('statement');
  }

  // The statement's time phrase, wherever it stands, is no part of a slot's key or value: slots
  // are read without it first; when none fits, the whole statement is read (the date may be the
  // value: "my birthday is on 3 May"), with no start.
  const timed = splitTimePhrase(statement);
  for (const [text, when] of timeReadings(statement, timed)) {
    for (const t of tables) {
      const s = t.expand ? t.expand(text) : text;
      for (const re of t.report) {
        const m = re.exec(s);
        const who = m?.groups?.who;
        const said = m?.groups?.rest;
        if (!who || !said) continue;
        const speaker = speakerOf(t, who);
        if (!speaker) continue;
        const slot = aboutSomeone(helpersFor(t, s), speaker, said);
        if (slot) {
          return { act: 'report', capture: toCapture(rules, trigger, statement, slot, when) };
        }
      }
    }

    const placed = placeInSlot(tables, text);
    if (placed) {
      // A bare "actually, …" restates a fact, not a passing like ("actually, I like that idea").
      if (trigger === 'correction' && !CORRECTABLE.has(placed.slot.kind)) return none('statement');
      return captured(placed.rules, trigger, statement, placed.slot, when, rules.lang);
    }
  }
  // A bare "actually, …" is captured only when it restates a known slot.
  if (trigger === 'correction') return none('statement');
  // A note keeps a time phrase inside or after its words ("the boiler service is due in March");
  // one that opens the statement dates all of it ("in January I started the piano").
  const opening = timed && foldText(statement).startsWith(foldText(timed.phrase)) ? timed : null;
  const s = rules.expand ? rules.expand(opening?.rest ?? statement) : (opening?.rest ?? statement);
  const key = slugOf(s, 3, rules.functionWords);
  return key
    ? captured(
        rules,
        trigger,
        statement,
        { kind: 'note', key, value: capitalise(s), about: 'owner' },
        opening,
      )
    : none('statement');
}

/**
 * `timed`: the statement's time phrase and the statement without it, when the value was read
 * without it (the phrase is then the capture's `when`).
 */
type Timed = { rest: string; phrase: string } | null;

/**
 * How a statement is read for its slots: without its time phrase first (the phrase is then the
 * capture's `when`), then whole with no start (the date may be the value: "my birthday is on 3
 * May").
 */
function timeReadings(statement: string, timed: Timed): [string, Timed][] {
  return timed
    ? [
        [timed.rest, timed],
        [statement, null],
      ]
    : [[statement, null]];
}

function toCapture(
  rules: LanguageRules,
  trigger: CaptureTrigger,
  statement: string,
  slot: CaptureSlot,
  timed: Timed = null,
): Capture {
  const capture: Capture = { trigger, statement, language: rules.lang, ...slot };
  if (slot.kind === 'setting' || !timed) return capture;
  return { ...capture, when: timed.phrase, ...(saidInPast(timed.rest) ? { past: true } : {}) };
}

/**
 * Whether `statement` says in the past that a state of the owner's began or changed, in any
 * language's words ({@link LanguageRules.began}, {@link LanguageRules.changed}).
 */
function saidInPast(statement: string): boolean {
  return TABLES.some((t) => {
    const s = t.expand ? t.expand(statement) : statement;
    const owner = t.dropped?.(s) ?? s;
    return [s, owner, lowerFirst(s)].some((x) => t.began.test(x) || t.changed.test(x));
  });
}

function captured(
  rules: LanguageRules,
  trigger: CaptureTrigger,
  statement: string,
  slot: CaptureSlot,
  timed: Timed = null,
  language: CaptureLanguage = rules.lang,
): Analysis {
  return {
    act: 'statement',
    capture: { ...toCapture(rules, trigger, statement, slot, timed), language },
  };
}

/** Where the slot rules placed a statement: the table, the slot, and the rule's name. */
type Placement = { rules: LanguageRules; slot: CaptureSlot; rule: string };

/** Where a statement's first clause ends (a comma, a semicolon, a spaced dash). */
const CLAUSE_END = /\s*(?:[,;]|\s[-—–]\s)/u;
/** A coordinating "and" in the languages capture reads, between two verb phrases. */
const COORDINATED = /\s(?:and|y|e|et|und)\s(?=\p{Ll})/u;

/**
 * The slot rules' first placement of `statement`, in `tables` order: as written, then its first
 * clause alone ("habe ich bei Lidl angefangen, also bald ein Jahr" → "… angefangen"), then that
 * clause before a coordinating "and" ("… gezogen und will nie wieder weg"), then, for
 * the owner's own slots only, each with the subject a chat leaves out restored
 * ({@link LanguageRules.dropped}: "started at Initech" → "I started at Initech").
 */
function placeInSlot(tables: readonly LanguageRules[], statement: string): Placement | null {
  const clause = statement.split(CLAUSE_END)[0]!.trim();
  const texts =
    clause && clause !== statement && /\s/u.test(clause) ? [statement, clause] : [statement];
  // Then the clause before a coordinating "and" that opens a new verb phrase ("Ich bin nach
  // Leipzig gezogen und will nie wieder weg"); read only when the whole places nothing, so
  // "I live in Trinidad and Tobago" keeps its name.
  const coordinated = COORDINATED.exec(clause);
  if (coordinated && coordinated.index > 0) {
    const head = clause.slice(0, coordinated.index).trim();
    if (/\s\S+\s/u.test(head)) texts.push(head);
  }
  // The owner's placement in any reading before someone else's in the first ("Ich bin nach
  // Leipzig gezogen und will …" read whole may pass for a report about someone).
  let other: Placement | null = null;
  for (const text of texts) {
    const placed = placeReading(tables, text, false);
    if (placed?.slot.about === 'owner') return placed;
    other ??= placed;
  }
  if (other) return other;
  for (const text of texts) {
    const placed = placeReading(tables, text, true);
    if (placed?.slot.about === 'owner') return placed;
  }
  return null;
}

/**
 * One reading of {@link placeInSlot}: `text` expanded, its dropped subject restored if asked. A
 * placement about someone else is kept only when no other language's rules place the owner's:
 * another language's "about someone" rule reads "J'ai commencé chez Airbus" as a person called
 * "J'ai".
 */
function placeReading(
  tables: readonly LanguageRules[],
  text: string,
  dropped: boolean,
): Placement | null {
  let other: Placement | null = null;
  for (const t of tables) {
    let s = t.expand ? t.expand(text) : text;
    if (dropped) {
      const restored = t.dropped?.(s);
      if (!restored) continue;
      s = restored;
    }
    const h = helpersFor(t, s);
    for (const rule of t.slots) {
      const m = rule.re.exec(s);
      if (!m) continue;
      const slot = rule.slot(m, h);
      if (!slot) continue;
      if (slot.about === 'owner') return { rules: t, slot, rule: rule.name };
      other ??= { rules: t, slot, rule: rule.name };
      break;
    }
  }
  return other;
}

/**
 * The kinds a plain statement (no trigger phrase) may land in: the owner's single-valued facts
 * (home, employer, diet, a relation, a name, the current project, an allergy), never a passing
 * like or a note.
 */
const PLAIN_KINDS: ReadonlySet<Kind> = new Set([
  'profile',
  'relationship',
  'project',
  'constraint',
]);
/** Profile slots a plain statement may fill whatever the value looks like. */
const PLAIN_PROFILE_KEYS: ReadonlySet<string> = new Set([
  'home',
  'employer',
  'diet',
  'name',
  'preferred_name',
]);
/** A copula in the past: "my car was red" says what was, not what is. */
const PAST_COPULA =
  /(?<![\p{L}\p{M}])(?:was|were|used to|era|eran|fue|fueron|était|étaient|war|waren|foi|foram)(?![\p{L}\p{M}])/iu;

/**
 * A plain statement's slot: the owner's own, present-tense statement that the rules place in a
 * known slot of {@link PLAIN_KINDS} ("I live in Lyon now", "I work at Globex these days", "my
 * new number is 555 0101", "I'm vegetarian now"). A "my X is Y" whose Y is neither a name nor a
 * number ("my day is awful") only {@link Capture.restates} a slot: kept when the slot is held.
 */
function plainCapture(line: string): Capture | null {
  const first = firstSentence(line);
  if (first === null) return null;
  // A chat goes on from its last line ("and i work at dell"): the connective is no part of it.
  let statement = cleanStatement(first).replace(CONNECTIVE, '');
  for (let prev = ''; prev !== statement; ) {
    prev = statement;
    for (const t of TABLES) statement = statement.replace(t.correction, '');
  }
  if (!statement) return null;
  // The statement's time phrase is no part of a slot's value: read without it first, then whole.
  const timed = splitTimePhrase(statement);
  for (const [text, when] of timeReadings(statement, timed)) {
    const placed = placeInSlot(TABLES, text);
    if (!placed) continue;
    const { slot, rules, rule } = placed;
    // Read whole, a time phrase may pass for a name ("Two years ago I …"): only the reading
    // without it says whose statement it is.
    if (slot.about !== 'owner') {
      if (timed && text === statement) continue;
      // Someone else's, unless the owner is its subject after all ("Ich bin … namens Gustav").
      return stateNote(statement);
    }
    // A like or a note of the owner's ("juego al pádel") is kept only when it says it began.
    if (!PLAIN_KINDS.has(slot.kind)) return stateNote(statement);
    if (PAST_COPULA.test(text) && rule !== 'home' && rule !== 'employer') return null;
    const free = slot.kind !== 'profile' || PLAIN_PROFILE_KEYS.has(slot.key);
    const capture = toCapture(rules, 'plain', statement, slot, when);
    if (free || nameLike(slot.value) || /\p{N}/u.test(slot.value)) return capture;
    return { ...capture, restates: true };
  }
  return stateNote(statement) ?? laterState(statement);
}

/** A clause's opening connective: "so", "and now", "y ahora", "alors", "und jetzt", "então". */
const CONNECTIVE =
  /^(?:(?:so|and|but|then|anyway|y|pero|así que|entonces|et|mais|donc|alors|und|aber|also|dann|e|mas|então|por isso)\s+)+/iu;

/**
 * The owner's state said in a later clause of a statement whose first clause is about something
 * else ("turns out the Civic is a write-off, so I'm in a Skoda Octavia now"): the first later
 * clause {@link stateNote} keeps, its opening connective left out, the whole statement as said.
 */
function laterState(statement: string): Capture | null {
  const clauses = statement.split(CLAUSE_END).slice(1);
  for (const clause of clauses) {
    const bare = clause.trim().replace(CONNECTIVE, '');
    if (!/[\p{L}\p{N}]/u.test(bare)) continue;
    const note = stateNote(bare);
    if (note) return { ...note, statement };
  }
  return null;
}

/** `text` with its first letter in lower case ("Sou sócio" → "sou sócio"). */
const lowerFirst = (text: string) => text.charAt(0).toLowerCase() + text.slice(1);

/** Time words that say when a state began ("since 2021", "as of today", "desde", "seit", "ab"). */
const START_WORD =
  /^(?:since|from|as of|starting|beginning|desde|a partir de|depuis|à partir de|dès|seit|ab|seit dem|vom)(?![\p{L}\p{M}])/iu;

/** What may follow a state's first clause and still describe it ("a dog — a beagle called Waffles"). */
const APPOSITIVE =
  /^(?:a|an|the|called|named|un|une|una|uno|ein|eine|einen|um|uma|qui s['’]appelle|que se llama|namens|chamad[oa])\s/iu;

/** The first clause of `text`, with a clause after it that only describes it (see {@link APPOSITIVE}). */
function stateClause(text: string): string {
  const cut = CLAUSE_END.exec(text);
  if (!cut) return text.trim();
  const head = text.slice(0, cut.index).trim();
  const after = text.slice(cut.index + cut[0].length).trimStart();
  if (!APPOSITIVE.test(after)) return head;
  const next = CLAUSE_END.exec(after);
  return `${head}${cut[0].trimEnd()} ${next ? after.slice(0, next.index) : after}`.trim();
}

/**
 * Marks of a line not meant as said: irony, a joke, a song ("I'm SO happy to be at Heathrow 🙃",
 * "I'm Batman lol", "🎵 I'm a Barbie girl 🎵"). A plain state is kept only when said plainly.
 */
const NOT_PLAIN =
  /[🙃🙄😒😏😜😝🤪🤡😂🤣🎵🎶]|(?<![\p{L}])(?:lol|lmao|rofl|haha\p{L}*|jaja\p{L}*|kkk+|mdr|jk|just kidding|yeah right|as if|brincadeira|es broma|je rigole)(?![\p{L}])|\/s$/iu;

/**
 * A plain statement of the owner's own state, kept as a note at the turn: the owner as its
 * subject ({@link LanguageRules.firstPerson}, the subject a chat leaves out restored) and either
 *
 * - a state that began: a start verb ("in January I started learning the piano"), a start phrase
 *   ("as of today I'm on the night shift", "desde 2019 juego al pádel"), or a change of state
 *   said with when ({@link LanguageRules.changed}: "I adopted a greyhound last week"), its time
 *   phrase the start; or
 * - a state that holds now ({@link LanguageRules.holds}: "I drive a Honda Civic", "tengo un Seat
 *   Ibiza rojo", "ich studiere an der TU München") that names something in particular
 *   ({@link LanguageRules.names}), said with no time phrase or one of the present only ("now").
 *
 * Its first clause is the value (with a clause that only describes it: "we got a dog — a beagle
 * called Waffles"). A state said in jest ({@link NOT_PLAIN}) is not kept. What happened once ("I had pizza yesterday", "I'm meeting Sam tomorrow") and
 * what the owner merely is or thinks ("I'm tired", "I think Arsenal will win") are not kept.
 */
function stateNote(statement: string): Capture | null {
  const found = splitTimePhrase(statement);
  // A time phrase of a later clause ("i'm learning japanese, aiming for the N4 in december") is
  // not when the first clause's state holds.
  const timed =
    found && statement.indexOf(found.phrase) >= stateClause(statement).length ? null : found;
  const clause = stateClause(timed?.rest ?? statement);
  const since = timed !== null && START_WORD.test(timed.phrase);
  const now = timed === null || since || namesPresent(timed.phrase);
  for (const t of TABLES) {
    const s = t.expand ? t.expand(clause) : clause;
    const restored = t.dropped?.(s) ?? null;
    const first = (x: string) => t.firstPerson.test(x) || t.firstPerson.test(lowerFirst(x));
    const owner = first(s) ? s : restored && first(restored) ? restored : null;
    if (!owner) continue;
    const began = t.began.test(owner) || t.began.test(lowerFirst(owner));
    const changed = timed !== null && (t.changed.test(owner) || t.changed.test(lowerFirst(owner)));
    const state =
      now && !NOT_PLAIN.test(statement) ? (t.holds(owner) ?? t.holds(lowerFirst(owner))) : null;
    const holds = state !== null && t.names(state);
    if (!(since || began || changed || holds)) continue;
    const key = slugOf(s, 3, t.functionWords);
    if (!key) continue;
    return {
      trigger: 'plain',
      statement,
      language: t.lang,
      kind: 'note',
      key,
      value: capitalise(clause),
      about: 'owner',
      ...(timed && !namesPresent(timed.phrase) ? { when: timed.phrase } : {}),
      ...(began || changed ? { past: true as const } : {}),
    };
  }
  return null;
}

/** What a line without a trigger phrase does. */
function plainAct(line: string): SpeechAct {
  const first = firstSentence(line.slice(0, CAPTURE_MAX_CHARS)) ?? line;
  if (QUESTION_MARK.test(first.slice(-2)) || first.startsWith('¿')) return 'question';
  const s = cleanStatement(first);
  if (COMPILED.some((c) => c.request.test(s))) return 'request';
  if (TABLES.some((t) => t.hypothetical.test(s))) return 'hypothetical';
  if (TABLES.some((t) => t.asks.test(s))) return 'question';
  for (const t of TABLES) {
    for (const re of t.report) {
      const who = re.exec(s)?.groups?.who;
      if (who && speakerOf(t, who)) return 'report';
    }
  }
  return 'statement';
}

function analyse(text: string): Analysis {
  if (typeof text !== 'string') return none('statement');
  const line = text.trim();
  if (!/[\p{L}\p{N}]/u.test(line)) return none('statement');
  return triggered(line) ?? laterTrigger(line) ?? untriggered(line);
}

/**
 * A trigger phrase after a lead-in clause ("finalement je retourne chez lui : souviens-toi que mon
 * coiffeur s'appelle Yanis", "ok so, remember that …"): the line read from the trigger on, when
 * it opens right after a colon, a semicolon or a spaced dash.
 */
function laterTrigger(line: string): Analysis | null {
  for (const m of line.slice(0, CAPTURE_MAX_CHARS).matchAll(LEAD_IN_END)) {
    const lead = line.slice(0, m.index);
    // Someone else's words passed on ("Sam said: remember that …") are theirs, not the owner's.
    if (PASSES_ON.test(lead) || speaksOfOthers(lead)) return null;
    const rest = line.slice(m.index + m[0].length);
    const found = triggered(rest);
    if (found && found.act === 'statement' && (found.capture || found.oversized)) return found;
  }
  return null;
}

/** A lead-in that passes on someone's words: a verb of saying or writing at its end, or a quote. */
const PASSES_ON =
  /(?:["“”«»„]|(?<![\p{L}])(?:said|says|told me|tells me|wrote|writes|texted|messaged|emailed|asked|replied|posted|tweeted|quote|dijo|dice|escribió|mandó|a dit|dit|a écrit|écrit|sagte|sagt|schrieb|hat geschrieben|hat gesagt|disse|diz|escreveu|mandou))\s*$/iu;

/** Where a lead-in clause may end before a trigger phrase. */
const LEAD_IN_END = /\s*[:;]\s+|\s[—–-]\s+/gu;

/** What a line without a trigger phrase does: a script's trigger, or its plain act. */
function untriggered(line: string): Analysis {
  const script = scriptTrigger(line);
  if (script) return script;
  const act = plainAct(line);
  if (act !== 'statement') return none(act);
  const rest = afterLeadIn(line);
  return { act, capture: plainCapture(line) ?? (rest ? plainCapture(rest) : null) };
}

/** The most characters a lead-in clause before a statement holds ("sorry got that wrong —"). */
const LEAD_IN_MAX_CHARS = 60;

/**
 * The line after a short lead-in clause that states nothing itself ("sorry got that wrong — my GP
 * is Dr. Okafor", "update: …", "ok so — …"), or null: the lead-in is at most
 * {@link LEAD_IN_MAX_CHARS} characters and ends at a colon, a semicolon or a spaced dash; a lead-in
 * that passes on someone's words, or is about someone else, leaves the line as it is.
 */
function afterLeadIn(line: string): string | null {
  const m = new RegExp(LEAD_IN_END.source, 'u').exec(line);
  if (!m || m.index > LEAD_IN_MAX_CHARS) return null;
  const lead = line.slice(0, m.index);
  if (PASSES_ON.test(lead) || speaksOfOthers(lead) || plainCapture(lead)) return null;
  // A lead-in that says something stopped or changed ("Hab bei McFit gekündigt –", "pas Nancy —")
  // is the line's own statement.
  if (readClause(cleanStatement(lead))) return null;
  const rest = line.slice(m.index + m[0].length).trim();
  return /[\p{L}\p{N}]/u.test(rest) ? rest : null;
}

/** The line read after the trigger phrase it opens with, or null when it opens with none. */
function triggered(line: string): Analysis | null {
  for (const c of COMPILED) {
    for (const p of c.phrases) {
      const m = p.start.exec(line.slice(0, CAPTURE_MAX_CHARS + 200));
      if (!m) continue;
      const after = line.slice(m[0].length);
      const { trigger } = p.phrase;
      if (trigger === 'remember' && /^\s/u.test(after)) {
        if (c.rules.recallQuestion.test(after.trimStart())) return none('question');
      }
      const conn = p.connector.exec(after);
      const connected = conn !== null && conn[0].trim().length > 0;
      if (!connected && !p.phrase.connectorOptional) continue;
      if (!connected && after && !/^[\s,:;—–-]/u.test(after)) continue;
      return afterTrigger(c.rules, trigger, after.slice(conn?.[0].length ?? 0), connected);
    }
  }
  return null;
}

/**
 * "Remember that …" in the scripts keel recalls beyond the tables' languages: the verb of
 * remembering in its imperative, then an optional connector ("что", "ότι", "ש", "أن", "कि",
 * "ว่า", a comma). Each source is one language's imperative forms, formal and informal.
 */
const SCRIPT_TRIGGERS: readonly { lang: ScriptLanguage; re: RegExp }[] = [
  { lang: 'ru', re: /^(?:запомни(?:те)?|не забудь(?:те)?)(?:\s*[,:—-]?\s*(?:что|, что))?/iu },
  {
    lang: 'uk',
    re: /^(?:запам['’ʼ]ятай(?:те)?|пам['’ʼ]ятай(?:те)?|не забудь(?:те)?)(?:\s*[,:—-]?\s*що)?/iu,
  },
  {
    lang: 'el',
    re: /^(?:θυμήσου|θυμηθείτε|να θυμάσαι|μην ξεχάσεις)(?:\s*[,:—-]?\s*(?:ότι|πως))?/iu,
  },
  { lang: 'he', re: /^(?:תזכור|תזכרי|זכור|זכרי|תזכרו)(?:\s*[,:—-]?\s*(?:ש|כי\s))?/u },
  {
    lang: 'ar',
    re: /^(?:تذكر|تذكري|تذكّر|تذكّري|تذكروا|لا تنس|لا تنسى)(?:\s*[,:،—-]?\s*(?:أن|ان|أنّ|بأن))?/u,
  },
  {
    lang: 'ja',
    re: /^(?:覚えておいて(?:ください|ね|ほしい)?|覚えといて|忘れないで(?:ください|ね)?)(?:\s*[、,:：]?\s*)/u,
  },
  { lang: 'zh', re: /^(?:请)?(?:记住|記住|别忘了|別忘了)(?:\s*[，,:：]?\s*)/u },
  { lang: 'ko', re: /^(?:기억해(?:줘|주세요|둬|두세요)?|잊지 마(?:세요)?)(?:\s*[,:：]?\s*)/u },
  { lang: 'hi', re: /^(?:याद रखो|याद रखना|याद रखें|याद रखिए)(?:\s*[,:—-]?\s*कि)?/u },
  { lang: 'th', re: /^(?:จำไว้|จำไว้นะ|อย่าลืม)(?:\s*ว่า)?/u },
];

/** A line opening with {@link SCRIPT_TRIGGERS}: the statement after it as a slot or a note. */
function scriptTrigger(line: string): Analysis | null {
  for (const { lang, re } of SCRIPT_TRIGGERS) {
    const m = re.exec(line);
    if (!m) continue;
    const rest = line.slice(m[0].length).replace(/^[\s,，、:：—-]+/u, '');
    const first = firstSentence(rest);
    if (first === null) return tooLong(rest);
    if (!/[\p{L}\p{N}]/u.test(first)) return none('statement');
    if (QUESTION_MARK.test(first.slice(-2))) return none('question');
    const statement = cleanStatement(first);
    const placed = placeInSlot(TABLES, statement);
    if (placed)
      return captured(placed.rules, 'remember', statement, placed.slot, null, placed.rules.lang);
    const key = slugOf(statement, 3);
    if (!key) return none('statement');
    return {
      act: 'statement',
      capture: {
        kind: 'note',
        key,
        value: capitalise(statement),
        trigger: 'remember',
        statement,
        language: lang,
        about: 'owner',
      },
    };
  }
  return null;
}

/** The statement a line states: after its trigger phrase when it has one, else the line. */
function statementOf(line: string): string {
  for (const c of COMPILED) {
    for (const p of c.phrases) {
      const m = p.start.exec(line.slice(0, CAPTURE_MAX_CHARS + 200));
      if (!m) continue;
      const after = line.slice(m[0].length);
      const conn = p.connector.exec(after);
      return after.slice(conn?.[0].length ?? 0).trim();
    }
  }
  for (const { re } of SCRIPT_TRIGGERS) {
    const m = re.exec(line);
    if (m) return line.slice(m[0].length).replace(/^[\s,，、:：—-]+/u, '');
  }
  return line;
}

/**
 * Reads whether the owner's line says that something stopped or changed (see
 * `capture/change.ts`: negation + the slot's predicate, an ending verb + its object, a change
 * from A to B), in its first sentence (after a trigger phrase when there is one). Only a
 * statement is read: a question, a request, a supposition, a report of someone else, words in
 * quotation marks, or a clause whose subject is someone else says nothing about the owner's
 * beliefs — but for an ending said of its subject ("Mochi died", "my ex, Léonie, …"), which names
 * what ended whoever the subject is.
 *
 * @param options - `subjects: false` leaves the endings said of their subject out (for a caller
 *   that holds nothing they name).
 * @returns the reading, or null.
 */
export function readCorrection(
  text: string,
  options: { subjects?: boolean } = {},
): ChangeReading | null {
  if (typeof text !== 'string') return null;
  const line = text.trim();
  if (!line || analyse(line).act !== 'statement') return null;
  const source = statementOf(line);
  // A lead-in that states nothing ("sorry got that wrong — …") is no part of what changed.
  const rest = source === line && !plainCapture(line) ? afterLeadIn(line) : null;
  const first = firstSentence((rest ?? source).replace(QUOTED, ' … '));
  if (first === null) return null;
  return readClause(cleanStatement(first), options);
}

/** {@link readChangeClause} of one clause, its correction lead ("actually, …") left out. */
function readClause(text: string, options: { subjects?: boolean } = {}): ChangeReading | null {
  let clause = text;
  for (let prev = ''; prev !== clause; ) {
    prev = clause;
    for (const t of TABLES) clause = clause.replace(t.correction, '');
  }
  return readChangeClause(
    clause,
    (positive) => placeInSlot(TABLES, positive)?.slot ?? null,
    (word) => TABLES.some((t) => t.relations.test(word)),
    { ...options, ownerVerb },
  );
}

/** Whether `text` opens with the owner's verb, its subject left out ({@link LanguageRules.dropped}). */
function ownerVerb(text: string): boolean {
  return TABLES.some((t) => (t.dropped?.(t.expand ? t.expand(text) : text) ?? null) !== null);
}

/** A state of the owner's that held until a day: the slot it was in, its value, and when it ended. */
export interface PastState {
  slot: CaptureSlot;
  /** The time phrase of its end, as said ("March 1st"). */
  until: string;
}

/**
 * "I lived in Galway until March 1st", "viví en Rosario hasta enero", "j'ai habité à Lille
 * jusqu'en mai", "morei em Braga até março": a past verb, its object, "until" and a time; the
 * verb's present ({@link PAST_TO_PRESENT}) reads the object as the slot it was in.
 */
const PAST_UNTIL =
  /^(?<verb>I lived|I worked|we lived|I used to live|I used to work|viví|vivía|trabajé|trabajaba|j['’]ai (?:vécu|habité)|j['’]habitais|j['’]ai travaillé|je travaillais|morei|morava|trabalhei|trabalhava)\s+(?<rest>.+?)\s+(?:until|till|up to|hasta|jusqu['’](?:à|au|en)|até)\s+(?<until>[^,;—–]+)/iu;
/** The present of each past verb {@link PAST_UNTIL} reads. */
const PAST_TO_PRESENT: Readonly<Record<string, string>> = {
  'i lived': 'I live',
  'we lived': 'I live',
  'i used to live': 'I live',
  'i worked': 'I work',
  'i used to work': 'I work',
  viví: 'vivo',
  vivía: 'vivo',
  trabajé: 'trabajo',
  trabajaba: 'trabajo',
  "j'ai vécu": "j'habite",
  "j'ai habité": "j'habite",
  "j'habitais": "j'habite",
  "j'ai travaillé": 'je travaille',
  'je travaillais': 'je travaille',
  morei: 'moro',
  morava: 'moro',
  trabalhei: 'trabalho',
  trabalhava: 'trabalho',
};

/**
 * The owner's state that held until a day, said in the first sentence of `text` ("I lived in
 * Galway until March 1st, now I'm in Cork" → home Galway until "March 1st"), or null.
 */
export function readPastState(text: string): PastState | null {
  if (typeof text !== 'string') return null;
  const first = firstSentence(statementOf(text.trim()));
  const m = first ? PAST_UNTIL.exec(cleanStatement(first)) : null;
  const g = m?.groups;
  if (!g?.verb || !g.rest || !g.until) return null;
  const present = PAST_TO_PRESENT[g.verb.toLowerCase().replace('’', "'")];
  if (!present) return null;
  const placed = placeInSlot(TABLES, `${present} ${g.rest}`);
  if (placed?.slot.about !== 'owner') return null;
  return { slot: placed.slot, until: g.until.trim() };
}

/** Where a later clause may start: a clause break, a coordinating "and", an emoji. */
const LATER_CLAUSE = new RegExp(
  `${CLAUSE_END.source}|${COORDINATED.source}|\\s*\\p{Extended_Pictographic}+\\s*`,
  'gu',
);

/**
 * What the first sentence of the owner's line says after its first clause, clause by clause
 * ("sold the Civic last weekend, I drive a Tesla Model 3 now" → ["I drive a Tesla Model 3
 * now"]; "quit gold's and joined cult.fit yesterday" → ["joined cult.fit yesterday"]), each
 * running to the sentence's end; [] when it has one clause. Read after a stop for what holds
 * instead.
 */
export function laterClauses(text: string): string[] {
  if (typeof text !== 'string') return [];
  const first = firstSentence(statementOf(text.trim()));
  if (!first) return [];
  const out: string[] = [];
  for (const m of first.matchAll(LATER_CLAUSE)) {
    const rest = first.slice(m.index + m[0].length).trim();
    if (/[\p{L}\p{N}]/u.test(rest)) out.push(rest);
  }
  return out;
}

/**
 * Whether the owner's line is about someone or something else: its first sentence's subject is a
 * third-person pronoun, a possessive before a relation ("my brother just bought a flat in …"), or
 * a name ("Bologna won 3–1", "a Dra. Fernanda Lobo entrou de férias"), and nothing in it puts
 * the owner in. Such a line may mention what the owner holds without saying anything of it.
 */
export function speaksOfOthers(text: string): boolean {
  if (typeof text !== 'string') return false;
  const first = firstSentence(statementOf(text.trim()));
  if (!first) return false;
  // The whole sentence: the owner anywhere in it ("Portland flooded, we are moving out") makes
  // it the owner's too, and what it mentions may be asked about.
  const sentence = cleanStatement(first);
  const isRelation = (word: string) => TABLES.some((t) => t.relations.test(word));
  // Someone else doing what the owner does ("my brother bought a flat in Valparaíso too, so
  // we're neighbours now") says nothing of the owner's own, whatever follows.
  const clause = sentence.split(CLAUSE_END)[0]!;
  if (othersBySubject(clause, isRelation) && TABLES.some((t) => t.additive.test(clause))) {
    return true;
  }
  // Its subject is whoever a possessive names ("my mate Callum sold his Yaris"), relation or not.
  return othersBySubject(sentence, () => true) || othersByName(sentence, ownerVerb);
}

/** Words that say a state goes on: "still", "todavía", "toujours", "immer noch", "ainda". */
const GOES_ON =
  /(?<![\p{L}\p{M}])(?:still|todavía|todavia|aún|toujours|encore|immer noch|noch immer|weiterhin|ainda|continuo|continuamos)(?![\p{L}\p{M}])/iu;

/**
 * Whether the owner's line says that something of theirs goes on ("still seeing dr haddad for the
 * crown thing", "todavía vivo en Madrid", "je suis toujours chez Airbus"): it restates what is held and
 * replaces nothing, so it asks nothing.
 */
export function saysGoesOn(text: string): boolean {
  if (typeof text !== 'string') return false;
  const first = firstSentence(statementOf(text.trim()));
  return first !== null && GOES_ON.test(first);
}

/**
 * Words in quotation marks: someone else's words the owner passes on ("saw this tweet: \"I quit
 * Google\""), never the owner saying that something of theirs stopped.
 */
const QUOTED = /"[^"\n]*"|“[^”\n]*”|„[^“”\n]*[“”]|«[^»\n]*»|»[^«\n]*«|「[^」\n]*」/gu;

/**
 * Recognises the owner's explicit statement of something to keep: "remember that …", "note
 * that …", "from now on …", "call me …" or a correction ("actually, my dentist is Dr. Ruiz"), in
 * English, Spanish, French, German or Portuguese, the statement in any script.
 *
 * Only statements are captured (see {@link speechActOf}): a question, a request, a supposition or
 * a line longer than the capture reads returns null; a report of someone else's words is a note
 * about them (`about` names them). A correction captures only a statement that lands in a known
 * slot (home, employer, current project, a relation, a name, a preference …).
 *
 * @returns the capture, or null when the line is no such statement (or has no content words).
 */
export function captureExplicit(text: string): Capture | null {
  return analyse(text).capture;
}

/**
 * How many characters the owner asked keel to keep, when capture cannot read them: the line opens
 * with a trigger phrase ("remember that …", in any language {@link captureExplicit} knows) and
 * the statement's first sentence is longer than {@link CAPTURE_MAX_CHARS}. Null for any other
 * line (a statement that fits, a question, a line with no trigger phrase). The caller says so to
 * the owner instead of dropping the statement silently.
 */
export function oversizedStatement(text: string): number | null {
  return analyse(text).oversized ?? null;
}

/**
 * What an owner's line does: states, asks, requests, supposes or reports (see {@link SpeechAct}).
 * A line with a capture trigger is read after it ("remember what I told you?" asks); any other
 * line by its punctuation and opening words, in the languages capture knows.
 */
export function speechActOf(text: string): SpeechAct {
  return analyse(text).act;
}
