/**
 * Pairing on Discord: keel connects with the bot token, makes a one-time code (`@keel/host`'s
 * {@link Pairing}: no ambiguous characters, 10 minutes, three tries) and hands it to the caller to
 * show; the owner DMs the code to the bot; the author of the DM that carries the right code is the
 * owner, returned to the caller (who writes it into the configuration: `KEEL_DISCORD_OWNER_ID`).
 *
 * Nothing here holds a database: before pairing nothing anyone sends is stored, and nothing is
 * answered (a wrong code, a stranger's chat, a bot, a server message: a log line each, no reply).
 * Only the new owner gets one DM, saying the pairing worked. A wrong code changes nothing but the
 * count; the third stops the pairing (`PAIRING_FAILED`), as does the expiry.
 *
 * @module
 */
import { KeelError } from '@keel/errors';
import { formatPairingCode, Pairing, pairingError } from '@keel/host';
import { discordError } from '@keel/outbound';
import { Client, Events, GatewayIntentBits, type Message, Partials } from 'discord.js';
import { errorText } from './dm.js';

/** The code to show the owner, once keel is connected. */
export interface PairingCode {
  /** The code, bare (`ABCDEF`). */
  code: string;
  /** The code as shown (`ABC-DEF`). */
  display: string;
  /** When it stops working, ms since the epoch. */
  expiresAt: number;
  /** The bot the owner DMs. */
  bot: { id: string; tag: string };
  /** The bot's application id: the `client_id` of the link that adds it to the owner's server. */
  applicationId: string;
}

/** A wrong code seen (the terminal says so; Discord is told nothing). */
export interface WrongCode {
  /** The Discord user who sent it. */
  authorId: string;
  username: string;
  /** Wrong codes still allowed; 0: the pairing stops. */
  triesLeft: number;
}

/** Options for {@link pairDiscord}. */
export interface PairDiscordOptions {
  /** The bot token. */
  token: string;
  /** The REST API base (e.g. `http://127.0.0.1:PORT/api`); default Discord's own. */
  apiUrl?: string;
  /** Stops the pairing (`CANCELLED`). */
  signal?: AbortSignal;
  /** Called once, when keel is connected, with the code to show the owner. */
  onCode: (code: PairingCode) => void;
  /** Called for each wrong code. */
  onWrongCode?: (wrong: WrongCode) => void;
  /** How long the code lasts, ms. Default 10 minutes (`PAIRING_TTL_MS`). */
  ttlMs?: number;
  /** Wrong codes that stop the pairing. Default 3 (`PAIRING_MAX_TRIES`). */
  maxTries?: number;
  /** The clock, ms since the epoch. Default `Date.now`. */
  now?: () => number;
  /** The code to use (tests). Default a fresh random one. */
  code?: string;
  /** Where log lines go (one line per call). Default stderr. */
  log?: (line: string) => void;
  /** DM the new owner that the pairing worked. Default true. */
  confirm?: boolean;
}

/** Who paired. */
export interface DiscordPairing {
  /** The owner's Discord user id: the value of `KEEL_DISCORD_OWNER_ID`. */
  ownerId: string;
  /** The owner's Discord username. */
  username: string;
  /** The id of the DM that carried the code. */
  messageId: string;
  /** The bot that was paired. */
  bot: { id: string; tag: string };
}

/** The DM the new owner gets. */
export const PAIRED_TEXT =
  "Paired: you are keel's owner. keel answers only you here (once `keel discord` runs with your id).";

/**
 * Pairs the owner on Discord: connects, calls `onCode` with a fresh code, and resolves with the
 * author of the first DM that carries it. The connection is closed before it settles.
 *
 * @throws KeelError `PAIRING_FAILED` (the code expired: `details.reason` `expired`; or three wrong
 *   codes: `too_many_tries`), `DISCORD_AUTH` (Discord rejected the token), `DISCORD_UNAVAILABLE`
 *   (no connection), `CANCELLED` (the signal), `INVALID_INPUT` (no token).
 */
export function pairDiscord(options: PairDiscordOptions): Promise<DiscordPairing> {
  const { signal } = options;
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const now = options.now ?? Date.now;
  const api = options.apiUrl ?? 'https://discord.com/api';
  if (!options.token?.trim()) {
    return Promise.reject(new KeelError('INVALID_INPUT', 'no bot token (token / DISCORD_TOKEN)'));
  }
  if (signal?.aborted) {
    return Promise.reject(new KeelError('CANCELLED', 'pairing was cancelled; nobody was paired'));
  }
  const client = new Client({
    intents: [GatewayIntentBits.DirectMessages, GatewayIntentBits.MessageContent],
    partials: [Partials.Channel],
    ...(options.apiUrl ? { rest: { api: options.apiUrl, version: '10' } } : {}),
  });
  return new Promise<DiscordPairing>((resolve, reject) => {
    let pairing: Pairing | null = null;
    let settled = false;
    let timer: NodeJS.Timeout | undefined;
    const finish = (err: unknown, paired?: DiscordPairing) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      client.removeAllListeners(Events.MessageCreate);
      void client
        .destroy()
        .catch(() => {})
        .then(() => (err ? reject(err) : resolve(paired as DiscordPairing)));
    };
    const onAbort = () =>
      finish(new KeelError('CANCELLED', 'pairing was cancelled; nobody was paired'));
    signal?.addEventListener('abort', onAbort, { once: true });
    const bot = () => ({ id: client.user?.id ?? '', tag: client.user?.tag ?? '?' });

    const onMessage = async (m: Message) => {
      if (settled) return;
      const who = `user ${m.author.id}`;
      if (m.author.id === client.user?.id) return; // keel's own DM (the confirmation)
      if (m.author.bot || m.webhookId)
        return log(`discord pair: ignored a message from a bot (${who})`);
      if (m.guildId !== null) return log(`discord pair: ignored a server message (${who})`);
      if (!pairing) return log(`discord pair: ignored a DM from ${who}: no code yet`);
      const verdict = pairing.offer(m.content);
      switch (verdict.kind) {
        case 'paired': {
          const paired: DiscordPairing = {
            ownerId: m.author.id,
            username: m.author.username,
            messageId: m.id,
            bot: bot(),
          };
          log(`discord pair: the right code from ${who} (${m.author.username}): paired`);
          if (options.confirm !== false) {
            try {
              if (m.channel.isSendable()) await m.channel.send(PAIRED_TEXT);
            } catch (err) {
              log(`discord pair: could not confirm to the owner: ${errorText(err)}`);
            }
          }
          return finish(null, paired);
        }
        case 'wrong':
        case 'stopped': {
          const triesLeft = verdict.kind === 'wrong' ? verdict.triesLeft : 0;
          log(
            `discord pair: a wrong code from ${who} (${m.author.username}): ${triesLeft ? `${triesLeft} more allowed` : 'pairing stops'}; no reply sent`,
          );
          options.onWrongCode?.({ authorId: m.author.id, username: m.author.username, triesLeft });
          if (verdict.kind === 'stopped')
            finish(pairingError('too_many_tries', pairing.ttlMs, pairing.maxTries));
          return;
        }
        case 'expired':
          return finish(pairingError('expired', pairing.ttlMs, pairing.maxTries));
        case 'ignored':
          return log(
            `discord pair: ignored a DM from ${who}: not a code (nothing stored, no reply)`,
          );
        case 'closed':
          return;
      }
    };
    client.on(Events.MessageCreate, (m: Message) => {
      onMessage(m).catch((err) => log(`discord pair: ${errorText(err)}`));
    });
    client.on(Events.Error, (err) => log(`discord pair: client error: ${err.message}`));
    client.once(Events.ClientReady, () => {
      if (settled) return;
      try {
        pairing = new Pairing({
          now,
          ...(options.ttlMs === undefined ? {} : { ttlMs: options.ttlMs }),
          ...(options.maxTries === undefined ? {} : { maxTries: options.maxTries }),
          ...(options.code === undefined ? {} : { code: options.code }),
        });
      } catch (err) {
        return finish(KeelError.isInstance(err) ? err : discordError(err, api));
      }
      const p = pairing;
      timer = setTimeout(
        () => finish(p.failure() ?? pairingError('expired', p.ttlMs, p.maxTries)),
        Math.max(0, p.expiresAt - now()),
      );
      try {
        options.onCode({
          code: p.code,
          display: formatPairingCode(p.code),
          expiresAt: p.expiresAt,
          bot: bot(),
          applicationId: client.application?.id ?? '',
        });
      } catch (err) {
        finish(err); // the code cannot be shown: nobody could pair
      }
    });
    client.login(options.token).catch((err: unknown) => finish(discordError(err, api)));
  });
}
