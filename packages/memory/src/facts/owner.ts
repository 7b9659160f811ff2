/**
 * The owner's review surface and forgetting: list what needs a decision, confirm, reject, forget,
 * and purge. Every state has an exit: a pending row leaves by confirm or reject; an active row by
 * supersession, forget, reject or prune. The state changes themselves are `transitions.ts`'s.
 *
 * @module
 */
import { KeelError } from '@keel/errors';
import type { StoreContext } from '../context.js';
import { appendJournal } from '../journal/journal.js';
import { type OwnerTextHolder, scrubberFor } from '../redaction.js';
import { addEpisode } from '../repos/episodes.js';
import type { Actor, Fact } from '../types.js';
import { openQuestions, type PendingQuestion, settleQuestions } from './questions.js';
import {
  activeFact,
  evidenceEpisodes,
  factById,
  factsHolding,
  pendingFacts,
  slotRows,
  staleFacts,
  weakFacts,
} from './read.js';
import { clearReviewFlags, type ForgetRequest, openForgetRequests } from './review-flags.js';
import { bury, type TombstoneReason } from './tombstones.js';
import * as transition from './transitions.js';

/** Confidence below which a non-owner belief is listed for review. */
export const WEAK_BELIEF_THRESHOLD = 0.75;

/** A pending conflict with the value it contradicts. */
export interface PendingItem {
  fact: Fact;
  /** The current value it contradicts, if the slot still has one. */
  current: Fact | null;
}

/** What `review` lists. */
export interface ReviewQueue {
  pending: PendingItem[];
  /** Active beliefs not from the owner with confidence below the threshold, weakest first. */
  weak: Fact[];
  /**
   * Active beliefs (the owner's included) with an open `stale` review flag: no evidence for a long
   * time (see `flagStaleBeliefs`), oldest flag first. A belief may be both weak and stale. A new
   * sighting, confirm, reject or forget clears the flag.
   */
  stale: Fact[];
  /** Requests to forget a belief (the model proposes; the owner forgets or keeps), oldest first. */
  forget: (ForgetRequest & { fact: Fact })[];
  /**
   * Pending questions, oldest first: what was said may end a current belief, and keel could not
   * tell (see `questions.ts`); the owner answers yes (the belief is closed) or no (it stays).
   */
  questions: PendingQuestion[];
  threshold: number;
}

/** Lists pending conflicts, pending questions, weak beliefs and beliefs flagged as stale. */
export function reviewQueue(ctx: StoreContext, threshold = WEAK_BELIEF_THRESHOLD): ReviewQueue {
  // Pending rows are not current beliefs; this audit read is the review surface itself.
  const pending = pendingFacts(ctx).map((fact) => ({
    fact,
    current: activeFact(ctx, fact) ?? null,
  }));
  const forget = openForgetRequests(ctx).flatMap((r) => {
    const fact = factById(ctx, r.factId);
    return fact ? [{ ...r, fact }] : [];
  });
  return {
    pending,
    weak: weakFacts(ctx, threshold),
    stale: staleFacts(ctx),
    forget,
    questions: openQuestions(ctx),
    threshold,
  };
}

function loadFact(ctx: StoreContext, id: number): Fact {
  const fact = factById(ctx, id);
  if (!fact) throw new KeelError('NOT_FOUND', `no fact ${id}`, { details: { id } });
  return fact;
}

function ownerEpisode(ctx: StoreContext, text: string, options: OwnerActionOptions): number {
  const channel = options.channel ?? 'cli';
  return addEpisode(ctx, { kind: 'command', channel, role: 'owner', text, actor: actorOf(options) })
    .id;
}

/**
 * Who acts in the owner's verbs, as the journal names them: the owner at a door (`owner`), or the
 * owner through the local web page (`web`: keel web, where only the owner's browser gets in).
 * Both carry the owner's authority; `web` says where the owner acted.
 */
export type OwnerActor = Extract<Actor, 'owner' | 'web'>;

/** Options shared by the owner's verbs. */
export interface OwnerActionOptions {
  /** Channel the owner acted from (terminal, cli, discord, web). Default "cli". */
  channel?: string;
  /** Who the journal names (see {@link OwnerActor}). Default `owner`. */
  actor?: OwnerActor;
}

/** The journal's actor for an owner's verb. */
export function actorOf(options: OwnerActionOptions): OwnerActor {
  return options.actor ?? 'owner';
}

/**
 * The owner confirms a belief: it becomes `owner_confirmed` at confidence 1.0. A pending conflict
 * becomes the current value and supersedes what it contradicted.
 *
 * @returns the confirmed fact and the one it superseded, if any.
 * @throws KeelError `NOT_FOUND`, `INVALID_STATE` (not active or pending).
 */
export function confirm(
  ctx: StoreContext,
  id: number,
  options: OwnerActionOptions = {},
): { fact: Fact; superseded: Fact | null } {
  const run = ctx.db.transaction(() => {
    const now = ctx.now();
    const fact = loadFact(ctx, id);
    if (fact.status !== 'active' && fact.status !== 'pending') {
      throw new KeelError(
        'INVALID_STATE',
        `fact ${id} is ${fact.status}; only active or pending facts can be confirmed`,
      );
    }
    const episodeId = ownerEpisode(ctx, `confirm f${id}`, options);
    let superseded: Fact | null = null;
    if (fact.status === 'pending') {
      const current = activeFact(ctx, fact);
      if (current) {
        transition.supersede(ctx, current.id, {
          byId: id,
          now,
          validTo: now,
          reason: 'owner confirmed another value',
        });
        // Questions on it from the turn that proposed this value are answered: yes.
        settleQuestions(ctx, current.id, evidenceEpisodes(ctx, id), 'yes', now);
        clearReviewFlags(ctx, current.id, now);
        superseded = factById(ctx, current.id)!;
      }
      // Other pending rows for the same slot and value are resolved by this confirmation.
      for (const p of slotRows(ctx, fact, ['pending'])) {
        if (p.id !== id && p.value_hash === fact.value_hash) {
          transition.supersede(ctx, p.id, {
            byId: id,
            now,
            reason: 'resolved: the same value was confirmed',
          });
        }
      }
    }
    transition.confirm(ctx, id, { episodeId, supersedesId: superseded?.id ?? null, now });
    // The owner has re-validated the belief: a stale flag on it is answered.
    const cleared = clearReviewFlags(ctx, id, now);
    const after = factById(ctx, id)!;
    appendJournal(ctx.db, {
      at: now,
      actor: actorOf(options),
      op: 'confirm',
      entity: 'fact',
      entityId: id,
      payload: {
        before: { status: fact.status, source: fact.source, confidence: fact.confidence },
        after,
        superseded: superseded?.id ?? null,
        ...(cleared ? { review_flags_cleared: cleared } : {}),
      },
    });
    return { fact: after, superseded };
  });
  return run.immediate();
}

/**
 * Moves an active or pending fact to `status` and leaves a tombstone so that no later observed or
 * inferred write can bring the value back, and clears the fact's open review flags. Used by
 * reject, forget and prune.
 *
 * @throws KeelError `NOT_FOUND`, `INVALID_STATE`.
 */
export function retireBelief(
  ctx: StoreContext,
  id: number,
  how: {
    status: 'rejected' | 'retracted';
    reason: Exclude<TombstoneReason, 'purged'>;
    actor: Actor;
    why: string;
  },
): Fact {
  const now = ctx.now();
  const fact = loadFact(ctx, id);
  if (fact.status !== 'active' && fact.status !== 'pending') {
    throw new KeelError('INVALID_STATE', `fact ${id} is already ${fact.status}`);
  }
  transition.retire(ctx, id, { status: how.status, now, reason: how.why });
  bury(ctx, fact, how.reason, now);
  // The belief left the active set: nothing about it is left to review.
  const cleared = clearReviewFlags(ctx, id, now);
  const after = factById(ctx, id)!;
  appendJournal(ctx.db, {
    at: now,
    actor: how.actor,
    op: how.reason === 'rejected' ? 'reject' : how.reason === 'pruned' ? 'prune' : 'forget',
    entity: 'fact',
    entityId: id,
    payload: {
      before: { status: fact.status },
      after: { status: after.status },
      reason: how.why,
      value: fact.value,
      ...(cleared ? { review_flags_cleared: cleared } : {}),
    },
  });
  return after;
}

/**
 * The owner rejects a belief: `rejected` plus a tombstone.
 *
 * @throws KeelError `NOT_FOUND`, `INVALID_STATE`.
 */
export function reject(ctx: StoreContext, id: number, options: OwnerActionOptions = {}): Fact {
  return ctx.db
    .transaction(() => {
      ownerEpisode(ctx, `reject f${id}`, options);
      // Questions from the turn that proposed a pending value are answered with it: no.
      const fact = factById(ctx, id);
      if (fact?.status === 'pending' && fact.conflicts_with_id !== null) {
        settleQuestions(ctx, fact.conflicts_with_id, evidenceEpisodes(ctx, id), 'no', ctx.now());
      }
      return retireBelief(ctx, id, {
        status: 'rejected',
        reason: 'rejected',
        actor: actorOf(options),
        why: 'rejected by the owner',
      });
    })
    .immediate();
}

/** What `forget` did. */
export interface ForgetResult {
  fact: Fact;
  purged: boolean;
  /** Rows of the slot whose value was erased (the fact and earlier versions with the same value). */
  erasedFacts: number[];
  /** Journal entries whose payload was redacted. */
  redactedJournal: number;
  /** Episodes whose text held the value and had it redacted (the owner's and keel's own). */
  redactedEpisodes: number[];
  /**
   * Rows changed per place that can hold the owner's words (`facts`, `journal`, `episodes`,
   * `messages`, `belief_queue`, …): what the purge reached. Empty without `purge`.
   */
  reached: Record<string, number>;
  /**
   * Beliefs in other slots whose value holds the purged value. With `otherSlots: 'erase'` the value
   * was erased from them too (listed here as they are now); otherwise they are left as they were,
   * for the owner to decide (a door asks). Empty without `purge`.
   */
  otherSlots: Fact[];
}

/**
 * Forgets a fact: `retracted` plus a tombstone, so a later observed or inferred write of the value
 * is ignored (an owner_stated write may restore it). With `purge`, the value is also erased from
 * every fact row of the slot that held it and from every place that can hold the owner's words
 * (`holders`: the episodes, the journal's payloads, the session history, the think service's
 * records, …); its hash is kept so the tombstone still works.
 *
 * @param holders - every repository that can hold owner text (the store passes all of them).
 * @throws KeelError `NOT_FOUND`, `INVALID_STATE` (already gone and not purging).
 */
export function forget(
  ctx: StoreContext,
  id: number,
  options: OwnerActionOptions & { purge?: boolean; otherSlots?: 'keep' | 'erase' },
  holders: readonly OwnerTextHolder[],
): ForgetResult {
  const nothing = (fact: Fact, purged: boolean): ForgetResult => ({
    fact,
    purged,
    erasedFacts: [],
    redactedJournal: 0,
    redactedEpisodes: [],
    reached: {},
    otherSlots: [],
  });
  return ctx.db
    .transaction((): ForgetResult => {
      const now = ctx.now();
      let fact = loadFact(ctx, id);
      ownerEpisode(ctx, `forget f${id}${options.purge ? ' --purge' : ''}`, options);
      if (fact.status === 'active' || fact.status === 'pending') {
        fact = retireBelief(ctx, id, {
          status: 'retracted',
          reason: 'forgotten',
          actor: actorOf(options),
          why: 'forgotten by the owner',
        });
      } else if (!options.purge) {
        throw new KeelError(
          'INVALID_STATE',
          `fact ${id} is already ${fact.status}; use --purge to erase its value`,
        );
      }
      if (!options.purge) return nothing(fact, false);
      if (fact.purged_at !== null) return nothing(fact, true);
      // Every stored form of the value: case, punctuation and Unicode form do not matter.
      const scrubber = scrubberFor(fact.value);
      const holds = (r: Fact) =>
        r.value_hash === fact.value_hash || scrubber?.holds(r.value) === true;
      // Every row of the slot holding the value — history, and reworded forms that contain it —
      // is erased; a current or pending one is forgotten first.
      const rows = slotRows(ctx, fact, ['active', 'pending', 'superseded', 'retracted', 'rejected'])
        .filter((r) => r.purged_at === null && holds(r))
        .sort((a, b) => a.id - b.id);
      for (const r of rows) {
        if (r.status === 'active' || r.status === 'pending') {
          retireBelief(ctx, r.id, {
            status: 'retracted',
            reason: 'forgotten',
            actor: actorOf(options),
            why: 'forgotten by the owner (it held a purged value)',
          });
        }
        transition.erase(ctx, r.id, now);
      }
      bury(ctx, fact, 'purged', now);
      const ids = rows.map((r) => r.id);
      // Other slots holding it: erased only when the owner says so (their own belief may still
      // stand without it: the value is cut out of them, the rest kept).
      const elsewhere = scrubber
        ? factsHolding(ctx, scrubber).filter(
            (r) => !(r.scope === fact.scope && r.kind === fact.kind && r.key === fact.key),
          )
        : [];
      if (options.otherSlots === 'erase' && scrubber) {
        for (const r of elsewhere) transition.scrubValue(ctx, r.id, scrubber.scrub(r.value), now);
      }
      const otherSlots = elsewhere.map((r) => factById(ctx, r.id)!);
      const reached: Record<string, number> = {
        facts: ids.length + (options.otherSlots === 'erase' ? elsewhere.length : 0),
      };
      let redactedEpisodes: number[] = [];
      if (scrubber) {
        for (const holder of holders) {
          const changed = holder.redact(scrubber, now);
          reached[holder.place] = (reached[holder.place] ?? 0) + changed.length;
          if (holder.place === 'episodes') redactedEpisodes = [...changed].sort((a, b) => a - b);
        }
      }
      appendJournal(ctx.db, {
        at: now,
        actor: actorOf(options),
        op: 'purge',
        entity: 'fact',
        entityId: id,
        payload: {
          erased_facts: ids,
          value_hash: fact.value_hash,
          redacted_journal: reached.journal ?? 0,
          redacted_episodes: redactedEpisodes,
          reached,
          other_slots: otherSlots.map((r) => r.id),
          other_slots_erased: options.otherSlots === 'erase',
        },
      });
      return {
        fact: factById(ctx, id)!,
        purged: true,
        erasedFacts: ids,
        redactedJournal: reached.journal ?? 0,
        redactedEpisodes,
        reached,
        otherSlots,
      };
    })
    .immediate();
}
