/**
 * The slash commands every front door shares: /recall /history /why /beliefs /review /confirm /reject /forget
 * /purge /keep /status /help /quit. A purge (`/forget <id> --purge`, `/purge <text>`) first lists
 * what it would erase; the owner's `--yes` line is the answer that erases, through the purge verbs
 * the CLI uses too (`purge.ts`: the store, then keel's backups), and its reply says how many
 * backups it rewrote. They reach the memory verbs directly and are never episodes.
 *
 * @module
 */

import { KeelError } from '@keel/errors';
import { count } from '@keel/language';
import {
  KINDS,
  type Kind,
  type MemoryStore,
  type MentionReport,
  type PurgeReceipt,
  parseAnswer,
  parseFactId,
  parseQuestionId,
  parseSlot,
  questionText,
  SOURCES,
  type Source,
} from '@keel/memory';
import { formatFactLine, formatResultLine } from '@keel/prompt';
import { cancelWords, reminderListLine } from '../builtin/remind.js';
import { backupsLine, forgetAndPurge, forgetPurgeTarget, purgeText } from './purge.js';
import { historyLine, type TurnReply } from './reply.js';
import { whyText } from './why.js';

/** Help text for the slash commands. */
export const SLASH_HELP = [
  '/recall <query>          what keel remembers about something',
  '/history <kind>/<key>    every version of a belief, newest first',
  '/why <id>                why keel believes it: its versions, their evidence, who changed it',
  '/beliefs [kind] [source] every belief keel holds now, by kind and key (pending conflicts marked)',
  '/review                  pending conflicts and questions, weak and stale beliefs',
  '/confirm <id>            make a belief yours (owner_confirmed, 1.0); /confirm q<id> answers yes',
  '/reject <id>             reject a belief (it will not come back); /reject q<id> answers no',
  '/forget <id> [--purge]   retract a belief; --purge lists every mention of its value, --purge --yes erases them',
  '/purge <text> [--yes]    list every stored mention of a text; with --yes erase them all',
  '/keep <id>               keep a belief keel asked to forget',
  '/answer q<id> yes|no     answer a pending question (yes: the belief no longer holds)',
  '/reminders [cancel <id>] the reminders you asked for, pending first; cancel one',
  '/status                  which model and which recall mode are in use',
  '/help                    this list',
  '/quit                    leave',
].join('\n');

/** The list a purge shows before erasing: each place's rows with an excerpt, then the beliefs. */
function mentionList(report: MentionReport): string {
  if (report.total === 0)
    return 'Nothing stored mentions it (a purge would still keep it from coming back).';
  const lines = [`${report.total} stored row(s) mention it:`];
  for (const m of report.mentions) lines.push(`  ${m.place} #${m.id} (${m.column}): ${m.excerpt}`);
  if (report.beliefs.length > 0) {
    lines.push('These beliefs will be retracted and purged:');
    for (const f of report.beliefs) lines.push(`  ${formatFactLine(f)}`);
  }
  return lines.join('\n');
}

/** What a purge reached, in one line. */
function receiptLine(receipt: PurgeReceipt): string {
  const reached = Object.entries(receipt.reached)
    .filter(([, r]) => r.count > 0)
    .map(([place, r]) => `${place} ${r.count}`)
    .join(', ');
  return `Purged ${receipt.total} row(s)${reached ? ` (${reached})` : ''}${receipt.retracted.length ? `; retracted ${receipt.retracted.map((id) => `f${id}`).join(', ')}` : ''}. It will not come back unless you say it again.`;
}

/** What a slash command needs from its front door. */
export interface SlashContext {
  /** The front door's channel (recorded on confirm/reject/forget). */
  channel: string;
  /** The status line: model, recall mode, memory counts. */
  status: () => string;
  /** The owner's IANA zone (`KEEL_TZ`) for /recall's dates; default UTC. */
  tz?: string;
}

/**
 * Runs one slash command line (starting with "/"). A purge that erases (`--yes`) resolves once
 * keel's backups are rewritten too (`purge.ts`), its reply naming them.
 *
 * @throws KeelError from the memory verbs (`NOT_FOUND`, `INVALID_STATE`, `INVALID_INPUT`).
 */
export async function runSlashCommand(
  store: MemoryStore,
  line: string,
  context: SlashContext,
): Promise<TurnReply> {
  const [name = '', ...rest] = line.slice(1).split(/\s+/);
  const arg = rest.join(' ').trim();
  const need = (what: string) => {
    if (!arg) throw new KeelError('INVALID_INPUT', `/${name} needs ${what}`);
    return arg;
  };
  switch (name.toLowerCase()) {
    case 'help':
    case '?':
      return { text: SLASH_HELP };
    case 'status':
      return { text: context.status() };
    case 'quit':
    case 'exit':
      return { text: 'Bye.', quit: true };
    case 'recall': {
      const tz = context.tz ?? 'UTC';
      const recall = await store.recall(need('a query'), { limit: 10, tz });
      const lines = recall.results.map((r) => formatResultLine(r, tz));
      return {
        text: [`recall: ${recall.mode}`, ...(lines.length ? lines : ['nothing found'])].join('\n'),
        recall,
      };
    }
    case 'beliefs':
      return { text: beliefsReply(store, arg) };
    case 'history': {
      const rows = store.history(parseSlot(need('kind/key')));
      if (rows.length === 0) return { text: `no history for ${arg}` };
      return { text: rows.map((f) => `${historyLine(f)}`).join('\n') };
    }
    case 'why':
      return { text: whyText(store, parseFactId(need('a fact id')), context.tz ?? 'UTC') };
    case 'review': {
      const q = store.review();
      const lines: string[] = [];
      if (q.pending.length) {
        lines.push('Pending conflicts (/confirm <id> to accept, /reject <id> to drop):');
        for (const p of q.pending) {
          lines.push(`  ${formatFactLine(p.fact)}`);
          if (p.current) lines.push(`      contradicts ${formatFactLine(p.current)}`);
        }
      }
      if (q.questions.length) {
        lines.push('Pending questions (/answer q<id> yes if it no longer holds, no if it does):');
        for (const p of q.questions) {
          lines.push(`  PENDING question ${questionText(p)}`);
          lines.push(`      about ${formatFactLine(p.fact)}`);
        }
      }
      if (q.weak.length) {
        lines.push(`Weak beliefs (confidence < ${q.threshold}):`);
        for (const f of q.weak) lines.push(`  ${formatFactLine(f)}`);
      }
      if (q.forget.length) {
        lines.push('Asked to forget (/forget <id> to forget it, /keep <id> to keep it):');
        for (const r of q.forget) {
          lines.push(`  ${formatFactLine(r.fact)}${r.why ? ` (why: ${r.why})` : ''}`);
        }
      }
      if (q.stale.length) {
        lines.push(
          'Stale beliefs, no evidence for 180 days (/confirm <id> if still true, /forget <id> if not):',
        );
        for (const f of q.stale) lines.push(`  ${formatFactLine(f)}`);
      }
      return { text: lines.length ? lines.join('\n') : 'Nothing to review.' };
    }
    case 'forget': {
      const purge = /(^|\s)--purge(\s|$)/.test(arg);
      const yes = /(^|\s)--yes(\s|$)/.test(arg);
      const id = parseFactId(
        need('a fact id')
          .replace(/(^|\s)--(purge|all-slots|yes)(?=\s|$)/g, ' ')
          .trim(),
      );
      if (!purge) {
        store.forget(id, { purge: false, channel: context.channel });
        return { text: `Forgot f${id}; it will not be re-learned unless you say it again.` };
      }
      // What the purge erases beyond the slot: every mention of the value; for a belief purged
      // already, what still says it (found from its tombstone's hashes).
      const found = forgetPurgeTarget(store, id);
      // The owner sees what the purge erases first; the erasing line is their answer.
      if (found && !yes) {
        return {
          text: `${mentionList(found.report)}\nTo erase all of it: /forget ${id} --purge --yes`,
        };
      }
      const done = await forgetAndPurge(store, id, { channel: context.channel });
      return {
        text: [
          done.already
            ? `f${id} was purged already; ${done.receipt ? 'what still said it is erased' : 'nothing stored says it any more'}.`
            : `Forgot and purged f${id}: erased from ${done.forget.erasedFacts.length} row(s) of its slot.`,
          done.receipt ? receiptLine(done.receipt) : '',
          backupsLine(done.backups),
        ]
          .filter(Boolean)
          .join('\n'),
      };
    }
    case 'purge': {
      const yes = /(^|\s)--yes(\s|$)/.test(arg);
      const text = need('the words to erase')
        .replace(/(^|\s)--yes(?=\s|$)/g, ' ')
        .trim();
      if (!yes) {
        return {
          text: `${mentionList(store.findMentions(text))}\nTo erase all of it: /purge ${text} --yes`,
        };
      }
      const done = await purgeText(store, text);
      return {
        text: [receiptLine(done.receipt), backupsLine(done.backups)].filter(Boolean).join('\n'),
      };
    }
    case 'reminders':
      return { text: remindersReply(store, arg, context.tz ?? 'UTC') };
    case 'keep': {
      const id = parseFactId(need('a fact id'));
      return {
        text: store.keep(id)
          ? `Kept f${id}; it is not forgotten.`
          : `Nothing asked to forget f${id}; it stays as it is.`,
      };
    }
    case 'answer':
    case 'confirm':
    case 'reject': {
      const [ref = '', word] = arg.split(/\s+/);
      const question = parseQuestionId(ref);
      if (question === null && name.toLowerCase() !== 'answer') {
        return factVerb(store, name, need, context);
      }
      if (question === null) {
        throw new KeelError('INVALID_INPUT', `/answer needs a question id (e.g. q7), not "${ref}"`);
      }
      const answer =
        name.toLowerCase() === 'answer'
          ? parseAnswer(word ?? '')
          : name.toLowerCase() === 'confirm'
            ? 'yes'
            : 'no';
      const r = store.answer(question, answer, { channel: context.channel });
      return {
        text:
          answer === 'yes'
            ? `Answered yes to q${question}: f${r.fact.id} no longer holds (kept in history).\n  ${formatFactLine(r.fact)}`
            : `Answered no to q${question}: f${r.fact.id} stays as it is.`,
      };
    }
    default:
      return { text: `unknown command /${name}\n${SLASH_HELP}` };
  }
}

/** The most beliefs `/beliefs` lists in one reply; `keel beliefs` lists them all. */
export const SLASH_BELIEFS_MAX = 50;

/**
 * `/beliefs [kind] [source]`: every belief keel holds now, by kind and key, one fact line each
 * (confidence, evidence, source, age; a pending conflict marked with the belief it contradicts),
 * at most {@link SLASH_BELIEFS_MAX}, then how many and what was left out (`MemoryStore.beliefs`).
 *
 * @throws KeelError `INVALID_INPUT` for a word that is neither a kind nor a source.
 */
function beliefsReply(store: MemoryStore, arg: string): string {
  let kind: Kind | undefined;
  let source: Source | undefined;
  for (const word of arg.split(/\s+/).filter(Boolean)) {
    const w = word.toLowerCase();
    if ((KINDS as readonly string[]).includes(w)) kind = w as Kind;
    else if ((SOURCES as readonly string[]).includes(w)) source = w as Source;
    else {
      throw new KeelError('INVALID_INPUT', `/beliefs: "${word}" is neither a kind nor a source`, {
        fix: `Use /beliefs [kind] [source], e.g. /beliefs preference owner_stated; sources: ${SOURCES.join(', ')}.`,
      });
    }
  }
  const { beliefs, unexplained } = store.beliefs({
    ...(kind ? { kind } : {}),
    ...(source ? { source } : {}),
  });
  const now = store.now();
  const pending = beliefs.filter((f) => f.status === 'pending').length;
  const shown = beliefs.slice(0, SLASH_BELIEFS_MAX);
  const lines = shown.map((f) => formatFactLine({ ...f, age_ms: now - f.last_seen_at }));
  if (beliefs.length === 0)
    lines.push(kind || source ? 'No belief matches.' : 'keel holds no beliefs yet.');
  else {
    lines.push(
      `${count(beliefs.length - pending, 'belief')}${pending ? `, ${count(pending, 'pending conflict')} (/review)` : ''}${beliefs.length > shown.length ? `; the first ${shown.length} shown (keel beliefs lists them all)` : ''}.`,
    );
  }
  if (unexplained.length) {
    lines.push(
      `left out: ${unexplained.map((id) => `f${id}`).join(', ')} (changed outside keel: the journal does not explain it; keel verify)`,
    );
  }
  return lines.join('\n');
}

/**
 * `/reminders`: the owner's reminders, pending first, each with its id, status and local time;
 * `/reminders cancel <id>` cancels a pending one (`r3` or `3`).
 *
 * @throws KeelError `INVALID_INPUT` for anything else after `/reminders`; `NOT_FOUND` for an id
 *   that names no reminder.
 */
function remindersReply(store: MemoryStore, arg: string, tz: string): string {
  const now = store.now();
  const [verb = '', ref = ''] = arg.split(/\s+/);
  if (verb.toLowerCase() === 'cancel') {
    const m = /^r?(\d{1,15})$/i.exec(ref);
    if (!m) {
      throw new KeelError('INVALID_INPUT', '/reminders cancel needs a reminder id, e.g. r3', {
        fix: '/reminders lists them with their ids.',
      });
    }
    const done = store.reminders.cancel(Number(m[1]));
    return cancelWords(done.reminder, done.cancelled, now, tz);
  }
  if (verb) {
    throw new KeelError('INVALID_INPUT', `/reminders: "${verb}" is not cancel`, {
      fix: 'Use /reminders, or /reminders cancel <id>.',
    });
  }
  const all = store.reminders.list();
  if (all.length === 0) return 'No reminders. Say "remind me at 5pm to …" to set one.';
  return all.map((r) => reminderListLine(r, now, tz)).join('\n');
}

/** /confirm and /reject on a fact. */
function factVerb(
  store: MemoryStore,
  name: string,
  need: (what: string) => string,
  context: SlashContext,
): TurnReply {
  switch (name.toLowerCase()) {
    case 'confirm': {
      const r = store.confirm(parseFactId(need('a fact id')), {
        channel: context.channel,
      });
      return {
        text: `Confirmed: ${formatFactLine(r.fact)}${r.superseded ? `\n  (supersedes f${r.superseded.id}: ${r.superseded.value})` : ''}`,
      };
    }
    case 'reject': {
      const f = store.reject(parseFactId(need('a fact id')), {
        channel: context.channel,
      });
      return { text: `Rejected f${f.id}; it will not come back unless you say so.` };
    }
    default:
      return { text: `unknown command /${name}\n${SLASH_HELP}` };
  }
}
