/**
 * `@keel/outbound`: how keel reaches its owner on Discord without a gateway connection.
 *
 * - {@link sendToOwner}: a DM to the configured owner over REST alone (the think service's
 *   reminders and interrupts).
 * - {@link splitMessage}: text cut to Discord's limit with code fences kept balanced.
 * - {@link discordText} / {@link discordMessages}: what keel posts, with control characters and
 *   bidi overrides shown visibly (the terminal's screen), then cut; every message goes through them.
 * - {@link validateOwnerId}: the configured owner id checked (fail closed).
 * - {@link fetchBotUser}: who the bot token belongs to (one REST call: does Discord take it?);
 *   {@link discordError} maps discord.js's errors to `DISCORD_AUTH` / `DISCORD_UNAVAILABLE`.
 *
 * @module
 */
export {
  type BotUser,
  type BotUserOptions,
  discordError,
  fetchBotUser,
  IDENTITY_TIMEOUT_MS,
} from './identity.js';
export { validateOwnerId } from './owner.js';
export { type OutboundOptions, sendToOwner } from './send.js';
export { DISCORD_MESSAGE_LIMIT, splitMessage } from './split.js';
export { discordMessages, discordText } from './text.js';
