/**
 * What holds instead: the new value a line gives a slot the owner holds, however it is said — in
 * a clause after a stop ("sold the Civic, I drive a Tesla now"), as a fragment naming the slot
 * ("new barber since last tuesday — Emeka"), by where the owner says they are now ("i'm at Monzo
 * now"), or as a state that held until a day ("I lived in Galway until March 1st").
 *
 * @module
 */
import {
  type Capture,
  type ChangeReading,
  captureExplicit,
  type Fragment,
  laterClauses,
  readCorrection,
  readPastState,
  readPresence,
} from '@keel/gate';
import { foldText, mentions, resolveStart } from '@keel/language';
import {
  type Fact,
  isOwnerSource,
  type MemoryStore,
  normalizeKey,
  type WriteResult,
} from '@keel/memory';
import {
  heldSlotFor,
  type LineContext,
  overlaps,
  ownBeliefs,
  rewrite,
  subjectWords,
  write,
} from './capture-words.js';

/**
 * Whether a note says no more than what the line closed ("sold the Civic" once the Civic is
 * closed): it shares a subject word with a closed belief. A note of something else the line
 * says ("got an iphone 15, traded in the galaxy") is kept.
 */
export function saysWhatClosed(note: Capture, closed: readonly Fact[]): boolean {
  const said = subjectWords(note.value);
  return closed.some((f) => overlaps(said, subjectWords(f.value)));
}

/**
 * What a stop says holds instead ("ya no trabajo en Telefónica, ahora estoy en BBVA"): the new
 * value in the stopped slot, as the owner's statement, when the line states nothing more specific
 * (no capture, or only a note).
 */
export function insteadOfStop(
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
 * The owner's slot a fragment names ("GP" → relationship/gp, "number" → profile/phone_number,
 * "numéro" → profile/numéro): the one owner belief whose key is the name, or holds all its words.
 */
export function slotNamed(store: MemoryStore, name: string): Fact | null {
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
 * A fragment that names its slot ("oh and GP — Dr. Nakamura these days", "nouveau numéro : …",
 * "mudei de número, agora é …"): the new value in the owner's slot of that name; with no slot of
 * that name held, a profile slot of its own. Null for a fragment with no name (the line's caller
 * puts it in the slot the line closed) or none at all.
 */
export function namedFragment(ctx: LineContext, fragment: Fragment | null): WriteResult | null {
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
export function insteadAfter(
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
    // "not in melbourne anymore, packed up and went back to perth": where the owner went, once
    // their home closed, is their home.
    const home = closed.find((f) => f.kind === 'profile' && f.key === 'home');
    const went = !found && home ? WENT_TO.exec(rest)?.groups?.place : undefined;
    if (home && went && !slots.has('profile/home')) {
      slots.add('profile/home');
      writes.push(rewrite(ctx, home, went.trim()));
      continue;
    }
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
 * Where the owner went ("packed up and went back to perth to be near mum", "moved back to Perth",
 * "nos volvimos a Sevilla", "on est rentrés à Lyon", "wir sind zurück nach Graz", "voltamos pra
 * Braga"): group `place`, up to a purpose or the clause's end.
 */
const WENT_TO =
  /(?:^|\s)(?:went|moved|came|headed|relocated|volví|volvimos|me volví|nos volvimos|me fui|nos fuimos|rentré|rentrés|rentrées|retourné|retournés|zurück|gezogen|voltei|voltamos|fui|fomos)\s+(?:back\s+|home\s+|de vuelta\s+)?(?:to|a|à|au|nach|para|pra|pro)\s+(?<place>\p{L}[\p{L}\p{M}' -]*?)(?=\s+(?:to|para|pour|um|para ficar)\s|\s*[,;.!?]|$)/iu;

/**
 * Where the owner says they are now ({@link readPresence}: "i'm at Monzo now", "estoy en Cabify",
 * "ich bin seit dem 1. Mai bei der DKB"), written in the one owner slot the line names by its key
 * ("switched gyms, i'm at Equinox") or mentions by its value ("last day at thoughtworks was
 * friday, i'm at Monzo now"): the slot's value superseded, history kept, the start the line's time
 * phrase. Null when no slot or more than one fits, or the place is the slot's value already.
 */
export function presenceInHeldSlot(ctx: LineContext, text: string): WriteResult | null {
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
export function pastState(ctx: LineContext, text: string): Fact | null {
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
