/**
 * `keel discord`: runs the Discord front door (`apps/discord/dist/main.js`) as a child process
 * (see `@keel/host`'s `runApp`) and returns its exit code.
 *
 * @module
 */
import { fileURLToPath } from 'node:url';
import { runApp } from '@keel/host';
import type { Command } from 'commander';
import { wantsJson } from '../output.js';

/** The built Discord entry point, relative to this file in `apps/cli/dist/commands/`. */
export const DISCORD_MAIN = fileURLToPath(
  new URL('../../../discord/dist/main.js', import.meta.url),
);

/**
 * Starts the Discord front door and resolves to its exit code; with `json`, the door prints an
 * error as one JSON line too.
 */
export function runDiscord(main = DISCORD_MAIN, options: { json?: boolean } = {}): Promise<number> {
  const json = Boolean(options.json);
  return runApp(main, json ? ['--json'] : [], { json });
}

/** Registers `keel discord`. */
export function registerDiscordCommand(program: Command): void {
  program
    .command('discord')
    .description(
      'run the Discord DM front door (DISCORD_TOKEN, KEEL_DISCORD_OWNER_ID; see the README)',
    )
    .action(async (_opts: unknown, cmd: Command) => {
      process.exitCode = await runDiscord(DISCORD_MAIN, { json: wantsJson(cmd) });
    });
}
