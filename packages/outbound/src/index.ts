/**
 * `@keel/outbound`: how keel reaches its owner on Discord without a gateway connection.
 * {@link sendToOwner} DMs the configured owner over REST (the think service's interrupt);
 * {@link splitMessage} cuts text to Discord's limit with code fences balanced;
 * {@link validateOwnerId} checks the configured owner id (fail closed).
 *
 * @module
 */
export { validateOwnerId } from './owner.js';
export { type OutboundOptions, sendToOwner } from './send.js';
export { DISCORD_MESSAGE_LIMIT, splitMessage } from './split.js';
