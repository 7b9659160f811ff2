/**
 * Pending questions: something the owner said may end a belief keel holds, and keel cannot tell
 * for sure ("I'm freelancing these days" beside profile/employer: Acme; reflection proposing to
 * retract the owner's own word because of a later turn). Rather than keep two contradicting
 * certainties in silence, or drop the proposal, keel asks: a `question` review flag on the belief
 * it may replace, with what was said, the turn it rests on and who raised it. The belief stays
 * current until the owner answers; the prompt shows the question beside it, and the review queue
 * lists it (`ReviewQueue.questions`).
 *
 * - yes: the belief is closed as of the turn the question rests on (`retracted`, `valid_to` that
 *   turn's time, history kept, no tombstone: it was true once and may be again);
 * - no: the question is cleared and the belief is left as it was.
 *
 * A value proposed for a slot (a different value, not an ending) is not a question but a pending
 * row (the write review's `conflict`): its confirm supersedes the belief, its reject leaves it.
 * A question and a pending row resting on the same turn about the same belief are one question:
 * answering either answers both (yes confirms the proposed value, no rejects it).
 * See `docs/decisions/2026-12-04-pending-questions.md`.
 *
 * @module
 */
import { KeelError } from '@keel/errors';
import { type StoreContext, stmt } from '../context.js';
import { appendJournal } from '../journal/journal.js';
import { addEpisode, getEpisode } from '../repos/episodes.js';
import type { Actor, Fact } from '../types.js';
import { actorOf, confirm, type OwnerActionOptions, reject } from './owner.js';
import { evidenceEpisodes, factById, slotRows } from './read.js';
import { clearReviewFlags } from './review-flags.js';
import { retractAt } from './transitions.js';

/** The most characters of what was said a question keeps. */
export const QUESTION_MAX_CHARS = 500;

/** A question waiting for the owner. */
export interface PendingQuestion {
  /** The question's id (shown as `q<id>`). */
  id: number;
  /** The belief it may end. */
  factId: number;
  /** That belief as it is now. */
  fact: Fact;
  /** What was said that may end it: the owner's statement, in their words. */
  said: string;
  /** The turn it rests on, when there is one. */
  episodeId: number | null;
  /** Who raised it (the owner's own capture, reflection, the model …). */
  actor: Actor;
  /** When it was asked, ms since epoch. */
  askedAt: number;
}

interface FlagRow {
  id: number;
  fact_id: number;
  detail: string;
  episode_id: number | null;
  actor: Actor;
  flagged_at: number;
}

function toQuestion(ctx: StoreContext, r: FlagRow): PendingQuestion | null {
  const fact = factById(ctx, r.fact_id);
  if (!fact) return null;
  return {
    id: r.id,
    factId: r.fact_id,
    fact,
    said: r.detail,
    episodeId: r.episode_id,
    actor: r.actor,
    askedAt: r.flagged_at,
  };
}

const OPEN = `SELECT id, fact_id, detail, episode_id, actor, flagged_at FROM review_flags
  WHERE reason = 'question' AND cleared_at IS NULL`;

/**
 * The question as the owner and the model read it:
 * `q7: does "I'm freelancing now" mean f3 profile/employer: Acme no longer holds?`
 */
export function questionText(q: Pick<PendingQuestion, 'id' | 'said' | 'fact'>): string {
  const said = q.said.replace(/\s+/g, ' ').trim();
  return `q${q.id}: does "${said}" mean f${q.fact.id} ${q.fact.kind}/${q.fact.key}: ${q.fact.value.replace(/\s+/g, ' ').trim()} no longer holds?`;
}

/** Every open question, oldest first. */
export function openQuestions(ctx: StoreContext): PendingQuestion[] {
  return (stmt(ctx.db, `${OPEN} ORDER BY flagged_at, id`).all() as FlagRow[]).flatMap((r) => {
    const q = toQuestion(ctx, r);
    return q ? [q] : [];
  });
}

/** The open questions on one belief, oldest first. */
export function openQuestionsOn(ctx: StoreContext, factId: number): PendingQuestion[] {
  return openQuestions(ctx).filter((q) => q.factId === factId);
}

/** What raising a question asks. */
export interface AskInput {
  /** Who raises it (journaled as the actor). */
  actor: Actor;
  /** What was said that may end the belief (clipped to {@link QUESTION_MAX_CHARS}). */
  said: string;
  /** The turn it rests on. */
  episodeId?: number;
}

/**
 * Raises a question on an active belief: does what was said end it? Nothing about the belief
 * changes. The same turn asking again about the same belief changes nothing. Runs in the caller's
 * transaction when there is one.
 *
 * @returns the open question, and whether this call raised it.
 * @throws KeelError `NOT_FOUND` (no such fact or episode), `INVALID_STATE` (the fact is not
 *   active), `INVALID_INPUT` (nothing was said).
 */
export function askQuestion(
  ctx: StoreContext,
  factId: number,
  input: AskInput,
): { question: PendingQuestion; created: boolean } {
  return ctx.db.transaction(() => {
    const fact = factById(ctx, factId);
    if (!fact) throw new KeelError('NOT_FOUND', `no fact ${factId}`, { details: { id: factId } });
    if (fact.status !== 'active') {
      throw new KeelError(
        'INVALID_STATE',
        `fact ${factId} is ${fact.status}; nothing to ask about`,
      );
    }
    const said = typeof input.said === 'string' ? input.said.replace(/\u0000/g, ' ').trim() : '';
    if (!said) throw new KeelError('INVALID_INPUT', 'a question needs what was said');
    if (input.episodeId !== undefined && !getEpisode(ctx, input.episodeId)) {
      throw new KeelError('NOT_FOUND', `no episode ${input.episodeId}`);
    }
    const episodeId = input.episodeId ?? null;
    const same = openQuestionsOn(ctx, factId).find(
      (q) => (episodeId !== null && q.episodeId === episodeId) || q.said === said,
    );
    if (same) return { question: same, created: false };
    const now = ctx.now();
    const clipped =
      said.length > QUESTION_MAX_CHARS ? `${said.slice(0, QUESTION_MAX_CHARS - 1)}…` : said;
    const id = Number(
      stmt(
        ctx.db,
        `INSERT INTO review_flags (fact_id, reason, flagged_at, detail, episode_id, actor)
         VALUES (?, 'question', ?, ?, ?, ?)`,
      ).run(factId, now, clipped, episodeId, input.actor).lastInsertRowid,
    );
    appendJournal(ctx.db, {
      at: now,
      actor: input.actor,
      op: 'ask',
      entity: 'fact',
      entityId: factId,
      payload: { question: id, said: clipped, episode_id: episodeId },
    });
    const question = toQuestion(ctx, {
      id,
      fact_id: factId,
      detail: clipped,
      episode_id: episodeId,
      actor: input.actor,
      flagged_at: now,
    })!;
    return { question, created: true };
  })();
}

/** What answering a question did. */
export interface AnswerResult {
  /** The question as it was asked. */
  question: PendingQuestion;
  answer: 'yes' | 'no';
  /** The belief after the answer: retracted for yes, unchanged for no. */
  fact: Fact;
}

/**
 * The owner answers a question. Yes closes the belief as of the turn the question rests on (or
 * now): `retracted`, `valid_to` set, history kept, journaled as the owner's `retract`; every other
 * open flag on it is answered too. No clears the question (journaled as the owner's `keep`) and
 * leaves the belief as it was.
 *
 * @param channel - where the owner answered (terminal, cli, discord); default "cli".
 * @throws KeelError `NOT_FOUND` (no open question with that id), `INVALID_STATE` (its belief is no
 *   longer active: the question is cleared and the error says so).
 */
export function answerQuestion(
  ctx: StoreContext,
  id: number,
  answer: 'yes' | 'no',
  options: OwnerActionOptions = {},
): AnswerResult {
  return ctx.db
    .transaction((): AnswerResult => {
      const row = stmt(ctx.db, `${OPEN} AND id = ?`).get(id) as FlagRow | undefined;
      const question = row && toQuestion(ctx, row);
      if (!question) {
        throw new KeelError('NOT_FOUND', `no open question q${id}`, { details: { id } });
      }
      const now = ctx.now();
      addEpisode(ctx, {
        kind: 'command',
        channel: options.channel ?? 'cli',
        role: 'owner',
        text: `answer q${id} ${answer}`,
        actor: actorOf(options),
      });
      const mark = stmt(ctx.db, 'UPDATE review_flags SET cleared_at = ?, answer = ? WHERE id = ?');
      if (answer === 'no') {
        mark.run(now, 'no', id);
        for (const p of proposalsFrom(ctx, question)) {
          reject(ctx, p.id, options);
        }
        appendJournal(ctx.db, {
          at: now,
          actor: actorOf(options),
          op: 'keep',
          entity: 'fact',
          entityId: question.factId,
          payload: { declined: 'question', question: id },
        });
        return { question, answer, fact: question.fact };
      }
      if (question.fact.status !== 'active') {
        mark.run(now, null, id);
        throw new KeelError(
          'INVALID_STATE',
          `f${question.factId} is ${question.fact.status} already; q${id} is cleared`,
        );
      }
      mark.run(now, 'yes', id);
      // The same turn proposed a value for the slot: yes makes it current (it supersedes).
      const proposed = proposalsFrom(ctx, question);
      if (proposed.length > 0) {
        confirm(ctx, proposed[0]!.id, options);
        return { question, answer, fact: factById(ctx, question.factId)! };
      }
      const at =
        question.episodeId === null
          ? now
          : (getEpisode(ctx, question.episodeId)?.occurred_at ?? now);
      closeOwnerBelief(ctx, question.fact, {
        now,
        validTo: at,
        why: `the owner answered yes to q${id}: "${question.said}" ends it`,
        episodeId: question.episodeId,
        actor: actorOf(options),
      });
      return { question, answer, fact: factById(ctx, question.factId)! };
    })
    .immediate();
}

/** Pending values for the question's slot, contradicting its belief, resting on its turn. */
function proposalsFrom(ctx: StoreContext, q: PendingQuestion): Fact[] {
  if (q.episodeId === null) return [];
  return slotRows(ctx, q.fact, ['pending']).filter(
    (p) => p.conflicts_with_id === q.factId && evidenceEpisodes(ctx, p.id).includes(q.episodeId!),
  );
}

/**
 * Settles the open questions on belief `factId` that rest on one of `episodeIds`, in the caller's
 * transaction: a pending value from the same turn was confirmed (`yes`) or rejected (`no`).
 *
 * @returns how many questions were settled.
 */
export function settleQuestions(
  ctx: StoreContext,
  factId: number,
  episodeIds: readonly number[],
  answer: 'yes' | 'no',
  now: number,
): number {
  let n = 0;
  for (const q of openQuestionsOn(ctx, factId)) {
    if (q.episodeId === null || !episodeIds.includes(q.episodeId)) continue;
    stmt(ctx.db, 'UPDATE review_flags SET cleared_at = ?, answer = ? WHERE id = ?').run(
      now,
      answer,
      q.id,
    );
    n++;
  }
  return n;
}

/**
 * Closes an active belief on the owner's word, in the caller's transaction: `retracted` with
 * `valid_to` (never before it began), its open review flags answered, journaled as the owner's
 * `retract`. No tombstone: it was true and may be again.
 */
export function closeOwnerBelief(
  ctx: StoreContext,
  fact: Fact,
  change: {
    now: number;
    validTo: number;
    why: string;
    episodeId: number | null;
    /** Who the journal names (default `owner`; `web` for the owner on the web page). */
    actor?: Actor;
  },
): void {
  retractAt(ctx, fact.id, { now: change.now, validTo: change.validTo, reason: change.why });
  const cleared = clearReviewFlags(ctx, fact.id, change.now);
  appendJournal(ctx.db, {
    at: change.now,
    actor: change.actor ?? 'owner',
    op: 'retract',
    entity: 'fact',
    entityId: fact.id,
    payload: {
      before: { status: fact.status },
      after: { status: 'retracted' },
      reason: change.why,
      episode_id: change.episodeId,
      valid_to: change.validTo,
      ...(cleared ? { review_flags_cleared: cleared } : {}),
    },
  });
}
