/**
 * The Discord front door: the owner's DMs become turns in the one owner session. Every event
 * handler is wrapped by {@link KeelDiscord.guarded}, which runs the owner lock before anything else
 * reads the event; strangers, bots, keel itself and server messages are dropped without a reply and
 * without their content being stored, one log line and a counter each.
 *
 * @module
 */
import {
  Agent,
  type ChatModel,
  OfflineSession,
  runSlashCommand,
  type TurnLockOptions,
} from '@keel/agent';
import { KeelError } from '@keel/errors';
import type { MemoryStore } from '@keel/memory';
import { splitMessage } from '@keel/outbound';
import {
  type ButtonInteraction,
  type ChatInputCommandInteraction,
  Client,
  type DMChannel,
  Events,
  GatewayIntentBits,
  type Interaction,
  type Message,
  Partials,
  type SendableChannels,
  SnowflakeUtil,
} from 'discord.js';
import { type FetchLike, withAttachments } from './attachments.js';
import { SLASH_COMMANDS } from './commands.js';
import { type DropReason, type GateInput, OwnerGate } from './gate.js';
import { parseReviewButton, renderReview } from './review.js';

/** The channel name turns and episodes from Discord carry. */
export const DISCORD_CHANNEL = 'discord';
/** The `meta` key holding the id of the newest owner DM keel has seen. */
export const LAST_SEEN_KEY = 'discord.last_seen_message_id';

/** Options for {@link KeelDiscord}. */
export interface KeelDiscordOptions {
  /** The bot token. */
  token: string;
  /** The owner's Discord user id; without one the front door refuses to start. */
  ownerId: string;
  store: MemoryStore;
  /** The model; null runs the offline session. */
  model: ChatModel | null;
  /** The REST API base (e.g. `http://127.0.0.1:PORT/api`); default Discord's own. */
  apiUrl?: string;
  /** Where log lines go (one line per call, no trailing newline). Default stderr. */
  log?: (line: string) => void;
  /** How attachments are fetched. Default global fetch. */
  fetch?: FetchLike;
  /** The cap on one text attachment, bytes. */
  attachmentLimitBytes?: number;
  /** How often the typing indicator is renewed while the model works, ms. Default 8000. */
  typingIntervalMs?: number;
  /** Register the slash commands on ready. Default true. */
  registerCommands?: boolean;
  /** Session-lock timing, passed to the agent. */
  lock?: TurnLockOptions;
}

/** Counters a status line and tests read. */
export interface DiscordStats {
  handled: number;
  caughtUp: number;
  dropped: Record<DropReason, number>;
}

const errorText = (err: unknown): string =>
  KeelError.isInstance(err)
    ? `error ${err.code}: ${err.message}`
    : `error: ${(err as Error)?.message ?? String(err)}`;

/** The Discord front door. */
export class KeelDiscord {
  /** The discord.js client (real in production and in tests, pointed at a fake server there). */
  readonly client: Client;
  readonly stats: DiscordStats = {
    handled: 0,
    caughtUp: 0,
    dropped: { self: 0, bot: 0, guild: 0, stranger: 0 },
  };
  private readonly gate: OwnerGate;
  private readonly store: MemoryStore;
  private readonly agent: Agent | null;
  private readonly offline: OfflineSession | null;
  private readonly log: (line: string) => void;
  private chain: Promise<void> = Promise.resolve();
  private inflight: AbortController | null = null;
  private stopping = false;
  /** When {@link start} was called, ms since epoch. */
  private startedAt = Date.now();
  private commandsRegistered = false;

  /** @throws KeelError `INVALID_INPUT` without a valid owner id or token (fail closed). */
  constructor(private readonly options: KeelDiscordOptions) {
    this.gate = new OwnerGate(options.ownerId);
    if (!options.token?.trim()) {
      throw new KeelError('INVALID_INPUT', 'no bot token (token / DISCORD_TOKEN)');
    }
    this.store = options.store;
    this.log = options.log ?? ((line) => process.stderr.write(`${line}\n`));
    this.agent = options.model
      ? new Agent({
          store: options.store,
          model: options.model,
          ...(options.lock ? { lock: options.lock } : {}),
        })
      : null;
    this.offline = options.model
      ? null
      : new OfflineSession(options.store, { channel: DISCORD_CHANNEL });
    this.client = new Client({
      intents: [GatewayIntentBits.DirectMessages, GatewayIntentBits.MessageContent],
      partials: [Partials.Channel],
      ...(options.apiUrl ? { rest: { api: options.apiUrl, version: '10' } } : {}),
    });
    this.client.on(
      Events.MessageCreate,
      this.guarded(
        (m: Message) => ({
          authorId: m.author.id,
          authorIsBot: m.author.bot,
          guildId: m.guildId,
          selfId: this.client.user?.id ?? null,
          webhookId: m.webhookId,
        }),
        (m) => this.onOwnerMessage(m),
      ),
    );
    this.client.on(
      Events.InteractionCreate,
      this.guarded(
        (i: Interaction) => ({
          authorId: i.user.id,
          authorIsBot: i.user.bot,
          guildId: i.guildId,
          selfId: this.client.user?.id ?? null,
        }),
        (i) => this.onOwnerInteraction(i),
      ),
    );
    this.client.on(Events.ShardReady, () => void this.onConnected('ready'));
    this.client.on(Events.ShardResume, () => void this.onConnected('resumed'));
    this.client.on(Events.Error, (err) => this.log(`discord: client error: ${err.message}`));
  }

  /**
   * Wraps an event handler in the owner lock: `describe` reads only the author and place, the
   * gate decides, and only an owner's event reaches `handle`. Every handler is registered through
   * this (a test checks it).
   */
  guarded<E>(describe: (event: E) => GateInput, handle: (event: E) => Promise<void>) {
    return (event: E): void => {
      const who = describe(event);
      const verdict = this.gate.check(who);
      if (!verdict.owner) {
        this.stats.dropped[verdict.reason]++;
        const total = Object.values(this.stats.dropped).reduce((a, b) => a + b, 0);
        this.log(
          `discord: dropped an event from ${verdict.reason === 'self' ? 'keel itself' : `user ${who.authorId}`} (${verdict.reason}); ${total} dropped so far`,
        );
        return;
      }
      handle(event).catch((err) => this.log(`discord: handler failed: ${errorText(err)}`));
    };
  }

  /** Logs in and resolves once connected and the first catch-up has run. */
  async start(): Promise<void> {
    this.startedAt = Date.now();
    const ready = new Promise<void>((resolve) =>
      this.client.once(Events.ClientReady, () => resolve()),
    );
    await this.client.login(this.options.token);
    await ready;
    await this.idle();
    this.log(
      `discord: connected as ${this.client.user?.tag ?? '?'}; answering only user ${this.gate.ownerId}${this.agent ? '' : ' (offline: no model configured)'}`,
    );
  }

  /** Resolves when every queued owner event (turns, catch-ups) has been handled. */
  async idle(): Promise<void> {
    let seen: Promise<void>;
    do {
      seen = this.chain;
      await seen;
    } while (seen !== this.chain);
  }

  /**
   * Stops: new messages are left for the next start's catch-up; the turn in progress gets
   * `graceMs` to finish, then is cancelled (the agent records it as cancelled and keeps nothing
   * from it, and its message is caught up next time); then the connection closes.
   */
  async stop(graceMs = 15_000): Promise<void> {
    this.stopping = true;
    const done = this.idle();
    let timer: NodeJS.Timeout | undefined;
    const timedOut = await Promise.race([
      done.then(() => false),
      new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(true), graceMs);
      }),
    ]);
    clearTimeout(timer);
    if (timedOut) {
      this.inflight?.abort();
      await done;
    }
    await this.client.destroy();
  }

  /** Sends `text` to the owner's DM, split into messages as needed. */
  async sendToOwner(text: string): Promise<void> {
    const dm = await this.ownerDm();
    for (const chunk of splitMessage(text)) await dm.send({ content: chunk });
  }

  private ownerDm(): Promise<DMChannel> {
    return this.client.users.createDM(this.gate.ownerId);
  }

  /** Serialises owner work: one turn or catch-up at a time in this process. */
  private enqueue(work: () => Promise<void>): Promise<void> {
    const next = this.chain.then(work, work);
    this.chain = next.catch((err) => this.log(`discord: ${errorText(err)}`));
    return this.chain;
  }

  private lastSeen(): bigint {
    const v = this.store.meta.get(LAST_SEEN_KEY);
    return v ? BigInt(v) : 0n;
  }

  private markSeen(id: string): void {
    if (BigInt(id) <= this.lastSeen()) return;
    this.store.meta.set(LAST_SEEN_KEY, id);
  }

  private onConnected(how: 'ready' | 'resumed'): Promise<void> {
    return this.enqueue(async () => {
      if (how === 'ready' && !this.commandsRegistered && this.options.registerCommands !== false) {
        this.commandsRegistered = true;
        try {
          await this.client.application?.commands.set(SLASH_COMMANDS);
        } catch (err) {
          this.log(`discord: could not register slash commands: ${errorText(err)}`);
        }
      }
      await this.catchUp();
    });
  }

  /**
   * Fetches the owner's DMs newer than the last one seen, stores them as episodes without
   * answering, and sends one short notice. On the very first start it only records where "now" is.
   */
  private async catchUp(): Promise<void> {
    if (this.stopping) return;
    const last = this.lastSeen();
    if (last === 0n) {
      // The moment this process started, as the smallest snowflake of the millisecond before:
      // anything sent after start (even while connecting) is newer and is answered.
      this.markSeen(
        SnowflakeUtil.generate({
          timestamp: this.startedAt - 1,
          increment: 0n,
          workerId: 0n,
          processId: 0n,
        }).toString(),
      );
      return;
    }
    const dm = await this.ownerDm();
    const found: Message[] = [];
    let after = last;
    for (let page = 0; page < 50; page++) {
      const batch = await dm.messages.fetch({ after: after.toString(), limit: 100, cache: false });
      if (batch.size === 0) break;
      for (const m of batch.values()) {
        if (BigInt(m.id) > after) after = BigInt(m.id);
        const v = this.gate.check({
          authorId: m.author.id,
          authorIsBot: m.author.bot,
          guildId: m.guildId,
          selfId: this.client.user?.id ?? null,
          webhookId: m.webhookId,
        });
        if (v.owner) found.push(m);
      }
      if (batch.size < 100) break;
    }
    found.sort((a, b) => (BigInt(a.id) < BigInt(b.id) ? -1 : 1));
    const stored: Message[] = [];
    for (const m of found) {
      const text = (await this.messageText(m)).trim();
      if (!text) continue;
      this.store.addEpisode({
        channel: DISCORD_CHANNEL,
        role: 'owner',
        text,
        actor: 'owner',
        occurredAt: m.createdTimestamp,
        sourceId: `discord:${m.id}`,
        meta: { discord_message_id: m.id, caught_up: true },
      });
      stored.push(m);
    }
    if (after > last) this.markSeen(after.toString());
    this.stats.caughtUp += stored.length;
    if (stored.length === 0) return;
    this.log(`discord: caught up on ${stored.length} message(s) sent while away`);
    const previews = stored
      .slice(0, 3)
      .map(
        (m) =>
          `> ${m.content.replace(/\s+/g, ' ').slice(0, 60)}${m.content.length > 60 ? '…' : ''}`,
      );
    const more = stored.length > 3 ? [`…and ${stored.length - 3} more.`] : [];
    await this.sendToOwner(
      [
        `I was away. I caught up on ${stored.length} message${stored.length === 1 ? '' : 's'} you sent meanwhile and stored ${stored.length === 1 ? 'it' : 'them'} in memory without answering:`,
        ...previews,
        ...more,
        'Ask again anything you still want an answer to.',
      ].join('\n'),
    );
  }

  private messageText(m: Message): Promise<string> {
    return withAttachments(
      m.content,
      [...m.attachments.values()].map((a) => ({
        name: a.name,
        url: a.url,
        size: a.size,
        contentType: a.contentType,
      })),
      {
        ...(this.options.fetch ? { fetch: this.options.fetch } : {}),
        ...(this.options.attachmentLimitBytes
          ? { limitBytes: this.options.attachmentLimitBytes }
          : {}),
      },
    );
  }

  private statusText(): string {
    const s = this.store.stats();
    const dropped = Object.values(this.stats.dropped).reduce((a, b) => a + b, 0);
    const model = this.agent
      ? `${this.agent.modelInfo.provider} ${this.agent.modelInfo.model}`
      : 'offline (no model configured)';
    return `keel · ${model} · recall: ${s.mode} · ${s.active} beliefs (${s.pending} pending), ${s.episodes} episodes · discord: ${this.stats.handled} handled, ${dropped} dropped`;
  }

  private async onOwnerMessage(message: Message): Promise<void> {
    if (this.stopping) return; // left for the next start's catch-up
    await this.enqueue(async () => {
      if (this.stopping || BigInt(message.id) <= this.lastSeen()) return;
      const channel = message.channel;
      if (!channel.isSendable()) return;
      this.stats.handled++;
      const text = (await this.messageText(message)).trim();
      if (!text) return this.markSeen(message.id);
      if (/^\/?review$/i.test(text)) {
        this.markSeen(message.id);
        for (const page of renderReview(this.store.review())) await channel.send(page);
        return;
      }
      if (this.offline) {
        const r = await this.offline.handle(text);
        this.markSeen(message.id);
        return this.send(channel, r.text || '(nothing to say)');
      }
      if (text.startsWith('/')) {
        this.markSeen(message.id);
        return this.send(channel, await this.slash(text));
      }
      await this.turn(channel, message.id, text);
    });
  }

  private async slash(line: string): Promise<string> {
    try {
      return (
        await runSlashCommand(this.store, line, {
          channel: DISCORD_CHANNEL,
          status: () => this.statusText(),
        })
      ).text;
    } catch (err) {
      return errorText(err);
    }
  }

  private async turn(channel: SendableChannels, messageId: string, text: string): Promise<void> {
    const agent = this.agent!;
    const controller = new AbortController();
    this.inflight = controller;
    const typing = () => void channel.sendTyping().catch(() => {});
    typing();
    const timer = setInterval(typing, this.options.typingIntervalMs ?? 8000);
    try {
      const result = await agent.turn({
        text,
        channel: DISCORD_CHANNEL,
        signal: controller.signal,
      });
      this.markSeen(messageId);
      clearInterval(timer);
      await this.send(channel, result.reply || '(no reply)');
    } catch (err) {
      clearInterval(timer);
      if (KeelError.isInstance(err) && err.code === 'CANCELLED') {
        // Not marked seen: the next start catches it up and says so.
        await this.send(
          channel,
          'I am shutting down and did not finish answering this; I will pick it up when I am back.',
        ).catch(() => {});
        return;
      }
      this.markSeen(messageId);
      await this.send(
        channel,
        `That turn failed and nothing from it was stored (${errorText(err)}).`,
      );
    } finally {
      clearInterval(timer);
      this.inflight = null;
    }
  }

  private async send(channel: SendableChannels, text: string): Promise<void> {
    for (const chunk of splitMessage(text)) await channel.send({ content: chunk });
  }

  private async onOwnerInteraction(i: Interaction): Promise<void> {
    if (i.isChatInputCommand()) return this.onCommand(i);
    if (i.isButton()) return this.onButton(i);
  }

  private async onCommand(i: ChatInputCommandInteraction): Promise<void> {
    if (i.commandName === 'review') {
      const [first, ...rest] = renderReview(this.store.review());
      await i.reply(first!);
      for (const page of rest) await i.followUp(page);
      return;
    }
    let line: string;
    switch (i.commandName) {
      case 'recall':
        line = `/recall ${i.options.getString('query', true)}`;
        break;
      case 'forget':
        line = `/forget ${i.options.getString('id', true)}${i.options.getBoolean('purge') ? ' --purge' : ''}`;
        break;
      case 'status':
        line = '/status';
        break;
      default:
        line = '/help';
    }
    const [first = '(nothing)', ...rest] = splitMessage(await this.slash(line));
    await i.reply({ content: first });
    for (const chunk of rest) await i.followUp({ content: chunk });
  }

  private async onButton(i: ButtonInteraction): Promise<void> {
    const action = parseReviewButton(i.customId);
    if (!action) return;
    const result = await this.slash(`/${action.action} ${action.factId}`);
    const suffix = `:${action.factId}`;
    const components = i.message.components
      .map((c) => c.toJSON())
      .filter(
        (row) =>
          !('components' in row) ||
          !row.components.some((b) => 'custom_id' in b && b.custom_id.endsWith(suffix)),
      );
    const content = `${i.message.content}\n→ ${result.split('\n')[0]}`;
    await i.update({
      content: content.length <= 2000 ? content : `${content.slice(0, 1999)}…`,
      components: components as never,
    });
  }
}
