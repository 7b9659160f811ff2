/**
 * The pattern gate: the belief gate keel runs when no local model is available. Deterministic,
 * no I/O; it reads English, Spanish, French, German and Portuguese. It answers "yes" only for
 * first-person statements of the shapes a durable fact usually takes (preferences, corrections,
 * decisions, identity, relationships, plans; the owner's current project, team, employer, home,
 * partner and routines, and their changes), for reminders the owner asks for ("remind me to …",
 * "don't let me forget …"), the owner's own appointments and deadlines with a day or time, and
 * the owner's own past events with a date ("I went to the dentist yesterday"): keel sends
 * reminders and resolves dates. It answers "no" for everything else: questions, requests,
 * hypotheticals, reported speech, reactions to the assistant, and anything it does not recognise.
 *
 * The patterns are tuned for precision over recall: a missed turn is still in the episode log and
 * can be found by recall, while a wrong "yes" costs a curator call and risks a wrong belief. The
 * labelled sets `belief-gate.labels.json` and `belief-gate.changes.labels.json` (beside this file)
 * measure both; its test prints the figures.
 *
 * This file is the engine: sentence and clause splitting, the English sentence-level patterns
 * (corrections, named relations, reminders) and the judgement. The English word lists are in
 * `patterns/vocabulary.ts`, the English clause table in `patterns/clauses.ts` and
 * `patterns/life.ts`, and each other language's rules in `patterns/<code>.ts`, read by
 * `patterns/language.ts`.
 *
 * @module
 */
import {
  BELIEF_CATEGORIES,
  type BeliefCategory,
  type BeliefGate,
  type GateVerdict,
} from './belief.js';
import { throwIfCancelled } from './cancel.js';
import { type Capture, captureExplicit } from './capture.js';
import { CLAUSE_PATTERNS } from './patterns/clauses.js';
import { GERMAN } from './patterns/de.js';
import { SPANISH } from './patterns/es.js';
import { FRENCH } from './patterns/fr.js';
import {
  judgeIn,
  type LanguagePatterns,
  type PatternHit,
  QUESTION,
  withOpening,
} from './patterns/language.js';
import { PORTUGUESE } from './patterns/pt.js';
import { MONTHS, NOT_NAMES, REL, SEASONS, WEEKDAYS, WHEN } from './patterns/vocabulary.js';

/** The pattern gate reads at most this many characters of a turn (its beginning). */
export const PATTERN_GATE_MAX_CHARS = 4000;
/** Sentences longer than this (characters) are not read: they are pasted prose, not a statement. */
const MAX_SENTENCE_CHARS = 600;

/** The pattern gate's verdict order when a turn matches several kinds: the first one wins. */
const PRIORITY: readonly BeliefCategory[] = BELIEF_CATEGORIES;
/** The languages read beside English, each by its own rules (see `patterns/language.ts`). */
const LANGUAGES: readonly LanguagePatterns[] = [SPANISH, FRENCH, GERMAN, PORTUGUESE];

// ---------------------------------------------------------------------------------------------
// Reminder requests: read over every clause, because a request phrased as a question still asks.

/** "remind me to …", "don't let me forget the rent", "make sure I remember to …". */
const REMINDER =
  /^(?:(?:please|pls|hey|so|and|also|oh|ok|okay)\s+)*(?:(?:can|could|would|will) you (?:please )?|please )?(?:remind me (?:to|that|about|of|on|at|in|tomorrow|tonight|next|this|every|before)\b(?! (?:what|how|who|whom|where|why|which|whether|if)\b)|remind me(?: please)?$|(?:do not|never) let me forget (?:to|the|my|our|about|that|tomorrow|on)\b|make sure (?:i|that i) (?:remember|do not forget) (?:to|the|my|our|about|that)\b|set (?:a|me a) reminder (?:to|for|about|that|on|at)\b)/;
/** A reminder of (or about) something needs a day or time in the sentence to be a real one. */
const REMINDER_NEEDS_TIME = /(?:remind me (?:about|of)\b|remind me(?: please)?$)/;
/** Reminders whose wording makes them uncertain or not the owner's own. */
const REMINDER_HEDGE = /\b(?:whether|maybe|perhaps|in case)\b/;

// ---------------------------------------------------------------------------------------------
// Sentence-level patterns: corrections span clauses ("Actually, my sister is Leah, not Lea").
const CORRECTION_MARKER =
  /\b(?:actually|correction|sorry|oops|my (?:mistake|bad)|i misspoke|i was wrong|scratch that|to correct|i meant)\b/;
const NOT_X_AT_END =
  /(?:,|;|—|–|\s-)\s*not\s+(?:the\s+|a\s+|an\s+|on\s+the\s+|in\s+|at\s+)?[\w'-]+(?:\s[\w'-]+)?[\s.!]*$/;
const FIRST_PERSON = /\b(?:i|my|we|our|me)\b/;
const GOT_IT_WRONG =
  /\bi (?:got|had) (?:that|it|this) wrong\b|\bi (?:was wrong|misspoke)\b|\bi meant (?:to say )?(?:that )?(?:i|my|we|our)\b/;

// ---------------------------------------------------------------------------------------------
// Text handling

/** Abbreviations whose full stop does not end a sentence. */
const ABBREVIATIONS = /\b(Dr|Mr|Mrs|Ms|Mx|St|Prof|Jr|Sr|Mt|vs|etc|approx|No)\./g;
const DOT = '\u2024'; // one-dot leader, stands in for a protected full stop

/** Contractions expanded so one pattern covers "I'm" and "I am". */
const CONTRACTIONS: readonly [RegExp, string][] = [
  [/\bi'm\b/g, 'i am'],
  [/\bim\b/g, 'i am'],
  [/\bi've\b/g, 'i have'],
  [/\bi'll\b/g, 'i will'],
  [/\bi'd\b/g, 'i would'],
  [/\bwe're\b/g, 'we are'],
  [/\bwe've\b/g, 'we have'],
  [/\bwe'll\b/g, 'we will'],
  [/\bwe'd\b/g, 'we would'],
  [/\bcan't\b/g, 'cannot'],
  [/\bwon't\b/g, 'will not'],
  [/\b(\w+)n't\b/g, '$1 not'],
  [/\b(he|she|it|that|there|what|who|where|here)'s\b/g, '$1 is'],
  [/\bgonna\b/g, 'going to'],
  [/\bwanna\b/g, 'want to'],
];

/** Discourse markers and hedges-free lead-ins stripped from the start of a clause. */
const LEAD_IN =
  /^(?:(?:oh|ah|well|also|actually|honestly|anyway|anyways|btw|by the way|fyi|just so you know|for the record|to be honest|tbh|fun fact|side note|yeah|yes|yep|no|nope|ok|okay|so|and|but|or|plus|now|then|sorry|hey|hi|hello|lol|haha|right|alright|though|because|since|as|which|while|i think(?: that)?|i guess|i feel like|i realized|i realised|i just realized|i just realised|i should mention|i should say|quick update|update|one more thing|good news|news)\b[\s!.]*)+/;
/** A time phrase at the start of a clause ("Next year I want …"). */
const LEAD_TIME = new RegExp(
  `^(?:(?:(?:next|this coming|this|last|in|from|by|starting|as of|since) (?:week|month|year|weekend|${SEASONS}|${MONTHS}|\\d{4})|` +
    `yesterday|tomorrow|tonight|(?:on |last |next |this |every |each )?${WEEKDAYS}|` +
    '(?:since|after) (?:the|my|our) (?:reorg|reorganisation|reorganization|restructure|restructuring|merger|' +
    'acquisition|move|wedding|divorce|promotion|layoffs|holidays)|' +
    '(?:every|each) (?:day|morning|evening|night|week|weekend|month|year))\\s+)+',
);

/** A sentence that opens like this is not about the real owner (hypothetical, fiction). */
const NOT_REAL =
  /^(?:if|suppose|supposing|imagine|pretend|hypothetically|assuming|what if|let's say|lets say|let us say|say (?:i|we)|in (?:the|my|this|a|your|our) (?:story|novel|book|game|dream|scenario|script|film|movie|poem|song|roleplay|role-play|play)|once upon a time)\b/;
/** A clause that asks rather than states. */
const INTERROGATIVE =
  /^(?:(?:do|does|did|can|could|would|should|will|shall|is|are|am|was|were|have|has|may|might|must)\s+(?:you|i|we|it|there|they|he|she|my|your|this|that|anyone|someone)\b|any (?:idea|tips|suggestions|advice|recommendations)\b)/;
/** A clause opening with a question word: a question at a sentence's start or in a question. */
const WH = /^(?:what|who|whom|whose|where|when|why|how|which)\b/;
/** Words that make a clause uncertain, conditional or a wish. */
const HEDGE =
  /\b(?:not sure|unsure|wonder|wondering|maybe|perhaps|might|whether|would|could|should|probably|possibly|hopefully|supposedly|if|unless|in case)\b/;
/** Someone else is speaking from here on ("she said …", "my friend thinks …"). */
const REPORTED =
  /\b(?!(?:i|we)\b)([a-z]+) (?:says?|said|tells?|told|asks?|asked|writes?|wrote|thinks?|thought|claims?|claimed)\b|\baccording to\b/;

interface Clause {
  /** Original text of the clause. */
  raw: string;
  /** Offset of the clause in its sentence. */
  start: number;
  /** Lower-cased, contractions expanded, lead-ins stripped. */
  norm: string;
}

const CLAUSE_BREAK =
  /\s*(?:[,;()\u2014\u2013]|:(?!\d)|\s-\s|\.{3}|…)\s*|\s+(?=(?:and|but|so|because|since|though|although|while|whereas|plus|which|as well as|y|e|pero|porque|et|mais|parce que|und|aber|weil|denn|mas)\s)/g;

/** Lower case, one apostrophe, contractions expanded. */
function expand(raw: string): string {
  let s = raw.toLowerCase().replace(/[‘’`´]/g, "'");
  for (const [re, to] of CONTRACTIONS) s = s.replace(re, to);
  return s;
}

/** {@link expand}, then lead-ins and a leading time phrase stripped, so a clause starts with its subject. */
function normalise(raw: string): string {
  let s = expand(raw).replace(/^[\s"'“”«»([{*_~>-]+/, '');
  let prev = '';
  while (prev !== s) {
    prev = s;
    s = s.replace(LEAD_TIME, '').replace(LEAD_IN, '').trimStart();
  }
  return s.replace(/[\s.!?"'”»)\]]+$/u, '').replace(/\s+/g, ' ');
}

function clausesOf(sentence: string): Clause[] {
  const out: Clause[] = [];
  let last = 0;
  const push = (end: number) => {
    const raw = sentence.slice(last, end);
    if (raw.trim()) out.push({ raw, start: last, norm: normalise(raw) });
  };
  for (const m of sentence.matchAll(CLAUSE_BREAK)) {
    push(m.index);
    last = m.index + m[0].length;
  }
  push(sentence.length);
  return out;
}

function sentencesOf(text: string): string[] {
  const prepared = text
    .normalize('NFKC')
    .slice(0, PATTERN_GATE_MAX_CHARS)
    .replace(/```[\s\S]*?(?:```|$)/g, '\n') // code blocks are not statements
    .replace(/https?:\/\/\S+/g, 'link')
    .replace(/"[^"\n]{1,300}"|“[^”\n]{1,300}”|«[^»\n]{1,300}»|„[^“”\n]{1,300}[“”]/g, '"…"') // quoted titles and speech
    .replace(ABBREVIATIONS, `$1${DOT}`);
  return prepared
    .split('\n')
    .filter((line) => !/^\s*>/.test(line)) // quoted replies
    .flatMap((line) => line.split(/(?<=[.!?…])\s+/))
    .map((s) => s.replaceAll(DOT, '.').trim())
    .filter((s) => s.length > 0 && s.length <= MAX_SENTENCE_CHARS);
}

/** "my sister Ana", "my husband's name is Tom", "my great-aunt, who was born …". */
const RELATION_HEAD = new RegExp(`\\b(?:my|our) ${REL}\\b`, 'giu');
const NAMED_AFTER =
  /^(?:'s name is|,? (?:named|called)|(?: is| was)? called| is| was|,)? +(?:(?:Dr|Mr|Mrs|Ms|Prof)\.? )?(\p{Lu}[\p{Ll}'’-]+)/u;
const WHO_AFTER = /^,? who (?:is|was|lives|lived|works|worked|was born|grew up)\b/i;

function namedRelation(span: string): string | null {
  for (const m of span.matchAll(RELATION_HEAD)) {
    const after = span.slice(m.index + m[0].length);
    const named = NAMED_AFTER.exec(after);
    if (named && !NOT_NAMES.has(named[1]!)) return `${m[0]}${after.slice(0, named[0].length)}`;
    if (WHO_AFTER.test(after)) return m[0];
  }
  return null;
}

/**
 * A reminder the owner asks for ("remind me to call mum on Friday", "can you remind me to …",
 * "don't let me forget the rent on the 1st"). Read over every clause up to someone else's words,
 * because a request phrased as a question is still a request; "remind me what …" and "remind me
 * how …" ask for information and are not reminders.
 */
function reminderIn(clauses: readonly Clause[], sentence: string): Hit | null {
  for (const clause of clauses) {
    if (REPORTED.test(clause.norm)) return null;
    const m = REMINDER.exec(clause.norm);
    if (!m || REMINDER_HEDGE.test(clause.norm)) continue;
    if (REMINDER_NEEDS_TIME.test(m[0]) && !WHEN.test(sentence)) continue;
    return { category: 'plan', pattern: 'reminder', excerpt: clause.raw.trim() };
  }
  return null;
}

type Hit = PatternHit;

function judgeSentence(sentence: string): Hit[] {
  const clauses = clausesOf(sentence);
  if (clauses.length === 0) return [];
  const raws = clauses.map((c) => c.raw);
  return [
    ...judgeEnglish(sentence, clauses),
    ...LANGUAGES.flatMap((l) => judgeIn(l, sentence, raws)),
  ];
}

function judgeEnglish(sentence: string, clauses: readonly Clause[]): Hit[] {
  if (NOT_REAL.test(clauses[0]!.norm)) return [];
  // The statement part of the sentence: up to the first question or someone else's words.
  let stop = clauses.length;
  const isQuestion = QUESTION.test(sentence);
  for (let i = 0; i < clauses.length; i++) {
    const c = clauses[i]!;
    // Mid-statement "who …" and "which …" are relative clauses, not questions.
    if (INTERROGATIVE.test(c.norm) || (WH.test(c.norm) && (isQuestion || i === 0))) {
      stop = i;
      break;
    }
    if (REPORTED.test(c.norm)) {
      stop = i;
      break;
    }
  }
  if (isQuestion && stop === clauses.length) stop = clauses.length - 1;
  const stated = clauses.slice(0, stop);
  if (stated.length === 0) {
    const reminder = reminderIn(clauses, expand(sentence).replace(/\s+/g, ' ').trim());
    return reminder ? [reminder] : [];
  }
  const span = sentence.slice(0, stated.at(-1)!.start + stated.at(-1)!.raw.length);
  const lowerSpan = expand(span).replace(/\s+/g, ' ').trim();
  const hits: Hit[] = [];

  if (
    FIRST_PERSON.test(lowerSpan) &&
    !HEDGE.test(lowerSpan) &&
    ((CORRECTION_MARKER.test(lowerSpan) && NOT_X_AT_END.test(lowerSpan)) ||
      GOT_IT_WRONG.test(lowerSpan))
  ) {
    hits.push({ category: 'correction', pattern: 'correction', excerpt: span });
  }
  const named = namedRelation(span);
  if (named) hits.push({ category: 'relationship', pattern: 'named relation', excerpt: named });

  for (const [i, clause] of stated.entries()) {
    if (HEDGE.test(clause.norm)) continue;
    for (const [category, name, re, check] of CLAUSE_PATTERNS) {
      const m = re.exec(clause.norm);
      if (
        m &&
        (!check ||
          check(
            m,
            lowerSpan,
            withOpening(
              clauses.map((c) => c.raw),
              i,
            ),
          ))
      ) {
        hits.push({ category, pattern: name, excerpt: clause.raw.trim() });
        break;
      }
    }
  }
  const reminder = reminderIn(clauses, expand(sentence).replace(/\s+/g, ' ').trim());
  if (reminder) hits.push(reminder);
  return hits;
}

const CAPTURE_CATEGORY: Readonly<Record<string, BeliefCategory>> = {
  preference: 'preference',
  relationship: 'relationship',
  profile: 'identity',
  constraint: 'identity',
  setting: 'preference',
  goal: 'plan',
  project: 'plan',
};

function fromCapture(c: Capture): Hit {
  return {
    category: CAPTURE_CATEGORY[c.kind] ?? 'other',
    pattern: `explicit "${c.trigger.replaceAll('_', ' ')}"`,
    excerpt: c.statement,
  };
}

function excerptOf(text: string, max = 100): string {
  const one = text.replace(/\s+/g, ' ').trim();
  return one.length <= max ? one : `${one.slice(0, max - 1)}…`;
}

/**
 * The deterministic belief gate: calibrated patterns for preferences, corrections, decisions,
 * identity statements, relationships and plans, said by the owner about themself (the current
 * project, employer, home, relationships and routines and their changes also in Spanish, French,
 * German and Portuguese), and for reminder requests, dated appointments and dated past events in
 * the owner's own life.
 * An explicit "remember that …" (see {@link captureExplicit}) is always a yes.
 *
 * It never answers `undecided` and never throws for any string; it reads at most
 * {@link PATTERN_GATE_MAX_CHARS} characters of a turn. Precision and recall on the labelled set
 * are printed by its test.
 */
export class PatternGate implements BeliefGate {
  readonly name = 'pattern' as const;

  /**
   * @param text - the owner's turn, screened by {@link screenTurn}.
   * @param options.signal - when already aborted, the judgement is refused.
   * @throws KeelError `CANCELLED` when `options.signal` is already aborted.
   */
  async judge(text: string, options: { signal?: AbortSignal } = {}): Promise<GateVerdict> {
    throwIfCancelled(options.signal);
    return judgeByPattern(text);
  }
}

/** The pattern gate's judgement, synchronously (see {@link PatternGate}). */
export function judgeByPattern(text: string): GateVerdict {
  if (typeof text !== 'string' || !/[\p{L}\p{N}]/u.test(text)) {
    return { decision: 'no', reason: 'empty turn' };
  }
  const hits: Hit[] = [];
  // An explicit statement is a yes; a plain one is judged by the patterns like any other turn.
  const capture = captureExplicit(text.slice(0, PATTERN_GATE_MAX_CHARS));
  if (capture && capture.trigger !== 'plain') hits.push(fromCapture(capture));
  for (const sentence of sentencesOf(text)) hits.push(...judgeSentence(sentence));
  if (hits.length === 0) {
    return { decision: 'no', reason: 'no pattern for a durable fact about the owner matched' };
  }
  hits.sort((a, b) => PRIORITY.indexOf(a.category) - PRIORITY.indexOf(b.category));
  const best = hits[0]!;
  return {
    decision: 'yes',
    category: best.category,
    reason: `${best.category} (${best.pattern}): "${excerptOf(best.excerpt)}"`,
  };
}
