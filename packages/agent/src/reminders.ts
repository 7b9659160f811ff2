/**
 * Reminders the owner asks for in words ("remind me at five to call the bank"), read where the
 * owner's line is captured ({@link captureReminder}, called by `captureOwnerStatement`), so that
 * every door sets them, with a model or offline; and the one wording of what came of it
 * ({@link reminderLine}), which the line under a reply (`underReply`) and the offline reply say.
 *
 * With a model, the request is read before the model is called too ({@link reminderContext}):
 * the model is told that keel sets the reminder itself when the turn completes, so it does not
 * set a second one (and if it does, the store's same-reminder check makes them one).
 *
 * @module
 */
import { KeelError, refusesWrites } from '@keel/errors';
import { parseReminderRequest, whenWords } from '@keel/language';
import type { MemoryStore, Reminder } from '@keel/memory';
import { reminderSetLine } from '@keel/tools';

/** What came of a request to be reminded in the owner's line. */
export type ReminderOutcome =
  | {
      /** The reminder is set (`created`), or the same one was set already. */
      kind: 'set';
      reminder: Reminder;
      created: boolean;
      /** A credential in its text was withheld. */
      withheld: boolean;
    }
  | {
      /** A request, but no reminder: no time read, a time that passed, or nothing to remind of. */
      kind: 'unread';
      what: string;
      phrase: string | null;
      reason: 'no-time' | 'past' | 'no-what';
    }
  | {
      /** Setting it failed (the line and its other captures are kept all the same). */
      kind: 'failed';
      code: string;
      message: string;
    };

/** What a turn says about a reminder its words asked for: the outcome and its one line. */
export interface ReminderNote {
  outcome: ReminderOutcome;
  /** The line every door says ({@link reminderLine}). */
  line: string;
}

/**
 * Reads a request to be reminded in the owner's line and sets it, in the caller's unit of work:
 * due at the time the line names from the moment it was said (the episode's time) in `tz`, from
 * the door the episode came from, created by the owner. Never throws: a failure is an outcome.
 *
 * @returns null when the line asks for no reminder.
 */
export function captureReminder(
  store: MemoryStore,
  text: string,
  episodeId: number,
  tz: string,
): ReminderNote | null {
  const episode = store.episode(episodeId);
  const said = episode?.occurred_at ?? store.now();
  let outcome: ReminderOutcome | null;
  try {
    outcome = readAndSet(store, text, said, tz, episodeId, episode?.channel ?? 'terminal');
  } catch (err) {
    // A store that takes no writes stops the line, as every write does; anything else is said.
    if (KeelError.isInstance(err) && refusesWrites(err)) throw err;
    outcome = {
      kind: 'failed',
      code: KeelError.isInstance(err) ? err.code : 'INTERNAL',
      message: err instanceof Error ? err.message : String(err),
    };
  }
  return outcome ? { outcome, line: reminderLine(outcome, said, tz) } : null;
}

/** The request in `text`, set when it names what and a time ahead; null when it asks for none. */
function readAndSet(
  store: MemoryStore,
  text: string,
  said: number,
  tz: string,
  episodeId: number,
  channel: string,
): ReminderOutcome | null {
  const request = parseReminderRequest(text, said, tz);
  if (!request) return null;
  if (!request.what) return { kind: 'unread', what: '', phrase: request.phrase, reason: 'no-what' };
  if (request.dueAt === null) {
    return {
      kind: 'unread',
      what: request.what,
      phrase: request.phrase,
      reason: request.reason ?? 'no-time',
    };
  }
  const r = store.reminders.create({
    text: request.what,
    dueAt: request.dueAt,
    phrase: request.phrase,
    episodeId,
    channel,
    createdBy: 'owner',
  });
  return { kind: 'set', ...r };
}

/**
 * The one line that says what came of a request to be reminded, at every door:
 * - `Reminder set: call the bank — today 17:00 (r3; /reminders cancel 3 or keel reminders cancel 3 to cancel)`;
 * - `Reminder already set: …` when the same reminder was set before;
 * - `No reminder set: I could not read when to remind you to "call the bank". Say a time, e.g. "remind me at 5pm to …".`
 * - `No reminder set: "yesterday" has passed. Say a time ahead.`
 * - `No reminder set: I could not tell what to remind you of.`
 */
export function reminderLine(outcome: ReminderOutcome, nowMs: number, tz: string): string {
  switch (outcome.kind) {
    case 'set':
      return `${reminderSetLine(outcome.reminder, nowMs, tz, outcome.created)}.`;
    case 'failed':
      return `No reminder set: ${outcome.code}: ${outcome.message}.`;
    case 'unread':
      if (outcome.reason === 'no-what') {
        return `No reminder set: I could not tell what to remind you of${outcome.phrase ? ` ${outcome.phrase}` : ''}. Say it like "remind me at 5pm to call the bank".`;
      }
      if (outcome.reason === 'past') {
        return `No reminder set: "${outcome.phrase}" has passed (it is ${whenWords(nowMs, nowMs, tz)} in ${tz}). Say a time ahead.`;
      }
      return `No reminder set: I could not read when to remind you to "${outcome.what}". Say a time, e.g. "remind me at 5pm to ${outcome.what}".`;
  }
}

/**
 * What the model reads with the owner's message when it asks for a reminder: keel sets it from
 * the owner's words when the turn completes, at the time given, so the model does not set it
 * again; or null when the message asks for none.
 */
export function reminderContext(text: string, nowMs: number, tz: string): string | null {
  const request = parseReminderRequest(text, nowMs, tz);
  if (!request) return null;
  if (request.dueAt === null || !request.what) {
    return '(keel: this message asks for a reminder, but keel could not read its time or what it is for; keel tells the owner under your reply. Do not set it yourself unless the owner gives the time.)';
  }
  return `(keel: keel sets this reminder itself when this turn completes: "${request.what}" — ${whenWords(request.dueAt, nowMs, tz)} (${tz}). Do not call remind to set it again; you may confirm it in your reply.)`;
}
