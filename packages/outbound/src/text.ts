/**
 * What keel sends to Discord, screened: replies that echo recalled memory or the owner's stored
 * words, review lists, receipts and notices may hold control characters or the bidi embeddings,
 * overrides and isolates (U+202E …), which a Discord client honours: the owner would read the text
 * around one reordered. Every message keel posts passes through {@link discordText} (one content)
 * or {@link discordMessages} (text cut into messages), which show each as a visible character with
 * `showControls` of `@keel/language`, the screen the terminal uses too. Letters of every script,
 * right-to-left ones included, pass unchanged.
 *
 * @module
 */
import { showControls } from '@keel/language';
import { DISCORD_MESSAGE_LIMIT, splitMessage } from './split.js';

/**
 * `text` as one Discord message's content: every control but line feed and tab, and every bidi
 * embedding, override and isolate, shown visibly (U+202E as "<U+202E>", ESC as "␛"). Applied
 * twice, it changes nothing more (an edit may re-send content keel sent before).
 */
export function discordText(text: string): string {
  return showControls(text);
}

/**
 * `text` as the messages keel posts: screened ({@link discordText}), then cut to Discord's limit
 * ({@link splitMessage}; screening first, so a shown control counts at its shown length).
 *
 * @param limit - the largest message, default {@link DISCORD_MESSAGE_LIMIT}.
 */
export function discordMessages(text: string, limit = DISCORD_MESSAGE_LIMIT): string[] {
  return splitMessage(discordText(text), limit);
}
