/**
 * Catch-up: the owner's DMs sent while keel was away (stopped, or disconnected) are found after
 * the newest one seen, each runs the owner lock again, and each is stored through the owner
 * session's {@link UnansweredRecorder} as the owner's turn, unanswered; then one short notice
 * tells the owner so. {@link SeenMark} is the newest owner DM keel has seen, kept in the store's
 * `meta` under {@link LAST_SEEN_KEY}.
 *
 * @module
 */
import type { UnansweredRecorder } from '@keel/agent';
import type { MemoryStore } from '@keel/memory';
import { SnowflakeUtil } from 'discord.js';
import { DISCORD_CHANNEL } from './dm.js';

/** The `meta` key holding the id of the newest owner DM keel has seen. */
export const LAST_SEEN_KEY = 'discord.last_seen_message_id';

/** Messages fetched per page (Discord's maximum). */
const PAGE = 100;
/** Pages fetched at most per catch-up (5,000 messages). */
const MAX_PAGES = 50;
/** Messages quoted in the notice. */
const PREVIEWS = 3;

/** The newest owner DM keel has seen (a snowflake), in the store's `meta`. */
export class SeenMark {
  constructor(private readonly meta: Pick<MemoryStore['meta'], 'get' | 'set'>) {}

  /** The newest id seen, 0 before the first start. */
  get(): bigint {
    const v = this.meta.get(LAST_SEEN_KEY);
    return v ? BigInt(v) : 0n;
  }

  /** Records `id` as seen unless a newer one is already. */
  mark(id: string): void {
    if (BigInt(id) <= this.get()) return;
    this.meta.set(LAST_SEEN_KEY, id);
  }
}

/** What catch-up reads of a DM; a discord.js `Message` has these fields. */
export interface AwayMessage {
  id: string;
  author: { id: string; bot: boolean };
  guildId: string | null;
  webhookId: string | null;
  content: string;
  /** When it was sent, ms since epoch. */
  createdTimestamp: number;
}

/** The ports catch-up works through. */
export interface CatchUpOptions<M extends AwayMessage> {
  /** The owner session that stores each message as the owner's unanswered turn. */
  session: UnansweredRecorder;
  seen: SeenMark;
  /** Counts what was stored (`caughtUp`), before the notice is sent. */
  stats: { caughtUp: number };
  /** The owner's DMs after a snowflake id, at most 100 (discord.js `messages.fetch`). */
  fetchAfter: (after: string) => Promise<ReadonlyMap<string, M>>;
  /** The owner lock, run on every fetched message. */
  isOwner: (message: M) => boolean;
  /** A message's text with its text attachments inlined. */
  text: (message: M) => Promise<string>;
  /** Sends the notice to the owner. */
  notify: (text: string) => Promise<void>;
  log: (line: string) => void;
  /**
   * Whether a message is stored already (`keel recover` stored it from the recovery file, where it
   * was kept while the database was damaged); such a message is not stored again. Default: none.
   */
  stored?: (message: M) => boolean;
}

/**
 * Fetches the owner's DMs newer than the last one seen, stores each non-empty one through
 * `options.session` (oldest first, with its id as provenance; one stored already is skipped),
 * moves the mark past everything fetched, and sends one notice. On the very first start (no mark) it only records where "now" is:
 * the smallest snowflake of the millisecond before `startedAt`, so anything sent after start (even
 * while connecting) is newer and is answered.
 *
 * @param startedAt - when the front door started, ms since epoch.
 * @returns how many messages were stored.
 * @throws KeelError from the store (`TOO_LARGE`, …) and Discord's errors; the mark then stays
 *   where it was.
 */
export async function catchUp<M extends AwayMessage>(
  options: CatchUpOptions<M>,
  startedAt: number,
): Promise<number> {
  const last = options.seen.get();
  if (last === 0n) {
    options.seen.mark(
      SnowflakeUtil.generate({
        timestamp: startedAt - 1,
        increment: 0n,
        workerId: 0n,
        processId: 0n,
      }).toString(),
    );
    return 0;
  }
  const found: M[] = [];
  let after = last;
  for (let page = 0; page < MAX_PAGES; page++) {
    const batch = await options.fetchAfter(after.toString());
    if (batch.size === 0) break;
    for (const m of batch.values()) {
      if (BigInt(m.id) > after) after = BigInt(m.id);
      if (options.isOwner(m)) found.push(m);
    }
    if (batch.size < PAGE) break;
  }
  found.sort((a, b) => (BigInt(a.id) < BigInt(b.id) ? -1 : 1));
  const stored: M[] = [];
  for (const m of found) {
    if (options.stored?.(m)) continue;
    const text = (await options.text(m)).trim();
    if (!text) continue;
    options.session.recordUnanswered({
      text,
      channel: DISCORD_CHANNEL,
      occurredAt: m.createdTimestamp,
      sourceId: `discord:${m.id}`,
      meta: { discord_message_id: m.id },
    });
    stored.push(m);
  }
  if (after > last) options.seen.mark(after.toString());
  options.stats.caughtUp += stored.length;
  if (stored.length === 0) return 0;
  options.log(`discord: caught up on ${stored.length} message(s) sent while away`);
  await options.notify(catchUpNotice(stored));
  return stored.length;
}

/** The notice after a catch-up: how many were stored unanswered, the first few quoted. */
export function catchUpNotice(stored: readonly Pick<AwayMessage, 'content'>[]): string {
  const n = stored.length;
  const previews = stored
    .slice(0, PREVIEWS)
    .map(
      (m) => `> ${m.content.replace(/\s+/g, ' ').slice(0, 60)}${m.content.length > 60 ? '…' : ''}`,
    );
  const more = n > PREVIEWS ? [`…and ${n - PREVIEWS} more.`] : [];
  return [
    `I was away. I caught up on ${n} message${n === 1 ? '' : 's'} you sent meanwhile and stored ${n === 1 ? 'it' : 'them'} in memory without answering:`,
    ...previews,
    ...more,
    'Ask again anything you still want an answer to.',
  ].join('\n');
}
