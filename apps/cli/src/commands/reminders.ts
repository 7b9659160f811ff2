/**
 * `keel reminders`: the reminders the owner asked for (in words at any door, or set by the model's
 * `remind` tool), pending first (soonest first), then the recent others (sent, cancelled, missed),
 * each with its id, status and local time in the owner's zone; `keel reminders cancel <id>`
 * cancels a pending one. A thin adapter over `MemoryStore.reminders`; the lines are the `remind`
 * tool's (`@keel/tools`), so every door words a reminder the same way.
 *
 * `--json`: `{"reminders": [reminder…], "tz": "…"}`; a cancel prints `{"cancelled": bool,
 * "reminder": reminder}` and exits 1 when nothing was cancelled (already cancelled, sent or
 * missed).
 *
 * @module
 */
import { KeelError } from '@keel/errors';
import type { MemoryStore, Reminder } from '@keel/memory';
import { cancelWords, reminderListLine } from '@keel/tools';
import type { Command } from 'commander';
import type { Config } from '../config.js';
import { action, EXIT, emit, wantsJson } from '../output.js';
import { parsePositiveInt, withStore } from './shared.js';

/** A reminder as `--json` prints it. */
export function reminderJson(r: Reminder) {
  return {
    id: r.id,
    text: r.text,
    due_at: new Date(r.due_at).toISOString(),
    phrase: r.phrase,
    status: r.status,
    created_at: new Date(r.created_at).toISOString(),
    created_by: r.created_by,
    channel: r.channel,
    episode_id: r.episode_id,
    sent_at: r.sent_at === null ? null : new Date(r.sent_at).toISOString(),
    attempts: r.attempts,
    last_error: r.last_error,
  };
}

/** The listing as text: one line per reminder, then how to cancel one. */
export function remindersText(list: readonly Reminder[], now: number, tz: string): string {
  if (list.length === 0) {
    return 'No reminders. Say "remind me at five to call the bank" at any door to set one.';
  }
  const pending = list.filter((r) => r.status === 'pending').length;
  return [
    `Reminders (time zone ${tz}; pending first):`,
    ...list.map((r) => `  ${reminderListLine(r, now, tz)}`),
    pending > 0 ? 'keel reminders cancel <id> cancels a pending one.' : 'None is pending.',
  ].join('\n');
}

/** The id a cancel names: `3` or `r3`. @throws KeelError `INVALID_INPUT`. */
export function parseReminderId(value: string): number {
  const m = /^r?(\d+)$/i.exec(value.trim());
  if (!m || Number(m[1]) < 1) {
    throw new KeelError('INVALID_INPUT', `"${value}" is not a reminder id (e.g. 3 or r3)`, {
      fix: '`keel reminders` lists every reminder with its id.',
    });
  }
  return Number(m[1]);
}

/** Cancels reminder `id`: the words (or JSON) and the exit code. @throws KeelError `NOT_FOUND`. */
export function cancelReminder(store: MemoryStore, id: number, tz: string, json: boolean): number {
  const r = store.reminders.cancel(id);
  emit(json, { cancelled: r.cancelled, reminder: reminderJson(r.reminder) }, () =>
    cancelWords(r.reminder, r.cancelled, store.now(), tz),
  );
  return r.cancelled ? EXIT.ok : EXIT.failed;
}

/** Registers `keel reminders` and `keel reminders cancel <id>`. */
export function registerRemindersCommand(program: Command, config: Config): void {
  const tz = config.think.tz;
  const reminders = program
    .command('reminders')
    .description(
      'the reminders you asked for, pending first, with their ids; cancel <id> cancels one',
    )
    .option('--recent <n>', 'how many sent, cancelled or missed ones to show', parsePositiveInt, 10)
    .action(
      action((opts: { recent: number }, cmd: Command) =>
        withStore(
          config,
          (store) => {
            const list = store.reminders.list({ recent: opts.recent });
            emit(wantsJson(cmd), { reminders: list.map(reminderJson), tz }, () =>
              remindersText(list, store.now(), tz),
            );
          },
          'none',
        ),
      ),
    );
  reminders
    .command('cancel <id>')
    .description('cancel a pending reminder (3 or r3)')
    .action(
      action((id: string, _opts: unknown, cmd: Command) =>
        withStore(config, (store) =>
          cancelReminder(store, parseReminderId(id), tz, wantsJson(cmd)),
        ),
      ),
    );
}
