/**
 * Retraction from conversation: the owner said that something keel believed is no longer true
 * ("I don't work at Acme any more"), and reflection proposes to retract it. Unlike forget or
 * prune, no tombstone is left: it was true once and may become true again, and the history stays
 * (the row keeps its value, `valid_to` marks the end). Only beliefs keel formed itself may be
 * retracted this way; an owner-stated belief waits for the owner.
 *
 * @module
 */

import { KeelError } from '@keel/errors';
import { type StoreContext, stmt } from '../context.js';
import { appendJournal } from '../journal/journal.js';
import type { Actor, Fact } from '../types.js';
import { isOwnerSource } from './evidence-gate.js';
import { factById } from './read.js';
import { retractAt } from './transitions.js';

/** How a retraction is recorded. */
export interface RetractOptions {
  actor: Actor;
  /** Why, in words (journaled and kept as the row's status_reason). */
  why: string;
  /** The episode in which the owner said it stopped being true; its time becomes `valid_to`. */
  episodeId?: number;
}

/** What became of a retraction. */
export interface RetractResult {
  /** The row after the call. */
  fact: Fact;
  /** False when it was refused (the owner's word); the refusal is journaled. */
  retracted: boolean;
  reason: string;
}

/** Why a retraction of the owner's word is refused (a stable phrase). */
export const REFUSED_OWNER_RETRACTION = "only the owner can retract the owner's word";

/**
 * Retracts an active belief that did not come from the owner: status `retracted`, `valid_to` set
 * to the episode's time (or now), journaled with the episode. A belief the owner stated or
 * confirmed is left as it is and the refusal is journaled (`ignore`).
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
      if (isOwnerSource(fact.source)) {
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
      const validTo = episode?.occurred_at ?? now;
      retractAt(ctx, id, { now, validTo, reason: options.why });
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
        },
      });
      return { fact: factById(ctx, id)!, retracted: true, reason: 'retracted' };
    })
    .immediate();
}
