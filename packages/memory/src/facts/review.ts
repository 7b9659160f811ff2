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

import { KeelError } from '@keel/errors';
import {
  redactSecrets,
  SECRET_PLACEHOLDER,
  type SecretKind,
  secretInSlot,
  valueHash,
} from '@keel/language';
import type { StoreContext } from '../context.js';
import { appendJournal } from '../journal/journal.js';
import { addEpisode, episodeSupports, getEpisode } from '../repos/episodes.js';
import {
  type Actor,
  type Decision,
  type Fact,
  isMcpActor,
  type Slot,
  type Source,
} from '../types.js';
import { authority, isOwnerSource, STRONG_CONFIDENCE } from './evidence-gate.js';
import { activeFact, slotRows } from './read.js';
import { clearReviewFlags } from './review-flags.js';
import { coveringTombstones, lift, tombstonesOf } from './tombstones.js';
import * as transition from './transitions.js';
import {
  confidenceCap,
  needsOwnerWord,
  ownerSaid,
  ownerSlotNamed,
  REFUSED_NOT_EVIDENCE,
  REFUSED_OUTSIDE_REPEAT,
  REFUSED_UNSAID,
  type RememberInput,
  refusalOf,
  validate,
  type WriteResult,
} from './write-rules.js';

export {
  type ConfidenceCap,
  MAX_VALUE_CHARS,
  REFUSED_FORGOTTEN_CONTENT,
  REFUSED_FORGOTTEN_EPISODE,
  REFUSED_FORGOTTEN_VALUE,
  REFUSED_NOT_EVIDENCE,
  REFUSED_OUTSIDE_REPEAT,
  REFUSED_UNSAID,
  type RememberInput,
  secretRefusal,
  type WriteResult,
} from './write-rules.js';

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
