/**
 * How the owner reaches their bot: the install link that adds it to a server of the owner's (so
 * the two share a server, and the owner can open a DM with it), and what in the application's
 * settings stands in the way. Why a server and not an install to the owner's account: see
 * docs/decisions/2026-12-07-discord-pairing-on-a-real-account.md.
 *
 * @module
 */
import type { BotApplication } from './identity.js';
import { MESSAGE_CONTENT_FIX } from './identity.js';

/** Where Discord's authorization page lives. */
export const DISCORD_AUTHORIZE_URL = 'https://discord.com/oauth2/authorize';

/**
 * The link that adds the bot to a server the owner picks: the `bot` and `applications.commands`
 * scopes (the bot user joins; keel's slash commands come with it), installed to the server
 * (`integration_type=0`), asking for no permission in it (`permissions=0`: keel only talks in the
 * DM, which needs none).
 */
export function discordInstallUrl(applicationId: string): string {
  const query = new URLSearchParams({
    client_id: applicationId,
    scope: 'bot applications.commands',
    permissions: '0',
    integration_type: '0',
  });
  return `${DISCORD_AUTHORIZE_URL}?${query.toString()}`;
}

/** A setting of the application that stops the owner from adding or reaching the bot. */
export interface InstallProblem {
  /** Stable name: `message_content_off`, `code_grant_required`, `guild_install_off`. */
  kind: 'message_content_off' | 'code_grant_required' | 'guild_install_off';
  /** What is wrong, in plain words. */
  message: string;
  /** The one-line fix. */
  fix: string;
}

/**
 * What in the application's settings stands between the owner and a working DM: the Message
 * Content intent off (Discord refuses keel's connection), "Requires OAuth2 Code Grant" on (the
 * install link cannot add the bot), or Guild Install off (the link has nowhere to add it).
 */
export function installProblems(app: BotApplication): InstallProblem[] {
  const problems: InstallProblem[] = [];
  if (!app.messageContent) {
    problems.push({
      kind: 'message_content_off',
      message: 'the Message Content intent is off: Discord refuses keel the DMs it is sent',
      fix: MESSAGE_CONTENT_FIX,
    });
  }
  if (app.requiresCodeGrant) {
    problems.push({
      kind: 'code_grant_required',
      message: '"Requires OAuth2 Code Grant" is on: the install link cannot add the bot',
      fix: 'Turn off Requires OAuth2 Code Grant: discord.com/developers/applications → your application → Bot, then Save Changes.',
    });
  }
  if (!app.guildInstall) {
    problems.push({
      kind: 'guild_install_off',
      message: 'Guild Install is off: the install link cannot add the bot to a server',
      fix: 'Turn on Guild Install: discord.com/developers/applications → your application → Installation → Installation Contexts, then Save Changes.',
    });
  }
  return problems;
}
