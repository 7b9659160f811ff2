/**
 * An owner DM after the owner lock has passed it, in the order it is tried: an empty message is
 * only marked seen; `review` sends the review queue with its buttons; without a model the offline
 * session answers; a slash command runs; anything else is one turn of the agent, with the typing
 * indicator renewed while the model works. A message is marked seen once answered, so one left
 * unanswered (a cancelled turn) is caught up at the next start.
 *
 * After a turn's reply, in the same message: what the turn kept, one line per belief (`keptLines`
 * of `@keel/agent`, nothing when it kept nothing), and a credential withheld from the message
 * (`secretNotice`). After it: a capture that failed is said with its code and fix, as every door says it
 * ({@link captureErrorNote}; the turn went on; `keel doctor` lists it), and each belief the model
 * asked to forget is put to the owner with a Forget and a Keep button (the model proposes; the
 * owner decides). A database that takes no writes (damaged, `DB_CORRUPT`, or its journal broken,
 * `JOURNAL_BROKEN`) is thrown to the front door, which keeps the message and stops writing.
 *
 * @module
 */
import {
  type Agent,
  captureErrorNote,
  type OfflineSession,
  type TurnWrite,
  underReply,
  waitNotice,
} from '@keel/agent';
import { KeelError } from '@keel/errors';
import { damageError } from '@keel/host';
import type { MemoryStore } from '@keel/memory';
import type { Message, SendableChannels } from 'discord.js';
import type { DiscordApprovals } from './approvals.js';
import type { SeenMark } from './catch-up.js';
import {
  type AttachmentOptions,
  DISCORD_CHANNEL,
  errorText,
  messageText,
  sendSplit,
} from './dm.js';
import { type InteractionContext, slashReply } from './interactions.js';
import { type ForgetRequestItem, renderForgetRequests, renderReview } from './review.js';

/** Options for {@link DmTurns}. */
export interface DmTurnsOptions {
  store: MemoryStore;
  /** The owner session: the agent with a model, else the offline session. */
  session: { agent: Agent; offline: null } | { agent: null; offline: OfflineSession };
  seen: SeenMark;
  /** Counts the owner DMs handled (`handled`). */
  stats: { handled: number };
  /** Where slash commands typed as messages go. */
  slash: InteractionContext;
  attachments: AttachmentOptions;
  /** How often the typing indicator is renewed while the model works, ms. */
  typingIntervalMs: number;
  /** Where a tool call that asks is put to the owner (buttons in their DM). */
  approvals: DiscordApprovals;
  /** How long an approval waits for the owner's press, ms. */
  approvalTimeoutMs: number;
}

/** Answers the owner's DMs, one at a time (the caller serialises them). */
export class DmTurns {
  private inflight: AbortController | null = null;

  constructor(private readonly options: DmTurnsOptions) {}

  /** Answers one owner DM; one already seen, or in a channel keel cannot write to, is skipped. */
  async answer(message: Message): Promise<void> {
    const { seen, session } = this.options;
    if (BigInt(message.id) <= seen.get()) return;
    const channel = message.channel;
    if (!channel.isSendable()) return;
    this.options.stats.handled++;
    const text = (await messageText(message, this.options.attachments)).trim();
    if (!text) return seen.mark(message.id);
    if (/^\/?review$/i.test(text)) {
      seen.mark(message.id);
      for (const page of renderReview(this.options.store.review())) await channel.send(page);
      return;
    }
    if (session.offline) {
      const r = await session.offline.handle(text);
      seen.mark(message.id);
      return sendSplit(channel, r.text || '(nothing to say)');
    }
    if (text.startsWith('/')) {
      seen.mark(message.id);
      return sendSplit(channel, await slashReply(this.options.slash, text));
    }
    await this.turn(session.agent, channel, message.id, text);
  }

  /**
   * Cancels the turn in progress, if any: the agent records it as cancelled and keeps nothing
   * from it, and its message is caught up next time.
   */
  cancel(): void {
    this.inflight?.abort();
  }

  /** The requests to forget among a turn's writes, once per belief, with the model's reasons. */
  private forgetRequests(writes: readonly TurnWrite[]): ForgetRequestItem[] {
    const facts = new Map<number, ForgetRequestItem['fact']>();
    for (const w of writes) {
      if (w.decision === 'forget_requested' && !facts.has(w.fact.id)) facts.set(w.fact.id, w.fact);
    }
    if (facts.size === 0) return [];
    const open = new Map(this.options.store.review().forget.map((r) => [r.factId, r.why]));
    return [...facts.values()].map((fact) => ({ fact, why: open.get(fact.id) ?? null }));
  }

  private async turn(
    agent: Agent,
    channel: SendableChannels,
    messageId: string,
    text: string,
  ): Promise<void> {
    const controller = new AbortController();
    this.inflight = controller;
    const typing = () => void channel.sendTyping().catch(() => {});
    typing();
    const timer = setInterval(typing, this.options.typingIntervalMs);
    // The first wait of the turn (another turn, a silent model) is said once; typing goes on.
    let toldWait = false;
    try {
      const result = await agent.turn({
        text,
        channel: DISCORD_CHANNEL,
        signal: controller.signal,
        approve: this.options.approvals.approver(channel, this.options.approvalTimeoutMs),
        onWait: (wait) => {
          if (toldWait) return;
          toldWait = true;
          void sendSplit(channel, waitNotice(wait)).catch(() => {});
        },
      });
      this.options.seen.mark(messageId);
      clearInterval(timer);
      // Under the reply, what every door says there: a cut, what the turn kept (from the store), a
      // withheld credential, a capped confidence; a capture that failed comes as its own message.
      const under = underReply(this.options.store, { ...result, captureError: null });
      await sendSplit(channel, [result.reply || '(no reply)', ...under].join('\n'));
      if (result.captureError) {
        await sendSplit(channel, captureErrorNote(result.captureError));
      }
      for (const page of renderForgetRequests(this.forgetRequests(result.writes))) {
        await channel.send(page);
      }
    } catch (err) {
      clearInterval(timer);
      // Damage is the front door's to handle: it keeps the message and stops writing.
      if (damageError(err)) throw err;
      if (KeelError.isInstance(err) && err.code === 'CANCELLED') {
        // Not marked seen: the next start catches it up and says so.
        await sendSplit(
          channel,
          'I am shutting down and did not finish answering this; I will pick it up when I am back.',
        ).catch(() => {});
        return;
      }
      this.options.seen.mark(messageId);
      await sendSplit(
        channel,
        `That turn failed and nothing from it was stored.\n${errorText(err)}`,
      );
    } finally {
      clearInterval(timer);
      this.inflight = null;
    }
  }
}
