/**
 * What an owner line says stopped or changed, applied: the beliefs it is about (its slot's, its
 * family's, or those it mentions), closed on the owner's word as of the day it names, and a
 * change's new value kept in the old one's slot.
 *
 * @module
 */
import { KeelError } from '@keel/errors';
import { type Capture, type ChangeReading, PARTNER_KEYS, sentencesOf } from '@keel/gate';
import { contentWords, mentions, resolveStart, splitTimePhrase } from '@keel/language';
import { type Fact, type MemoryStore, normalizeKey, type WriteResult } from '@keel/memory';
import {
  holdsWhole,
  type LineContext,
  overlaps,
  ownBeliefs,
  startFrom,
  subjectWords,
  write,
} from './capture-words.js';

/** The beliefs a stop or a change is about: its slot's, its family's, or those it mentions. */
export function targetsOf(
  store: MemoryStore,
  reading: ChangeReading,
  except: number | null,
): Fact[] {
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

/**
 * Closes `fact` on the owner's word as of the line, or as of the day its time phrase names ("I
 * left Nubank yesterday": valid_to is yesterday's start in the owner's zone).
 */
export function close(ctx: LineContext, fact: Fact, reading: ChangeReading): Fact | null {
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

/**
 * A change from A to B. The belief that held A decides where B goes: its slot, as an update (A
 * superseded, history kept), whatever slot the rules would guess for the line; a belief keyed by
 * A itself ("preference/green_tea") or a note is closed, and B is kept where the rules place the
 * line, else in a slot of its own. With no belief holding A, the line is captured as it is.
 */
export function applyChange(
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
  // The change as said is the note, its time phrase its start, not its words ("two weeks ago i
  // swapped the alliance classes for a private tutor").
  const timed = splitTimePhrase(reading.clause);
  const said = timed?.rest ?? reading.clause;
  let r: WriteResult | null = null;
  try {
    r = ctx.store.remember({
      kind: old.kind,
      key: old.kind === 'note' || !key ? (capture?.key ?? normalizeKey(key || 'change')) : key,
      value: said.charAt(0).toUpperCase() + said.slice(1),
      source: 'owner_stated',
      episodeId: ctx.episodeId,
      actor: 'owner',
      ...startFrom(ctx, timed?.phrase, true),
    });
  } catch (err) {
    if (!KeelError.isInstance(err) || err.code !== 'INVALID_INPUT') throw err;
  }
  return { write: r, closed };
}
