/**
 * How a memory tool's staged write ({@link StagedWrite}) reaches the store, for every writer that
 * is not the owner: the agent when its turn completes (actor `model`, citing the owner's turn) and
 * `keel mcp` when a client calls (actor `mcp:<client>`). A belief goes through the store's write
 * review as `inferred` (the evidence gate caps it; a contradiction of the owner's word is a
 * pending conflict); a forget is only a request the owner decides (`MemoryStore.requestForget`).
 *
 * @module
 */
import type { Actor, Fact, MemoryStore, WriteResult } from '@keel/memory';
import type { StagedWrite } from '../contract.js';

/** A request to forget a belief that a writer recorded; the owner decides. */
export interface ForgetRequestWrite {
  decision: 'forget_requested';
  reason: string;
  /** The belief the request names. */
  fact: Fact;
  /** The episode it was asked in (the owner's turn), or null when none was cited. */
  episodeId: number | null;
}

/** What applying one staged write did. */
export type AppliedWrite = WriteResult | ForgetRequestWrite;

/** Who applies a staged write, and on what evidence. */
export interface StagedWriter {
  /** Who writes, for the journal: `model`, `mcp:<client>`… */
  actor: Actor;
  /** The episode the write rests on; without one the store records a `command` episode. */
  episodeId?: number;
  /** The channel of the episode the store records when `episodeId` is absent. */
  channel?: string;
  /** How the request to forget is described, e.g. "the model asked to forget it". */
  asked: string;
}

/**
 * Applies one staged write as `writer`: a belief through the write review as `inferred`; a forget
 * as a request the owner decides (nothing is retracted). A forget of a belief that is no longer
 * active or pending does nothing (null).
 *
 * @throws what `MemoryStore.remember` and `requestForget` throw (`INVALID_INPUT`, `NOT_FOUND`,
 *   `BUSY`, `DB_CORRUPT`…).
 */
export function applyStagedWrite(
  store: MemoryStore,
  w: StagedWrite,
  writer: StagedWriter,
): AppliedWrite | null {
  if (w.tool === 'remember') {
    return store.remember({
      kind: w.kind,
      key: w.key,
      value: w.value,
      source: 'inferred',
      actor: writer.actor,
      ...(writer.episodeId === undefined ? {} : { episodeId: writer.episodeId }),
      ...(writer.channel === undefined ? {} : { channel: writer.channel }),
      ...(w.validFrom === null ? {} : { validFrom: w.validFrom }),
    });
  }
  // The writer proposes; the owner decides: a request waits for the owner's answer.
  const f = store.fact(w.id);
  if (!f || (f.status !== 'active' && f.status !== 'pending')) return null;
  const r = store.requestForget(w.id, {
    actor: writer.actor,
    ...(w.reason ? { why: w.reason } : {}),
    ...(writer.episodeId === undefined ? {} : { episodeId: writer.episodeId }),
  });
  return {
    decision: 'forget_requested',
    reason: r.created ? `${writer.asked}; the owner decides` : 'already waiting for the owner',
    fact: f,
    episodeId: writer.episodeId ?? null,
  };
}
