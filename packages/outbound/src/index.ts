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
 *   {@link fetchBotApplication}: the application behind it (its id and the portal settings that
 *   matter); {@link discordError} maps discord.js's errors to `DISCORD_AUTH` / `DISCORD_UNAVAILABLE`.
 * - {@link discordInstallUrl} / {@link installProblems}: the link that adds the bot to the owner's
 *   server, and what in the application's settings stands in the way.
 *
 * @module
 */
export {
  type BotApplication,
  type BotUser,
  type BotUserOptions,
  discordError,
  fetchBotApplication,
  fetchBotUser,
  IDENTITY_TIMEOUT_MS,
  MESSAGE_CONTENT_FIX,
} from './identity.js';
export {
  DISCORD_AUTHORIZE_URL,
  discordInstallUrl,
  type InstallProblem,
  installProblems,
} from './install.js';
export { validateOwnerId } from './owner.js';
export { type OutboundOptions, sendToOwner } from './send.js';
export { DISCORD_MESSAGE_LIMIT, splitMessage } from './split.js';
export { discordMessages, discordText } from './text.js';
