/**
 * Reminders (`reminders`): what the owner asked keel to remind them of, and when. A reminder is
 * created once (the same text due within {@link SAME_REMINDER_MS} of a pending one is that
 * reminder), listed, cancelled by the owner while it waits, and delivered by the think service at
 * most once: claimed (pending → sent) before the send, so a crash mid-send never sends it twice,
 * released on a failed send (given up as `missed` once its tries are spent), and marked `missed`
 * when its time passed too long ago to be worth sending.
 *
 * A reminder holds the owner's words (what to be reminded of, their phrase for the time, a send
 * error): they are written through {@link storedText} (credentials withheld, as in every table),
 * and purge reaches them ({@link RemindersRepo.holder}).
 *
 * @module
 */

import { KeelError } from '@keel/errors';
import { SECRET_PLACEHOLDER } from '@keel/language';
import { type StoreContext, stmt } from '../context.js';
import { columnHolder, type OwnerTextHolder, storedText } from '../redaction.js';

/** Where a reminder is in its life. */
export const REMINDER_STATUSES = ['pending', 'sent', 'cancelled', 'missed'] as const;
/** One of {@link REMINDER_STATUSES}. */
export type ReminderStatus = (typeof REMINDER_STATUSES)[number];

/** Who set a reminder: the owner's own words (read at capture) or the model's `remind` tool. */
export type ReminderAuthor = 'owner' | 'model';

/** Two reminders of the same text due within this of each other are one reminder, ms (5 minutes). */
export const SAME_REMINDER_MS = 5 * 60_000;

/** The longest reminder text kept, in characters (a reminder is a line, not a document). */
export const MAX_REMINDER_CHARS = 1_000;

/** A reminder as stored. Times are ms since the Unix epoch. */
export interface Reminder {
  id: number;
  /** What to be reminded of ("call the bank"), credentials withheld. */
  text: string;
  /** When it is due. */
  due_at: number;
  /** The owner's words for the time ("at five", "Friday at 10"), or null. */
  phrase: string | null;
  created_at: number;
  /** The owner's turn it was asked in, when known. */
  episode_id: number | null;
  /** The door it was asked from (`terminal`, `discord`, `cli`). */
  channel: string;
  created_by: ReminderAuthor;
  status: ReminderStatus;
  /** When it was sent (claimed for the send), or null. */
  sent_at: number | null;
  /** When the owner cancelled it, or null. */
  cancelled_at: number | null;
  /** Sends tried. */
  attempts: number;
  /** Why the last send failed, or why it was missed; null otherwise. */
  last_error: string | null;
}

/** What {@link RemindersRepo.create} is given. */
export interface NewReminder {
  text: string;
  dueAt: number;
  phrase?: string | null;
  episodeId?: number | null;
  channel: string;
  createdBy: ReminderAuthor;
}

/** What {@link RemindersRepo.create} did. */
export interface CreatedReminder {
  reminder: Reminder;
  /** False when a pending reminder of the same text due within 5 minutes was returned instead. */
  created: boolean;
  /** True when a credential was withheld from its text. */
  withheld: boolean;
}

/** What {@link RemindersRepo.cancel} did. */
export interface CancelledReminder {
  reminder: Reminder;
  /** False when it was not pending (already cancelled, sent or missed): nothing changed. */
  cancelled: boolean;
}

/** Text folded for the same-reminder check: case, width and spacing aside. */
function sameText(text: string): string {
  return text.normalize('NFKC').toLowerCase().replace(/\s+/g, ' ').trim();
}

const COLUMNS = `id, text, due_at, phrase, created_at, episode_id, channel, created_by, status,
  sent_at, cancelled_at, attempts, last_error`;

/** The reminders. */
export class RemindersRepo {
  constructor(private readonly ctx: StoreContext) {}

  /**
   * Records a reminder, unless a pending one of the same text (folded) is due within
   * {@link SAME_REMINDER_MS} of it: that one is returned (a request said in words and the model's
   * `remind` call of the same turn make one reminder). Its text and phrase are stored as
   * {@link storedText} stores them (credentials withheld).
   *
   * @throws KeelError `INVALID_INPUT` (empty text, a due time that is not a finite number, no
   *   channel), `TOO_LARGE` (text past {@link MAX_REMINDER_CHARS}).
   */
  create(input: NewReminder): CreatedReminder {
    const raw = typeof input.text === 'string' ? input.text.replace(/\s+/g, ' ').trim() : '';
    if (!raw) throw new KeelError('INVALID_INPUT', 'a reminder needs something to remind you of');
    if (raw.length > MAX_REMINDER_CHARS) {
      throw new KeelError(
        'TOO_LARGE',
        `the reminder is ${raw.length} characters; the limit is ${MAX_REMINDER_CHARS}`,
        { details: { length: raw.length, limit: MAX_REMINDER_CHARS } },
      );
    }
    if (!Number.isFinite(input.dueAt)) {
      throw new KeelError('INVALID_INPUT', 'a reminder needs a due time (ms since the epoch)');
    }
    if (!input.channel) throw new KeelError('INVALID_INPUT', 'a reminder needs its channel');
    if (input.createdBy !== 'owner' && input.createdBy !== 'model') {
      throw new KeelError('INVALID_INPUT', `unknown reminder author "${String(input.createdBy)}"`);
    }
    const text = storedText(raw, this.ctx.ledger);
    const withheld = text.includes(SECRET_PLACEHOLDER) && !raw.includes(SECRET_PLACEHOLDER);
    const dueAt = Math.round(input.dueAt);
    const near = stmt(
      this.ctx.db,
      `SELECT ${COLUMNS} FROM reminders
         WHERE status = 'pending' AND due_at BETWEEN ? AND ? ORDER BY id`,
    ).all(dueAt - SAME_REMINDER_MS, dueAt + SAME_REMINDER_MS) as Reminder[];
    const same = near.find((r) => sameText(r.text) === sameText(text));
    if (same) return { reminder: same, created: false, withheld };
    const phrase = input.phrase ? storedText(input.phrase, this.ctx.ledger) : null;
    const id = Number(
      stmt(
        this.ctx.db,
        `INSERT INTO reminders (text, due_at, phrase, created_at, episode_id, channel, created_by)
           VALUES (?, ?, ?, ?, ?, ?, ?)`,
      ).run(
        text,
        dueAt,
        phrase,
        this.ctx.now(),
        input.episodeId ?? null,
        input.channel,
        input.createdBy,
      ).lastInsertRowid,
    );
    return { reminder: this.get(id)!, created: true, withheld };
  }

  /** One reminder by id, or null. */
  get(id: number): Reminder | null {
    return (
      (stmt(this.ctx.db, `SELECT ${COLUMNS} FROM reminders WHERE id = ?`).get(id) as
        | Reminder
        | undefined) ?? null
    );
  }

  /** The reminders set from the owner's turn `episodeId`, oldest first. */
  fromEpisode(episodeId: number): Reminder[] {
    return stmt(
      this.ctx.db,
      `SELECT ${COLUMNS} FROM reminders WHERE episode_id = ? ORDER BY id`,
    ).all(episodeId) as Reminder[];
  }

  /**
   * The pending reminders, soonest first, then the `recent` newest others (sent, cancelled,
   * missed; by due time, newest first).
   */
  list(options: { recent?: number } = {}): Reminder[] {
    const pending = stmt(
      this.ctx.db,
      `SELECT ${COLUMNS} FROM reminders WHERE status = 'pending' ORDER BY due_at, id`,
    ).all() as Reminder[];
    const others = stmt(
      this.ctx.db,
      `SELECT ${COLUMNS} FROM reminders WHERE status <> 'pending' ORDER BY due_at DESC, id DESC LIMIT ?`,
    ).all(options.recent ?? 10) as Reminder[];
    return [...pending, ...others];
  }

  /**
   * Cancels a pending reminder. A reminder that is not pending is left as it is (`cancelled:
   * false`, its status says why: cancelled already, sent, missed).
   *
   * @throws KeelError `NOT_FOUND` when there is no reminder `id`.
   */
  cancel(id: number): CancelledReminder {
    const changed =
      stmt(
        this.ctx.db,
        `UPDATE reminders SET status = 'cancelled', cancelled_at = ? WHERE id = ? AND status = 'pending'`,
      ).run(this.ctx.now(), id).changes === 1;
    const reminder = this.get(id);
    if (!reminder) {
      throw new KeelError('NOT_FOUND', `no reminder r${id}`, {
        details: { id },
        fix: 'Check the id; `keel reminders` lists every reminder with its id (r…).',
      });
    }
    return { reminder, cancelled: changed };
  }

  /** Pending reminders due by `now` with tries left (fewer than `maxAttempts`), oldest due first. */
  due(now: number, maxAttempts: number): Reminder[] {
    return stmt(
      this.ctx.db,
      `SELECT ${COLUMNS} FROM reminders
         WHERE status = 'pending' AND due_at <= ? AND attempts < ? ORDER BY due_at, id`,
    ).all(now, maxAttempts) as Reminder[];
  }

  /**
   * Claims a pending reminder before sending it (pending → sent, one more attempt).
   *
   * @returns false when it is not pending any more (another process claimed it, or the owner
   *   cancelled it): it must not be sent.
   */
  claim(id: number, now: number): boolean {
    return (
      stmt(
        this.ctx.db,
        `UPDATE reminders SET status = 'sent', sent_at = ?, attempts = attempts + 1
           WHERE id = ? AND status = 'pending'`,
      ).run(now, id).changes === 1
    );
  }

  /** Records that a claimed reminder reached the owner at `at` (its send time; no error). */
  markSent(id: number, at: number): void {
    stmt(
      this.ctx.db,
      `UPDATE reminders SET sent_at = ?, last_error = NULL WHERE id = ? AND status = 'sent'`,
    ).run(at, id);
  }

  /**
   * Releases a claimed reminder whose send failed, with why (as {@link storedText} stores it): it
   * waits for the next try, or is `missed` once `maxAttempts` sends have failed.
   */
  release(id: number, error: string, maxAttempts: number): void {
    stmt(
      this.ctx.db,
      `UPDATE reminders
         SET status = CASE WHEN attempts >= ? THEN 'missed' ELSE 'pending' END,
             sent_at = NULL, last_error = ?
         WHERE id = ? AND status = 'sent'`,
    ).run(maxAttempts, storedText(error, this.ctx.ledger), id);
  }

  /**
   * Marks `missed` the pending reminders due before `before` (their time passed too long ago to
   * be sent late: the owner sees them in the list instead).
   *
   * @returns the reminders marked.
   */
  expire(before: number): Reminder[] {
    const late = stmt(
      this.ctx.db,
      `SELECT ${COLUMNS} FROM reminders WHERE status = 'pending' AND due_at < ? ORDER BY due_at, id`,
    ).all(before) as Reminder[];
    const mark = stmt(
      this.ctx.db,
      `UPDATE reminders SET status = 'missed',
         last_error = 'missed: keel was not running when it was due, and it is more than a day late'
         WHERE id = ? AND status = 'pending'`,
    );
    return late.filter((r) => mark.run(r.id).changes === 1);
  }

  /** The reminders as a holder of the owner's words: what to be reminded of, the phrase, an error. */
  holder(): OwnerTextHolder {
    return columnHolder(this.ctx, 'reminders', [
      { column: 'text' },
      { column: 'phrase' },
      { column: 'last_error' },
    ]);
  }
}
