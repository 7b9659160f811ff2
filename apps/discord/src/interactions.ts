/**
 * The owner's interactions, after the owner lock has passed them: slash commands (`/review`,
 * `/recall`, `/beliefs`, `/forget`, `/status`) and the review buttons (confirm or reject one fact; forget or
 * keep one the model asked to forget). Each goes through the same slash commands the terminal uses
 * (`runSlashCommand` of `@keel/tools`). A command that erases (`/forget --purge --yes`, `/purge
 * --yes`) also rewrites keel's backups before it answers, which may take longer than Discord waits
 * for a reply: its reply is deferred first ({@link erases}), then given once the receipt is ready.
 *
 * @module
 */

import type { MemoryStore } from '@keel/memory';
import { discordMessages, discordText } from '@keel/outbound';
import { runSlashCommand } from '@keel/tools';
import type { ButtonInteraction, ChatInputCommandInteraction, Interaction } from 'discord.js';
import type { DiscordApprovals } from './approvals.js';
import { DISCORD_CHANNEL, errorText } from './dm.js';
import { buttonCommand, parseReviewButton, renderReview } from './review.js';

/** What an interaction reaches. */
export interface InteractionContext {
  store: MemoryStore;
  /** The tool approvals waiting for the owner's press; absent: no approval buttons here. */
  approvals?: DiscordApprovals;
  /** The `/status` line. */
  status: () => string;
  /** The owner's IANA zone (`KEEL_TZ`) for `/recall`'s dates; default UTC. */
  tz?: string;
}

/**
 * Runs one slash command line (e.g. `/forget f42 --purge`) on the Discord channel.
 *
 * @returns the reply text; an error becomes its text (`error CODE: message`, then `fix: …`),
 *   never a throw.
 */
export async function slashReply(ctx: InteractionContext, line: string): Promise<string> {
  try {
    return (
      await runSlashCommand(ctx.store, line, {
        channel: DISCORD_CHANNEL,
        status: ctx.status,
        ...(ctx.tz ? { tz: ctx.tz } : {}),
      })
    ).text;
  } catch (err) {
    return errorText(err);
  }
}

/**
 * Whether a slash command line erases: `/purge … --yes` or `/forget … --purge --yes`. Its receipt
 * waits for keel's backups to be rewritten.
 */
export function erases(line: string): boolean {
  const [name = '', ...rest] = line.trim().slice(1).split(/\s+/);
  const verb = name.toLowerCase();
  return (
    rest.includes('--yes') && (verb === 'purge' || (verb === 'forget' && rest.includes('--purge')))
  );
}

/** Handles an owner's slash command or review button click; anything else is ignored. */
export async function onOwnerInteraction(i: Interaction, ctx: InteractionContext): Promise<void> {
  if (i.isChatInputCommand()) return onCommand(i, ctx);
  if (i.isButton()) {
    if (await ctx.approvals?.press(i)) return;
    return onButton(i, ctx);
  }
}

async function onCommand(i: ChatInputCommandInteraction, ctx: InteractionContext): Promise<void> {
  if (i.commandName === 'review') {
    const [first, ...rest] = renderReview(ctx.store.review());
    await i.reply(first!);
    for (const page of rest) await i.followUp(page);
    return;
  }
  let line: string;
  switch (i.commandName) {
    case 'recall':
      line = `/recall ${i.options.getString('query', true)}`;
      break;
    case 'forget':
      line = `/forget ${i.options.getString('id', true)}${i.options.getBoolean('purge') ? ' --purge' : ''}${i.options.getBoolean('yes') ? ' --yes' : ''}`;
      break;
    case 'purge':
      line = `/purge ${i.options.getString('text', true)}${i.options.getBoolean('yes') ? ' --yes' : ''}`;
      break;
    case 'beliefs':
      line = `/beliefs ${i.options.getString('kind') ?? ''} ${i.options.getString('source') ?? ''}`;
      break;
    case 'status':
      line = '/status';
      break;
    default:
      line = '/help';
  }
  // Discord waits 3 s for a reply: a purge says it is working first, and answers when done.
  const deferred = erases(line);
  if (deferred) await i.deferReply();
  const [first = '(nothing)', ...rest] = discordMessages(await slashReply(ctx, line));
  if (deferred) await i.editReply({ content: first });
  else await i.reply({ content: first });
  for (const chunk of rest) await i.followUp({ content: chunk });
}

/**
 * A review button: runs /confirm, /reject, /forget, /keep or /answer, notes the result and removes
 * that item's buttons.
 */
async function onButton(i: ButtonInteraction, ctx: InteractionContext): Promise<void> {
  const action = parseReviewButton(i.customId);
  if (!action) return;
  const { command, suffix } = buttonCommand(action);
  const result = await slashReply(ctx, command);
  const components = i.message.components
    .map((c) => c.toJSON())
    .filter(
      (row) =>
        !('components' in row) ||
        !row.components.some((b) => 'custom_id' in b && b.custom_id.endsWith(suffix)),
    );
  // The result may quote a belief: screened as every message keel sends (the page was already).
  const content = discordText(`${i.message.content}\n→ ${result.split('\n')[0]}`);
  await i.update({
    content: content.length <= 2000 ? content : `${content.slice(0, 1999)}…`,
    components: components as never,
  });
}
