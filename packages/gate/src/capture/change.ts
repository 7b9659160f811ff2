/**
 * Corrections by clause shape, not by sentence: a small grammar that reads whether an owner's
 * statement says that something stopped or changed, and what it is about. Three shapes, in
 * English, Spanish, French, German and Portuguese:
 *
 * - **negation + the slot's predicate**: "I don't live in Lyon anymore", "ya no trabajo en
 *   Telefónica", "ich wohne nicht mehr in Köln", "je ne suis plus végétarienne", "não faço mais
 *   pilates". The negation and its "any more" are taken out and the positive clause is placed by
 *   the same slot rules capture uses ("I live in Lyon" → profile/home: Lyon).
 * - **an ending verb + the slot's object**: "I quit Acme", "Kofi and I split up", "j'ai quitté
 *   Capgemini", "hab bei Siemens aufgehört", "terminei com o Rafael". The verb's class may place
 *   the slot without an object (leaving work → profile/employer; ending a couple → the partner
 *   relation; moving out → profile/home).
 * - **a change with two arguments**: "I switched from Basic-Fit to Arkose", "I swapped tea for
 *   coffee", "je suis passé de Free à Orange", "ich bin von Vodafone zu O2 gewechselt": closes A,
 *   opens B.
 *
 * The reading names the words; which belief they end is decided against memory by the caller
 * (a belief whose value the clause mentions, or the placed slot). Deterministic, no model.
 *
 * @module
 */

import { splitTimePhrase } from '@keel/language';
import type { Kind } from '@keel/memory';
import {
  type ChangeWords,
  EMPLOYER,
  EX_NAMED,
  JOB_NOUN,
  PARTNER_KEYS,
  WORDS,
} from './change-words.js';
import type { CaptureLanguage, CaptureSlot } from './common.js';

export { PARTNER_KEYS };

/** The shape of a correction. */
export type ChangeShape = 'negation' | 'ending' | 'change';

/** A family of slots an ending may close without naming its object. */
export type SlotFamily = 'partner';

/** What a statement says stopped or changed. */
export interface ChangeReading {
  shape: ChangeShape;
  /** The clause read (the sentence, without its closing punctuation). */
  clause: string;
  /**
   * What stopped, in the owner's words: the words after the cue (or around it, for "Kofi and I
   * split up"); for a change, A. '' when the clause names nothing.
   */
  object: string;
  /** For a change, B (cut at its first clause). */
  to?: string;
  /** The slot the clause is about, when its predicate or its verb places one. */
  slot: { kind: Kind; key: string } | null;
  /** A family of relation slots the ending closes (a couple ending: partner, boyfriend, …). */
  family?: SlotFamily;
  /**
   * For a change, where B lands when the slot rules can place "B" on its own; for a stop followed
   * by what holds instead ("not at Telefónica anymore, now at BBVA"), the new value in the
   * stopped slot.
   */
  opens?: CaptureSlot | null;
  /**
   * A change read from a contrast ("B, not A"): A names a value held, as a whole ("Dr. Okafor"),
   * not a word of it.
   */
  contrast?: boolean;
  /**
   * An ending said of its subject ("Mochi died", "the Japanese course is over"): `object` is the
   * subject, which names what ended as a whole (a belief whose value holds it), whoever it is.
   */
  subject?: boolean;
  /**
   * An end announced, not yet come ("I handed in my notice, last day is the end of April"): the
   * belief still holds; the owner is asked, nothing is closed.
   */
  announced?: boolean;
  /** The time phrase of what holds instead after a stop ("seit Januar"), when it has one. */
  when?: string;
  /**
   * The time phrase of the stop's own clause ("I left Zillow on Friday", "I moved out of Munich
   * on 28 February — I'm in Leipzig now" → "on 28 February"): when it stopped.
   */
  ended?: string;
  language: CaptureLanguage;
}

/** Cuts a value at its first clause ("Arkose, the climbing gym" → "Arkose"). */
function firstClause(text: string): string {
  return text
    .split(
      /\s*(?:[,;:(]|\s[-—–]\s|(?<!(?<![\p{L}])(?:dr|dra|mr|mrs|ms|st|prof|jr|sr|sra|mme|hr|fr))\.\s)/iu,
    )[0]!
    .replace(/[.!?…\s]+$/u, '')
    .trim();
}

/** Where the clause of a stop ends and what follows it begins (a comma, a semicolon, a dash). */
const CLAUSE_BREAK = /\s*(?:[,;:]|\s[-—–]\s)\s*/gu;

const escapeRe = (x: string) => x.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const wordsOf = (x: string) => x.split(/\s+/u).filter(Boolean);

/** Where the clause that starts before `from` ends in `text` (its break), or the text's end. */
function clauseEnd(text: string, from: number): { end: number; next: number } {
  CLAUSE_BREAK.lastIndex = from;
  const brk = CLAUSE_BREAK.exec(text);
  return brk && brk[0].trim() !== ''
    ? { end: brk.index, next: brk.index + brk[0].length }
    : { end: text.length, next: text.length };
}

/** What follows a stop, read for a new value: its first clause, its time phrase apart. */
interface Next {
  /** The clause without its time phrase and without the words that present a value. */
  body: string;
  /** Its time phrase ("seit Januar", "ahora"), if any. */
  when?: string;
  /** Whether it says "now", names a time, or presents a value ("c'est …"): it says what holds. */
  marked: boolean;
}

/** The clause after a stop ({@link clauseEnd}'s `next`), or null when nothing follows. */
function nextClause(w: ChangeWords, text: string, next: number): Next | null {
  const rest = text.slice(next).trim();
  if (!/[\p{L}\p{N}]/u.test(rest)) return null;
  const timed = splitTimePhrase(rest);
  const first = firstClause(timed?.rest ?? rest);
  const presented = w.presenting.exec(first);
  const body = presented ? first.slice(presented[0].length).trim() : first;
  if (!body) return null;
  return { body, ...(timed ? { when: timed.phrase } : {}), marked: !!timed || !!presented };
}

/**
 * What a stop's next clause says holds instead, in the stopped slot: "ya no trabajo en
 * Telefónica, ahora estoy en BBVA" → BBVA; "ich wohne nicht mehr in Köln, seit Januar in
 * Leipzig" → Leipzig. The next clause is read on its own first; when it places nothing in that
 * slot, it is read as the stop's positive clause with the new object in place of the old (the
 * words after the old value's preposition, when the next clause repeats it; else the whole
 * clause, when it is short and says what holds: "maintenant c'est Grenoble"). "I no longer live
 * in Lyon, France" says nothing new.
 */
function continuation(
  next: Next,
  positive: string,
  placed: CaptureSlot,
  place: (positive: string) => CaptureSlot | null,
): CaptureSlot | null {
  const same = (slot: CaptureSlot | null): slot is CaptureSlot =>
    slot !== null &&
    slot.kind === placed.kind &&
    slot.key === placed.key &&
    slot.about === placed.about;
  const own = place(next.body);
  if (same(own)) return own;
  const at = positive.toLocaleLowerCase().indexOf(placed.value.toLocaleLowerCase());
  if (at <= 0) return null;
  const predicate = positive.slice(0, at);
  const preposition = /(\S+)\s+$/u.exec(predicate)?.[1];
  const repeated = preposition
    ? new RegExp(`(?<![\\p{L}\\p{M}])${escapeRe(preposition)}\\s+(.+)$`, 'iu').exec(next.body)
    : null;
  const object =
    repeated?.[1] ?? (next.marked && wordsOf(next.body).length <= 3 ? next.body : null);
  if (!object) return null;
  const elided = place(predicate + object);
  return same(elided) ? elided : null;
}

/**
 * The new value a stop that placed no slot is followed by ("dejé el BBVA, ahora estoy en
 * Santander" → Santander; "no longer in Bristol, in Cardiff since May" → Cardiff): the words after
 * the next clause's preposition, or the whole clause when it is short and says what holds.
 */
function newObject(w: ChangeWords, next: Next): string | null {
  const prep = w.prepositions.exec(next.body);
  if (prep) return firstClause(next.body.slice(prep[0].length)) || null;
  return next.marked && wordsOf(next.body).length <= 3 ? next.body : null;
}

/**
 * Whether `text` is about someone else, not the owner: its subject is a third-person pronoun, a
 * possessive before a relation ("mon voisin a quitté Airbus"), or a name ("Sam quit Acme"), and
 * nothing in it puts the owner in ("Noor and I broke up", "Acme let me go").
 */
export function aboutOthers(
  text: string,
  isRelation: (word: string) => boolean,
  ownerVerb: (text: string) => boolean = () => false,
): boolean {
  return othersBySubject(text, isRelation) || othersByName(text, ownerVerb);
}

/**
 * {@link aboutOthers} by its subject word: a third-person pronoun or a possessive before a
 * relation, with nothing in `text` that puts the owner in.
 */
export function othersBySubject(text: string, isRelation: (word: string) => boolean): boolean {
  for (const w of WORDS) {
    const m = w.others.exec(text);
    if (!m) continue;
    const noun = m.groups?.noun;
    if (noun !== undefined && !isRelation(noun)) continue;
    // "my dentist is Dr. Wolff, not Becker" says who the owner's dentist is: the owner's word.
    if (noun !== undefined && (COPULA.test(text.slice(m[0].length)) || /['’]s$/u.test(noun))) {
      continue;
    }
    if (!w.owner.test(text)) return true;
  }
  return false;
}

/**
 * {@link aboutOthers} by a name as its subject ("Sam quit Acme", "Bologna won 3–1", "a Dra.
 * Fernanda Lobo entrou de férias": the article some languages put before a person's name, a
 * title), with nothing in `text` that puts the owner in. "The Panda got written off" is a thing
 * of the owner's, not someone: English "the" opens no name here; nor does the owner's own verb
 * with its subject left out (`ownerVerb`: "Quit my job at Acme").
 */
export function othersByName(
  text: string,
  ownerVerb: (text: string) => boolean = () => false,
): boolean {
  const name =
    /^(?:(?:[Aa]|[Oo]|[Ll]a|[Ee]l|[Dd]er|[Dd]ie)\s+)?(?:(?:Dr|Dra|Mr|Mrs|Ms|Prof|Sr|Sra)\.?\s+)?\p{Lu}[\p{Ll}\p{M}'’-]+(?:\s+\p{Lu}[\p{Ll}\p{M}'’-]+)*\s+\p{Ll}/u.exec(
      text,
    );
  if (!name || /^I\s/u.test(text) || ownerVerb(text)) return false;
  return !WORDS.some((w) => w.owner.test(text));
}

/** A copula after a subject: what follows says who or what it is, not what it did. */
const COPULA =
  /^\s*(?:(?:[\p{L}-]+\s+)?,?\s*(?:is|was|are|['’]s|ist|war|heißt|heisst|es|era|est|était|c['’]est|é|era|se llama|s['’]appelle|se chama|chama-se))(?![\p{L}])/iu;

/** "B instead of A": A and B, B as many of the last words before the cue as A has. */
function readInstead(
  w: ChangeWords,
  text: string,
): { from: string; to: string; before: string } | null {
  const m = w.instead.exec(text);
  const from = m?.groups?.from && firstClause(m.groups.from);
  const before = m?.groups?.before?.trim();
  if (!from || !before) return null;
  const words = wordsOf(before);
  const n = Math.min(wordsOf(from).length, words.length - 1);
  if (n < 1) return null;
  return { from, to: words.slice(-n).join(' '), before };
}

/**
 * Reads whether `clause` (one sentence of the owner's, without its trigger) says that something
 * stopped or changed, in the languages capture knows ("from A to B", "B instead of A", "B, not A":
 * changes; a stop; an ending). A clause about someone else ("my neighbour
 * quit Airbus") says nothing of the owner's.
 *
 * @param place - places a positive clause in a slot (capture's slot rules), or null.
 * @param isRelation - whether a word names a relation ("voisin", "sister"): a possessive before
 *   one is someone else's subject.
 * @param options - `subjects: false` leaves out the endings said of their subject (see
 *   {@link readOver}), for a caller that found nothing they name; `ownerVerb` tells a clause that
 *   opens with the owner's verb, its subject left out ("Quit my job at Acme", "Hab bei McFit
 *   gekündigt"), from one that opens with a name.
 * @returns the reading, or null when the clause has none of the three shapes.
 */
export function readChangeClause(
  clause: string,
  place: (positive: string) => CaptureSlot | null,
  isRelation: (word: string) => boolean = () => false,
  options: { subjects?: boolean; ownerVerb?: (text: string) => boolean } = {},
): ChangeReading | null {
  const text = clause.trim().replace(/[.!?…\s]+$/u, '');
  if (!text) return null;
  // What ended is its subject, whoever it is ("Mochi died", "my course is over", "my ex, Léonie").
  if (options.subjects !== false) {
    const over = readOver(text) ?? readEx(text);
    if (over) return over;
  }
  if (aboutOthers(text, isRelation, options.ownerVerb)) return null;
  const change = readChange(text, place);
  if (change) return change;
  // Who stops or ends something is the clause's subject: "my mate Callum sold …", "mein
  // Co-Trainer hat … aufgehört" are someone's own doing, whatever noun names them; and "sold
  // his Yaris" is his.
  if (othersBySubject(text, () => true)) return null;
  const stop = readStop(text, place) ?? readEnding(text);
  return stop && THEIRS.test(stop.object) ? null : stop;
}

/** A possessive of someone else's before what stopped ("sold his Yaris", "a quitté sa boîte"). */
const THEIRS =
  /^(?:his|her|their|su|sus|son|sa|ses|leur|leurs|sein|seine|seinen|seinem|seu|sua|seus|suas)\s/iu;

/** The owner naming someone their ex ({@link EX_NAMED}): a couple's ending, the name its object. */
function readEx(text: string): ChangeReading | null {
  const m = EX_NAMED.exec(text);
  const name = m?.groups?.name;
  if (!m || !name) return null;
  const possessive = m[0].trim().split(/\s+/u)[0]!.toLowerCase();
  const language: CaptureLanguage =
    possessive === 'my'
      ? 'en'
      : possessive === 'mi'
        ? 'es'
        : possessive === 'mon' || possessive === 'ma'
          ? 'fr'
          : possessive.startsWith('mein')
            ? 'de'
            : 'pt';
  // The line's time phrase is when something else happened ("passed by yesterday"), not when
  // the couple ended: that stays unknown.
  return {
    shape: 'ending',
    clause: text,
    object: name,
    slot: null,
    family: 'partner',
    subject: true,
    language,
  };
}

/**
 * An ending said of its subject ({@link ChangeWords.over}): the subject, its determiners left out,
 * as the object; the clause's time phrase as when it ended ("Mochi died on Saturday night").
 */
/** The owner and one other as a subject: "Sam and I", "yanis et moi", "moi et Yanis", "Jonas und ich". */
const COUPLE =
  /^(?:(?<a>[^,]+?)\s+(?:and I|and me|et moi|y yo|und ich|e eu)|(?:I and|me and|moi et|yo y|ich und|eu e)\s+(?<b>[^,]+?))$/iu;

function readOver(text: string): ChangeReading | null {
  for (const w of WORDS) {
    const m = w.over.exec(text);
    const subject = m?.groups?.subject?.replace(w.determiners, '').trim();
    if (!subject) continue;
    const ended = splitTimePhrase(text)?.phrase;
    // "yanis et moi c'est fini", "Sam and I are done": the owner's couple ended.
    const other = COUPLE.exec(subject)?.groups;
    const partner = other?.a ?? other?.b;
    // The ending closes the clause ("Sam and I are over the moon" says nothing ended).
    const after = text.slice(m!.index + m![0].length, clauseEnd(text, m!.index + m![0].length).end);
    if (partner && /^[\s\p{P}\p{Extended_Pictographic}]*$/u.test(after)) {
      return {
        shape: 'ending',
        clause: text,
        object: partner.trim(),
        slot: null,
        family: 'partner',
        ...(ended ? { ended } : {}),
        language: w.lang,
      };
    }
    if (w.owner.test(subject)) continue;
    return {
      shape: 'ending',
      clause: text,
      object: subject,
      slot: null,
      subject: true,
      ...(ended ? { ended } : {}),
      language: w.lang,
    };
  }
  return null;
}

/** A change with two arguments: "from A to B", "swapped A for B", "B instead of A". */
function readChange(
  text: string,
  place: (positive: string) => CaptureSlot | null,
): ChangeReading | null {
  for (const w of WORDS) {
    for (const c of w.changes) {
      const m = c.exec(text);
      const from = m?.groups?.from && firstClause(m.groups.from);
      const to = m?.groups?.to && firstClause(m.groups.to);
      if (!from || !to) continue;
      const opens = place(text);
      return change(w, text, from, to, opens);
    }
  }
  for (const w of WORDS) {
    const i = readInstead(w, text);
    if (i) return change(w, text, i.from, i.to, place(i.before));
  }
  for (const w of WORDS) {
    for (const c of w.contrast) {
      const m = c.exec(text);
      const from = m?.groups?.from && firstClause(m.groups.from);
      const said = m?.groups?.to?.trim();
      if (!from || !said) continue;
      const presented = w.presenting.exec(said);
      const to = firstClause(presented ? said.slice(presented[0].length) : said);
      // "not bad, not great" contrasts two denials: nothing is corrected.
      if (!to || w.negationWords.test(to.split(/\s+/u)[0] ?? '')) continue;
      return { ...change(w, text, from, to, place(said)), contrast: true };
    }
  }
  return null;
}

function change(
  w: ChangeWords,
  text: string,
  from: string,
  to: string,
  opens: CaptureSlot | null,
): ChangeReading {
  const ended = splitTimePhrase(text)?.phrase;
  return {
    shape: 'change',
    clause: text,
    object: from,
    to,
    ...(ended ? { ended } : {}),
    slot: opens ? { kind: opens.kind, key: opens.key } : null,
    opens,
    language: w.lang,
  };
}

/**
 * Negation + the slot's predicate, read on the stop's own clause; what its next clause says holds
 * instead, in the slot ({@link continuation}) or, when the stop placed none, as a new object
 * ({@link newObject}).
 */
function readStop(
  text: string,
  place: (positive: string) => CaptureSlot | null,
): ChangeReading | null {
  for (const w of WORDS) {
    const m = w.negation.exec(text);
    if (!m) continue;
    const { end, next: from } = clauseEnd(text, m.index + m[0].length);
    const stop = text.slice(0, end);
    const positive = stop
      .replace(new RegExp(w.negationWords.source, 'giu'), ' ')
      .replace(/\s+/gu, ' ')
      .trim();
    const placed = positive ? place(positive) : null;
    const ended = splitTimePhrase(stop)?.phrase;
    const next = nextClause(w, text, from);
    const opens = placed && next ? continuation(next, positive, placed, place) : null;
    const to = opens?.value ?? (!placed && next ? newObject(w, next) : null);
    return {
      shape: 'negation',
      clause: text,
      object: stop.slice(m.index + m[0].length).trim() || stop.slice(0, m.index).trim(),
      slot: placed ? { kind: placed.kind, key: placed.key } : null,
      ...(opens ? { opens } : {}),
      ...(to ? { to } : {}),
      ...(to && next?.when ? { when: next.when } : {}),
      ...(ended ? { ended } : {}),
      language: w.lang,
    };
  }
  return null;
}

/** An ending verb + its object; a new object in the clause after it ({@link newObject}). */
function readEnding(text: string): ChangeReading | null {
  for (const w of WORDS) {
    for (const e of w.endings) {
      const m = e.re.exec(text);
      if (!m) continue;
      const { end, next: from } = clauseEnd(text, m.index + m[0].length);
      const after = text.slice(m.index + m[0].length, end).trim();
      const before = text.slice(0, m.index).trim();
      const object = after || before;
      const next = nextClause(w, text, from);
      const to = next ? newObject(w, next) : null;
      const ended = splitTimePhrase(text.slice(0, end))?.phrase;
      return {
        shape: 'ending',
        clause: text,
        object,
        slot: e.slot ?? (!e.family && JOB_NOUN.test(after) ? EMPLOYER : null),
        ...(e.family ? { family: e.family } : {}),
        ...(e.announced ? { announced: true } : {}),
        ...(to ? { to } : {}),
        ...(to && next?.when ? { when: next.when } : {}),
        ...(ended ? { ended } : {}),
        language: w.lang,
      };
    }
  }
  return null;
}
