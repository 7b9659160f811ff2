/**
 * `remind`: the model sets, lists and cancels the owner's reminders. A reminder is delivered by
 * the think service on the owner's Discord DM at its time (never in quiet hours, at most once).
 *
 * Its effect is `write` and its default policy `allow`: it writes only keel's own reminders (no
 * file, no command, no network) and the only message it leads to goes to the owner themself, at a
 * time they asked for; each is listed by `keel reminders` and cancelled with one command. An owner
 * who wants to be asked first sets the policy `remind: ask`.
 *
 * The wording of a reminder (what, when in the owner's zone, its id and how to cancel it) is here
 * too, so that every place that says a reminder (the tool's result, the line under a reply, the
 * terminal's listing) says it the same way.
 *
 * @module
 */
import { KeelError } from '@keel/errors';
import { resolveReminderTime, whenWords } from '@keel/language';
import { MAX_REMINDER_CHARS, type Reminder } from '@keel/memory';
import { z } from 'zod';
import type { Tool, ToolContext, ToolResult } from '../contract.js';

/**
 * How the owner cancels reminder `id`, at any door: `/reminders cancel 3` (the terminal, Discord)
 * or `keel reminders cancel 3` (a shell).
 */
export function cancelCommand(id: number): string {
  return `/reminders cancel ${id} or keel reminders cancel ${id}`;
}

/** A reminder in words: `call the bank — today 17:00 (r3)`, its time in the owner's zone. */
export function reminderWords(
  r: Pick<Reminder, 'id' | 'text' | 'due_at'>,
  nowMs: number,
  tz: string,
): string {
  return `${r.text} — ${whenWords(r.due_at, nowMs, tz)} (r${r.id})`;
}

/**
 * The confirmation of a reminder set: `Reminder set: call the bank — today 17:00 (r3;
 * /reminders cancel 3 or keel reminders cancel 3 to cancel)`; `Reminder already set: …` when the same one was set before.
 */
export function reminderSetLine(
  r: Pick<Reminder, 'id' | 'text' | 'due_at'>,
  nowMs: number,
  tz: string,
  created = true,
): string {
  return `${created ? 'Reminder set' : 'Reminder already set'}: ${r.text} — ${whenWords(r.due_at, nowMs, tz)} (r${r.id}; ${cancelCommand(r.id)} to cancel)`;
}

/** One line of a listing: `r3  pending    today 17:00  call the bank`, with a send error or miss. */
export function reminderListLine(r: Reminder, nowMs: number, tz: string): string {
  const when = whenWords(r.due_at, nowMs, tz);
  const note = r.status === 'missed' || r.status === 'pending' ? r.last_error : null;
  return `r${r.id}  ${r.status.padEnd(9)}  ${when}  ${r.text}${note ? `  (${note})` : ''}`;
}

/** The words of a cancel: what changed, or why nothing did. */
export function cancelWords(r: Reminder, cancelled: boolean, nowMs: number, tz: string): string {
  if (cancelled) return `Cancelled: ${reminderWords(r, nowMs, tz)}.`;
  const why =
    r.status === 'cancelled'
      ? 'it was already cancelled'
      : r.status === 'sent'
        ? 'it was already sent'
        : 'it was missed (its time passed while keel was not running)';
  return `Not cancelled: r${r.id} (${r.text}): ${why}.`;
}

/** The tool's input. */
export const remindInput = z.object({
  action: z
    .enum(['create', 'list', 'cancel'])
    .describe('create a reminder, list them, or cancel one'),
  text: z
    .string()
    .min(1)
    .max(MAX_REMINDER_CHARS)
    .optional()
    .describe('create: what to remind the owner of, e.g. "call the bank"'),
  when: z
    .string()
    .min(1)
    .max(200)
    .optional()
    .describe(
      'create: when, in the owner\'s words ("at five", "Friday at 10", "in two hours", "tomorrow morning") or an ISO time; read in the owner\'s time zone',
    ),
  id: z
    .union([z.number().int().positive(), z.string().regex(/^r?\d+$/)])
    .optional()
    .describe('cancel: the reminder id (3 or "r3")'),
});
/** The parsed input of {@link remindTool}. */
export type RemindInput = z.infer<typeof remindInput>;

/** Options for {@link remindTool}. */
export interface RemindToolOptions {
  /** Reminders a listing shows besides the pending ones (default 10). */
  recent?: number;
}

/** The store's answers to bad input, returned to the model as error results. */
const INPUT_ERRORS = new Set(['INVALID_INPUT', 'TOO_LARGE', 'NOT_FOUND']);

const failure = (content: string, exit = 'error'): ToolResult => ({ content, isError: true, exit });

/** Sets a reminder from the model's call. */
function create(input: RemindInput, context: ToolContext): ToolResult {
  if (!input.text?.trim()) return failure('create needs `text`: what to remind the owner of.');
  if (!input.when?.trim()) {
    return failure('create needs `when`: a time such as "at five", "Friday at 10" or an ISO time.');
  }
  const now = context.now();
  const time = resolveReminderTime(input.when, now, context.tz);
  if (time.dueAt === null) {
    return failure(
      time.reason === 'past'
        ? `"${input.when}" is in the past (now it is ${whenWords(now, now, context.tz)} in ${context.tz}); no reminder was set.`
        : `could not read a time in "${input.when}"; say it like "at five", "Friday at 10", "in two hours" or give an ISO time. No reminder was set.`,
    );
  }
  const r = context.store.reminders.create({
    text: input.text,
    dueAt: time.dueAt,
    phrase: input.when,
    channel: context.channel,
    createdBy: 'model',
  });
  const withheld = r.withheld ? ' A credential in its text was withheld (never stored).' : '';
  return {
    content: `${reminderSetLine(r.reminder, now, context.tz, r.created)} (time zone ${context.tz}).${withheld}`,
    isError: false,
    exit: r.created ? 'created' : 'exists',
  };
}

/** Lists the reminders: pending first, then recent ones. */
function list(context: ToolContext, recent: number): ToolResult {
  const all = context.store.reminders.list({ recent });
  if (all.length === 0) return { content: 'No reminders.', isError: false, exit: '0' };
  const now = context.now();
  return {
    content: [
      `Reminders (time zone ${context.tz}; pending first):`,
      ...all.map((r) => reminderListLine(r, now, context.tz)),
    ].join('\n'),
    isError: false,
    exit: String(all.length),
  };
}

/** Cancels a pending reminder. */
function cancel(input: RemindInput, context: ToolContext): ToolResult {
  if (input.id === undefined) return failure('cancel needs `id`: the reminder id, e.g. 3 or "r3".');
  const id = typeof input.id === 'number' ? input.id : Number(input.id.replace(/^r/, ''));
  const r = context.store.reminders.cancel(id);
  return {
    content: cancelWords(r.reminder, r.cancelled, context.now(), context.tz),
    isError: !r.cancelled,
    exit: r.cancelled ? 'cancelled' : r.reminder.status,
  };
}

/**
 * The `remind` tool: `{ action: 'create', text, when }` sets a reminder (a time in the past or
 * one that cannot be read is refused with a clear error result), `{ action: 'list' }` lists them,
 * `{ action: 'cancel', id }` cancels one. Results name the reminder id (`r12`), its local time in
 * the owner's zone and how to cancel it. Never throws: a bad input or an unknown id is an error
 * result; a store that fails (`DB_*`, `BUSY`) is thrown on, for the turn to handle.
 */
export function remindTool(options: RemindToolOptions = {}): Tool<RemindInput> {
  const recent = options.recent ?? 10;
  return {
    name: 'remind',
    description:
      "Set, list or cancel the owner's reminders. keel sends a reminder to the owner on Discord at its time (never in quiet hours). A reminder the owner asked for in their own words this turn is set by keel already: do not set it again.",
    input: remindInput,
    effect: 'write',
    origin: 'builtin',
    defaultPolicy: 'allow',
    summary: (i) =>
      i.action === 'create'
        ? `set a reminder "${i.text ?? ''}" for ${i.when ?? '(no time)'}`
        : i.action === 'cancel'
          ? `cancel reminder ${typeof i.id === 'number' ? `r${i.id}` : (i.id ?? '(no id)')}`
          : 'list reminders',
    async execute(input, context) {
      if (context.signal.aborted) return failure('cancelled before it ran', 'cancelled');
      try {
        if (input.action === 'create') return create(input, context);
        if (input.action === 'cancel') return cancel(input, context);
        return list(context, recent);
      } catch (err) {
        // Bad input (an empty or oversized text, an unknown id) is the model's to read; a store
        // that fails (damaged, busy) is the turn's to handle.
        if (KeelError.isInstance(err) && INPUT_ERRORS.has(err.code)) {
          return failure(`${err.code}: ${err.message}`, err.code);
        }
        throw err;
      }
    },
  };
}
