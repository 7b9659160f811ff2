/**
 * Outbound DMs without a gateway connection: what the think service uses to tell the owner
 * something (two REST calls: open the DM channel, post the message split to Discord's limit).
 * discord.js is imported on the first send, so a process that never messages the owner never loads
 * it.
 *
 * @module
 */
import { loadDiscord } from './load.js';
import { validateOwnerId } from './owner.js';
import { discordMessages } from './text.js';

/** Options for {@link sendToOwner}. */
export interface OutboundOptions {
  token: string;
  ownerId: string;
  /** The REST API base (e.g. `http://127.0.0.1:PORT/api`); default Discord's own. */
  apiUrl?: string;
}

/**
 * DMs `text` to the owner (and to nobody else: the recipient is always the configured owner),
 * screened and cut ({@link discordMessages}: controls and bidi overrides shown visibly).
 *
 * @returns the ids of the messages posted.
 * @throws KeelError `INVALID_INPUT` without a valid owner id; the REST error when Discord refuses.
 */
export async function sendToOwner(options: OutboundOptions, text: string): Promise<string[]> {
  const ownerId = validateOwnerId(options.ownerId);
  const { REST, Routes } = await loadDiscord();
  const rest = new REST({ version: '10', ...(options.apiUrl ? { api: options.apiUrl } : {}) });
  rest.setToken(options.token);
  const channel = (await rest.post(Routes.userChannels(), {
    body: { recipient_id: ownerId },
  })) as { id: string };
  const ids: string[] = [];
  for (const chunk of discordMessages(text)) {
    const m = (await rest.post(Routes.channelMessages(channel.id), {
      body: { content: chunk, allowed_mentions: { parse: [] } },
    })) as { id: string };
    ids.push(m.id);
  }
  return ids;
}
