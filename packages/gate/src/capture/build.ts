/**
 * The slots every language's rules build: one function per slot shape, so "my sister is Ada",
 * "mi hermana se llama Lucía" and "meine Schwester heißt Lucía" land the same way, and a
 * restatement worded differently ("I moved to Lyon", "I live in Lyon now") lands in the same slot.
 *
 * Single-valued slots (home, employer, current project, a relation's name) are never filled by
 * an additive statement ("I also work at Globex", "Sam also runs …"): that is a second fact, not
 * a correction of the first, so the builders return null and the statement falls through to a
 * slot of its own.
 *
 * @module
 */
import { NOT_NAMES } from '../patterns/vocabulary.js';
import type { CaptureSlot, RuleHelpers } from './common.js';

/** An indefinite article opening a noun phrase, in the languages capture reads. */
const INDEFINITE =
  /^(?:a|an|another|un|una|une|uno|ein|eine|einen|einer|um|uma|otro|otra|outro|outra)\s/iu;

/** The owner. */
const OWNER = 'owner';

/** Names of platforms and services that follow "I'm on" without being a project. */
const NOT_PROJECTS = new Set(
  (
    'Facebook Instagram Twitter X TikTok LinkedIn WhatsApp Signal Telegram Discord Slack Teams ' +
    'Reddit Mastodon Bluesky Threads Snapchat YouTube Netflix Spotify Hinge Tinder Bumble Strava ' +
    'Duolingo Windows Linux Mac macOS Android iOS iPhone Ubuntu Medicare Medicaid Day Week Level ' +
    'Page Chapter Season Episode Step Call Duty Leave Holiday Vacation Break Mute Speaker'
  ).split(' '),
);

/** True when `word` starts with an upper-case letter and is not a sentence word ("The", "May"). */
export function isCapitalised(word: string): boolean {
  return /^\p{Lu}/u.test(word) && !NOT_NAMES.has(word);
}

/** True when `text` starts with a letter of a script that has no case (so it may be a name). */
function uncased(text: string): boolean {
  const c = /\p{L}/u.exec(text)?.[0];
  return c !== undefined && c.toLowerCase() === c.toUpperCase();
}

/** A name-like value: capitalised, or in a script without case. */
export function nameLike(text: string): boolean {
  return isCapitalised(text) || uncased(text);
}

/**
 * "my X is Y" in any language: a relationship when X names one ("my dentist", "mi hermana"),
 * else a profile field ("my phone number"). When X is a relation followed by a name ("my sister
 * Ana is a nurse"), the statement is about that person, not the relation's slot.
 *
 * @param x - the possessed noun phrase, without the possessive.
 * @param y - what it is, in the owner's words.
 * @param clip - cut y at its first clause (names: "Lucía y vive en Sevilla" → "Lucía").
 */
export function possessive(h: RuleHelpers, x: string, y: string, clip = false): CaptureSlot | null {
  const words = x.trim().split(/\s+/);
  const last = words.at(-1) ?? '';
  if (words.length > 1 && isCapitalised(last) && h.isRelation(words.slice(0, -1).join(' '))) {
    return aboutSomeone(h, last, y);
  }
  if (h.additive) return null;
  // "my current project is Atlas" is the project slot every wording of it fills.
  if (/^(?:project|proyecto|projet|projekt|projeto)$/iu.test(last)) {
    const current = project(
      h,
      y,
      /(?<![\p{L}])(?:project|proyecto|projet|projekt|projeto)(?![\p{L}])/iu,
    );
    if (current) return current;
  }
  // A relation is a person, said in one clause ("Dr. Wolff, nicht Becker" → "Dr. Wolff"); an
  // article before a name or a number is no part of it ("das McFit", "le 06 71 43 92 18"; "The
  // National", capitalised, is the name).
  const value = (clip || h.isRelation(x) ? h.clip(y) : h.trim(y)).replace(
    /^(?:the|le|la|l['’]|el|das|der|die|den|o|a)\s*(?=\p{Lu}|\p{N}|\(|\+)/u,
    '',
  );
  if (!value || h.negated(value)) return null;
  const key = h.slug(x);
  if (!key) return null;
  return { kind: h.isRelation(x) ? 'relationship' : 'profile', key, value, about: OWNER };
}

/**
 * The owner's partner, named: relationship/spouse for a marriage, relationship/partner for a
 * couple ("I'm married to Priya", "je suis en couple avec Mathis", "ich bin mit Jonas
 * verheiratet"); the article a language puts before a name ("o Thiago") left out.
 */
export function partner(
  h: RuleHelpers,
  key: 'spouse' | 'partner',
  who: string,
): CaptureSlot | null {
  if (h.additive) return null;
  const value = h.clip(who).replace(/^(?:o|a|el|la|le|the|der|die|den)\s+(?=\p{Lu})/u, '');
  if (!value || !nameLike(value) || h.negated(value)) return null;
  return { kind: 'relationship', key, value, about: OWNER };
}

/** "my favourite X is Y" → preference/favourite_X. */
export function favourite(h: RuleHelpers, x: string, y: string): CaptureSlot | null {
  const key = h.slug(x);
  const value = h.trim(y);
  if (!key || !value || h.negated(value)) return null;
  return { kind: 'preference', key: `favourite_${key}`, value, about: OWNER };
}

/** A like or a dislike of `object`: preference/<object>, the whole sentence as the value. */
export function preference(h: RuleHelpers, object: string): CaptureSlot | null {
  const key = h.slug(h.trim(object));
  return key ? { kind: 'preference', key, value: h.sentence, about: OWNER } : null;
}

/** An allergy to `object`: constraint/allergy_<object>, the whole sentence as the value. */
export function allergy(h: RuleHelpers, object: string): CaptureSlot | null {
  const key = h.slug(h.trim(object));
  return key
    ? { kind: 'constraint', key: `allergy_${key}`, value: h.sentence, about: OWNER }
    : null;
}

/** The diet the owner follows now ("vegetarian", "vegana"): profile/diet, the word as said. */
export function diet(h: RuleHelpers, word: string): CaptureSlot | null {
  if (h.additive) return null;
  const value = h.trim(word);
  return value ? { kind: 'profile', key: 'diet', value, about: OWNER } : null;
}

/** Where the owner lives now: profile/home. */
export function home(h: RuleHelpers, place: string): CaptureSlot | null {
  if (h.additive) return null;
  const value = h.clip(place);
  // "a new flat", "un piso nuevo", "eine größere Wohnung": a kind of home, not where it is.
  if (INDEFINITE.test(value)) return null;
  return value ? { kind: 'profile', key: 'home', value, about: OWNER } : null;
}

/**
 * Where the owner works now: profile/employer.
 *
 * @param named - require a name-like value ("I joined Globex", not "I joined a choir").
 */
export function employer(h: RuleHelpers, org: string, named = false): CaptureSlot | null {
  if (h.additive) return null;
  const value = h.clip(org);
  if (!value || (named && !nameLike(value))) return null;
  return { kind: 'profile', key: 'employer', value, about: OWNER };
}

/**
 * The project the owner is on now: project/current_project, the value the project's name as said
 * ("Project Falcon", "Heron"). A name must be capitalised or follow the word "project" in the
 * owner's language, so "I'm on holiday" or "I'm on the night shift" is not a project.
 *
 * @param projectWord - the word for "project" in the statement's language.
 */
export function project(
  h: RuleHelpers,
  raw: string,
  projectWord: RegExp = /\bproject\b/i,
): CaptureSlot | null {
  if (h.additive) return null;
  const value = h
    .clip(raw)
    .replace(/^(?:the|el|la|le|l['’]|der|das|die|o|a)\s*/i, '')
    .trim();
  if (!value) return null;
  const words = value.split(/\s+/);
  const named = projectWord.test(value)
    ? words.some((w) => !projectWord.test(w))
    : words.length <= 3 && nameLike(value) && !NOT_PROJECTS.has(words[0]!);
  return named ? { kind: 'project', key: 'current_project', value, about: OWNER } : null;
}

/** The owner's name: profile/name. */
export function ownName(h: RuleHelpers, raw: string): CaptureSlot | null {
  const value = h.name(raw);
  return value ? { kind: 'profile', key: 'name', value, about: OWNER } : null;
}

/** What the owner wants to be called: profile/preferred_name. */
export function preferredName(h: RuleHelpers, raw: string): CaptureSlot | null {
  const value = h.name(raw);
  return value ? { kind: 'profile', key: 'preferred_name', value, about: OWNER } : null;
}

/**
 * A statement about someone else, under their key: `<who>.<attribute>`, the whole sentence as
 * the value (the same shape reflection uses for other people's attributes, e.g. `sam.employer`).
 *
 * @param who - the person: a name, or a relation word.
 * @param attribute - a fixed attribute ("home", "employer"); otherwise the slug of `rest`.
 * @returns a relationship slot for a fixed attribute, a note otherwise.
 */
export function aboutSomeone(
  h: RuleHelpers,
  who: string,
  rest: string,
  attribute?: string,
): CaptureSlot | null {
  const person = h.slug(who, 2);
  if (!person) return null;
  if (attribute && !h.additive) {
    return {
      kind: 'relationship',
      key: `${person}.${attribute}`,
      value: h.sentence,
      about: person,
    };
  }
  const what = h.slug(rest, 3);
  return what ? { kind: 'note', key: `${person}.${what}`, value: h.sentence, about: person } : null;
}
