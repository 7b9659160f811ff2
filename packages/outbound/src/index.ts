/**
 * `@keel/outbound`: how keel reaches its owner on Discord without a gateway connection.
 *
 * - {@link sendToOwner}: a DM to the configured owner over REST alone (the think service's
 *   reminders and interrupts).
 * - {@link splitMessage}: text cut to Discord's limit with code fences kept balanced.
 * - {@link validateOwnerId}: the configured owner id checked (fail closed).
 *
 * @module
 */
export { validateOwnerId } from './owner.js';
export { type OutboundOptions, sendToOwner } from './send.js';
export { DISCORD_MESSAGE_LIMIT, splitMessage } from './split.js';
