/**
 * The owner session with no model configured. Each line the owner types is an episode; explicit
 * "remember that …" statements become owner_stated facts, and the reply says in plain words what
 * was kept (`keptLines`, as every door says it with a model too); anything else gets the most relevant
 * memories back with their confidence and source; slash commands reach the memory verbs. It says
 * plainly that no model is configured.
 *
 * Front doors (terminal, later Discord) hand lines to {@link OfflineSession.handle} and print the
 * reply: they hold no memory logic of their own.
 *
 * @module
 */

import { KeelError, refusesWrites } from '@keel/errors';
import { SECRET_PLACEHOLDER, scanSecrets } from '@keel/language';
import {
  type Episode,
  type Fact,
  type MemoryStore,
  type PendingQuestion,
  questionText,
} from '@keel/memory';
import { formatFactLine, formatResultLine } from '@keel/prompt';
import { runSlashCommand, type TurnReply } from '@keel/tools';
import { captureOwnerStatement } from './capture.js';
import { type CommandStyle, keptLines } from './kept.js';
import { recordUnansweredTurn, type UnansweredRecorder, type UnansweredTurn } from './session.js';
import { memoryCounts } from './status.js';
import { secretNotice } from './turn.js';

/** The sentence every offline reply leans on. */
export const OFFLINE_NOTICE =
  'No model is configured, so keel is offline: it stores what you say, remembers what you ask it to, and shows what it recalls. Run `keel setup` to choose a model (an Anthropic or OpenAI-compatible key, or a local Ollama), or set ANTHROPIC_API_KEY.';

/** Options for {@link OfflineSession}. */
export interface OfflineSessionOptions {
  /** The front door's channel name (terminal, discord). */
  channel: string;
  /** How many memories a reply shows. Default 5. */
  recallLimit?: number;
  /** The owner's IANA zone (`KEEL_TZ`) for recall's date windows and the days shown; default UTC. */
  tz?: string;
  /**
   * How the owner runs a command at this door, for the confirmation of what a line kept
   * (`/forget 12` in the terminal and Discord, `keel forget 12` from `keel ask`). Default `slash`.
   */
  commands?: CommandStyle;
}

/** The offline owner session. */
export class OfflineSession implements UnansweredRecorder {
  private readonly limit: number;

  constructor(
    private readonly store: MemoryStore,
    private readonly options: OfflineSessionOptions,
  ) {
    this.limit = options.recallLimit ?? 5;
  }

  /** The greeting a front door shows when the session opens. */
  banner(): string {
    const s = this.store.stats();
    return [
      `keel · offline · recall: ${s.mode} · ${memoryCounts(s)}`,
      OFFLINE_NOTICE,
      'Say "remember that …" to keep something; /help lists commands.',
    ].join('\n');
  }

  /**
   * Handles one line from the owner.
   *
   * @throws never for bad input: a KeelError becomes the reply's `error` and its text (code,
   *   message and fix); a store that takes no writes (`DB_CORRUPT`, `JOURNAL_BROKEN`) is thrown
   *   on, for the door to keep the line; any other error is thrown.
   */
  async handle(line: string): Promise<TurnReply> {
    const text = line.replace(/\r?\n$/, '');
    if (!text.trim()) return { text: '' };
    try {
      if (text.trim().startsWith('/')) {
        return await runSlashCommand(this.store, text.trim(), {
          channel: this.options.channel,
          status: () => this.banner(),
          ...(this.options.tz ? { tz: this.options.tz } : {}),
        });
      }
      return await this.say(text);
    } catch (err) {
      // A store that takes no writes (damaged, or its journal broken) is the door's to handle:
      // it keeps the line in the recovery file.
      if (KeelError.isInstance(err) && !refusesWrites(err)) {
        return { text: `error ${err.code}: ${err.message}\nfix: ${err.fix}`, error: err };
      }
      throw err;
    }
  }

  /**
   * Stores what the owner said while keel was away as their turn, unanswered (see
   * {@link UnansweredRecorder}): the same episode the agent stores.
   *
   * @throws KeelError `INVALID_INPUT` for empty text, `TOO_LARGE` past the episode limit.
   */
  recordUnanswered(turn: UnansweredTurn): Episode {
    return recordUnansweredTurn(this.store, turn);
  }

  private async say(text: string): Promise<TurnReply> {
    const context = this.store.lastOwnerTurn() ?? undefined;
    const found = [...new Set(scanSecrets(text, { context }).map((f) => f.kind))];
    // The line and what it captures are one unit of work: a crash between the two keeps
    // neither. Capture never fails the line: a capture error is recorded with the episode (keel
    // doctor shows it) and said.
    const { episode, captured } = this.store.transaction(() => {
      const episode = this.store.addEpisode({
        kind: 'conversation',
        channel: this.options.channel,
        role: 'owner',
        text,
      });
      const tz = this.options.tz ?? 'UTC';
      return { episode, captured: captureOwnerStatement(this.store, text, episode.id, tz) };
    });
    const { write, also, error, closed, questions } = captured;
    // A reminder the line asked for is said in the words every door uses (`reminderLine`).
    const reminder = captured.reminder ? [captured.reminder.line] : [];
    if (error) {
      return {
        text: [
          `Stored your message as e${episode.id}, but could not keep it as a belief (${error.code}: ${error.message}).\nfix: ${error.fix}`,
          ...reminder,
        ].join('\n'),
        episodeId: episode.id,
        captureError: error,
        withheld: found,
      };
    }
    const changes = correctionLines(closed, questions);
    if (write) {
      // What the line kept, in the words every door uses (`keptLines`); a line whose statement
      // the review refused kept nothing, and says so.
      const kept = keptLines(this.store, [write, ...also], this.options.commands);
      const secrets = [...new Set([write, ...also].flatMap((w) => (w.secret ? [w.secret] : [])))];
      const lines = kept.length
        ? kept
        : [`Stored your message as e${episode.id}; no belief was kept from it (${write.reason}).`];
      if (secrets.length) lines.push(secretNotice(secrets));
      lines.push(...changes, ...reminder);
      const withheld = [...new Set([...found, ...secrets])];
      return { text: lines.join('\n'), episodeId: episode.id, write, withheld };
    }
    if (closed.length > 0 || reminder.length > 0) {
      const notice = reminder.length > 0 && found.length > 0 ? [secretNotice(found)] : [];
      const text = [...changes, ...reminder, ...notice].join('\n');
      return { text, episodeId: episode.id, withheld: found };
    }
    const tz = this.options.tz ?? 'UTC';
    const recall = await this.store.recall(text, { limit: this.limit + 1, tz });
    recall.results = recall.results
      .filter((r) => !(r.type === 'episode' && r.id === episode.id))
      .slice(0, this.limit);
    const lines = [`(offline: no model configured) Stored your message as e${episode.id}.`];
    const redacted =
      episode.text.includes(SECRET_PLACEHOLDER) && !text.includes(SECRET_PLACEHOLDER);
    const withheld = redacted ? found : [];
    if (redacted) lines.push(`A credential in it was withheld. ${secretNotice(withheld)}`);
    lines.push(...changes);
    if (recall.results.length === 0) lines.push('Nothing I remember relates to that yet.');
    else {
      lines.push(`What I remember that relates (recall: ${recall.mode}):`);
      for (const r of recall.results) lines.push(`  ${formatResultLine(r, tz)}`);
    }
    return { text: lines.join('\n'), episodeId: episode.id, recall, withheld };
  }
}

/**
 * What a line's corrections did, for the owner: each belief it closed ("No longer current: …")
 * and each question it raised, with how to answer it.
 */
export function correctionLines(
  closed: readonly Fact[],
  questions: readonly PendingQuestion[],
): string[] {
  return [
    ...closed.map((f) => `No longer current (kept in history): ${formatFactLine(f)}`),
    ...questions.map((q) => `PENDING question ${questionText(q)} (/answer q${q.id} yes|no)`),
  ];
}
