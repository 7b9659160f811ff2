/**
 * A fake Discord on 127.0.0.1 for tests that drive the real discord.js client (point its
 * `rest.api` at {@link FakeDiscord.apiUrl}): the REST routes keel uses and a gateway websocket
 * that speaks the real protocol (HELLO, IDENTIFY → READY, heartbeats, RESUME → RESUMED, dispatches).
 *
 * It records every REST request ({@link FakeDiscord.requests}); an unknown route is answered 404
 * and recorded in {@link FakeDiscord.errors}, and so is content keel posts with a raw control
 * character or bidi override in it (keel shows them, never sends them). Messages live per channel; messages keel posts are
 * echoed to the gateway as MESSAGE_CREATE, as Discord does.
 *
 * With {@link FakeDiscord.token} set it checks the bot token as Discord does: a REST request
 * without `authorization: Bot <token>` is answered 401, and an IDENTIFY with another token is
 * closed with 4004 (authentication failed).
 *
 * The bot's application ({@link FakeDiscord.application}, `GET /applications/@me`) has its own id,
 * as an old application's does (keel must take the id from the application, not the bot user).
 * Its settings are enforced as Discord enforces them: an IDENTIFY asking for the Message Content
 * intent while the application has it off is closed with 4014 (disallowed intents), and slash
 * commands for user installs (`integration_types` with 1) are refused (400) while User Install is
 * off. The commands registered last are kept ({@link FakeDiscord.commands}).
 *
 * The bot shares a server with the users added to it ({@link FakeDiscord.addUser}, by default; a
 * user the fake was not told about is taken to share it too). With a user who shares no server
 * (`sharesServer: false`, e.g. one who only installed the app to their account) Discord does what
 * it does on the user-install route: that user's DMs to the bot are stored but not dispatched
 * (the gateway sends no MESSAGE_CREATE), the bot's messages to them are refused (403, 50278: no
 * mutual guilds), and a slash command only for server installs is not offered to them at all
 * ({@link FakeDiscord.slashCommand} throws).
 *
 * An interaction (a click, a slash command) is answered as Discord requires: one callback, within
 * {@link FakeDiscord.interactionDeadlineMs} (3 s, Discord's limit) of its dispatch; a late
 * callback is refused (404, 10062 unknown interaction), a second one too (400, 40060 already
 * acknowledged), and both are recorded in {@link FakeDiscord.errors}. A message keel posted can be
 * edited (`PATCH /channels/{c}/messages/{m}`: its content and components replaced, and
 * MESSAGE_UPDATE dispatched, as Discord does).
 *
 * The `ws` package is loaded from discord.js's own dependency tree (keel does not depend on it).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo, Socket } from 'node:net';

interface WsSocket {
  readyState: number;
  send(data: string): void;
  close(code?: number): void;
  terminate(): void;
  on(event: 'message', fn: (data: Buffer) => void): void;
  on(event: 'close', fn: () => void): void;
}
interface WsServer {
  handleUpgrade(
    req: IncomingMessage,
    socket: Socket,
    head: Buffer,
    cb: (ws: WsSocket) => void,
  ): void;
  close(): void;
}
const requireFromDiscord = createRequire(import.meta.resolve('discord.js'));
const requireFromWs = createRequire(requireFromDiscord.resolve('@discordjs/ws'));
const { WebSocketServer } = requireFromWs('ws') as {
  WebSocketServer: new (o: { noServer: true }) => WsServer;
};

/**
 * What keel never posts raw: C0 controls but tab and line feed, DEL, C1 controls, and the bidi
 * embeddings, overrides and isolates (they reorder what the owner sees).
 */
const RAW_CONTROL = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u202A-\u202E\u2066-\u2069]/;

const DISCORD_EPOCH = 1_420_070_400_000n;

/** The shortest deadline {@link FakeDiscord.waitFor} gives, ms. */
export const MIN_WAIT_MS = 60_000;
let increment = 0n;
/** A time-ordered snowflake, as Discord makes them. */
export function snowflake(at = Date.now()): string {
  increment = (increment + 1n) % 4096n;
  return (((BigInt(at) - DISCORD_EPOCH) << 22n) | increment).toString();
}

/** A Discord user object. */
export interface FakeUser {
  id: string;
  username: string;
  discriminator: string;
  global_name: string | null;
  avatar: null;
  bot?: boolean;
}

/** The privileged Message Content intent, in IDENTIFY's `intents`. */
const MESSAGE_CONTENT_INTENT = 1 << 15;
/** Application flags: the Message Content intent is on (100+ servers; fewer than 100). */
const GATEWAY_MESSAGE_CONTENT = 1 << 18;
const GATEWAY_MESSAGE_CONTENT_LIMITED = 1 << 19;

/** The settings of the bot's application the fake enforces (`GET /applications/@me`'s fields). */
export interface FakeApplication {
  name: string;
  bot_public: boolean;
  bot_require_code_grant: boolean;
  /** Application flags: {@link GATEWAY_MESSAGE_CONTENT_LIMITED} is the Message Content intent. */
  flags: number;
  /** The installation contexts on: `'0'` server installs, `'1'` user installs. */
  integration_types_config: Record<string, { oauth2_install_params?: unknown }>;
}

/** A user for tests. */
export function user(username: string, extra: Partial<FakeUser> = {}): FakeUser {
  return {
    id: snowflake(),
    username,
    discriminator: '0',
    global_name: username,
    avatar: null,
    ...extra,
  };
}

/** One REST request the fake received. */
export interface DiscordRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary fields of the wire body.
  body: any;
  at: number;
}

/** A stored message (the API shape). */
// biome-ignore lint/suspicious/noExplicitAny: the wire shape.
export type FakeMessage = Record<string, any> & { id: string; channel_id: string; content: string };

/** Options for a dispatched message. */
export interface MessageOptions {
  guildId?: string;
  attachments?: { filename: string; content_type?: string; size: number; url: string }[];
  /** Only store it (as if sent while keel was away), do not dispatch it. */
  silent?: boolean;
}

/** The fake server. Create with {@link FakeDiscord.start}. */
export class FakeDiscord {
  readonly requests: DiscordRequest[] = [];
  readonly errors: string[] = [];
  readonly bot: FakeUser = user('keel', { bot: true });
  readonly applicationId = snowflake();
  /**
   * The application's settings, as a new application has them today: the Message Content intent
   * turned on (as the README says), both installation contexts on, public, no code grant.
   */
  readonly application: FakeApplication = {
    name: 'keel',
    bot_public: true,
    bot_require_code_grant: false,
    flags: GATEWAY_MESSAGE_CONTENT_LIMITED,
    integration_types_config: {
      '0': {
        oauth2_install_params: { scopes: ['applications.commands', 'bot'], permissions: '0' },
      },
      '1': { oauth2_install_params: { scopes: ['applications.commands'], permissions: '0' } },
    },
  };
  /** The slash commands registered last (`PUT /applications/{id}/commands`'s body). */
  // biome-ignore lint/suspicious/noExplicitAny: the wire shape.
  commands: any[] | null = null;
  /** The server the bot was added to (the owner's). */
  readonly server = { id: snowflake(), name: "owner's server" };
  /** Messages by channel id. */
  readonly messages = new Map<string, FakeMessage[]>();
  /** Interaction callbacks by interaction id. */
  // biome-ignore lint/suspicious/noExplicitAny: the wire shape.
  readonly callbacks = new Map<string, any>();
  /** A deferred interaction's reply as edited (`editReply`), by interaction id. */
  // biome-ignore lint/suspicious/noExplicitAny: the wire shape.
  readonly edited = new Map<string, any>();
  /** Gateway connections opened (IDENTIFY or RESUME each). */
  identifies = 0;
  resumes = 0;
  /** The only bot token accepted (null: any). */
  token: string | null = null;
  /** Files served at /files/<name>. */
  readonly files = new Map<string, { type: string; body: Buffer }>();
  /** How long after its dispatch an interaction takes its callback, ms: Discord's 3 s. */
  interactionDeadlineMs = 3000;
  /** Interactions dispatched, by id: when (ms since epoch). */
  readonly #interactions = new Map<string, number>();
  readonly #server: Server;
  readonly #wss: WsServer = new WebSocketServer({ noServer: true });
  readonly #sockets = new Set<WsSocket>();
  #live: WsSocket | null = null;
  #seq = 0;
  #port = 0;
  readonly #dmByUser = new Map<string, string>();
  readonly #users = new Map<string, FakeUser>();
  /** Users added with `sharesServer: false`: they share no server with the bot. */
  readonly #outsiders = new Set<string>();
  readonly #waiters: { test: () => boolean; resolve: () => void }[] = [];

  private constructor() {
    this.#server = createServer((req, res) => void this.handle(req, res));
    this.#server.on('upgrade', (req: IncomingMessage, socket: Socket, head: Buffer) => {
      this.#wss.handleUpgrade(req, socket, head, (ws) => this.onSocket(ws));
    });
    this.#users.set(this.bot.id, this.bot);
  }

  /** Starts on a random port on 127.0.0.1. */
  static async start(): Promise<FakeDiscord> {
    const fake = new FakeDiscord();
    await new Promise<void>((resolve, reject) => {
      fake.#server.once('error', reject);
      fake.#server.listen(0, '127.0.0.1', () => resolve());
    });
    fake.#port = (fake.#server.address() as AddressInfo).port;
    return fake;
  }

  /** The REST base to give discord.js (`rest.api`). */
  get apiUrl(): string {
    return `http://127.0.0.1:${this.#port}/api`;
  }
  get origin(): string {
    return `http://127.0.0.1:${this.#port}`;
  }

  /**
   * Registers a user the fake knows (for DM channels). By default they are a member of
   * {@link FakeDiscord.server}, the server the bot was added to; with `sharesServer: false` they
   * share no server with the bot.
   */
  addUser(u: FakeUser, options: { sharesServer?: boolean } = {}): FakeUser {
    this.#users.set(u.id, u);
    if (options.sharesServer === false) this.#outsiders.add(u.id);
    else this.#outsiders.delete(u.id);
    return u;
  }

  /** Whether the bot shares a server with `userId`. */
  sharesServer(userId: string): boolean {
    return !this.#outsiders.has(userId);
  }

  /** The user whose DM with the bot `channelId` is, if it is one. */
  #dmRecipient(channelId: string): string | undefined {
    for (const [userId, id] of this.#dmByUser) if (id === channelId) return userId;
    return undefined;
  }

  /** The DM channel id between the bot and `userId` (created on first use). */
  dmChannel(userId: string): string {
    let id = this.#dmByUser.get(userId);
    if (!id) {
      id = snowflake();
      this.#dmByUser.set(userId, id);
      this.messages.set(id, []);
    }
    return id;
  }

  /** Messages keel posted to a channel. */
  posted(channelId: string): FakeMessage[] {
    return (this.messages.get(channelId) ?? []).filter((m) => m.author.id === this.bot.id);
  }

  /** REST requests other than typing, from index `from`. */
  requestsSince(from: number): DiscordRequest[] {
    return this.requests.slice(from);
  }

  /**
   * Resolves when `test` holds (checked after every request and gateway frame), or rejects after
   * `ms`, never less than {@link MIN_WAIT_MS}: the deadline bounds a hang, and a machine busy
   * with other builds can take many seconds to deliver what an idle one does at once.
   */
  waitFor(test: () => boolean, ms = MIN_WAIT_MS, what = 'condition'): Promise<void> {
    if (test()) return Promise.resolve();
    const deadline = Math.max(ms, MIN_WAIT_MS);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`fake-discord: timed out after ${deadline} ms waiting for ${what}`)),
        deadline,
      );
      this.#waiters.push({
        test,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      });
    });
  }

  #poke(): void {
    for (const w of [...this.#waiters]) {
      if (w.test()) {
        this.#waiters.splice(this.#waiters.indexOf(w), 1);
        w.resolve();
      }
    }
  }

  /** A user sends a message: stored, and dispatched as MESSAGE_CREATE unless `silent`. */
  sendMessage(
    from: FakeUser,
    channelId: string,
    content: string,
    options: MessageOptions = {},
  ): FakeMessage {
    const m: FakeMessage = {
      id: snowflake(),
      channel_id: channelId,
      type: 0,
      content,
      author: from,
      timestamp: new Date().toISOString(),
      edited_timestamp: null,
      tts: false,
      mention_everyone: false,
      mentions: [],
      mention_roles: [],
      attachments: (options.attachments ?? []).map((a) => ({
        id: snowflake(),
        proxy_url: a.url,
        ...a,
      })),
      embeds: [],
      pinned: false,
      components: [],
      ...(options.guildId ? { guild_id: options.guildId, channel_type: 0 } : { channel_type: 1 }),
    };
    if (!this.messages.has(channelId)) this.messages.set(channelId, []);
    this.messages.get(channelId)!.push(m);
    // A DM from a user who shares no server with the bot reaches the channel, not the bot's
    // gateway connection.
    const unseen = !options.guildId && !this.sharesServer(from.id);
    if (!options.silent && !unseen) this.dispatch('MESSAGE_CREATE', m);
    return m;
  }

  /** The owner clicks a button on a message keel posted. */
  clickButton(from: FakeUser, message: FakeMessage, customId: string): string {
    const id = snowflake();
    this.#interactions.set(id, Date.now());
    this.dispatch('INTERACTION_CREATE', {
      id,
      application_id: this.applicationId,
      type: 3,
      token: `tok-${id}`,
      version: 1,
      channel_id: message.channel_id,
      channel: { id: message.channel_id, type: 1 },
      user: from,
      message,
      data: { custom_id: customId, component_type: 2 },
      locale: 'en-GB',
      app_permissions: '0',
      entitlements: [],
      authorizing_integration_owners: { '0': from.id },
      context: 1,
      attachment_size_limit: 10_000_000,
    });
    return id;
  }

  /** The owner runs a slash command. */
  slashCommand(
    from: FakeUser,
    channelId: string,
    name: string,
    options: { name: string; type: number; value: unknown }[] = [],
  ): string {
    const command = this.commands?.find((c) => c.name === name);
    const userInstallable = (command?.integration_types ?? [0]).includes(1);
    if (!this.sharesServer(from.id) && !userInstallable) {
      throw new Error(
        `fake-discord: /${name} is for server installs and ${from.username} shares no server with the bot: Discord does not offer it`,
      );
    }
    const id = snowflake();
    this.#interactions.set(id, Date.now());
    this.dispatch('INTERACTION_CREATE', {
      id,
      application_id: this.applicationId,
      type: 2,
      token: `tok-${id}`,
      version: 1,
      channel_id: channelId,
      channel: { id: channelId, type: 1 },
      user: from,
      data: { id: snowflake(), name, type: 1, options },
      locale: 'en-GB',
      app_permissions: '0',
      entitlements: [],
      authorizing_integration_owners: { '0': from.id },
      context: 1,
      attachment_size_limit: 10_000_000,
    });
    return id;
  }

  /** Sends a dispatch on the live gateway connection (dropped while disconnected). */
  dispatch(t: string, d: unknown): void {
    const ws = this.#live;
    if (ws?.readyState !== 1) return;
    ws.send(JSON.stringify({ op: 0, t, s: ++this.#seq, d }));
  }

  /** Cuts the gateway connection with close code 4000 (discord.js resumes). */
  disconnect(): void {
    const ws = this.#live;
    this.#live = null;
    ws?.close(4000);
  }

  /** True while a gateway connection is identified/resumed and live. */
  get connected(): boolean {
    return this.#live !== null;
  }

  private onSocket(ws: WsSocket): void {
    this.#sockets.add(ws);
    ws.on('close', () => {
      this.#sockets.delete(ws);
      if (this.#live === ws) this.#live = null;
      this.#poke();
    });
    ws.send(JSON.stringify({ op: 10, d: { heartbeat_interval: 45_000 }, s: null, t: null }));
    ws.on('message', (raw) => {
      // biome-ignore lint/suspicious/noExplicitAny: gateway payloads.
      const p = JSON.parse(raw.toString()) as { op: number; d: any };
      switch (p.op) {
        case 1:
          ws.send(JSON.stringify({ op: 11, d: null, s: null, t: null }));
          break;
        case 2:
          if (this.token !== null && p.d?.token !== this.token) {
            ws.close(4004);
            break;
          }
          if (
            (Number(p.d?.intents) & MESSAGE_CONTENT_INTENT) !== 0 &&
            (this.application.flags &
              (GATEWAY_MESSAGE_CONTENT | GATEWAY_MESSAGE_CONTENT_LIMITED)) ===
              0
          ) {
            ws.close(4014); // disallowed intents: the application has it off
            break;
          }
          this.identifies++;
          this.#live = ws;
          this.#seq = 0;
          this.dispatch('READY', {
            v: 10,
            user: this.bot,
            guilds: [],
            session_id: `session-${this.identifies}`,
            resume_gateway_url: `ws://127.0.0.1:${this.#port}/gateway`,
            shard: [0, 1],
            application: { id: this.applicationId, flags: this.application.flags },
            private_channels: [],
          });
          break;
        case 6:
          this.resumes++;
          this.#live = ws;
          this.dispatch('RESUMED', {});
          break;
        default:
          break;
      }
      this.#poke();
    });
  }

  /** Closes everything. */
  async close(): Promise<void> {
    for (const ws of this.#sockets) ws.terminate();
    this.#wss.close();
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', this.origin);
    const raw = await new Promise<string>((resolve) => {
      const parts: Buffer[] = [];
      req.on('data', (c: Buffer) => parts.push(c));
      req.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
    });
    let body: unknown;
    try {
      body = raw ? JSON.parse(raw) : undefined;
    } catch {
      body = raw;
    }
    const method = req.method ?? 'GET';
    const path = url.pathname;
    const json = (status: number, data: unknown) => {
      res.writeHead(status, status === 204 ? {} : { 'content-type': 'application/json' });
      res.end(data === undefined ? '' : JSON.stringify(data));
    };
    if (path.startsWith('/files/')) {
      const f = this.files.get(decodeURIComponent(path.slice(7)));
      if (!f) return json(404, { message: 'Unknown file', code: 0 });
      res.writeHead(200, { 'content-type': f.type, 'content-length': String(f.body.length) });
      res.end(f.body);
      return;
    }
    this.requests.push({ method, path, query: url.searchParams, body, at: Date.now() });
    // keel shows controls, never sends them: a raw one in anything keel posts (a message, an
    // interaction's reply or edit, a follow-up) is an error every test sees.
    const posted = body as { content?: unknown; data?: { content?: unknown } } | undefined;
    for (const content of [posted?.content, posted?.data?.content]) {
      if (typeof content === 'string' && RAW_CONTROL.test(content)) {
        this.errors.push(
          `fake-discord: ${method} ${path} carries a raw control character: ${JSON.stringify(content)}`,
        );
      }
    }
    if (this.token !== null && req.headers.authorization !== `Bot ${this.token}`) {
      json(401, { message: '401: Unauthorized', code: 0 });
      this.#poke();
      return;
    }
    try {
      this.route(method, path.replace(/^\/api\/v10/, ''), url.searchParams, body, json);
    } finally {
      this.#poke();
    }
  }

  private route(
    method: string,
    path: string,
    query: URLSearchParams,
    // biome-ignore lint/suspicious/noExplicitAny: wire bodies.
    body: any,
    json: (status: number, data: unknown) => void,
  ): unknown {
    let m: RegExpExecArray | null = null;
    const at = (pattern: RegExp): boolean => {
      m = pattern.exec(path);
      return m !== null;
    };
    if (method === 'GET' && (path === '/gateway/bot' || path === '/gateway')) {
      return json(200, {
        url: `ws://127.0.0.1:${this.#port}/gateway`,
        shards: 1,
        session_start_limit: { total: 1000, remaining: 999, reset_after: 0, max_concurrency: 1 },
      });
    }
    if (method === 'GET' && path === '/users/@me') return json(200, this.bot);
    if (method === 'GET' && path === '/applications/@me') {
      const { username, id, discriminator, avatar } = this.bot;
      return json(200, {
        id: this.applicationId,
        description: '',
        icon: null,
        verify_key: '0'.repeat(64),
        team: null,
        bot: { id, username, discriminator, avatar, bot: true },
        flags_new: String(this.application.flags),
        ...this.application,
      });
    }
    if (method === 'POST' && path === '/users/@me/channels') {
      const recipient =
        this.#users.get(body?.recipient_id) ?? user('someone', { id: body?.recipient_id });
      return json(200, {
        id: this.dmChannel(recipient.id),
        type: 1,
        recipients: [recipient],
        last_message_id: null,
      });
    }
    if (at(/^\/channels\/(\d+)\/typing$/) && method === 'POST') {
      res204(json);
      return;
    }
    if (at(/^\/channels\/(\d+)\/messages$/)) {
      const channelId = (m as unknown as RegExpExecArray)[1]!;
      const list = this.messages.get(channelId) ?? [];
      if (method === 'GET') {
        const after = query.get('after');
        const limit = Number(query.get('limit') ?? 50);
        const newer = list.filter((x) => !after || BigInt(x.id) > BigInt(after));
        // Discord returns newest first.
        const page = after ? newer.slice(0, limit) : newer.slice(-limit);
        return json(200, [...page].reverse());
      }
      if (method === 'POST') {
        const recipient = this.#dmRecipient(channelId);
        if (recipient && !this.sharesServer(recipient)) {
          return json(403, {
            message: 'Cannot send messages to this user due to having no mutual guilds',
            code: 50278,
          });
        }
        const posted: FakeMessage = {
          id: snowflake(),
          channel_id: channelId,
          type: 0,
          content: body?.content ?? '',
          author: this.bot,
          timestamp: new Date().toISOString(),
          edited_timestamp: null,
          tts: false,
          mention_everyone: false,
          mentions: [],
          mention_roles: [],
          attachments: [],
          embeds: [],
          pinned: false,
          components: body?.components ?? [],
          channel_type: 1,
        };
        if (!this.messages.has(channelId)) this.messages.set(channelId, []);
        this.messages.get(channelId)!.push(posted);
        json(200, posted);
        this.dispatch('MESSAGE_CREATE', posted);
        return;
      }
    }
    if (at(/^\/channels\/(\d+)\/messages\/(\d+)$/) && method === 'PATCH') {
      const [, channelId, messageId] = m as unknown as RegExpExecArray;
      const msg = this.messages.get(channelId!)?.find((x) => x.id === messageId);
      if (!msg) return json(404, { message: 'Unknown Message', code: 10008 });
      if (msg.author.id !== this.bot.id) {
        return json(403, {
          message: 'Cannot edit a message authored by another user',
          code: 50005,
        });
      }
      if (body?.content !== undefined) msg.content = body.content;
      if (body?.components !== undefined) msg.components = body.components;
      msg.edited_timestamp = new Date().toISOString();
      json(200, msg);
      this.dispatch('MESSAGE_UPDATE', msg);
      return;
    }
    if (at(/^\/applications\/(\d+)\/commands$/) && method === 'PUT') {
      if ((m as unknown as RegExpExecArray)[1] !== this.applicationId) {
        return json(403, { message: 'Missing Access', code: 50001 });
      }
      const userInstall = '1' in this.application.integration_types_config;
      const refused = (body as { name: string; integration_types?: number[] }[]).find(
        (c) => !userInstall && c.integration_types?.includes(1),
      );
      if (refused) {
        return json(400, {
          message: 'Invalid Form Body',
          code: 50035,
          errors: {
            integration_types: {
              _errors: [
                {
                  code: 'APPLICATION_COMMAND_INTEGRATION_TYPES_INVALID',
                  message: `/${refused.name}: the application is not installable to users`,
                },
              ],
            },
          },
        });
      }
      this.commands = body as never;
      return json(
        200,
        (body as { name: string }[]).map((c) => ({
          ...c,
          id: snowflake(),
          application_id: this.applicationId,
          version: snowflake(),
          type: 1,
          default_member_permissions: null,
        })),
      );
    }
    if (at(/^\/interactions\/(\d+)\/([^/]+)\/callback$/) && method === 'POST') {
      const refusal = this.#callbackRefusal((m as unknown as RegExpExecArray)[1]!);
      if (refusal) {
        this.errors.push(`fake-discord: ${method} ${path}: ${refusal.message}`);
        return json(refusal.status, { message: refusal.message, code: refusal.code });
      }
      this.callbacks.set((m as unknown as RegExpExecArray)[1]!, body);
      if (body?.type === 7 && body.data) {
        // UPDATE_MESSAGE: edit the message the component was on.
        for (const list of this.messages.values()) {
          for (const msg of list) {
            if (
              msg.components?.length &&
              this.#componentMessage(msg, (m as unknown as RegExpExecArray)[1]!)
            )
              Object.assign(msg, body.data);
          }
        }
      }
      res204(json);
      return;
    }
    const original = /^\/webhooks\/(\d+)\/tok-(\d+)\/messages\/(?:@|%40)original$/.exec(path);
    if (original && method === 'PATCH') {
      // The reply to a deferred interaction (its token is `tok-<interaction id>`).
      this.edited.set(original[2]!, body);
      return json(200, {
        id: snowflake(),
        channel_id: '0',
        content: body?.content ?? '',
        author: this.bot,
        timestamp: new Date().toISOString(),
        attachments: [],
        embeds: [],
        mentions: [],
        mention_roles: [],
        components: [],
        type: 0,
      });
    }
    if (at(/^\/webhooks\/(\d+)\/([^/]+)$/) && method === 'POST') {
      return json(200, {
        id: snowflake(),
        channel_id: '0',
        content: body?.content ?? '',
        author: this.bot,
        timestamp: new Date().toISOString(),
        attachments: [],
        embeds: [],
        mentions: [],
        mention_roles: [],
        components: [],
        type: 0,
      });
    }
    this.errors.push(`fake-discord: no route ${method} ${path}`);
    json(404, { message: `Unknown route ${method} ${path}`, code: 0 });
    return undefined;
  }

  /**
   * Why Discord would refuse a callback to interaction `id`: one it never sent, one already
   * answered, or one past {@link interactionDeadlineMs}; null when it takes it.
   */
  #callbackRefusal(id: string): { status: number; code: number; message: string } | null {
    const at = this.#interactions.get(id);
    if (at === undefined) return { status: 404, code: 10062, message: 'Unknown interaction' };
    if (this.callbacks.has(id)) {
      return {
        status: 400,
        code: 40060,
        message: 'Interaction has already been acknowledged.',
      };
    }
    const late = Date.now() - at;
    if (late > this.interactionDeadlineMs) {
      return {
        status: 404,
        code: 10062,
        message: `Unknown interaction (answered ${late} ms after it was sent; Discord waits ${this.interactionDeadlineMs} ms)`,
      };
    }
    return null;
  }

  /** Which message an interaction was about is recorded when the click is dispatched. */
  readonly #clicked = new Map<string, string>();
  #componentMessage(msg: FakeMessage, interactionId: string): boolean {
    return this.#clicked.get(interactionId) === msg.id;
  }

  /** Clicks a button and remembers which message it was on (for UPDATE_MESSAGE). */
  click(from: FakeUser, message: FakeMessage, customId: string): string {
    const id = this.clickButton(from, message, customId);
    this.#clicked.set(id, message.id);
    return id;
  }
}

function res204(json: (status: number, data: unknown) => void): void {
  json(204, undefined);
}
