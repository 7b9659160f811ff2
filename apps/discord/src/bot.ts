/**
 * The Discord front door: the owner's DMs become turns in the one owner session. This module holds
 * the wiring (the discord.js client, the owner session, one queue of owner work, start and stop)
 * and the owner guard: every event handler is wrapped by {@link KeelDiscord.guarded}, which runs
 * the owner lock before anything else reads the event; strangers, bots, keel itself and server
 * messages are dropped without a reply and without their content being stored, one log line and a
 * counter each. What an owner's event then does lives beside it: `turns.ts` (a DM),
 * `interactions.ts` (slash commands, review buttons) and `catch-up.ts` (DMs sent while away).
 *
 * A database that takes no writes stops the door writing: it is checked before each DM, click and
 * catch-up (a stat while keel alone has touched the file) and in full every `integrityCheckMs`, and
 * a write may find its journal broken. Once either is found the owner gets one DM saying which, in
 * the error's words (`stopNotice` of `@keel/host`: a damaged database, `DB_CORRUPT`, or a journal
 * that does not match its anchor, `JOURNAL_BROKEN`), with its code and fix; from then on each DM is
 * kept in the recovery file (and answered with where) and nothing is written to the database, until
 * the door is restarted.
 *
 * @module
 */
import {
  Agent,
  type ChatModel,
  memoryCounts,
  OfflineSession,
  type TurnLockOptions,
  type UnansweredRecorder,
} from '@keel/agent';
import { KeelError } from '@keel/errors';
import { DEFAULTS, damageError, type RecoveryInput, stopState } from '@keel/host';
import type { MemoryStore } from '@keel/memory';
import { discordMessages } from '@keel/outbound';
import type { Toolbox } from '@keel/tools';
import {
  Client,
  type DMChannel,
  Events,
  GatewayIntentBits,
  type Interaction,
  type Message,
  Partials,
} from 'discord.js';
import { DiscordApprovals } from './approvals.js';
import type { FetchLike } from './attachments.js';
import { catchUp, SeenMark } from './catch-up.js';
import { SLASH_COMMANDS } from './commands.js';
import {
  type AttachmentOptions,
  DISCORD_CHANNEL,
  errorText,
  messageText,
  sendSplit,
} from './dm.js';
import { type DropReason, type GateInput, OwnerGate } from './gate.js';
import { type InteractionContext, onOwnerInteraction } from './interactions.js';
import { DmTurns, type DmTurnsOptions } from './turns.js';

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
  /**
   * Where the owner's DMs go while the database is damaged (`keepForRecovery` of `@keel/host`, and
   * its file). Without it they are not kept (they stay on Discord: the next start catches them up).
   */
  recovery?: { path: string; keep: (input: RecoveryInput) => unknown };
  /** How often the database is checked in full while the door runs, ms; 0: never. Default 30 min. */
  integrityCheckMs?: number;
  /** The owner's IANA time zone (`KEEL_TZ`), passed to the agent; default UTC. */
  tz?: string;
  /**
   * The tools each turn offers the model (`openTools` of `@keel/host`); default the memory tools
   * only. A tool that asks is put to the owner with buttons in their DM.
   */
  tools?: () => Toolbox | Promise<Toolbox>;
  /**
   * How long an approval waits for the owner's press before it is no, ms. Default: the
   * configuration's (`KEEL_APPROVAL_TIMEOUT_S`'s default, `DEFAULTS` of `@keel/host`).
   */
  approvalTimeoutMs?: number;
}

/** How often the door checks the database in full by default, ms: 30 minutes. */
export const INTEGRITY_CHECK_MS = 30 * 60_000;

/** Counters a status line and tests read. */
export interface DiscordStats {
  handled: number;
  caughtUp: number;
  dropped: Record<DropReason, number>;
}

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
  /** Where catch-up stores what the owner said while keel was away. */
  private readonly session: UnansweredRecorder;
  private readonly dms: DmTurns;
  private readonly log: (line: string) => void;
  private readonly seen: SeenMark;
  private readonly attachments: AttachmentOptions;
  private readonly interactions: InteractionContext;
  /** The tool calls waiting for the owner's press. */
  readonly approvals = new DiscordApprovals();
  private chain: Promise<void> = Promise.resolve();
  private stopping = false;
  /** Why the database takes nothing more (damage found), or null. */
  private down: KeelError | null = null;
  private checkTimer: NodeJS.Timeout | null = null;
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
    this.seen = new SeenMark(options.store.meta);
    this.attachments = {
      ...(options.fetch ? { fetch: options.fetch } : {}),
      ...(options.attachmentLimitBytes ? { limitBytes: options.attachmentLimitBytes } : {}),
    };
    this.interactions = {
      store: options.store,
      approvals: this.approvals,
      status: () => this.statusText(),
      ...(options.tz ? { tz: options.tz } : {}),
    };
    const session: DmTurnsOptions['session'] = options.model
      ? {
          agent: new Agent({
            store: options.store,
            model: options.model,
            ...(options.lock ? { lock: options.lock } : {}),
            ...(options.tz ? { tz: options.tz } : {}),
            ...(options.tools ? { tools: options.tools } : {}),
          }),
          offline: null,
        }
      : {
          agent: null,
          offline: new OfflineSession(options.store, {
            channel: DISCORD_CHANNEL,
            ...(options.tz ? { tz: options.tz } : {}),
          }),
        };
    this.agent = session.agent;
    this.session = session.agent ?? session.offline;
    this.dms = new DmTurns({
      store: options.store,
      session,
      seen: this.seen,
      stats: this.stats,
      slash: this.interactions,
      attachments: this.attachments,
      typingIntervalMs: options.typingIntervalMs ?? 8000,
      approvals: this.approvals,
      approvalTimeoutMs: options.approvalTimeoutMs ?? DEFAULTS.approvalTimeoutS * 1000,
    });
    this.client = new Client({
      intents: [GatewayIntentBits.DirectMessages, GatewayIntentBits.MessageContent],
      partials: [Partials.Channel],
      ...(options.apiUrl ? { rest: { api: options.apiUrl, version: '10' } } : {}),
    });
    this.client.on(
      Events.MessageCreate,
      this.guarded(
        (m: Message) => this.author(m),
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
    const every = this.options.integrityCheckMs ?? INTEGRITY_CHECK_MS;
    if (every > 0) {
      this.checkTimer = setInterval(() => {
        void this.enqueue(async () => {
          if (!this.down && !this.stopping) await this.check(true);
        });
      }, every);
      this.checkTimer.unref();
    }
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
    if (this.checkTimer) clearInterval(this.checkTimer);
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
      this.dms.cancel();
      await done;
    }
    await this.client.destroy();
  }

  /** Sends `text` to the owner's DM, split into messages as needed. */
  async sendToOwner(text: string): Promise<void> {
    await sendSplit(await this.ownerDm(), text);
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

  /** The gate's view of a message: its author and place, nothing of its content. */
  private author(m: Message): GateInput {
    return {
      authorId: m.author.id,
      authorIsBot: m.author.bot,
      guildId: m.guildId,
      selfId: this.client.user?.id ?? null,
      webhookId: m.webhookId,
    };
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
      if (this.stopping) return;
      if (!this.down) await this.check(false);
      if (this.down) return; // left on Discord: caught up once the database is restored
      let dm: DMChannel | undefined;
      try {
        await catchUp(
          {
            session: this.session,
            seen: this.seen,
            stats: this.stats,
            fetchAfter: async (after) => {
              dm ??= await this.ownerDm();
              return dm.messages.fetch({ after, limit: 100, cache: false });
            },
            isOwner: (m) => this.gate.check(this.author(m)).owner,
            text: (m) => messageText(m, this.attachments),
            notify: (text) => this.sendToOwner(text),
            log: this.log,
            stored: (m) => Boolean(this.store.episodeBySource(null, `discord:${m.id}`)),
          },
          this.startedAt,
        );
        this.store.recordSound();
      } catch (err) {
        // A damaged page met while storing what was sent meanwhile: it stays on Discord.
        const damage = damageError(err);
        if (!damage) throw err;
        await this.goDown(damage);
      }
    });
  }

  /**
   * Checks the database (in full, or cached: see `MemoryStore.checkIntegrity`); what it cannot
   * vouch for stops the door writing ({@link goDown}).
   */
  private async check(full: boolean): Promise<void> {
    try {
      this.store.checkIntegrity({ full });
      if (full) this.store.recordSound();
    } catch (err) {
      await this.goDown(
        KeelError.isInstance(err)
          ? err
          : new KeelError('DB_OPEN_FAILED', `the database cannot be checked: ${String(err)}`),
      );
    }
  }

  /**
   * Stops writing to the database, and tells the owner once why (in the words of the error: a
   * damaged database, a journal that does not match its anchor, …), with its code and its fix.
   */
  private async goDown(why: KeelError): Promise<void> {
    if (this.down) return;
    this.down = why;
    // A broken journal is not damaged pages: the file's verdict stands (as closeStore does).
    if (why.code !== 'JOURNAL_BROKEN') this.store.recordDamage();
    this.log(`discord: the database cannot be used, nothing more is written: ${errorText(why)}`);
    const kept = this.options.recovery
      ? `What you send me meanwhile is kept in ${this.options.recovery.path} on keel's machine, and stored once the database is restored.`
      : 'What you send me meanwhile stays here and is caught up once the database is restored.';
    const s = stopState(why)!;
    await this.sendToOwner(
      `${s.said}. I have stopped answering and store nothing in memory. ${kept} To get back: stop keel discord and keel think, do what the fix says, and start me again.\nfix: ${s.fix}`,
    ).catch((err) => this.log(`discord: could not tell the owner: ${errorText(err)}`));
  }

  /** An owner DM while the database takes nothing: kept in the recovery file, answered with where. */
  private async keep(message: Message): Promise<void> {
    const channel = message.channel;
    const text = (await messageText(message, this.attachments)).trim();
    if (!text || !channel.isSendable()) return;
    const recovery = this.options.recovery;
    recovery?.keep({
      channel: DISCORD_CHANNEL,
      text,
      at: message.createdTimestamp,
      sourceId: `discord:${message.id}`,
    });
    const what = stopState(this.down)!.what;
    await sendSplit(
      channel,
      recovery
        ? `(Not stored in memory: ${what}. Your message is kept in ${recovery.path}; keel recover stores it once the database is restored.)`
        : `(Not stored: ${what}. Your message stays here and is caught up once the database is restored.)`,
    );
  }

  /** A slash command or button click: refused while the database takes nothing. */
  private async onOwnerInteraction(i: Interaction): Promise<void> {
    if (!this.down) await this.check(false);
    if (this.down) {
      if (i.isRepliable()) {
        const s = stopState(this.down)!;
        await i.reply({
          content: discordMessages(
            `${s.said}. Nothing can be changed until the database is restored.\nfix: ${s.fix}`,
          )[0]!,
        });
      }
      return;
    }
    await onOwnerInteraction(i, this.interactions);
    this.store.recordSound();
  }

  private statusText(): string {
    const s = this.store.stats();
    const dropped = Object.values(this.stats.dropped).reduce((a, b) => a + b, 0);
    const model = this.agent
      ? `${this.agent.modelInfo.provider} ${this.agent.modelInfo.model}`
      : 'offline (no model configured)';
    return `keel · ${model} · recall: ${s.mode} · ${memoryCounts(s)} · discord: ${this.stats.handled} handled, ${dropped} dropped`;
  }

  private async onOwnerMessage(message: Message): Promise<void> {
    if (this.stopping) return; // left for the next start's catch-up
    await this.enqueue(async () => {
      if (this.stopping) return;
      if (!this.down) await this.check(false);
      if (this.down) return this.keep(message);
      try {
        await this.dms.answer(message);
        this.store.recordSound();
      } catch (err) {
        const damage = damageError(err);
        if (!damage) throw err;
        await this.goDown(damage);
        await this.keep(message);
      }
    });
  }
}
