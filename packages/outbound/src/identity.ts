/**
 * Who the bot token belongs to: one REST call (`GET /users/@me`) through discord.js's REST client,
 * the cheapest proof that Discord takes the token (`keel doctor`, `keel discord pair`). discord.js
 * is imported when the request is made, so a process that never asks never loads it.
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

/**
 * The bot user the token belongs to, with one request and no retries.
 *
 * @throws KeelError `DISCORD_AUTH` (Discord answers 401: the token is wrong or was reset),
 *   `DISCORD_UNAVAILABLE` (no connection, no answer within `timeoutMs`, an error answer),
 *   `CANCELLED`.
 */
export async function fetchBotUser(options: BotUserOptions): Promise<BotUser> {
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
    const me = (await rest.get(Routes.user(), signal ? { signal } : {})) as {
      id: string;
      username: string;
      discriminator?: string;
    };
    const tag =
      me.discriminator && me.discriminator !== '0'
        ? `${me.username}#${me.discriminator}`
        : me.username;
    return { id: me.id, username: me.username, tag };
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
 * A discord.js error (REST or login) as keel's: 401 or an invalid token is `DISCORD_AUTH`, anything
 * else `DISCORD_UNAVAILABLE`; a KeelError passes as it is.
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
