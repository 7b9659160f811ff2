/**
 * `keel discord`: runs the Discord front door (its entry point found by `appMain`: `discord.mjs`
 * beside the bundled CLI, or `apps/discord/dist/main.js`) as a child process
 * (see `@keel/host`'s `runApp`) and returns its exit code. `keel discord pair` runs the same entry
 * point's pairing: it prints a one-time code, waits for the owner to DM it to the bot, and prints
 * the owner's id.
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

/**
 * Registers `keel discord` and `keel discord pair`. With `config`, the door run as a service keeps
 * its log rotated (`logs.max_mb`, `logs.keep`; see `keepServiceLogRotated`).
 */
export function registerDiscordCommand(program: Command, config?: Config): void {
  const discord = program
    .command('discord')
    .description(
      'run the Discord DM front door (discord.token and discord.owner_id: keel discord pair; see the README)',
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
}
