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
  looksLikeInjection,
  normalizeValue,
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
import { forgottenAnywhere, forgottenFromEpisode, lift, tombstonesOf } from './tombstones.js';
import * as transition from './transitions.js';

/** The longest fact value, in characters. */
export const MAX_VALUE_CHARS = 4000;

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
 * The refusal reason when a writer other than the owner writes from an episode that supported a
 * fact of the same scope and kind the owner forgot or purged: the owner's forget covers what that
 * episode said about that kind.
 */
export const REFUSED_FORGOTTEN_EPISODE =
  'the owner forgot what this episode said about this; only the owner can restore it';

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
  const value = input.value.replace(/\u0000/g, ' ').trim();
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
 * several processes serialise and never see a half-applied decision.
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
    const now = ctx.now();
    // Refusals that hold whatever is stored, decided before anything is written. A secret is
    // judged on the slot as a sentence ("bank_password: Tr0ub4dor&3"), not on the value alone,
    // and on the unit of work's secrets ("sunshine", withheld from the owner's turn just before).
    const inSlot = secretInSlot(slot.key, value);
    const secret = inSlot?.kind ?? ctx.ledger?.kindIn(value) ?? null;
    if (secret && ctx.ledger && !inSlot?.inKey && redactSecrets(value, ctx.ledger) === value) {
      ctx.ledger.note(value, secret); // the value is the secret (its key said so)
    }
    const tombstone = tombstonesOf(ctx, slot, hash);
    let refusal: {
      reason: string;
      withValue: boolean;
      details?: Record<string, unknown>;
    } | null = null;
    if (secret) refusal = { reason: secretRefusal(secret), withValue: false };
    else if (!isOwnerSource(input.source) && looksLikeInjection(value)) {
      refusal = { reason: 'reads like instructions to a model (injection)', withValue: true };
    } else if (tombstone.length > 0 && !isOwnerSource(input.source)) {
      // The value was forgotten: the refusal records its hash, never the value again.
      refusal = {
        reason: `tombstoned (${tombstone[0]!.reason}); only the owner can restore it`,
        withValue: false,
      };
    } else if (!isOwnerSource(input.source)) {
      refusal = forgottenByOwner(ctx, slot, value, hash, input.episodeId);
    }

    let episodeId = input.episodeId;
    if (episodeId === undefined) {
      episodeId = addEpisode(ctx, {
        kind: 'command',
        channel: input.channel ?? 'api',
        role: isOwnerSource(input.source) ? 'owner' : 'keel',
        text: `remember ${slot.kind}/${inSlot?.inKey ? SECRET_PLACEHOLDER : slot.key}: ${refusal && !refusal.withValue ? '[withheld]' : value}`,
        actor,
      }).id;
    } else if (!getEpisode(ctx, episodeId)) {
      throw new KeelError('NOT_FOUND', `no episode ${episodeId}`);
    }
    const sighting = { episodeId, source: input.source, now };
    // Evidence is evidence: a writer other than the owner may add a sighting from a conversation
    // turn only when the turn mentions the belief (its value or its key, after stemming).
    const supported = () =>
      isOwnerSource(input.source) ||
      input.episodeId === undefined ||
      getEpisode(ctx, episodeId!)?.kind !== 'conversation' ||
      episodeSupports(ctx, episodeId!, `${value} ${slot.key.replace(/[_.-]+/g, ' ')}`, 'any');
    // A key that holds a secret is withheld from the journal too.
    const journaledSlot = inSlot?.inKey ? { ...slot, key: SECRET_PLACEHOLDER } : slot;
    const journal = (op: Decision, factId: number | null, payload: Record<string, unknown>) =>
      appendJournal(ctx.db, {
        at: now,
        actor,
        op,
        entity: 'fact',
        entityId: factId,
        payload: { ...journaledSlot, source: input.source, episode_id: episodeId, ...payload },
      });
    const ignore = (
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
      return { decision: op, reason, fact, episodeId };
    };
    if (refusal) {
      if (!secret) return ignore(refusal.reason, null, refusal.withValue, refusal.details);
      const r = ignore(refusal.reason, null, false, refusal.details, 'withheld');
      return { ...r, secret };
    }

    const current = activeFact(ctx, slot);
    const firstConfidence = Math.min(
      input.confidence ?? 1,
      transition.firstSightingCeiling(input.source),
    );
    const newRow = (
      status: 'active' | 'pending',
      links: { supersedesId: number | null; conflictsWithId: number | null },
      reason: string,
    ) =>
      transition.create(ctx, {
        slot,
        value,
        valueHash: hash,
        source: input.source,
        status,
        confidence: firstConfidence,
        episodeId: episodeId!,
        validFrom: input.validFrom ?? null,
        ...links,
        reason,
        now,
      });
    const liftTombstones = (factId: number) =>
      lift(
        ctx,
        tombstone.map((t) => t.id),
        factId,
        now,
      );
    /** Pending rows of this slot that hold the value now made current are resolved by it. */
    const resolvePending = (newId: number) => {
      for (const p of slotRows(ctx, slot, ['pending'])) {
        if (p.value_hash !== hash || p.id === newId) continue;
        transition.supersede(ctx, p.id, {
          byId: newId,
          now,
          reason: 'resolved: the same value became current',
        });
      }
    };

    if (!current) {
      const fact = newRow('active', { supersedesId: null, conflictsWithId: null }, 'created');
      liftTombstones(fact.id);
      resolvePending(fact.id);
      const reason = tombstone.length ? 'new slot (owner lifted a tombstone)' : 'new slot';
      journal('create', fact.id, { reason, after: fact });
      return { decision: 'create', reason, fact, episodeId };
    }

    if (current.value_hash === hash) {
      if (!supported()) return ignore(REFUSED_NOT_EVIDENCE, current);
      const fact = transition.corroborate(ctx, current, sighting);
      if (!fact) return ignore('this episode is already counted as evidence', current);
      liftTombstones(fact.id);
      // A new sighting answers a stale flag: the belief has fresh evidence.
      const cleared = clearReviewFlags(ctx, fact.id, now, 'stale');
      const reason = 'same value from a new episode';
      journal('corroborate', fact.id, {
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
      return { decision: 'corroborate', reason, fact, episodeId };
    }

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
      const history = slotRows(ctx, slot, ['superseded']).find(
        (r) => r.value_hash === hash && r.valid_from === input.validFrom,
      );
      if (history) {
        if (!supported()) return ignore(REFUSED_NOT_EVIDENCE, history);
        const fact = transition.corroborate(ctx, history, sighting);
        if (!fact) return ignore('this episode is already counted as evidence', history);
        const reason = 'the same earlier value from a new episode (history)';
        journal('corroborate', fact.id, { reason, after: fact });
        return { decision: 'corroborate', reason, fact, episodeId };
      }
      const fact = transition.create(ctx, {
        slot,
        value,
        valueHash: hash,
        source: input.source,
        status: 'superseded',
        confidence: firstConfidence,
        episodeId,
        validFrom: input.validFrom,
        validTo: currentStart,
        supersedesId: null,
        supersededById: current.id,
        conflictsWithId: null,
        reason: `an earlier value: true before f${current.id} began`,
        now,
      });
      liftTombstones(fact.id);
      const reason = `an earlier value than the current one (f${current.id}): kept as history`;
      journal('history', fact.id, { reason, current: current.id, after: fact });
      return { decision: 'history', reason, fact, episodeId };
    }

    const weaker = authority(input.source) < authority(current.source);
    const outweighed =
      !isOwnerSource(input.source) &&
      !isOwnerSource(current.source) &&
      current.confidence >= STRONG_CONFIDENCE &&
      firstConfidence < current.confidence;
    if (weaker || outweighed) {
      const reason = weaker
        ? `a weaker source (${input.source}) contradicts ${current.source}`
        : `a single sighting contradicts a strong belief (confidence ${current.confidence})`;
      const samePending = slotRows(ctx, slot, ['pending']).find((p) => p.value_hash === hash);
      if (samePending) {
        if (!supported()) return ignore(REFUSED_NOT_EVIDENCE, samePending);
        const fact = transition.corroborate(ctx, samePending, sighting);
        if (!fact) return ignore('this episode is already counted as evidence', samePending);
        journal('conflict', fact.id, {
          reason: `${reason}; already pending, evidence added`,
          after: fact,
        });
        return { decision: 'conflict', reason, fact, episodeId };
      }
      const fact = newRow('pending', { supersedesId: null, conflictsWithId: current.id }, reason);
      journal('conflict', fact.id, { reason, contradicts: current.id, after: fact });
      return { decision: 'conflict', reason, fact, episodeId };
    }

    // UPDATE: the old row leaves 'active' first (one active row per slot), then the new row enters.
    transition.supersede(ctx, current.id, {
      byId: null,
      now,
      validTo: input.validFrom ?? now,
      reason: 'superseded by a newer value',
    });
    const fact = newRow(
      'active',
      { supersedesId: current.id, conflictsWithId: null },
      'replaced an earlier value',
    );
    transition.linkSuccessor(ctx, current.id, fact.id);
    liftTombstones(fact.id);
    resolvePending(fact.id);
    // The replaced belief leaves the review queue: the slot was seen again with a new value.
    const cleared = clearReviewFlags(ctx, current.id, now);
    const reason = `different value from ${input.source}, at least as authoritative as ${current.source}`;
    journal('update', fact.id, {
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
    return { decision: 'update', reason, fact, episodeId };
  });
  const result = run.immediate();
  const cap = confidenceCap(input, result);
  return cap ? { ...result, confidenceCapped: cap } : result;
}
