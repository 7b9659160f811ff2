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
import type { CaptureLanguage, CaptureSlot } from './common.js';

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
  /** The time phrase of what holds instead after a stop ("seit Januar"), when it has one. */
  when?: string;
  language: CaptureLanguage;
}

/** One language's words for the three shapes. */
interface ChangeWords {
  readonly lang: CaptureLanguage;
  /** A negation that says "no longer"; its match is removed to read the positive clause. */
  readonly negation: RegExp;
  /** Words of a negation ("not", "n't", "don't") removed with it for the positive reading. */
  readonly negationWords: RegExp;
  /** Ending verbs, with the class of slot they end when no object is named. */
  readonly endings: readonly {
    re: RegExp;
    slot?: { kind: Kind; key: string };
    family?: SlotFamily;
  }[];
  /** Change constructions: groups `from` and `to`. */
  readonly changes: readonly RegExp[];
}

const W = '(?![\\p{L}\\p{M}])';
const B = '(?<![\\p{L}\\p{M}])';
const re = (src: string) => new RegExp(src, 'iu');
const EMPLOYER = { kind: 'profile' as Kind, key: 'employer' };
const HOME = { kind: 'profile' as Kind, key: 'home' };

const WORDS: readonly ChangeWords[] = [
  {
    lang: 'en',
    negation: re(
      `(?:${B}(?:no longer|not any ?more)|(?:${B}not|n['’]t|${B}never)${W}.*?${B}(?:any ?more|any longer))${W}`,
    ),
    negationWords: re(
      `${B}(?:no longer|(?:do|does|did|am|is|are)(?:n['’]t| not)|not|never|any ?more|any longer)${W}|n['’]t${W}`,
    ),
    endings: [
      {
        re: re(`${B}(?:split up|broke up|separated|divorced|dumped|parted ways)${W}`),
        family: 'partner',
      },
      {
        re: re(`${B}(?:retired|resigned|got (?:fired|laid off)|was (?:fired|laid off))${W}`),
        slot: EMPLOYER,
      },
      { re: re(`${B}moved out${W}`), slot: HOME },
      {
        re: re(
          `${B}(?:left|quit|quitted|stopped|ended|gave up|give up|cancel(?:l)?ed|switched away from|moved away from|dropped|finished with)${W}`,
        ),
      },
    ],
    changes: [
      re(
        `${B}(?:switched|went|moved|changed|swapped|migrated|converted|upgraded|downgraded|transitioned|shifted|gone)\\s+(?:over\\s+)?from\\s+(?<from>.+?)\\s+(?:to|over to|onto)\\s+(?<to>.+)$`,
      ),
      re(
        `${B}(?:swapped|traded|exchanged|replaced|ditched|dropped)\\s+(?<from>.+?)\\s+(?:for|with)\\s+(?<to>.+)$`,
      ),
    ],
  },
  {
    lang: 'es',
    negation: re(`${B}(?:ya no|no\\s.*?${B}(?:más|nunca más)|nunca más)${W}`),
    negationWords: re(`${B}(?:ya no|no|más|nunca)${W}`),
    endings: [
      {
        re: re(
          `${B}(?:lo dejamos|rompimos|nos separamos|me separé|nos divorciamos|me divorcié|cortamos)${W}`,
        ),
        family: 'partner',
      },
      { re: re(`${B}(?:me jubilé|me retiré|renuncié|dimití|me despidieron)${W}`), slot: EMPLOYER },
      {
        re: re(
          `${B}(?:dejé|deje|terminé|termine|acabé con|dejé de|me di de baja|cancelé|salí de|me fui de)${W}`,
        ),
      },
    ],
    changes: [
      re(
        `${B}(?:cambié|cambie|pasé|pase|me cambié|me pasé|me mudé)\\s+(?:de\\s+)?(?<from>.+?)\\s+(?:a|al|por)\\s+(?<to>.+)$`,
      ),
    ],
  },
  {
    lang: 'fr',
    negation: re(`${B}(?:ne\\s+|n['’])(?:\\S+\\s+){0,2}?plus${W}|${B}plus jamais${W}`),
    negationWords: re(`${B}(?:ne|plus|jamais)${W}|${B}n['’]`),
    endings: [
      {
        re: re(`${B}(?:séparés|séparées|séparé|séparée|rompu|largué|quittés)${W}`),
        family: 'partner',
      },
      {
        re: re(`${B}(?:pris ma retraite|démissionné|licencié|licenciée|viré|virée)${W}`),
        slot: EMPLOYER,
      },
      { re: re(`${B}déménagé${W}`), slot: HOME },
      { re: re(`${B}(?:quitté|arrêté|abandonné|résilié|laissé tomber|fini avec|terminé)${W}`) },
    ],
    changes: [
      re(
        `${B}(?:passée?|changée?|migrée?)\\s+(?:de|du|des)\\s+(?<from>.+?)\\s+(?:à|a|au|aux|vers|pour)\\s+(?<to>.+)$`,
      ),
      re(`${B}(?:remplacé|échangé)\\s+(?<from>.+?)\\s+(?:par|contre)\\s+(?<to>.+)$`),
    ],
  },
  {
    lang: 'de',
    negation: re(`${B}(?:nicht mehr|kein(?:e|en|er|em)? \\S+ mehr|nie mehr|nicht länger)${W}`),
    negationWords: re(`${B}(?:nicht|mehr|nie|länger)${W}`),
    endings: [
      {
        re: re(
          `${B}(?:getrennt|schluss gemacht|geschieden|auseinander gegangen|auseinandergegangen)${W}`,
        ),
        family: 'partner',
      },
      {
        re: re(`${B}(?:in rente|in pension|gekündigt|entlassen|rausgeworfen)${W}`),
        slot: EMPLOYER,
      },
      { re: re(`${B}ausgezogen${W}`), slot: HOME },
      {
        re: re(
          `${B}(?:aufgehört|verlassen|beendet|aufgegeben|abbestellt|abgemeldet|gekündigt)${W}`,
        ),
      },
    ],
    changes: [
      re(
        `${B}von\\s+(?<from>.+?)\\s+(?:zu|zum|zur|auf|nach)\\s+(?<to>.+?)(?:\\s+(?:gewechselt|umgestiegen|umgezogen|gegangen))?$`,
      ),
    ],
  },
  {
    lang: 'pt',
    negation: re(`${B}(?:já não|não\\s.*?${B}mais|nunca mais)${W}`),
    negationWords: re(`${B}(?:já não|não|mais|nunca)${W}`),
    endings: [
      {
        re: re(
          `${B}(?:terminei com|terminamos|separamos|nos separamos|me separei|acabamos|nos divorciamos|me divorciei)${W}`,
        ),
        family: 'partner',
      },
      {
        re: re(
          `${B}(?:me aposentei|aposentei-me|pedi demissão|me demiti|demiti-me|fui demitid[oa])${W}`,
        ),
        slot: EMPLOYER,
      },
      { re: re(`${B}(?:saí|sai|deixei|larguei|parei|cancelei|desisti)${W}`) },
    ],
    changes: [
      re(
        `${B}(?:mudei|troquei|passei|migrei)\\s+(?:de|do|da)\\s+(?<from>.+?)\\s+(?:para|pra|pro|pela|pelo)\\s+(?<to>.+)$`,
      ),
    ],
  },
];

/**
 * Relation keys of a couple, in the languages capture knows (the keys "my boyfriend is Kofi",
 * "mi novia se llama Lucía", "meine Freundin heißt Lena" land under): a couple's ending closes
 * them ({@link SlotFamily} `partner`).
 */
export const PARTNER_KEYS: ReadonlySet<string> = new Set(
  (
    'partner boyfriend girlfriend wife husband fiance fiancee fiancé fiancée spouse ' +
    'novio novia pareja esposo esposa marido mujer prometido prometida ' +
    'copain copine compagnon compagne mari femme fiancé fiancée conjoint conjointe ' +
    'freund freundin partnerin ehemann ehefrau mann frau verlobte verlobter lebensgefährte lebensgefährtin ' +
    'namorado namorada noivo noiva companheiro companheira'
  ).split(' '),
);

/** Nouns for the owner's work: an ending whose object is one ("I quit my job") ends the employer. */
const JOB_NOUN =
  /(?<![\p{L}\p{M}])(?:job|work|position|employer|company|trabajo|empleo|curro|empresa|boulot|travail|poste|boîte|taf|arbeit|stelle|job|firma|arbeitgeber|emprego|trabalho|empresa)(?![\p{L}\p{M}])/iu;

/** Cuts a value at its first clause ("Arkose, the climbing gym" → "Arkose"). */
function firstClause(text: string): string {
  return text
    .split(/\s*(?:[,;:(]|\s[-—–]\s|\.\s)/u)[0]!
    .replace(/[.!?…\s]+$/u, '')
    .trim();
}

/** Where the clause of a stop ends and what follows it begins (a comma, a semicolon, a dash). */
const CLAUSE_BREAK = /\s*(?:[,;:]|\s[-—–]\s)\s*/gu;

const escapeRe = (x: string) => x.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * What a stop's next clause says holds instead, in the stopped slot: "ya no trabajo en
 * Telefónica, ahora estoy en BBVA" → BBVA; "ich wohne nicht mehr in Köln, seit Januar in
 * Leipzig" → Leipzig. The next clause is read on its own first; when it places nothing in that
 * slot, it is read as the stop's positive clause with the new object in place of the old (the
 * words after the old value's preposition, when the next clause repeats it; else the whole
 * clause, when it is a short name). Its time phrase is kept apart as `when`.
 */
function continuation(
  text: string,
  after: number,
  positive: string,
  placed: CaptureSlot,
  place: (positive: string) => CaptureSlot | null,
): { opens: CaptureSlot; when?: string } | null {
  CLAUSE_BREAK.lastIndex = after;
  const brk = CLAUSE_BREAK.exec(text);
  if (!brk || brk[0].trim() === '') return null;
  const rest = text.slice(brk.index + brk[0].length).trim();
  if (!/[\p{L}\p{N}]/u.test(rest)) return null;
  const timed = splitTimePhrase(rest);
  const body = timed?.rest ?? rest;
  const same = (slot: CaptureSlot | null): slot is CaptureSlot =>
    slot !== null &&
    slot.kind === placed.kind &&
    slot.key === placed.key &&
    slot.about === placed.about;
  const withWhen = (opens: CaptureSlot) => (timed ? { opens, when: timed.phrase } : { opens });
  const own = place(body);
  if (same(own)) return withWhen(own);
  const at = positive.toLocaleLowerCase().indexOf(placed.value.toLocaleLowerCase());
  if (at <= 0) return null;
  const predicate = positive.slice(0, at);
  const preposition = /(\S+)\s+$/u.exec(predicate)?.[1];
  const repeated = preposition
    ? new RegExp(`(?<![\\p{L}\\p{M}])${escapeRe(preposition)}\\s+(.+)$`, 'iu').exec(body)
    : null;
  const object = repeated?.[1] ?? (body.split(/\s+/u).length <= 3 ? body : null);
  if (!object) return null;
  const elided = place(predicate + object);
  return same(elided) ? withWhen(elided) : null;
}

/**
 * Reads whether `clause` (one sentence of the owner's, without its trigger) says that something
 * stopped or changed, in the languages capture knows.
 *
 * @param place - places a positive clause in a slot (capture's slot rules), or null.
 * @returns the reading, or null when the clause has none of the three shapes.
 */
export function readChangeClause(
  clause: string,
  place: (positive: string) => CaptureSlot | null,
): ChangeReading | null {
  const text = clause.trim().replace(/[.!?…\s]+$/u, '');
  if (!text) return null;
  for (const w of WORDS) {
    for (const c of w.changes) {
      const m = c.exec(text);
      const from = m?.groups?.from && firstClause(m.groups.from);
      const to = m?.groups?.to && firstClause(m.groups.to);
      if (!from || !to) continue;
      const opens = place(text);
      return {
        shape: 'change',
        clause: text,
        object: from,
        to,
        slot: opens ? { kind: opens.kind, key: opens.key } : null,
        opens,
        language: w.lang,
      };
    }
  }
  for (const w of WORDS) {
    const m = w.negation.exec(text);
    if (!m) continue;
    const positive = text
      .replace(new RegExp(w.negationWords.source, 'giu'), ' ')
      .replace(/\s+/gu, ' ')
      .trim();
    const placed = positive ? place(positive) : null;
    const next = placed ? continuation(text, m.index + m[0].length, positive, placed, place) : null;
    return {
      shape: 'negation',
      clause: text,
      object: text.slice(m.index + m[0].length).trim() || text.slice(0, m.index).trim(),
      slot: placed ? { kind: placed.kind, key: placed.key } : null,
      ...(next
        ? { opens: next.opens, to: next.opens.value, ...(next.when ? { when: next.when } : {}) }
        : {}),
      language: w.lang,
    };
  }
  for (const w of WORDS) {
    for (const e of w.endings) {
      const m = e.re.exec(text);
      if (!m) continue;
      const after = text.slice(m.index + m[0].length).trim();
      const before = text.slice(0, m.index).trim();
      const object = after || before;
      return {
        shape: 'ending',
        clause: text,
        object,
        slot: e.slot ?? (!e.family && JOB_NOUN.test(after) ? EMPLOYER : null),
        ...(e.family ? { family: e.family } : {}),
        language: w.lang,
      };
    }
  }
  return null;
}
