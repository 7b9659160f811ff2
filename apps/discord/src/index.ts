/**
 * `@keel/discord`: the owner-locked Discord DM front door. {@link KeelDiscord} connects with
 * discord.js and hands each owner DM to the shared owner session (`turns.ts`), slash commands and
 * review buttons (confirm, reject, forget, keep) to `interactions.ts`, and DMs sent while keel was
 * away to catch-up (`catch-up.ts`, which stores them through the session); {@link OwnerGate} is the
 * lock every handler runs first; {@link renderReview} and {@link renderForgetRequests} put the
 * owner's decisions on buttons; {@link splitMessage} cuts replies to Discord's limit with code
 * fences balanced; {@link sendToOwner} DMs the owner over REST alone (for the think service).
 * {@link pairDiscord} pairs the owner: a one-time code shown on the terminal, DMed to the bot by
 * the owner; its author becomes the owner id (nothing is stored or answered before).
 * A database that takes no writes stops the door writing: damaged (checked before each DM and
 * every {@link INTEGRITY_CHECK_MS}) or its journal broken (met by a write); the owner is told which,
 * with the error's code and fix, and the owner's DMs then go to the recovery file.
 * `main.ts` is the process entry point and the only module that reads the environment.
 *
 * @module
 */

export {
  DISCORD_MESSAGE_LIMIT,
  type OutboundOptions,
  sendToOwner,
  splitMessage,
  validateOwnerId,
} from '@keel/outbound';
export {
  ATTACHMENT_LIMIT_BYTES,
  type AttachmentInfo,
  type FetchLike,
  isTextAttachment,
  withAttachments,
} from './attachments.js';
export {
  type DiscordStats,
  INTEGRITY_CHECK_MS,
  KeelDiscord,
  type KeelDiscordOptions,
} from './bot.js';
export { LAST_SEEN_KEY } from './catch-up.js';
export { SLASH_COMMANDS } from './commands.js';
export { DISCORD_CHANNEL } from './dm.js';
export {
  type DropReason,
  type GateInput,
  type GateVerdict,
  OwnerGate,
  sameId,
} from './gate.js';
export {
  type DiscordPairing,
  PAIRED_TEXT,
  type PairDiscordOptions,
  type PairingCode,
  pairDiscord,
  type WrongCode,
} from './pair.js';
export {
  buttonCommand,
  type ForgetRequestItem,
  parseReviewButton,
  questionButtonId,
  REVIEW_PAGE_ITEMS,
  type ReviewAction,
  type ReviewPage,
  renderForgetRequests,
  renderReview,
  reviewButtonId,
} from './review.js';
