/**
 * Who the bot token belongs to: one REST call through discord.js's REST client, the cheapest proof
 * that Discord takes the token: the bot user (`GET /users/@me`), or its application (`GET
 * /applications/@me`: the id its install link needs, and the portal settings that decide whether
 * the owner can add and reach the bot). discord.js is imported when the request is made, so a
 * process that never asks never loads it.
 *
 * @module
 */
import { KeelError } from '@keel/errors';
import type { REST as RestClient } from 'discord.js';
import { loadDiscord } from './load.js';

/** How long the identity request may take by default, ms. */
export const IDENTITY_TIMEOUT_MS = 5000;

/** Options for {@link fetchBotUser}. */
export interface BotUserOptions {
  token: string;
  /** The REST API base (e.g. `http://127.0.0.1:PORT/api`); default Discord's own. */
  apiUrl?: string;
  /** Cancels the request (`CANCELLED`). */
  signal?: AbortSignal;
  /** How long the request may take, ms. Default {@link IDENTITY_TIMEOUT_MS}. */
  timeoutMs?: number;
}

/** The bot's own Discord user. */
export interface BotUser {
  id: string;
  username: string;
  /** `name#1234`, or the bare name for the new usernames (discriminator 0). */
  tag: string;
}

/** The tag Discord shows: `name#1234`, or the bare name for the new usernames (discriminator 0). */
function tagOf(u: { username: string; discriminator?: string }): string {
  return u.discriminator && u.discriminator !== '0'
    ? `${u.username}#${u.discriminator}`
    : u.username;
}

/**
 * One GET through discord.js's REST client, with no retries; errors mapped by
 * {@link discordError}.
 */
async function restGet(
  options: BotUserOptions,
  route: (routes: typeof import('discord.js').Routes) => `/${string}`,
): Promise<unknown> {
  const { signal } = options;
  const timeoutMs = options.timeoutMs ?? IDENTITY_TIMEOUT_MS;
  if (signal?.aborted) throw new KeelError('CANCELLED', 'the check was cancelled');
  const api = options.apiUrl ?? 'https://discord.com/api';
  const { REST, Routes } = await loadDiscord();
  const rest: RestClient = new REST({
    version: '10',
    retries: 0,
    timeout: timeoutMs,
    ...(options.apiUrl ? { api: options.apiUrl } : {}),
  });
  rest.setToken(options.token);
  try {
    return await rest.get(route(Routes), signal ? { signal } : {});
  } catch (err) {
    if (signal?.aborted) {
      throw new KeelError('CANCELLED', 'the check was cancelled', { cause: err });
    }
    throw discordError(err, api, timeoutMs);
  } finally {
    rest.clearHashSweeper();
    rest.clearHandlerSweeper();
  }
}

/**
 * The bot user the token belongs to, with one request (`GET /users/@me`) and no retries.
 *
 * @throws KeelError `DISCORD_AUTH` (Discord answers 401: the token is wrong or was reset),
 *   `DISCORD_UNAVAILABLE` (no connection, no answer within `timeoutMs`, an error answer),
 *   `CANCELLED`.
 */
export async function fetchBotUser(options: BotUserOptions): Promise<BotUser> {
  const me = (await restGet(options, (r) => r.user())) as {
    id: string;
    username: string;
    discriminator?: string;
  };
  return { id: me.id, username: me.username, tag: tagOf(me) };
}

/** Application flag: the Message Content intent is on (bots in 100 or more servers). */
const GATEWAY_MESSAGE_CONTENT = 1 << 18;
/** Application flag: the Message Content intent is on (bots in fewer than 100 servers). */
const GATEWAY_MESSAGE_CONTENT_LIMITED = 1 << 19;

/** The bot's application, as far as the owner's setup needs it. */
export interface BotApplication {
  /** The application id: the `client_id` of its install link. */
  id: string;
  /** The application's name. */
  name: string;
  /** The bot user. */
  bot: BotUser;
  /** "Public Bot": anyone with the link can add the bot to their servers. */
  botPublic: boolean;
  /** "Requires OAuth2 Code Grant": a plain install link cannot add the bot (it must be off). */
  requiresCodeGrant: boolean;
  /** "Message Content Intent" is on (without it Discord refuses keel's gateway connection). */
  messageContent: boolean;
  /** The installation contexts turned on in the portal (Installation → Installation Contexts). */
  guildInstall: boolean;
  userInstall: boolean;
}

/**
 * The application the bot token belongs to, with one request (`GET /applications/@me`) and no
 * retries: its id (for the install link), its bot user, and the settings that decide whether the
 * owner can add and reach the bot.
 *
 * @throws KeelError as {@link fetchBotUser}.
 */
export async function fetchBotApplication(options: BotUserOptions): Promise<BotApplication> {
  const app = (await restGet(options, (r) => r.currentApplication())) as {
    id: string;
    name: string;
    bot?: { id: string; username: string; discriminator?: string };
    bot_public?: boolean;
    bot_require_code_grant?: boolean;
    flags?: number;
    integration_types_config?: Record<string, unknown>;
  };
  const flags = app.flags ?? 0;
  const contexts = app.integration_types_config;
  const bot = app.bot ?? { id: app.id, username: app.name };
  return {
    id: app.id,
    name: app.name,
    bot: { id: bot.id, username: bot.username, tag: tagOf(bot) },
    botPublic: app.bot_public === true,
    requiresCodeGrant: app.bot_require_code_grant === true,
    messageContent: (flags & (GATEWAY_MESSAGE_CONTENT | GATEWAY_MESSAGE_CONTENT_LIMITED)) !== 0,
    // Without the field (older apps), Discord installs to servers only.
    guildInstall: contexts ? '0' in contexts : true,
    userInstall: contexts ? '1' in contexts : false,
  };
}

/** How to turn on the Message Content intent, which keel's gateway connection asks for. */
export const MESSAGE_CONTENT_FIX =
  'Turn on Message Content Intent: discord.com/developers/applications → your application → Bot → Privileged Gateway Intents, then Save Changes.';

/**
 * A discord.js error (REST or login) as keel's: 401 or an invalid token is `DISCORD_AUTH`, and so
 * is the gateway's refusal of the Message Content intent (close code 4014, with its own fix);
 * anything else `DISCORD_UNAVAILABLE`; a KeelError passes as it is.
 *
 * @param api - the REST base, for the message.
 * @param timeoutMs - the request timeout, for the message when it ran out.
 */
export function discordError(err: unknown, api: string, timeoutMs?: number): KeelError {
  if (KeelError.isInstance(err)) return err;
  const e = err as { status?: unknown; code?: unknown; name?: unknown; message?: unknown };
  if (e.status === 401 || e.code === 'TokenInvalid') {
    return new KeelError(
      'DISCORD_AUTH',
      `Discord rejected the bot token (DISCORD_TOKEN): ${String(e.message ?? err)}`,
      { cause: err },
    );
  }
  if (e.code === 'DisallowedIntents' || /disallowed intents/i.test(String(e.message ?? ''))) {
    return new KeelError(
      'DISCORD_AUTH',
      'Discord refused the Message Content intent: it is off for this bot, and keel cannot read the DMs it is sent without it',
      { cause: err, fix: MESSAGE_CONTENT_FIX },
    );
  }
  const what =
    e.name === 'AbortError' && timeoutMs !== undefined
      ? `no answer within ${timeoutMs} ms`
      : err instanceof Error && typeof e.status === 'number'
        ? `${e.status} ${err.message}`
        : err instanceof Error
          ? `${err.message}${typeof e.code === 'string' ? ` [${e.code}]` : ''}${err.cause instanceof Error ? ` (${err.cause.message})` : ''}`
          : String(err);
  return new KeelError('DISCORD_UNAVAILABLE', `Discord's API at ${api} cannot be used: ${what}`, {
    cause: err,
  });
}
