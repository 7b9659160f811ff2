/**
 * The Discord app's verbs other than the door itself: `main.js pair` (`keel discord pair`: a
 * one-time code the owner DMs to the bot; its author becomes the owner) and `main.js invite`
 * (`keel discord invite`: the link that adds the bot to the owner's own server, so the owner can
 * open a DM with it, and what in the application's settings stands in the way). Both print text,
 * or with `--json` one JSON line per event (snake_case keys; an error as `{"error": …}`), and
 * resolve to the exit code.
 *
 * Why a server of the owner's and not an install to the owner's account:
 * docs/decisions/2026-12-07-discord-pairing-on-a-real-account.md.
 *
 * @module
 */
import { KeelError } from '@keel/errors';
import {
  acquireServiceLock,
  configPath,
  DISCORD_TOKEN_FIX,
  formatJson,
  type KeelConfig,
  readConfig,
  reportError,
  serviceLockPath,
  setConfigValues,
  stopWhenParentGone,
  terminalText,
} from '@keel/host';
import { count } from '@keel/language';
import {
  type BotApplication,
  discordInstallUrl,
  fetchBotApplication,
  type InstallProblem,
  installProblems,
} from '@keel/outbound';
import { pairDiscord } from './pair.js';

/** The verbs' log lines (stderr, timestamped). */
const log = (line: string) =>
  process.stderr.write(terminalText(`${new Date().toISOString()} ${line}\n`));
const out = (line: string) => process.stdout.write(terminalText(`${line}\n`));

/**
 * How the owner reaches the bot's DM, in plain words: add it to a server of their own with the
 * link, then open its DM from that server's member list.
 */
export function reachSteps(installUrl: string, botTag: string): string[] {
  return [
    `keel talks with you in a DM with ${botTag}. Discord lets you open that DM once you and the bot share a server, so add it to a server of your own:`,
    '  1. No server of your own yet? In Discord: the + at the bottom of the server list → Create My Own → For me and my friends.',
    `  2. Open this link, pick that server, and press Authorize (keel asks for no permission in it; it only talks in the DM):`,
    `     ${installUrl}`,
    `  3. In that server's member list, click ${botTag} → Message: that is keel's DM.`,
  ];
}

/** The configuration and its bot token; without a token, a `CONFIG_INVALID` saying so. */
function botConfig(what: string): { config: KeelConfig; token: string } {
  const config = readConfig(process.env);
  stopWhenParentGone(config.process.parentPid, { name: `discord ${what}`, log });
  const { token } = config.discord;
  if (!token) {
    throw new KeelError(
      'CONFIG_INVALID',
      `discord.token is not set: ${what} connects as the bot (the token from the Discord developer portal → your application → Bot)`,
      { fix: DISCORD_TOKEN_FIX },
    );
  }
  return { config, token };
}

/** One problem as the terminal shows it: what is wrong, then its fix. */
const problemLines = (p: InstallProblem) => [`Warning: ${p.message}.`, `  fix: ${p.fix}`];

/** `keel discord invite`: the install link, the steps around it, and the settings in the way. */
export async function inviteVerb(json: boolean): Promise<number> {
  try {
    const { config, token } = botConfig('invite');
    const { apiUrl } = config.discord;
    const app: BotApplication = await fetchBotApplication({ token, ...(apiUrl ? { apiUrl } : {}) });
    const installUrl = discordInstallUrl(app.id);
    const problems = installProblems(app);
    if (json) {
      out(
        formatJson({
          application_id: app.id,
          bot: { id: app.bot.id, tag: app.bot.tag },
          route: 'server',
          install_url: installUrl,
          problems: problems.map((p) => ({ kind: p.kind, message: p.message, fix: p.fix })),
        }),
      );
      return 0;
    }
    out(`Your bot: ${app.bot.tag} (application ${app.id}).`);
    for (const line of reachSteps(installUrl, app.bot.tag)) out(line);
    out('Then run `keel discord pair` and send the code it shows in that DM.');
    for (const p of problems) for (const line of problemLines(p)) out(line);
    return 0;
  } catch (err) {
    return reportError(err, json);
  }
}

/** `keel discord pair`: shows a one-time code and waits for the owner to DM it to the bot. */
export async function pairVerb(json: boolean): Promise<number> {
  const stop = new AbortController();
  for (const sig of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
    process.on(sig, () => stop.abort());
  }
  let release = () => {};
  try {
    const { config, token } = botConfig('pairing');
    const { apiUrl } = config.discord;
    const lock = acquireServiceLock(serviceLockPath(config.home, 'discord'), 'discord', { log });
    release = () => lock.release();
    const paired = await pairDiscord({
      token,
      ...(apiUrl ? { apiUrl } : {}),
      signal: stop.signal,
      log,
      onCode: ({ code, display, expiresAt, bot, applicationId }) => {
        const at = new Date(expiresAt);
        const installUrl = discordInstallUrl(applicationId);
        if (json) {
          out(
            formatJson({
              event: 'code',
              code,
              display,
              expires_at: at.toISOString(),
              bot: { id: bot.id, tag: bot.tag },
              application_id: applicationId,
              install_url: installUrl,
            }),
          );
          return;
        }
        const minutes = Math.max(1, Math.round((expiresAt - Date.now()) / 60_000));
        out(`Connected to Discord as ${bot.tag}.`);
        out('');
        for (const line of reachSteps(installUrl, bot.tag)) out(line);
        out('');
        out(
          `Then send this code in that DM, from your own Discord account, within ${minutes} minutes (until ${at.toLocaleTimeString()}):`,
        );
        out('');
        out(`    ${display}`);
        out('');
        out('Waiting for it… (three wrong codes stop the pairing; Ctrl-C stops it too)');
      },
      onWrongCode: ({ authorId, username, triesLeft }) => {
        if (json) {
          out(formatJson({ event: 'wrong_code', author_id: authorId, tries_left: triesLeft }));
        } else {
          out(
            `A wrong code from ${username} (${authorId}): ${triesLeft ? `${count(triesLeft, 'more try', 'more tries')} allowed` : 'pairing stops'}.`,
          );
        }
      },
    });
    // The owner id goes into config.toml, which every keel process reads; a value the environment
    // sets still wins, so say so rather than pretend the pairing took.
    setConfigValues(config.home, { 'discord.owner_id': paired.ownerId });
    const envOwner = process.env.KEEL_DISCORD_OWNER_ID;
    const shadowed = envOwner !== undefined && envOwner !== '' && envOwner !== paired.ownerId;
    if (json) {
      out(
        formatJson({
          event: 'paired',
          owner_id: paired.ownerId,
          username: paired.username,
          message_id: paired.messageId,
          config_path: configPath(config.home),
          shadowed_by_env: shadowed,
        }),
      );
    } else {
      out(`Paired: ${paired.username} (${paired.ownerId}) is keel's owner on Discord.`);
      out(`Saved as discord.owner_id in ${configPath(config.home)}.`);
      if (shadowed) {
        out(
          `KEEL_DISCORD_OWNER_ID=${envOwner} is set in the environment and wins over the file: unset it, or set it to ${paired.ownerId}.`,
        );
      }
      out('Start keel discord (or keel service install discord) to talk to keel from your DMs.');
    }
    return 0;
  } catch (err) {
    return reportError(err, json);
  } finally {
    release();
  }
}
