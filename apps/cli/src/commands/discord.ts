/**
 * `keel discord`: runs the Discord front door (its entry point found by `appMain`: `discord.mjs`
 * beside the bundled CLI, or `apps/discord/dist/main.js`) as a child process
 * (see `@keel/host`'s `runApp`) and returns its exit code. `keel discord pair` runs the same entry
 * point's pairing: it prints a one-time code, waits for the owner to DM it to the bot, and prints
 * the owner's id. `keel discord invite` prints the link that adds the bot to the owner's own server
 * (so the owner can open a DM with it) and what in the application's settings stands in the way.
 *
 * @module
 */
import { keepServiceLogRotated, LAUNCHD_FLAG, runApp } from '@keel/host';
import { type Command, Option } from 'commander';
import type { Config } from '../config.js';
import { wantsJson } from '../output.js';
import { appMain } from '../paths.js';

/**
 * Starts the Discord front door and resolves to its exit code; with `json`, the door prints an
 * error as one JSON line too.
 */
export function runDiscord(
  main = appMain('discord'),
  options: { json?: boolean } = {},
): Promise<number> {
  const json = Boolean(options.json);
  return runApp(main, json ? ['--json'] : [], { json });
}

/** Runs the Discord pairing and resolves to its exit code (0: paired). */
export function runDiscordPair(json: boolean, main = appMain('discord')): Promise<number> {
  return runApp(main, ['pair', ...(json ? ['--json'] : [])], { json });
}

/** Prints the bot's install link and resolves to the exit code. */
export function runDiscordInvite(json: boolean, main = appMain('discord')): Promise<number> {
  return runApp(main, ['invite', ...(json ? ['--json'] : [])], { json });
}

/**
 * Registers `keel discord`, `keel discord pair` and `keel discord invite`. With `config`, the door
 * run as a service keeps its log rotated (`logs.max_mb`, `logs.keep`; see `keepServiceLogRotated`).
 */
export function registerDiscordCommand(program: Command, config?: Config): void {
  const discord = program
    .command('discord')
    .description(
      'run the Discord DM front door (discord.token, then keel discord invite and keel discord pair; see the README)',
    )
    .addOption(
      new Option(LAUNCHD_FLAG, 'run by launchd: end an error with a code with 0').hideHelp(),
    )
    .action(async (_opts: unknown, cmd: Command) => {
      const stopRotating = config ? keepServiceLogRotated(config, 'discord') : () => {};
      try {
        process.exitCode = await runDiscord(appMain('discord'), { json: wantsJson(cmd) });
      } finally {
        stopRotating();
      }
    });
  discord
    .command('pair')
    .description(
      "make your Discord account keel's owner: prints a one-time code to DM to the bot (needs discord.token), then saves your user id",
    )
    .action(async (_opts: unknown, cmd: Command) => {
      process.exitCode = await runDiscordPair(wantsJson(cmd));
    });
  discord
    .command('invite')
    .description(
      'print the link that adds your bot to a server of your own, so you can open a DM with it (needs discord.token)',
    )
    .action(async (_opts: unknown, cmd: Command) => {
      process.exitCode = await runDiscordInvite(wantsJson(cmd));
    });
}
