/**
 * The lines every door says under a turn's reply, in one order, so that the terminal, `keel ask`
 * and Discord say the same things: the reply was cut (when the door did not say it as it
 * streamed), what the turn kept ({@link keptLines}), a withheld credential ({@link secretNotice}),
 * a reminder the owner's words asked for (`reminderLine`), a confidence the evidence gate
 * capped ({@link cappedLines}), a capture that failed ({@link captureErrorNote}). A request to forget is the door's own (it asks, or it shows buttons).
 *
 * @module
 */
import type { ConfidenceCap, MemoryStore } from '@keel/memory';
import { secretNotice, TRUNCATED_NOTE, type TurnResult, type TurnWrite } from './agent.js';
import { captureErrorNote } from './capture.js';
import { type CommandStyle, keptLines } from './kept.js';

/**
 * One line saying the evidence gate stored less confidence than was asked:
 * `(confidence capped: asked 0.95, stored 0.7: a first inferred sighting starts at most at 0.7 …)`.
 */
export function cappedLine(cap: ConfidenceCap): string {
  return `(confidence capped: asked ${cap.asked}, stored ${cap.stored}: ${cap.why})`;
}

/** The capped-confidence lines of a turn's writes (see {@link cappedLine}). */
export function cappedLines(writes: readonly TurnWrite[]): string[] {
  return writes.flatMap((w) =>
    w.decision !== 'forget_requested' && w.confidenceCapped ? [cappedLine(w.confidenceCapped)] : [],
  );
}

/**
 * The lines under a turn's reply (see the module description); empty when there is nothing to say.
 *
 * @param store - where {@link keptLines} reads the beliefs a line names.
 * @param result - the turn's outcome.
 * @param options.style - how the owner runs a command at this door (default `slash`).
 * @param options.truncated - whether to say that the reply was cut (default: when it was); a door
 *   that said it as the reply streamed passes `false`.
 */
export function underReply(
  store: Pick<MemoryStore, 'fact'>,
  result: Pick<TurnResult, 'writes' | 'withheld' | 'captureError' | 'truncated'> &
    Partial<Pick<TurnResult, 'reminder'>>,
  options: { style?: CommandStyle; truncated?: boolean } = {},
): string[] {
  return [
    ...((options.truncated ?? result.truncated) ? [TRUNCATED_NOTE] : []),
    ...keptLines(store, result.writes, options.style ?? 'slash'),
    ...(result.withheld.length ? [secretNotice(result.withheld)] : []),
    ...(result.reminder ? [result.reminder.line] : []),
    ...cappedLines(result.writes),
    ...(result.captureError ? [captureErrorNote(result.captureError)] : []),
  ];
}
