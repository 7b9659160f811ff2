/**
 * The rules of a write before it is reviewed: the limits on a value, what is refused and why (the
 * refusal reasons readers compare against), and whether the owner said a value a model or
 * reflection proposes, and which of the owner's slots a proposed key names. `review.ts` decides the
 * write; this file says what may be written at all, and where.
 *
 * @module
 */

import { stripVTControlCharacters } from 'node:util';
import { KeelError } from '@keel/errors';
import {
  looksLikeInjection,
  normalizeValue,
  type SecretKind,
  supportsValue,
  wellFormed,
} from '@keel/language';
import type { StoreContext } from '../context.js';
import { getEpisode } from '../repos/episodes.js';
import {
  type Actor,
  type Decision,
  type Fact,
  isMcpActor,
  KINDS,
  type Kind,
  SCOPES,
  type Scope,
  type Slot,
  SOURCES,
  type Source,
} from '../types.js';
import { confidenceCeiling, isOwnerSource, NON_OWNER_MAX, REPEAT_STEP } from './evidence-gate.js';
import { normalizeKey } from './keys.js';
import { ownerFactsOfKind, slotRows } from './read.js';
import { type ContentTombstone, forgottenAnywhere, forgottenFromEpisode } from './tombstones.js';

/** The longest fact value, in characters. */
export const MAX_VALUE_CHARS = 4000;

/**
 * Control characters a belief's value never keeps: C0 but tab and line feed (NUL, BEL, CR …), DEL
 * and C1; each becomes a space. Escape sequences (`ESC [31m`, OSC titles) are removed whole first
 * (`stripVTControlCharacters` of `node:util`).
 */
const VALUE_CONTROL = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F]/g;

/**
 * The refusal reason when a writer other than the owner offers a value the owner forgot or purged
 * under another kind or key of the same scope (a model may propose a new key for the same thing).
 */
export const REFUSED_FORGOTTEN_VALUE =
  'the owner forgot this value (tombstoned under another key); only the owner can restore it';
/**
 * The refusal reason when a writer other than the owner offers a sighting of a belief from a turn
 * that does not mention it: a repeat counts as evidence only when the turn it rests on shares a
 * content word with the value or its key (after stemming).
 */
export const REFUSED_NOT_EVIDENCE =
  'the turn it rests on does not mention this belief: not evidence';
/**
 * The refusal reason when the model, reflection or the curator would create a belief (a new
 * value in its slot: created, updated, held as pending or kept as history) without citing an
 * owner turn that mentions it (`supportsValue` of `@keel/language`): a guess needs the owner's
 * words under it. A repeat of a value already held is judged by {@link REFUSED_NOT_EVIDENCE}.
 */
export const REFUSED_UNSAID =
  'no owner turn it cites mentions this value: a new belief from the model or reflection must rest on what the owner said';
/**
 * The refusal reason when a writer other than the owner writes from an episode that supported a
 * fact of the same scope and kind the owner forgot or purged: the owner's forget covers what that
 * episode said about that kind.
 */
export const REFUSED_FORGOTTEN_EPISODE =
  'the owner forgot what this episode said about this; only the owner can restore it';

/**
 * The refusal reason when a writer other than the owner offers a value (or a key) that mentions
 * what the owner forgot or purged — every content word of it, folded, in any slot of the scope —
 * or a value made only of the forgotten value's words (see `covers` in `tombstones.ts`).
 */
export const REFUSED_FORGOTTEN_CONTENT =
  'it mentions what the owner forgot (tombstoned); only the owner can restore it';

/**
 * The refusal reason when an outside agent (an `mcp:` actor) repeats a value an outside agent
 * already wrote: a client that reconnects (a new episode) would otherwise corroborate its own
 * guess. The owner's sighting, or keel's, still counts.
 */
export const REFUSED_OUTSIDE_REPEAT =
  'an outside agent already wrote this value: its repeat is not new evidence';

/** What a writer asks the store to believe. */
export interface RememberInput {
  scope?: Scope;
  kind: Kind;
  /** A short stable slug the caller reuses for the same subject (never a timestamp). */
  key: string;
  value: string;
  source: Source;
  /** The episode this sighting comes from; without one, a `command` episode is recorded. */
  episodeId?: number;
  /** A requested confidence 0..1; the gate caps it. Default: the ceiling. */
  confidence?: number;
  /** The value has been true since (ms since epoch). */
  validFrom?: number | null;
  /**
   * The owner says this value replaces the current one even though its `validFrom` is earlier
   * than when the current one began (a correction of the past). Only an owner source may; for
   * anyone else an earlier value becomes history.
   */
  replaces?: boolean;
  /** Who performs the write, for the journal. Default: owner for owner sources, else system. */
  actor?: Actor;
  /** Channel for the episode recorded when `episodeId` is absent. Default "api". */
  channel?: string;
}

/**
 * The refusal reason when a write holds a secret: `secret (password) is never stored`,
 * `secret (pin) is never stored` … one stable phrase per kind.
 */
export function secretRefusal(kind: SecretKind): string {
  return `secret (${kind}) is never stored`;
}

/** The outcome of a write. */
export interface WriteResult {
  decision: Decision;
  /** Why, in words (stable phrases; see the module table). */
  reason: string;
  /**
   * Set when the write was refused because it holds a secret (the decision is `withheld` and the
   * reason {@link secretRefusal}): its kind, for a door to say "keel does not keep passwords"
   * (`describeSecretKind`).
   */
  secret?: SecretKind;
  /** The row written or touched; for `ignore`, the row that caused it when there is one. */
  fact: Fact | null;
  /** The episode this sighting was recorded against. */
  episodeId: number;
  /**
   * Set when the writer asked for a confidence (`RememberInput.confidence`) and the evidence gate
   * stored less: a door says so rather than let the number change silently.
   */
  confidenceCapped?: ConfidenceCap;
}

/** A requested confidence the evidence gate lowered. */
export interface ConfidenceCap {
  /** The confidence the writer asked for, 0..1. */
  asked: number;
  /** The confidence the belief holds now, 0..1. */
  stored: number;
  /** Why, in words: the rule of the evidence gate that applied. */
  why: string;
}

/**
 * The cap a write met, when it asked for a confidence and the belief holds less: a first sighting
 * is capped by its source ({@link confidenceCeiling} at one piece of evidence); a belief already
 * held rises only by the repeat rule, whatever a writer asks.
 */
export function confidenceCap(input: RememberInput, r: WriteResult): ConfidenceCap | null {
  const asked = input.confidence;
  const fact = r.fact;
  if (asked === undefined || !fact) return null;
  if (r.decision === 'ignore' || r.decision === 'withheld') return null;
  if (fact.confidence >= asked) return null;
  const why =
    fact.evidence_count <= 1
      ? `a first ${input.source} sighting starts at most at ${confidenceCeiling(input.source, 1)} (the evidence gate); each repeat from another episode adds ${REPEAT_STEP}, up to ${NON_OWNER_MAX}; only the owner's word reaches 1.0`
      : `a belief already held rises only by ${REPEAT_STEP} per repeat from another episode (the evidence gate), up to ${NON_OWNER_MAX} unless it is the owner's word`;
  return { asked, stored: fact.confidence, why };
}

export function validate(input: RememberInput): { slot: Slot; value: string } {
  const scope = input.scope ?? 'owner';
  if (!SCOPES.includes(scope)) throw new KeelError('INVALID_INPUT', `unknown scope "${scope}"`);
  if (!KINDS.includes(input.kind)) {
    throw new KeelError(
      'INVALID_INPUT',
      `unknown kind "${input.kind}"; one of: ${KINDS.join(', ')}`,
    );
  }
  if (!SOURCES.includes(input.source)) {
    throw new KeelError(
      'INVALID_INPUT',
      `unknown source "${input.source}"; one of: ${SOURCES.join(', ')}`,
    );
  }
  if (typeof input.value !== 'string') throw new KeelError('INVALID_INPUT', 'value must be text');
  // Where every belief's value enters the store (the owner, capture, the model, reflection):
  // well-formed, so the stored UTF-8 reads back as hashed; a terminal's escape sequences and
  // other control characters carry no meaning in a belief and are left out (see VALUE_CONTROL).
  const value = stripVTControlCharacters(wellFormed(input.value))
    .replace(VALUE_CONTROL, ' ')
    .trim();
  if (!value) throw new KeelError('INVALID_INPUT', 'value is empty');
  if (value.length > MAX_VALUE_CHARS) {
    throw new KeelError(
      'TOO_LARGE',
      `value is ${value.length} characters; a fact holds at most ${MAX_VALUE_CHARS}`,
      { details: { length: value.length, limit: MAX_VALUE_CHARS } },
    );
  }
  if (input.confidence !== undefined && !(input.confidence >= 0 && input.confidence <= 1)) {
    throw new KeelError('INVALID_INPUT', 'confidence must be between 0 and 1');
  }
  return { slot: { scope, kind: input.kind, key: normalizeKey(input.key) }, value };
}

/**
 * The owner's forgetting beyond the exact slot, for a writer that is not the owner: an unlifted
 * `forgotten` or `purged` tombstone of the same value anywhere in the scope, or an unlifted one on
 * a fact of the same scope and kind that `episodeId` supported. Pruned and rejected tombstones bind
 * only their own slot (checked by the caller). The refusal never carries the value.
 */
function forgottenByOwner(
  ctx: StoreContext,
  slot: Slot,
  value: string,
  hash: string,
  episodeId: number | undefined,
): { reason: string; withValue: false; details: Record<string, unknown> } | null {
  const elsewhere = forgottenAnywhere(ctx, slot.scope, hash);
  if (elsewhere) {
    return {
      reason: REFUSED_FORGOTTEN_VALUE,
      withValue: false,
      details: { tombstone_id: elsewhere.id },
    };
  }
  if (episodeId === undefined) return null;
  const said = ` ${normalizeValue(value)} `;
  for (const g of forgottenFromEpisode(ctx, episodeId, slot.scope)) {
    // Covered: the same kind; anything from an episode the owner purged; or, in any kind, a value
    // that holds the forgotten one or is held by it ("allergic to penicillin" / "penicillin").
    const gone = ` ${normalizeValue(g.value)} `;
    const overlaps = gone.trim().length > 0 && (said.includes(gone) || gone.includes(said));
    if (g.kind === slot.kind || g.purged_at !== null || overlaps) {
      return {
        reason: REFUSED_FORGOTTEN_EPISODE,
        withValue: false,
        details: { tombstone_id: g.tombstone_id, forgotten_fact_id: g.fact_id },
      };
    }
  }
  return null;
}

/** What {@link refusalOf} weighs. */
interface RefusalInput {
  input: RememberInput;
  actor: Actor;
  slot: Slot;
  value: string;
  hash: string;
  secret: SecretKind | null;
  tombstone: readonly { reason: string }[];
  /** Tombstones whose folded content the value or key mentions. */
  covering: readonly ContentTombstone[];
}

/** A refusal decided before anything is written; `withValue`: the journal may keep the value. */
interface Refusal {
  reason: string;
  withValue: boolean;
  details?: Record<string, unknown>;
}

/**
 * The refusals that hold whatever the slot stores, in order: a secret; for a writer other than
 * the owner, text that reads like instructions, a tombstone of the value in its slot, the owner's
 * forgetting elsewhere ({@link forgottenByOwner}); and a belief the model or reflection writes
 * without citing an owner turn ({@link REFUSED_UNSAID}).
 *
 * @returns the refusal, or null when the write goes on to be reviewed against the slot.
 */
export function refusalOf(ctx: StoreContext, r: RefusalInput): Refusal | null {
  const { input, slot, value, hash, secret, tombstone } = r;
  if (secret) return { reason: secretRefusal(secret), withValue: false };
  if (isOwnerSource(input.source)) return null;
  if (looksLikeInjection(value)) {
    return { reason: 'reads like instructions to a model (injection)', withValue: true };
  }
  if (tombstone.length > 0) {
    // The value was forgotten: the refusal records its hash, never the value again.
    return {
      reason: `tombstoned (${tombstone[0]!.reason}); only the owner can restore it`,
      withValue: false,
    };
  }
  const forgotten = forgottenByOwner(ctx, slot, value, hash, input.episodeId);
  if (forgotten) return forgotten;
  if (r.covering.length > 0) {
    return {
      reason: REFUSED_FORGOTTEN_CONTENT,
      withValue: false,
      details: { tombstone_id: r.covering[0]!.id },
    };
  }
  if (needsOwnerWord(input, r.actor) && input.episodeId === undefined) {
    return { reason: REFUSED_UNSAID, withValue: true };
  }
  return null;
}

/** The writers whose new beliefs must rest on an owner turn that mentions them. */
const WRITERS_NEEDING_OWNER_WORD: ReadonlySet<Actor> = new Set(['model', 'reflection', 'curator']);

/**
 * Whether a write must cite an owner turn that mentions its value to create a belief: the model's
 * tool, reflection and the curator, writing as anything but the owner. Imports, system writes,
 * other agents (`mcp` and every named client `mcp:<client>` alike) and the owner's own words are
 * not asked.
 */
export function needsOwnerWord(input: RememberInput, actor: Actor): boolean {
  const writer: Actor = isMcpActor(actor) ? 'mcp' : actor;
  return !isOwnerSource(input.source) && WRITERS_NEEDING_OWNER_WORD.has(writer);
}

/**
 * Whether episode `episodeId` is an owner's conversation turn that mentions `value`
 * ({@link supportsValue}: at least half its content words, folded and stemmed).
 */
export function ownerSaid(
  ctx: StoreContext,
  episodeId: number | undefined,
  value: string,
): boolean {
  if (episodeId === undefined) return false;
  const e = getEpisode(ctx, episodeId);
  return !!e && e.kind === 'conversation' && e.role === 'owner' && supportsValue(e.text, value);
}

/** The words of a key: `favourite_football_team` → favourite, football, team. */
function keyWords(key: string): string[] {
  return key.split(/[_.-]+/).filter(Boolean);
}

/**
 * The owner's slot a writer other than the owner names under another key: when `slot` holds
 * nothing, and exactly one active owner-stated or owner-confirmed belief of the same scope and
 * kind has a key whose words hold all of `slot`'s, or are all held by them, sharing at least two
 * (`favourite_team` / `favourite_football_team`; not `welsh` / `welsh_study`), a model or
 * reflection proposing a value there speaks of that slot: its value is reviewed against the
 * owner's word (a conflict, for the owner to answer) instead of standing beside it as a second
 * certainty. Keys about someone else (`sam.employer`) are matched only with the same person.
 */
export function ownerSlotNamed(ctx: StoreContext, slot: Slot): Slot | null {
  if (slotRows(ctx, slot, ['active', 'pending']).length > 0) return null;
  const words = keyWords(slot.key);
  const person = slot.key.includes('.') ? slot.key.split('.')[0] : null;
  const matches = ownerFactsOfKind(ctx, slot.scope, slot.kind).filter((f) => {
    if (f.key === slot.key) return false;
    const fPerson = f.key.includes('.') ? f.key.split('.')[0] : null;
    if (fPerson !== person) return false;
    const theirs = keyWords(f.key);
    const held = (a: string[], b: string[]) => a.every((w) => b.includes(w));
    const shared = words.filter((w) => theirs.includes(w)).length;
    return shared >= 2 && (held(words, theirs) || held(theirs, words));
  });
  return matches.length === 1 ? { scope: slot.scope, kind: slot.kind, key: matches[0]!.key } : null;
}
