/**
 * The one write of the owner's statement, shared by every door: the terminal with a model and
 * the offline terminal (and so Discord, which runs one of them). Capture never fails a turn: an
 * error is recorded against the turn's episode (`keel doctor` lists it) and returned for the door
 * to say.
 *
 * Corrections are by slot, not by phrase. For each owner line:
 *
 * 1. **what it says stopped or changed** (`readCorrection`: negation + the slot's predicate, an
 *    ending verb + its object, a change from A to B) is resolved against memory: the belief of the
 *    slot the clause places, of the family its verb ends (a couple's ending: the partner
 *    relations), or whose value the clause mentions (folded content words). The owner's word
 *    closes it (`retracted`, `valid_to` the turn's time, history kept); a change opens B in A's
 *    slot (an update: A superseded).
 * 2. **what it states** (`captureExplicit`: "remember that …", a correction, or a plain statement
 *    in a known slot) is written as `owner_stated`: a new value in a held slot supersedes it.
 * 3. **what it may replace**: a statement that placed nothing in a slot (nothing, or a note) and
 *    closed nothing, whose content words overlap a current owner belief's value, becomes a
 *    pending question on that belief ("does … mean f3 no longer holds?"), never a silent second
 *    certainty. A line about someone else ("my brother bought a flat in Valparaíso") asks
 *    nothing: it mentions what the owner holds without saying anything of it.
 *
 * @module
 */
import { KeelError } from '@keel/errors';
import {
  type Capture,
  type ChangeReading,
  captureExplicit,
  type Fragment,
  laterClauses,
  PARTNER_KEYS,
  readCorrection,
  readFragment,
  readPastState,
  readPresence,
  saysGoesOn,
  sentencesOf,
  speaksOfOthers,
  speechActOf,
} from '@keel/gate';
import {
  contentWords,
  foldText,
  hasCjk,
  mentions,
  resolveStart,
  splitTimePhrase,
} from '@keel/language';
import {
  type Fact,
  isOwnerSource,
  type MemoryStore,
  normalizeKey,
  type PendingQuestion,
  type WriteResult,
} from '@keel/memory';

/** What capturing one owner line did. */
export interface OwnerCapture {
  /** The write review's result, or null when the line states nothing to keep (or it failed). */
  write: WriteResult | null;
  /** Writes of the line's further sentences ("… My boyfriend is Kenji now"), in order. */
  also: WriteResult[];
  /** Beliefs the line closed on the owner's word (retracted, history kept), as they are now. */
  closed: Fact[];
  /** Pending questions the line raised: beliefs it may replace, for the owner to answer. */
  questions: PendingQuestion[];
  /** Why the capture failed (the episode is stored all the same), or null. */
  error: { code: string; message: string } | null;
}

/** The most questions one line raises. */
export const MAX_QUESTIONS_PER_LINE = 3;

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
function overlaps(a: Set<string>, b: Set<string>): boolean {
  for (const w of a) if (b.has(w)) return true;
  return false;
}

/** Whether `subject` names `value` itself, not something of its ("Sam's dad" names no "Sam"). */
function holdsWhole(subject: string, value: string): boolean {
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
function ownBeliefs(store: MemoryStore): Fact[] {
  return store.activeFacts('owner').filter((f) => !f.key.includes('.'));
}

/** The beliefs a stop or a change is about: its slot's, its family's, or those it mentions. */
function targetsOf(store: MemoryStore, reading: ChangeReading, except: number | null): Fact[] {
  const beliefs = ownBeliefs(store).filter((f) => f.id !== except);
  const said = subjectWords(reading.shape === 'change' ? reading.object : reading.clause);
  // A contrast names the value it corrects as a whole ("Dr. Lindqvist, not Dr. Okafor"); the
  // subject of an ending names it whole, or holds it ("my job at Deloitte is over"), not as
  // someone else's ("Sam's dad died" is not about Sam).
  const mentioned = beliefs.filter((f) =>
    reading.contrast
      ? mentions(f.value, reading.object)
      : reading.subject
        ? mentions(f.value, reading.object) || holdsWhole(reading.object, f.value)
        : mentions(reading.clause, f.value) || overlaps(said, subjectWords(f.value)),
  );
  const inSlot = beliefs.filter(
    (f) =>
      (reading.slot !== null && f.kind === reading.slot.kind && f.key === reading.slot.key) ||
      (reading.family === 'partner' && f.kind === 'relationship' && PARTNER_KEYS.has(f.key)),
  );
  if (inSlot.length === 0) return mentioned;
  const both = inSlot.filter((f) => mentioned.includes(f));
  if (both.length > 0) return both;
  // A subject names whom it is about ("my ex, Arjun"): never another of the family.
  if (reading.subject) return [];
  // An ending verb's class of slot yields to the belief its object names ("Hab bei McFit
  // gekündigt" ends the gym, not the job).
  if (reading.shape === 'ending' && !reading.family && mentioned.length > 0) return mentioned;
  return inSlot;
}

interface LineContext {
  store: MemoryStore;
  episodeId: number;
  /** The owner's whole line, when a sentence is read from it. */
  line?: string;
  /** When the line was said (ms since epoch). */
  said: number;
  tz: string;
}

/**
 * Closes `fact` on the owner's word as of the line, or as of the day its time phrase names ("I
 * left Nubank yesterday": valid_to is yesterday's start in the owner's zone).
 */
function close(ctx: LineContext, fact: Fact, reading: ChangeReading): Fact | null {
  const day = endedOn(ctx, reading);
  const r = ctx.store.retract(fact.id, {
    actor: 'owner',
    why: `the owner said it stopped (${reading.shape}, episode ${ctx.episodeId})`,
    episodeId: ctx.episodeId,
    ...(day ? { endedAt: day.startMs } : {}),
  });
  return r.retracted ? r.fact : null;
}

/**
 * The day a stop's own words say it ended, at or before the line, or null. When its clause says
 * no day, a later sentence of the same line may ("the course is over!! last class was last
 * Thursday"): the first day one of them names, at or before the line.
 */
function endedOn(ctx: LineContext, reading: ChangeReading): { startMs: number } | null {
  const phrases = reading.ended
    ? [reading.ended]
    : (ctx.line ? sentencesOf(ctx.line).slice(1) : []).flatMap((s) => {
        const phrase = splitTimePhrase(s)?.phrase;
        return phrase ? [phrase] : [];
      });
  for (const phrase of phrases) {
    const day = resolveStart(phrase, ctx.said, ctx.tz, { pastWeekday: true });
    if (day && day.startMs <= ctx.said) return day;
  }
  return null;
}

/** Writes a capture as the owner's word, its start from its time phrase when it names a day. */
function write(ctx: LineContext, capture: Capture): WriteResult {
  // Said in the past ("J'ai commencé chez Airbus vendredi"), a weekday alone is the last one.
  const day = capture.when
    ? resolveStart(capture.when, ctx.said, ctx.tz, { pastWeekday: capture.past === true })
    : null;
  return ctx.store.remember({
    kind: capture.kind,
    key: capture.key,
    value: capture.value,
    source: 'owner_stated',
    episodeId: ctx.episodeId,
    actor: 'owner',
    ...(day && day.startMs <= ctx.said ? { validFrom: day.startMs } : {}),
  });
}

/**
 * A change from A to B. The belief that held A decides where B goes: its slot, as an update (A
 * superseded, history kept), whatever slot the rules would guess for the line; a belief keyed by
 * A itself ("preference/green_tea") or a note is closed, and B is kept where the rules place the
 * line, else in a slot of its own. With no belief holding A, the line is captured as it is.
 */
function applyChange(
  ctx: LineContext,
  reading: ChangeReading,
  capture: Capture | null,
): { write: WriteResult | null; closed: Fact[] } {
  const to = reading.to!;
  const old = targetsOf(ctx.store, reading, null)[0];
  if (!old) return { write: capture ? write(ctx, capture) : null, closed: [] };
  const keyedByA = overlaps(
    subjectWords(old.key.replace(/[_.-]+/g, ' ')),
    subjectWords(reading.object),
  );
  if (old.kind !== 'note' && !keyedByA) {
    const sameSlot = capture && capture.kind === old.kind && capture.key === old.key;
    // A dated stop ("moved out of Munich on 28 February — I'm in Leipzig now") ends A on its day;
    // B is then kept in A's slot with its start unknown.
    const closed = endedOn(ctx, reading) ? close(ctx, old, reading) : null;
    const r = ctx.store.remember({
      kind: old.kind,
      key: old.key,
      value: sameSlot
        ? capture.value
        : reading.opens?.kind === old.kind && reading.opens.key === old.key
          ? reading.opens.value
          : to,
      source: 'owner_stated',
      episodeId: ctx.episodeId,
      actor: 'owner',
    });
    return { write: r, closed: closed ? [closed] : [] };
  }
  const closed: Fact[] = [];
  const c = close(ctx, old, reading);
  if (c) closed.push(c);
  if (capture && capture.kind !== 'note') return { write: write(ctx, capture), closed };
  const key = contentWords(to).slice(0, 3).join('_');
  let r: WriteResult | null = null;
  try {
    r = ctx.store.remember({
      kind: old.kind,
      key: old.kind === 'note' || !key ? (capture?.key ?? normalizeKey(key || 'change')) : key,
      value: reading.clause.charAt(0).toUpperCase() + reading.clause.slice(1),
      source: 'owner_stated',
      episodeId: ctx.episodeId,
      actor: 'owner',
    });
  } catch (err) {
    if (!KeelError.isInstance(err) || err.code !== 'INVALID_INPUT') throw err;
  }
  return { write: r, closed };
}

/**
 * Whether a note says no more than what the line closed ("sold the Civic" once the Civic is
 * closed): it shares a subject word with a closed belief. A note of something else the line
 * says ("got an iphone 15, traded in the galaxy") is kept.
 */
function saysWhatClosed(note: Capture, closed: readonly Fact[]): boolean {
  const said = subjectWords(note.value);
  return closed.some((f) => overlaps(said, subjectWords(f.value)));
}

/**
 * What a stop says holds instead ("ya no trabajo en Telefónica, ahora estoy en BBVA"): the new
 * value in the stopped slot, as the owner's statement, when the line states nothing more specific
 * (no capture, or only a note).
 */
function insteadOfStop(
  reading: ChangeReading | null,
  capture: Capture | null,
  text: string,
): Capture | null {
  if (reading?.shape !== 'negation' || !reading.opens) return capture;
  if (capture && capture.kind !== 'note') return capture;
  return {
    trigger: 'plain',
    statement: text,
    language: reading.language,
    ...reading.opens,
    ...(reading.when ? { when: reading.when } : {}),
  };
}

/**
 * The slot an owner's capture names in fewer words than a belief already held: when the
 * capture's slot is empty and exactly one owner belief of the same kind has a key holding all of
 * its words ("my new number is …" → the held `phone_number`), the capture is about that slot.
 */
function heldSlotFor(store: MemoryStore, capture: Capture): Capture {
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

/**
 * Pending questions for the owner beliefs a statement may replace: those whose value shares a
 * subject word with the line ({@link subjectWords}), at most {@link MAX_QUESTIONS_PER_LINE}.
 */
function askAboutOverlaps(
  ctx: LineContext,
  text: string,
  except: number | null,
): PendingQuestion[] {
  const said = subjectWords(text);
  if (said.size === 0) return [];
  const questions: PendingQuestion[] = [];
  for (const f of ownBeliefs(ctx.store)) {
    if (questions.length >= MAX_QUESTIONS_PER_LINE) break;
    if (f.id === except || !isOwnerSource(f.source)) continue;
    if (!overlaps(said, subjectWords(f.value))) continue;
    const { question } = ctx.store.ask(f.id, {
      actor: 'owner',
      said: text,
      episodeId: ctx.episodeId,
    });
    questions.push(question);
  }
  return questions;
}

/**
 * The owner's slot a fragment names ("GP" → relationship/gp, "number" → profile/phone_number,
 * "numéro" → profile/numéro): the one owner belief whose key is the name, or holds all its words.
 */
function slotNamed(store: MemoryStore, name: string): Fact | null {
  const key = normalizeKey(name.toLowerCase());
  const words = key.split(/[_.-]+/).filter(Boolean);
  if (words.length === 0) return null;
  const held = ownBeliefs(store).filter(
    (f) =>
      f.kind !== 'note' &&
      isOwnerSource(f.source) &&
      (f.key === key || words.every((w) => f.key.split(/[_.-]+/).includes(w))),
  );
  return held.length === 1 ? held[0]! : null;
}

/** The shapes of value a slot may be known by when its name is not the one said. */
const VALUE_SHAPES: readonly RegExp[] = [
  /^\+?[\d()][\d ()./-]{5,}\d$/u, // a phone number: 7 or more digits and separators
  /^[^\s@]+@[^\s@]+\.[^\s@]+$/u, // an email address
];

/**
 * The one owner slot whose value has the shape of `value` ("my number changed, it's 07700 900982"
 * → the held `mobile`, a phone number too), or null when none or several do.
 */
function slotShaped(store: MemoryStore, value: string): Fact | null {
  const shape = VALUE_SHAPES.find((re) => re.test(value.trim()));
  if (!shape) return null;
  const held = ownBeliefs(store).filter(
    (f) => f.kind !== 'note' && isOwnerSource(f.source) && shape.test(f.value.trim()),
  );
  return held.length === 1 ? held[0]! : null;
}

/**
 * Writes `value` in `slot`'s place as the owner's word (the slot's value superseded), true since
 * the day `when` names ("new barber since last tuesday — Emeka") when it names one at or before
 * the line.
 */
function rewrite(ctx: LineContext, slot: Fact, value: string, when?: string): WriteResult {
  const day = when ? resolveStart(when, ctx.said, ctx.tz, { pastWeekday: true }) : null;
  return ctx.store.remember({
    kind: slot.kind,
    key: slot.key,
    value,
    source: 'owner_stated',
    episodeId: ctx.episodeId,
    actor: 'owner',
    ...(day && day.startMs <= ctx.said ? { validFrom: day.startMs } : {}),
  });
}

/**
 * A fragment that names its slot ("oh and GP — Dr. Nakamura these days", "nouveau numéro : …",
 * "mudei de número, agora é …"): the new value in the owner's slot of that name; with no slot of
 * that name held, a profile slot of its own. Null for a fragment with no name (the line's caller
 * puts it in the slot the line closed) or none at all.
 */
function namedFragment(ctx: LineContext, fragment: Fragment | null): WriteResult | null {
  if (!fragment?.name) return null;
  const slot = slotNamed(ctx.store, fragment.name) ?? slotShaped(ctx.store, fragment.value);
  if (slot) return rewrite(ctx, slot, fragment.value, fragment.when);
  if (fragment.heldOnly) return null;
  const key = normalizeKey(fragment.name.toLowerCase());
  if (!key) return null;
  return ctx.store.remember({
    kind: 'profile',
    key,
    value: fragment.value,
    source: 'owner_stated',
    episodeId: ctx.episodeId,
    actor: 'owner',
  });
}

/**
 * The owner's statement in the clause after a stop, kept as their word when capture reads one
 * there ("sold the Civic last weekend, I drive a Tesla Model 3 now" → a note of the Tesla).
 */
function insteadAfter(
  ctx: LineContext,
  text: string,
  closed: readonly Fact[],
  ended?: string,
): WriteResult[] {
  const writes: WriteResult[] = [];
  const slots = new Set<string>();
  for (const rest of laterClauses(text)) {
    if (readCorrection(rest)) continue; // the stop itself is still in it
    // The stop's day is when what replaced it began ("traded the mazda in three days ago and
    // got a kia EV6").
    const found = captureExplicit(rest) ?? (ended ? captureExplicit(`${rest} ${ended}`) : null);
    if (found?.about !== 'owner') continue;
    const next: Capture = found.when || !ended ? found : { ...found, when: ended, past: true };
    // "…, now I'm in Cork" after a place closed: where the owner is now, in that place's slot.
    const slot = closed.find((f) => f.kind !== 'note' && !slots.has(`${f.kind}/${f.key}`));
    const at = next.kind === 'note' && slot ? LOCATED.exec(rest)?.groups?.place : undefined;
    const target = slot && at ? slot : heldSlotFor(ctx.store, next);
    const id = `${target.kind}/${target.key}`;
    // Each later clause runs to the sentence's end: one write a slot, the first clause's.
    if (slots.has(id) || (next.kind === 'note' && !at && writes.length > 0)) continue;
    slots.add(id);
    writes.push(slot && at ? rewrite(ctx, slot, at.trim()) : write(ctx, next));
  }
  return writes;
}

/**
 * Where the owner says they are now ({@link readPresence}: "i'm at Monzo now", "estoy en Cabify",
 * "ich bin seit dem 1. Mai bei der DKB"), written in the one owner slot the line names by its key
 * ("switched gyms, i'm at Equinox") or mentions by its value ("last day at thoughtworks was
 * friday, i'm at Monzo now"): the slot's value superseded, history kept, the start the line's time
 * phrase. Null when no slot or more than one fits, or the place is the slot's value already.
 */
function presenceInHeldSlot(ctx: LineContext, text: string): WriteResult | null {
  const presence = readPresence(text);
  if (!presence) return null;
  const line = ctx.line ?? text;
  const rest = subjectWords(line.replace(presence.place, ' '));
  const words = new Set(foldText(line).split(/\s+/u));
  const named = (key: string) =>
    key.split(/[_.-]+/u).some((k) => k.length >= 3 && (words.has(k) || words.has(`${k}s`)));
  const held = ownBeliefs(ctx.store).filter(
    (f) =>
      f.kind !== 'note' &&
      isOwnerSource(f.source) &&
      !mentions(f.value, presence.place) &&
      (overlaps(rest, subjectWords(f.value)) || named(f.key)),
  );
  if (held.length !== 1) return null;
  return rewrite(ctx, held[0]!, presence.place, presence.when);
}

/** "I'm in Cork", "estoy en Rosario", "je suis à Lille", "ich bin in Leipzig", "estou em Braga". */
const LOCATED =
  /^(?:now\s+|ahora\s+|maintenant\s+|jetzt\s+|agora\s+)?(?:[Ii]['’]m|[Ii] am|[Ww]e['’]re|[Ww]e are|estoy|je suis|ich bin|estou|tô)\s+(?:now\s+|ahora\s+|jetzt\s+|agora\s+)?(?:in|at|en|à|em|no|na)\s+(?<place>\p{Lu}[^,;]*?)(?:\s+(?:now|these days|ahora|maintenant|jetzt|agora))?[.!]*$/u;

/**
 * A state of the owner's that held until a day they name ({@link readPastState}): the belief of
 * that slot and value closed on that day, its start unknown — the current one when it holds the
 * value, else one written for the history when the slot is empty. Another value held now is left
 * as it is; an end that names no day ("until 2024") keeps nothing rather than guess one.
 *
 * @returns the closed belief, or null.
 */
function pastState(ctx: LineContext, text: string): Fact | null {
  const state = readPastState(text);
  if (!state) return null;
  const day = resolveStart(state.until, ctx.said, ctx.tz, { pastWeekday: true });
  if (!day || day.startMs > ctx.said) return null;
  const { store } = ctx;
  const held = store.current({ scope: 'owner', kind: state.slot.kind, key: state.slot.key });
  let fact: Fact | null = held && mentions(held.value, state.slot.value) ? held : null;
  if (!fact && !held) {
    fact =
      store.remember({
        kind: state.slot.kind,
        key: state.slot.key,
        value: state.slot.value,
        source: 'owner_stated',
        episodeId: ctx.episodeId,
        actor: 'owner',
      }).fact ?? null;
  }
  if (fact?.status !== 'active') return null;
  const r = store.retract(fact.id, {
    actor: 'owner',
    why: `the owner said it held until ${state.until} (episode ${ctx.episodeId})`,
    episodeId: ctx.episodeId,
    endedAt: day.startMs,
  });
  return r.retracted ? r.fact : null;
}

/**
 * One sentence of the owner's line (the line itself for the first: its trigger phrase is read
 * there): what it says stopped or changed, what it states, and, when `ask`, what it may replace.
 */
function captureSentence(
  ctx: LineContext,
  text: string,
  ask: boolean,
): {
  write: WriteResult | null;
  closed: Fact[];
  questions: PendingQuestion[];
  /** A value the sentence gave with no slot ("Nairobi now."), for the slot the line closed. */
  unplaced?: string;
  /** Further writes of the sentence ("left dell, we relocated to raleigh and i'm at Red Hat"). */
  also?: WriteResult[];
} {
  const { store } = ctx;
  let capture = captureExplicit(text);
  let reading = readCorrection(text);
  // An ending said of a subject no belief names ("the gym membership ended when I moved to
  // Porto") is read as the line's other shapes instead.
  if (reading?.subject && targetsOf(store, reading, null).length === 0) {
    reading = readCorrection(text, { subjects: false });
  }
  capture = insteadOfStop(reading, capture, text);
  // A new value for a slot the owner holds ("started with a new therapist yesterday, dr. anya
  // kowalczyk") says more than a note of the same line: the fragment below is written instead.
  if (capture?.kind === 'note' && !reading) {
    const named = readFragment(sentencesOf(text)[0] ?? text)?.name;
    if (named && slotNamed(store, named)) capture = null;
  }
  if (capture) capture = heldSlotFor(store, capture);
  // A plain "my X is Y" with an open-ended X restates a slot: kept only when it is held.
  if (
    capture?.restates &&
    !store.current({ scope: 'owner', kind: capture.kind, key: capture.key })
  ) {
    capture = null;
  }
  let written: WriteResult | null = null;
  let more: WriteResult[] = [];
  let closed: Fact[] = [];
  let announced: Fact[] = [];
  // "I lived in Galway until March 1st, now I'm in Cork": a state that held until a day.
  // (A note read from a later clause, "…, now I'm in Cork", is what holds after it.)
  const past = reading || (capture && capture.kind !== 'note') ? null : pastState(ctx, text);
  if (past) closed.push(past);
  if (reading?.shape === 'change' || (reading?.to && !reading.opens)) {
    ({ write: written, closed } = applyChange(ctx, reading, capture));
  } else if (reading?.announced) {
    // An end announced, not yet come: the belief holds until then; the owner is asked.
    announced = targetsOf(store, reading, null).slice(0, MAX_QUESTIONS_PER_LINE);
  } else {
    if (reading) {
      for (const f of targetsOf(store, reading, null)) {
        if (
          capture &&
          f.kind === capture.kind &&
          f.key === capture.key &&
          capture.kind !== 'note'
        ) {
          continue; // the statement's own value replaces it
        }
        const c = close(ctx, f, reading);
        if (c) closed.push(c);
      }
    }
    // "i'm at Monzo now" in a line that names the slot or its old value: that slot's new value.
    if ((!capture || capture.kind === 'note') && closed.length === 0 && !reading) {
      written = presenceInHeldSlot(ctx, text);
    }
    // What holds instead, said after the stop ("sold the Civic, I drive a Tesla Model 3 now").
    if (!written && closed.length > 0) {
      [written = null, ...more] = insteadAfter(ctx, text, closed, reading?.ended);
    }
    // A note that only says something stopped adds nothing once the belief is closed.
    if (!written && capture && !(capture.kind === 'note' && saysWhatClosed(capture, closed))) {
      written = write(ctx, capture);
    }
    // A plain statement the review refused (a credential, a tombstone) was never asked to be
    // kept: the line is answered as any other line (its refusal is journaled all the same).
    if (
      capture?.trigger === 'plain' &&
      (written?.decision === 'withheld' || written?.decision === 'ignore')
    ) {
      written = null;
    }
  }
  // A fragment is read in the sentence's own words (the first sentence of a whole line).
  const fragment =
    capture || (reading && reading.shape !== 'negation')
      ? null
      : readFragment(sentencesOf(text)[0] ?? text);
  if (!written && closed.length === 0) written = namedFragment(ctx, fragment);
  if (!written && !reading && closed.length === 0 && isStatement(text)) {
    written = sayAgain(ctx, text);
  }
  const placed =
    written?.fact != null &&
    written.fact.kind !== 'note' &&
    written.decision !== 'ignore' &&
    written.decision !== 'withheld';
  // A line about someone else ("Bologna won 3–1", "my brother bought a flat in Valparaíso")
  // may mention what the owner holds without saying anything of it: no question.
  const asked = announced.map(
    (f) => store.ask(f.id, { actor: 'owner', said: text, episodeId: ctx.episodeId }).question,
  );
  const questions =
    asked.length > 0
      ? asked
      : ask &&
          closed.length === 0 &&
          !placed &&
          !saysGoesOn(text) &&
          (reading !== null || ((capture !== null || isStatement(text)) && !speaksOfOthers(text)))
        ? askAboutOverlaps(ctx, text, written?.fact?.id ?? null)
        : [];
  return {
    write: written,
    closed,
    questions,
    ...(fragment && !fragment.name ? { unplaced: fragment.value } : {}),
    ...(more.length > 0 ? { also: more } : {}),
  };
}

/**
 * Captures the owner's statement in `text` (see the module comment): what it says stopped or
 * changed closes or supersedes the belief of its slot, what it states is kept as `owner_stated`
 * with `episodeId` as its evidence, and what it may replace is asked. A time phrase said with the
 * value ("I moved to Porto yesterday") is the belief's start (`valid_from`: that day's start in
 * `tz`) when it names a day at or before the line; a month or a year alone leaves the start
 * unknown rather than guessed.
 *
 * @param episodeId - the owner's episode of this line (already stored).
 * @param tz - the owner's IANA time zone (`KEEL_TZ`), default "UTC".
 */
export function captureOwnerStatement(
  store: MemoryStore,
  text: string,
  episodeId: number,
  tz = 'UTC',
): OwnerCapture {
  try {
    const said = store.episode(episodeId)?.occurred_at ?? store.now();
    const ctx: LineContext = { store, episodeId, said, tz, line: text };
    const first = captureSentence(ctx, text, true);
    const also: WriteResult[] = [];
    // Each further sentence of the line is the owner's statement too ("Arjun and I called it
    // quits. My boyfriend is Kenji now"): read alone, its writes and closes added; only the
    // first asks.
    const unplaced = first.unplaced ? [first.unplaced] : [];
    also.push(...(first.also ?? []));
    for (const sentence of sentencesOf(text).slice(1)) {
      if (!isStatement(sentence)) continue;
      const next = captureSentence(ctx, sentence, false);
      if (next.write) also.push(next.write);
      also.push(...(next.also ?? []));
      first.closed.push(...next.closed);
      if (next.unplaced) unplaced.push(next.unplaced);
    }
    // "Nairobi now. left Mombasa on the 3rd": a value said alone takes the slot the line closed.
    const emptied = first.closed.find(
      (f) => f.kind !== 'note' && !store.current({ scope: f.scope, kind: f.kind, key: f.key }),
    );
    if (emptied && unplaced[0]) also.push(rewrite(ctx, emptied, unplaced[0]));
    return {
      write: first.write ?? also.shift() ?? null,
      also,
      closed: first.closed,
      questions: first.questions,
      error: null,
    };
  } catch (err) {
    const error = {
      code: KeelError.isInstance(err) ? err.code : 'INTERNAL',
      message: err instanceof Error ? err.message : String(err),
    };
    store.recordCaptureFailure(episodeId, error.code, error.message);
    return { write: null, also: [], closed: [], questions: [], error };
  }
}

/**
 * The owner saying again what they forgot, in a line keel would not otherwise keep ("I drink
 * oat milk, just so you know"): the forgotten belief whose content the line's first clause says,
 * and nothing more, is kept again as the owner's word (its tombstone lifted). Saying it again is
 * the one way back; a line that only mentions it ("my friend drinks oat milk") is not.
 */
function sayAgain(ctx: LineContext, text: string): WriteResult | null {
  const clause = text.trim().split(/\s*(?:[,;:.!?…\n]|\s[-—–]\s)/u)[0] ?? '';
  const again = ctx.store.forgottenSaidAgain(clause)[0];
  if (!again) return null;
  return ctx.store.remember({
    kind: again.kind,
    key: again.key,
    value: again.value,
    source: 'owner_stated',
    episodeId: ctx.episodeId,
    actor: 'owner',
  });
}

/** True when the line states something (not a question, request, supposition or report). */
function isStatement(text: string): boolean {
  return speechActOf(text) === 'statement';
}
