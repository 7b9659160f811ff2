/**
 * What a completed turn leaves, stored in one transaction: the owner's episode and the reply's,
 * the capture of an explicit statement, the model's staged writes and requests to forget, and
 * the turn's history.
 *
 * @module
 */

import type { MemoryStore } from '@keel/memory';
import { applyStagedWrite, type StagedWrite } from '@keel/tools';
import { captureOwnerStatement } from './capture.js';
import type { ChatMessage } from './model/types.js';
import type { SessionStore } from './session.js';
import type { TurnResult, TurnWrite } from './turn.js';

/** A turn that completed, as {@link storeCompletedTurn} stores it. */
export interface CompletedTurn {
  turnId: number;
  /** The owner's words as stored (credentials withheld). */
  text: string;
  reply: string;
  /** The turn's messages as history keeps them. */
  messages: ChatMessage[];
  staged: StagedWrite[];
  channel: string;
  /** Fact ids the model was shown. */
  factsUsed: number[];
}

/** Stores everything a completed turn leaves, in one transaction. */
export function storeCompletedTurn(
  store: MemoryStore,
  session: SessionStore,
  tz: string,
  model: { provider: string; model: string },
  turn: CompletedTurn,
): Pick<TurnResult, 'writes' | 'captureError' | 'ownerEpisodeId' | 'replyEpisodeId' | 'reminder'> {
  const { channel } = turn;
  return store.transaction(() => {
    const owner = store.addEpisode({ channel, role: 'owner', text: turn.text, actor: 'owner' });
    const answer = store.addEpisode({
      channel,
      role: 'assistant',
      speaker: 'keel',
      text: turn.reply || '(no text)',
      actor: 'model',
    });
    // Capture never fails the turn: an error is recorded (keel doctor shows it) and the turn's
    // reply and episodes are stored all the same.
    const captured = captureOwnerStatement(store, turn.text, owner.id, tz);
    const writes: TurnWrite[] = [
      ...(captured.write ? [captured.write] : []),
      ...captured.also,
      ...applyStaged(store, turn.staged, owner.id),
    ];
    session.completeTurn(turn.turnId, turn.messages, { ...model, factsUsed: turn.factsUsed });
    return {
      writes,
      captureError: captured.error,
      ownerEpisodeId: owner.id,
      replyEpisodeId: answer.id,
      reminder: captured.reminder,
    };
  });
}

/**
 * The model's staged writes, applied: a belief it inferred is remembered as `inferred`; a belief
 * it asks to forget waits for the owner's answer (the model proposes; the owner decides).
 */
function applyStaged(
  store: MemoryStore,
  staged: readonly StagedWrite[],
  episodeId: number,
): TurnWrite[] {
  const writes: TurnWrite[] = [];
  for (const w of staged) {
    const applied = applyStagedWrite(store, w, {
      actor: 'model',
      episodeId,
      asked: 'the model asked to forget it',
    });
    if (applied) writes.push(applied);
  }
  return writes;
}
