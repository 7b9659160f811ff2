/**
 * How keel reads and writes the owner's DM: the channel name its turns and episodes carry, a
 * message's text with its text attachments inlined, an error as the owner reads it, and text sent
 * screened (no control character or bidi override reaches the owner raw) in pieces that fit
 * Discord's limit.
 *
 * @module
 */
import { KeelError } from '@keel/errors';
import { discordMessages } from '@keel/outbound';
import type { Message } from 'discord.js';
import { type FetchLike, withAttachments } from './attachments.js';

/** The channel name turns and episodes from Discord carry. */
export const DISCORD_CHANNEL = 'discord';

/** How attachments are read (see {@link withAttachments}). */
export interface AttachmentOptions {
  fetch?: FetchLike;
  /** The cap on one text attachment, bytes. */
  limitBytes?: number;
}

/**
 * An error as the owner or the log reads it, as every door prints one: `error CODE: message` and,
 * for a KeelError, its one-line fix on the next line (`fix: …`); any other error as
 * `error: message`.
 */
export function errorText(err: unknown): string {
  return KeelError.isInstance(err)
    ? `error ${err.code}: ${err.message}\nfix: ${err.fix}`
    : `error: ${(err as Error)?.message ?? String(err)}`;
}

/** A message's text with its text attachments inlined (others named, never read). */
export function messageText(m: Message, options: AttachmentOptions): Promise<string> {
  return withAttachments(
    m.content,
    [...m.attachments.values()].map((a) => ({
      name: a.name,
      url: a.url,
      size: a.size,
      contentType: a.contentType,
    })),
    options,
  );
}

/**
 * Sends `text` to a channel: screened (control characters and bidi overrides shown visibly,
 * `discordMessages` of `@keel/outbound`), then split into messages of at most 2000 characters.
 */
export async function sendSplit(
  channel: { send(message: { content: string }): Promise<unknown> },
  text: string,
): Promise<void> {
  for (const chunk of discordMessages(text)) await channel.send({ content: chunk });
}
