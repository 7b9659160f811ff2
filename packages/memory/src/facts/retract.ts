/**
 * Retraction from conversation: the owner said that something keel believed is no longer true
 * ("I don't work at Acme any more"), and reflection proposes to retract it. Unlike forget or
 * prune, no tombstone is left: it was true once and may become true again, and the history stays
 * (the row keeps its value, `valid_to` marks the end). Beliefs keel formed itself are retracted
 * this way; an owner-stated belief is closed only on the owner's word (the owner's own capture,
 * actor `owner`). A retraction of the owner's word proposed by anyone else that rests on an owner
 * turn mentioning the belief becomes a pending question for the owner (`questions.ts`), never a
 * silent drop; one resting on nothing the owner said is refused.
 *
 * @module
 */

import { KeelError } from '@keel/errors';
import { type StoreContext, stmt } from '../context.js';
import { appendJournal } from '../journal/journal.js';
import { episodeSupports, getEpisode } from '../repos/episodes.js';
import type { Actor, Fact } from '../types.js';
import { isOwnerSource } from './evidence-gate.js';
import { askQuestion, closeOwnerBelief, type PendingQuestion } from './questions.js';
import { factById } from './read.js';
import { clearReviewFlags } from './review-flags.js';
import { retractAt } from './transitions.js';

/** How a retraction is recorded. */
export interface RetractOptions {
  actor: Actor;
  /** Why, in words (journaled and kept as the row's status_reason). */
  why: string;
  /** The episode in which the owner said it stopped being true; its time becomes `valid_to`. */
  episodeId?: number;
  /**
   * When the owner's words date the end ("I left Nubank yesterday": that day's start, ms since
   * epoch): `valid_to` instead of the episode's time. Ignored when after the episode; never
   * before the belief's start.
   */
  endedAt?: number;
}

/** What became of a retraction. */
export interface RetractResult {
  /** The row after the call. */
  fact: Fact;
  /** False when it was refused or asked (the owner's word); the refusal is journaled. */
  retracted: boolean;
  reason: string;
  /**
   * Set when the retraction of the owner's word became a question for the owner (it rests on an
   * owner turn that mentions the belief): the belief stays current until the owner answers.
   */
  question?: PendingQuestion;
}

/** Why a retraction of the owner's word is refused (a stable phrase). */
export const REFUSED_OWNER_RETRACTION = "only the owner can retract the owner's word";
/** Why a retraction of the owner's word became a question (a stable phrase). */
export const ASKED_OWNER_RETRACTION =
  "only the owner can retract the owner's word: asked the owner";

/**
 * Whether episode `id` is the owner's own conversation turn and mentions the belief (its value or
 * its key, folded and stemmed: see `episodeSupports`).
 */
function ownerTurnMentions(ctx: StoreContext, id: number, fact: Fact): boolean {
  const e = getEpisode(ctx, id);
  if (e?.role !== 'owner') return false;
  return episodeSupports(ctx, id, `${fact.value} ${fact.key.replace(/[_.-]+/g, ' ')}`, 'any');
}

/**
 * Retracts an active belief: status `retracted`, `valid_to` set to the episode's time (or now),
 * journaled with the episode, its open review flags answered. A belief the owner stated or
 * confirmed is closed only when the actor is the owner; for anyone else, when `episodeId` is the
 * owner's turn and mentions the belief, a question is raised for the owner (`question` set,
 * journaled `ask`), otherwise the refusal is journaled (`ignore`). Either way the belief stays.
 *
 * @throws KeelError `NOT_FOUND` for an unknown fact or episode; `INVALID_STATE` when the fact is
 *   not active.
 */
export function retractBelief(
  ctx: StoreContext,
  id: number,
  options: RetractOptions,
): RetractResult {
  return ctx.db
    .transaction(() => {
      const fact = factById(ctx, id);
      if (!fact) throw new KeelError('NOT_FOUND', `no fact with id ${id}`);
      if (fact.status !== 'active') {
        throw new KeelError('INVALID_STATE', `fact ${id} is ${fact.status}, not active`);
      }
      const now = ctx.now();
      if (isOwnerSource(fact.source) && options.actor !== 'owner') {
        if (options.episodeId !== undefined && ownerTurnMentions(ctx, options.episodeId, fact)) {
          const said = getEpisode(ctx, options.episodeId)!.text;
          const { question } = askQuestion(ctx, id, {
            actor: options.actor,
            said,
            episodeId: options.episodeId,
          });
          return { fact, retracted: false, reason: ASKED_OWNER_RETRACTION, question };
        }
        appendJournal(ctx.db, {
          at: now,
          actor: options.actor,
          op: 'ignore',
          entity: 'fact',
          entityId: id,
          payload: {
            reason: REFUSED_OWNER_RETRACTION,
            asked: 'retract',
            why: options.why,
            episode_id: options.episodeId ?? null,
          },
        });
        return { fact, retracted: false, reason: REFUSED_OWNER_RETRACTION };
      }
      const episode =
        options.episodeId === undefined
          ? undefined
          : (stmt(ctx.db, 'SELECT occurred_at FROM episodes WHERE id = ?').get(options.episodeId) as
              | { occurred_at: number }
              | undefined);
      if (options.episodeId !== undefined && !episode) {
        throw new KeelError('NOT_FOUND', `no episode with id ${options.episodeId}`);
      }
      const said = episode?.occurred_at ?? now;
      const validTo =
        options.endedAt !== undefined && options.endedAt <= said
          ? Math.max(options.endedAt, fact.valid_from ?? options.endedAt)
          : said;
      if (isOwnerSource(fact.source)) {
        closeOwnerBelief(ctx, fact, {
          now,
          validTo,
          why: options.why,
          episodeId: options.episodeId ?? null,
        });
        return { fact: factById(ctx, id)!, retracted: true, reason: 'retracted' };
      }
      retractAt(ctx, id, { now, validTo, reason: options.why });
      const cleared = clearReviewFlags(ctx, id, now);
      appendJournal(ctx.db, {
        at: now,
        actor: options.actor,
        op: 'retract',
        entity: 'fact',
        entityId: id,
        payload: {
          before: { status: fact.status },
          after: { status: 'retracted' },
          reason: options.why,
          episode_id: options.episodeId ?? null,
          valid_to: validTo,
          ...(cleared ? { review_flags_cleared: cleared } : {}),
        },
      });
      return { fact: factById(ctx, id)!, retracted: true, reason: 'retracted' };
    })
    .immediate();
}
