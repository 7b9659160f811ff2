/**
 * The lines every door says under a turn's reply, in one order, so that the terminal, `keel ask`
 * and Discord say the same things: the reply was cut (when the door did not say it as it
 * streamed), what its tools did without asking ({@link actedLines}), what the turn kept ({@link keptLines}), a withheld credential ({@link secretNotice}),
 * a reminder the owner's words asked for (`reminderLine`), a confidence the evidence gate
 * capped ({@link cappedLines}), a capture that failed ({@link captureErrorNote}). A request to forget is the door's own (it asks, or it shows buttons).
 *
 * @module
 */
import type { ConfidenceCap, MemoryStore } from '@keel/memory';
import { captureErrorNote } from './capture.js';
import { type CommandStyle, keptLines } from './kept.js';
import { secretNotice, TRUNCATED_NOTE, type TurnResult, type TurnWrite } from './turn.js';

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

/** The most characters of a call's arguments an "acted" line shows. */
const ACTED_ARGS_CHARS = 200;

/**
 * One line per tool call of the turn that acted without asking the owner then (not memory's, not
 * read-only): allowed by their policy, or by a standing "always" answer, e.g. `(ran without
 * asking, by your standing answer: shell {"command":"echo hi >> out.txt"}; keel tools revoke
 * ends it)`. The owner sees every action keel took for them, asked or not.
 */
export function actedLines(store: Pick<MemoryStore, 'toolCalls'>, turnId: number): string[] {
  return store.toolCalls
    .list({ turnId })
    .filter(
      (c) =>
        c.origin !== 'memory' &&
        c.effect !== 'read' &&
        (c.approval === 'allowed' || (c.approval === 'always' && c.approved_by === 'grant')),
    )
    .sort((a, b) => a.id - b.id)
    .map((c) => {
      const args =
        c.arguments.length > ACTED_ARGS_CHARS
          ? `${c.arguments.slice(0, ACTED_ARGS_CHARS - 1)}…`
          : c.arguments;
      const why =
        c.approval === 'allowed'
          ? 'your policy allows it'
          : 'by your standing answer; keel tools revoke ends it';
      return `(ran without asking, ${why}: ${c.tool} ${args})`;
    });
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
  store: Pick<MemoryStore, 'fact'> & Partial<Pick<MemoryStore, 'toolCalls'>>,
  result: Pick<TurnResult, 'writes' | 'withheld' | 'captureError' | 'truncated'> &
    Partial<Pick<TurnResult, 'reminder' | 'turnId'>>,
  options: { style?: CommandStyle; truncated?: boolean } = {},
): string[] {
  return [
    ...((options.truncated ?? result.truncated) ? [TRUNCATED_NOTE] : []),
    ...(store.toolCalls && result.turnId !== undefined
      ? actedLines({ toolCalls: store.toolCalls }, result.turnId)
      : []),
    ...keptLines(store, result.writes, options.style ?? 'slash'),
    ...(result.withheld.length ? [secretNotice(result.withheld)] : []),
    ...(result.reminder ? [result.reminder.line] : []),
    ...cappedLines(result.writes),
    ...(result.captureError ? [captureErrorNote(result.captureError)] : []),
  ];
}
