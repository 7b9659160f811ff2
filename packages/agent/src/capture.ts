/**
 * The one write of the owner's explicit statement ("remember that …", "call me …", a
 * correction), shared by every door: the terminal with a model and the offline terminal (and so
 * Discord, which runs one of them). Capture never fails a turn: an error is recorded against the
 * turn's episode (`keel doctor` lists it) and returned for the door to say.
 *
 * @module
 */
import { KeelError } from '@keel/errors';
import { captureExplicit } from '@keel/gate';
import type { MemoryStore, WriteResult } from '@keel/memory';

/** What capturing one owner line did. */
export interface OwnerCapture {
  /** The write review's result, or null when the line states nothing to keep (or it failed). */
  write: WriteResult | null;
  /** Why the capture failed (the episode is stored all the same), or null. */
  error: { code: string; message: string } | null;
}

/**
 * Captures the owner's explicit statement in `text`, if it holds one, as an `owner_stated`
 * belief with `episodeId` as its evidence.
 *
 * @param episodeId - the owner's episode of this line (already stored).
 */
export function captureOwnerStatement(
  store: MemoryStore,
  text: string,
  episodeId: number,
): OwnerCapture {
  try {
    const capture = captureExplicit(text);
    if (!capture) return { write: null, error: null };
    const write = store.remember({
      kind: capture.kind,
      key: capture.key,
      value: capture.value,
      source: 'owner_stated',
      episodeId,
      actor: 'owner',
    });
    return { write, error: null };
  } catch (err) {
    const error = {
      code: KeelError.isInstance(err) ? err.code : 'INTERNAL',
      message: err instanceof Error ? err.message : String(err),
    };
    store.recordCaptureFailure(episodeId, error.code, error.message);
    return { write: null, error };
  }
}
