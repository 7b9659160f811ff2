/**
 * `keel discord`: runs the Discord front door (`apps/discord/dist/main.js`) as a child process
 * (see `@keel/host`'s `runApp`) and returns its exit code.
 *
 * @module
 */
import { fileURLToPath } from 'node:url';
import { LAUNCHD_FLAG, runApp } from '@keel/host';
import { type Command, Option } from 'commander';

/** The built Discord entry point, relative to this file in `apps/cli/dist/commands/`. */
export const DISCORD_MAIN = fileURLToPath(
  new URL('../../../discord/dist/main.js', import.meta.url),
);

/** Starts the Discord front door and resolves to its exit code. */
export function runDiscord(main = DISCORD_MAIN): Promise<number> {
  return runApp(main);
}

/** Registers `keel discord`. */
export function registerDiscordCommand(program: Command): void {
  program
    .command('discord')
    .description(
      'run the Discord DM front door (DISCORD_TOKEN, KEEL_DISCORD_OWNER_ID; see the README)',
    )
    .addOption(
      new Option(LAUNCHD_FLAG, 'run by launchd: end an error with a code with 0').hideHelp(),
    )
    .action(async () => {
      process.exitCode = await runDiscord();
    });
}
