/**
 * The one place that decides what is written. Every writer (the owner's commands, the model's
 * tool calls, the reflection tick, the curator, an import) calls {@link remember}, which reviews the
 * write without a model and applies the evidence gate inside the store:
 *
 * | decision    | when                                                             |
 * |-------------|------------------------------------------------------------------|
 * | create      | the slot is empty                                                |
 * | corroborate | same value (after normalisation) from a new episode              |
 * | update      | different value from a source at least as authoritative          |
 * | conflict    | a weaker source contradicts an owner-stated or strong fact       |
 * | history     | a different value true since before the current one began: kept  |
 * |             | as history (superseded, ending where the current value starts)   |
 * | withheld    | a secret (a credential is never stored); the owner is told       |
 * | ignore      | same episode again, tombstoned value, injection                  |
 *
 * Every decision, refusals included, is written to the journal with its reason.
 *
 * What the owner forgot stays forgotten: a writer that is not the owner is refused when the value
 * is tombstoned in its slot (any reason), when the owner forgot or purged the same value under any
 * kind or key of the scope ({@link REFUSED_FORGOTTEN_VALUE}), and when its episode supported a fact
 * of the same scope and kind that the owner forgot or purged ({@link REFUSED_FORGOTTEN_EPISODE}).
 * An owner source is never refused by a tombstone; saying the value again in its slot lifts it.
 *
 * @module
 */

import { stripVTControlCharacters } from 'node:util';
import { KeelError } from '@keel/errors';
import {
  looksLikeInjection,
  normalizeValue,
  redactSecrets,
  SECRET_PLACEHOLDER,
  type SecretKind,
  secretInSlot,
  supportsValue,
  valueHash,
  wellFormed,
} from '@keel/language';
import type { StoreContext } from '../context.js';
import { appendJournal } from '../journal/journal.js';
import { addEpisode, episodeSupports, getEpisode } from '../repos/episodes.js';
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
import {
  authority,
  confidenceCeiling,
  isOwnerSource,
  NON_OWNER_MAX,
  REPEAT_STEP,
  STRONG_CONFIDENCE,
} from './evidence-gate.js';
import { normalizeKey } from './keys.js';
import { activeFact, ownerFactsOfKind, slotRows } from './read.js';
import { clearReviewFlags } from './review-flags.js';
import {
  type ContentTombstone,
  coveringTombstones,
  forgottenAnywhere,
  forgottenFromEpisode,
  lift,
  tombstonesOf,
} from './tombstones.js';
import * as transition from './transitions.js';

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
function confidenceCap(input: RememberInput, r: WriteResult): ConfidenceCap | null {
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

function validate(input: RememberInput): { slot: Slot; value: string } {
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
function refusalOf(ctx: StoreContext, r: RefusalInput): Refusal | null {
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
function needsOwnerWord(input: RememberInput, actor: Actor): boolean {
  const writer: Actor = isMcpActor(actor) ? 'mcp' : actor;
  return !isOwnerSource(input.source) && WRITERS_NEEDING_OWNER_WORD.has(writer);
}

/**
 * Whether episode `episodeId` is an owner's conversation turn that mentions `value`
 * ({@link supportsValue}: at least half its content words, folded and stemmed).
 */
function ownerSaid(ctx: StoreContext, episodeId: number | undefined, value: string): boolean {
  if (episodeId === undefined) return false;
  const e = getEpisode(ctx, episodeId);
  return !!e && e.kind === 'conversation' && e.role === 'owner' && supportsValue(e.text, value);
}

/**
 * One write under review, once nothing refused it outright: what it is, and the steps every
 * decision shares (journal, refuse, create a row, lift tombstones, resolve pending rows).
 */
interface Review {
  ctx: StoreContext;
  input: RememberInput;
  slot: Slot;
  value: string;
  hash: string;
  now: number;
  episodeId: number;
  tombstone: readonly { id: number; reason: string }[];
  /** The tombstones this write lifts (only an owner's write has any). */
  liftable: readonly number[];
  /** A new value from the model or reflection whose cited turn does not mention it. */
  unsaid: boolean;
  sighting: { episodeId: number; source: Source; now: number };
  /** The confidence a first sighting gets: the requested one, capped by the evidence gate. */
  firstConfidence: number;
  /** Whether the cited turn supports a repeat ({@link REFUSED_NOT_EVIDENCE}). */
  supported(): boolean;
  /** Whether an outside agent already wrote `fact`'s value while an outside agent writes now. */
  outsideRepeat(fact: Fact): boolean;
  journal(op: Decision, factId: number | null, payload: Record<string, unknown>): void;
  ignore(reason: string, fact: Fact | null): WriteResult;
  newRow(
    status: 'active' | 'pending',
    links: { supersedesId: number | null; conflictsWithId: number | null },
    reason: string,
  ): Fact;
  liftTombstones(factId: number): void;
  resolvePending(newId: number): void;
}

/**
 * The secret a write holds, judged on the slot as a sentence ("bank_password: Tr0ub4dor&3"), not
 * on the value alone, and on the unit of work's secrets ("sunshine", withheld from the owner's
 * turn just before); a value that is the secret (its key said so) is noted in the unit's ledger.
 */
function secretOf(
  ctx: StoreContext,
  slot: Slot,
  value: string,
): { inSlot: ReturnType<typeof secretInSlot>; secret: SecretKind | null } {
  const inSlot = secretInSlot(slot.key, value);
  const secret = inSlot?.kind ?? ctx.ledger?.kindIn(value) ?? null;
  if (secret && ctx.ledger && !inSlot?.inKey && redactSecrets(value, ctx.ledger) === value) {
    ctx.ledger.note(value, secret);
  }
  return { inSlot, secret };
}

/**
 * The first step of a write, inside its transaction: the refusals that hold whatever is stored
 * (a secret, injection, the owner's forgetting; see {@link refusalOf}), the episode the sighting
 * rests on (a `command` episode when none was cited), and the shared steps of a {@link Review}.
 *
 * @returns the refusal's result, or the review to decide.
 * @throws KeelError `NOT_FOUND` (unknown episode).
 */
function openReview(
  ctx: StoreContext,
  input: RememberInput,
  w: { slot: Slot; value: string; hash: string; actor: Actor },
): WriteResult | Review {
  const { slot, value, hash, actor } = w;
  const now = ctx.now();
  const { inSlot, secret } = secretOf(ctx, slot, value);
  const tombstone = tombstonesOf(ctx, slot, hash);
  // The owner's own word lifts what it says again: the slot's tombstones of this value, and the
  // tombstones of content it mentions in this slot or bound to no slot.
  const covering = coveringTombstones(ctx, slot, value);
  const refusal = refusalOf(ctx, { input, actor, slot, value, hash, secret, tombstone, covering });
  // A key that holds a secret, or that may mention what the owner forgot, is withheld from the
  // records of a refused write as its value is.
  const shownKey = inSlot?.inKey
    ? SECRET_PLACEHOLDER
    : refusal && !refusal.withValue && covering.length > 0
      ? '[withheld]'
      : slot.key;

  let episodeId = input.episodeId;
  if (episodeId === undefined) {
    episodeId = addEpisode(ctx, {
      kind: 'command',
      channel: input.channel ?? 'api',
      role: isOwnerSource(input.source) ? 'owner' : 'keel',
      text: `remember ${slot.kind}/${shownKey}: ${refusal && !refusal.withValue ? '[withheld]' : value}`,
      actor,
    }).id;
  } else if (!getEpisode(ctx, episodeId)) {
    throw new KeelError('NOT_FOUND', `no episode ${episodeId}`);
  }
  const cited = episodeId;
  const journaledSlot = shownKey === slot.key ? slot : { ...slot, key: shownKey };
  const journal = (op: Decision, factId: number | null, payload: Record<string, unknown>) =>
    appendJournal(ctx.db, {
      at: now,
      actor,
      op,
      entity: 'fact',
      entityId: factId,
      payload: { ...journaledSlot, source: input.source, episode_id: cited, ...payload },
    });
  const refuse = (
    reason: string,
    fact: Fact | null,
    withValue = true,
    details: Record<string, unknown> = {},
    op: 'ignore' | 'withheld' = 'ignore',
  ): WriteResult => {
    journal(op, fact?.id ?? null, {
      reason,
      // A secret's hash is not kept either: a short password's hash is found by guessing.
      ...(secret ? { secret } : { value_hash: hash }),
      ...details,
      ...(withValue ? { value } : {}),
    });
    return { decision: op, reason, fact, episodeId: cited };
  };
  if (refusal) {
    if (!secret) return refuse(refusal.reason, null, refusal.withValue, refusal.details);
    const r = refuse(refusal.reason, null, false, refusal.details, 'withheld');
    return { ...r, secret };
  }

  const firstConfidence = Math.min(
    input.confidence ?? 1,
    transition.firstSightingCeiling(input.source),
  );
  const liftable = [
    ...tombstone.map((t) => t.id),
    ...covering
      .filter((t) => t.kind === null || (t.kind === slot.kind && t.key === slot.key))
      .map((t) => t.id),
  ];
  return {
    ctx,
    input,
    slot,
    value,
    hash,
    now,
    episodeId: cited,
    tombstone,
    liftable,
    unsaid: needsOwnerWord(input, actor) && !ownerSaid(ctx, input.episodeId, value),
    sighting: { episodeId: cited, source: input.source, now },
    firstConfidence,
    // Evidence is evidence: a writer other than the owner may add a sighting from a conversation
    // turn only when the turn mentions the belief (its value or its key, after stemming).
    supported: () =>
      isOwnerSource(input.source) ||
      input.episodeId === undefined ||
      getEpisode(ctx, cited)?.kind !== 'conversation' ||
      episodeSupports(ctx, cited, `${value} ${slot.key.replace(/[_.-]+/g, ' ')}`, 'any'),
    outsideRepeat: (fact) =>
      isMcpActor(actor) &&
      ctx.db
        .prepare(
          `SELECT 1 FROM fact_evidence fe JOIN episodes e ON e.id = fe.episode_id
           WHERE fe.fact_id = ? AND e.channel = 'mcp' LIMIT 1`,
        )
        .get(fact.id) !== undefined,
    journal,
    ignore: (reason, fact) => refuse(reason, fact),
    newRow: (status, links, reason) =>
      transition.create(ctx, {
        slot,
        value,
        valueHash: hash,
        source: input.source,
        status,
        confidence: firstConfidence,
        episodeId: cited,
        validFrom: input.validFrom ?? null,
        ...links,
        reason,
        now,
      }),
    liftTombstones: (factId) => lift(ctx, [...new Set(liftable)], factId, now),
    // Pending rows of this slot that hold the value now made current are resolved by it.
    resolvePending: (newId) => {
      for (const p of slotRows(ctx, slot, ['pending'])) {
        if (p.value_hash !== hash || p.id === newId) continue;
        transition.supersede(ctx, p.id, {
          byId: newId,
          now,
          reason: 'resolved: the same value became current',
        });
      }
    },
  };
}

/** CREATE: the slot is empty. */
function createStep(r: Review): WriteResult {
  if (r.unsaid) return r.ignore(REFUSED_UNSAID, null);
  const fact = r.newRow('active', { supersedesId: null, conflictsWithId: null }, 'created');
  r.liftTombstones(fact.id);
  r.resolvePending(fact.id);
  const reason = r.liftable.length ? 'new slot (owner lifted a tombstone)' : 'new slot';
  r.journal('create', fact.id, { reason, after: fact });
  return { decision: 'create', reason, fact, episodeId: r.episodeId };
}

/** CORROBORATE: the slot's current value again, from a new episode that supports it. */
function corroborateStep(r: Review, current: Fact): WriteResult {
  if (!r.supported()) return r.ignore(REFUSED_NOT_EVIDENCE, current);
  if (r.outsideRepeat(current)) return r.ignore(REFUSED_OUTSIDE_REPEAT, current);
  const fact = transition.corroborate(r.ctx, current, r.sighting);
  if (!fact) return r.ignore('this episode is already counted as evidence', current);
  r.liftTombstones(fact.id);
  // A new sighting answers a stale flag: the belief has fresh evidence.
  const cleared = clearReviewFlags(r.ctx, fact.id, r.now, 'stale');
  const reason = 'same value from a new episode';
  r.journal('corroborate', fact.id, {
    reason,
    before: {
      confidence: current.confidence,
      evidence_count: current.evidence_count,
      source: current.source,
    },
    after: {
      confidence: fact.confidence,
      evidence_count: fact.evidence_count,
      source: fact.source,
    },
    ...(cleared ? { review_flags_cleared: cleared } : {}),
  });
  return { decision: 'corroborate', reason, fact, episodeId: r.episodeId };
}

/**
 * HISTORY: a value true since before the current one began (`currentStart`, ms): kept as
 * superseded, ending where the current one starts; the same earlier value again corroborates it.
 */
function historyStep(r: Review, current: Fact, currentStart: number): WriteResult {
  const { ctx, input, slot, hash } = r;
  const history = slotRows(ctx, slot, ['superseded']).find(
    (h) => h.value_hash === hash && h.valid_from === input.validFrom,
  );
  if (history) {
    if (!r.supported()) return r.ignore(REFUSED_NOT_EVIDENCE, history);
    const fact = transition.corroborate(ctx, history, r.sighting);
    if (!fact) return r.ignore('this episode is already counted as evidence', history);
    const reason = 'the same earlier value from a new episode (history)';
    r.journal('corroborate', fact.id, { reason, after: fact });
    return { decision: 'corroborate', reason, fact, episodeId: r.episodeId };
  }
  if (r.unsaid) return r.ignore(REFUSED_UNSAID, null);
  const fact = transition.create(ctx, {
    slot,
    value: r.value,
    valueHash: hash,
    source: input.source,
    status: 'superseded',
    confidence: r.firstConfidence,
    episodeId: r.episodeId,
    validFrom: input.validFrom ?? null,
    validTo: currentStart,
    supersedesId: null,
    supersededById: current.id,
    conflictsWithId: null,
    reason: `an earlier value: true before f${current.id} began`,
    now: r.now,
  });
  r.liftTombstones(fact.id);
  const reason = `an earlier value than the current one (f${current.id}): kept as history`;
  r.journal('history', fact.id, { reason, current: current.id, after: fact });
  return { decision: 'history', reason, fact, episodeId: r.episodeId };
}

/** CONFLICT: a weaker or single sighting contradicts the current value: held as pending. */
function conflictStep(r: Review, current: Fact, reason: string): WriteResult {
  const samePending = slotRows(r.ctx, r.slot, ['pending']).find((p) => p.value_hash === r.hash);
  if (samePending) {
    if (!r.supported()) return r.ignore(REFUSED_NOT_EVIDENCE, samePending);
    const fact = transition.corroborate(r.ctx, samePending, r.sighting);
    if (!fact) return r.ignore('this episode is already counted as evidence', samePending);
    r.journal('conflict', fact.id, {
      reason: `${reason}; already pending, evidence added`,
      after: fact,
    });
    return { decision: 'conflict', reason, fact, episodeId: r.episodeId };
  }
  if (r.unsaid) return r.ignore(REFUSED_UNSAID, current);
  const fact = r.newRow('pending', { supersedesId: null, conflictsWithId: current.id }, reason);
  r.journal('conflict', fact.id, { reason, contradicts: current.id, after: fact });
  return { decision: 'conflict', reason, fact, episodeId: r.episodeId };
}

/** UPDATE: a different value from a source at least as authoritative replaces the current one. */
function updateStep(r: Review, current: Fact): WriteResult {
  const { ctx, input, now } = r;
  if (r.unsaid) return r.ignore(REFUSED_UNSAID, current);
  // The old row leaves 'active' first (one active row per slot), then the new row enters.
  transition.supersede(ctx, current.id, {
    byId: null,
    now,
    validTo: input.validFrom ?? now,
    reason: 'superseded by a newer value',
  });
  const fact = r.newRow(
    'active',
    { supersedesId: current.id, conflictsWithId: null },
    'replaced an earlier value',
  );
  transition.linkSuccessor(ctx, current.id, fact.id);
  r.liftTombstones(fact.id);
  r.resolvePending(fact.id);
  // The replaced belief leaves the review queue: the slot was seen again with a new value.
  const cleared = clearReviewFlags(ctx, current.id, now);
  const reason = `different value from ${input.source}, at least as authoritative as ${current.source}`;
  r.journal('update', fact.id, {
    reason,
    supersedes: {
      id: current.id,
      value: current.value,
      confidence: current.confidence,
      source: current.source,
    },
    after: fact,
    ...(cleared ? { review_flags_cleared: cleared } : {}),
  });
  return { decision: 'update', reason, fact, episodeId: r.episodeId };
}

/** Which decision of the module table a write under review gets, and its step. */
function decide(r: Review): WriteResult {
  const { input } = r;
  const current = activeFact(r.ctx, r.slot);
  if (!current) return createStep(r);
  if (current.value_hash === r.hash) return corroborateStep(r, current);

  // An earlier value: true since before the current one began. It is history, not current (the
  // owner may say it replaces the current value): superseded, ending where the current starts.
  // A current value recorded without a start held at least from when it was recorded; but the
  // owner's own dated word after it replaces it ("I live in Porto", then "I moved to Lisbon
  // yesterday"): only a known start shows the owner's value to be the earlier one.
  const owner = isOwnerSource(input.source);
  const currentStart = current.valid_from ?? (owner ? null : current.created_at);
  const replaces = input.replaces === true && owner;
  if (
    input.validFrom != null &&
    currentStart !== null &&
    input.validFrom < currentStart &&
    !replaces
  ) {
    return historyStep(r, current, currentStart);
  }

  const weaker = authority(input.source) < authority(current.source);
  const outweighed =
    !owner &&
    !isOwnerSource(current.source) &&
    current.confidence >= STRONG_CONFIDENCE &&
    r.firstConfidence < current.confidence;
  if (weaker || outweighed) {
    const reason = weaker
      ? `a weaker source (${input.source}) contradicts ${current.source}`
      : `a single sighting contradicts a strong belief (confidence ${current.confidence})`;
    return conflictStep(r, current, reason);
  }
  return updateStep(r, current);
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
function ownerSlotNamed(ctx: StoreContext, slot: Slot): Slot | null {
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

/**
 * Reviews and applies one write. Runs in one IMMEDIATE transaction, so concurrent writers from
 * several processes serialise and never see a half-applied decision. The steps: validate, open
 * the review (refusals, the episode; {@link openReview}), decide ({@link decide}: create,
 * corroborate, history, conflict or update).
 *
 * @returns the decision, its reason and the row, and `confidenceCapped` when the writer asked for
 *   more confidence than the evidence gate stored.
 * @throws KeelError `INVALID_INPUT`, `TOO_LARGE`, `NOT_FOUND` (unknown episode).
 */
export function remember(ctx: StoreContext, input: RememberInput): WriteResult {
  const validated = validate(input);
  const { value } = validated;
  const slot = isOwnerSource(input.source)
    ? validated.slot
    : (ownerSlotNamed(ctx, validated.slot) ?? validated.slot);
  const hash = valueHash(value);
  const actor: Actor = input.actor ?? (isOwnerSource(input.source) ? 'owner' : 'system');
  const run = ctx.db.transaction((): WriteResult => {
    const review = openReview(ctx, input, { slot, value, hash, actor });
    return 'decision' in review ? review : decide(review);
  });
  const result = run.immediate();
  const cap = confidenceCap(input, result);
  return cap ? { ...result, confidenceCapped: cap } : result;
}
