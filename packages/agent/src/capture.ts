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
import { resolveStart } from '@keel/language';
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
 * belief with `episodeId` as its evidence. A time phrase said with the value, before or after it
 * ("I moved to Porto yesterday", "on March 3rd I moved to Porto") is the belief's start
 * (`valid_from`: that day's start in `tz`) when it names a day at or before the line
 * ({@link resolveStart}: a day and month without a year is the most recent one); a month or a
 * year alone ("in March") leaves the start unknown rather than guessed. Either way it is not part
 * of the value.
 *
 * @param episodeId - the owner's episode of this line (already stored).
 * @param tz - the owner's IANA time zone (`KEEL_TZ`), default "UTC".
 */
export function captureOwnerStatement(
  store: MemoryStore,
  text: string,
  episodeId: number,
  tz = 'UTC',
): OwnerCapture {
  try {
    const capture = captureExplicit(text);
    if (!capture) return { write: null, error: null };
    const said = store.episode(episodeId)?.occurred_at ?? store.now();
    const day = capture.when ? resolveStart(capture.when, said, tz) : null;
    const write = store.remember({
      kind: capture.kind,
      key: capture.key,
      value: capture.value,
      source: 'owner_stated',
      episodeId,
      actor: 'owner',
      ...(day && day.startMs <= said ? { validFrom: day.startMs } : {}),
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
