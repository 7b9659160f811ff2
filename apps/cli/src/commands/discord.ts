/**
 * `keel discord`: runs the Discord front door as a child process (`apps/discord/dist/main.js`;
 * nothing imports an app), with this process's environment plus `KEEL_PARENT_PID` (this process's
 * PID: the front door stops gracefully once this process is gone, even when it was killed with
 * SIGKILL), forwarding SIGTERM/SIGINT/SIGHUP and returning its exit code.
 *
 * @module
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';

/** The built Discord entry point, relative to this file in `apps/cli/dist/commands/`. */
export const DISCORD_MAIN = fileURLToPath(
  new URL('../../../discord/dist/main.js', import.meta.url),
);

/** Starts the Discord front door and resolves to its exit code. */
export function runDiscord(main = DISCORD_MAIN): Promise<number> {
  if (!existsSync(main)) {
    process.stderr.write(
      `error FILE_UNREADABLE: ${main} is missing; build first (pnpm exec turbo run build)\n`,
    );
    return Promise.resolve(2);
  }
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [main], {
      // KEEL_PARENT_PID: the front door stops itself when this process is gone (even after SIGKILL).
      env: { ...process.env, KEEL_PARENT_PID: String(process.pid) },
      stdio: 'inherit',
    });
    const signals = ['SIGTERM', 'SIGINT', 'SIGHUP'] as const;
    const forward = (sig: NodeJS.Signals) => () => child.kill(sig);
    const handlers = signals.map((s) => [s, forward(s)] as const);
    for (const [s, h] of handlers) process.on(s, h);
    child.on('exit', (code, signal) => {
      for (const [s, h] of handlers) process.off(s, h);
      resolve(code ?? (signal ? 1 : 0));
    });
    child.on('error', (err) => {
      process.stderr.write(`error: could not start ${main}: ${err.message}\n`);
      resolve(1);
    });
  });
}

/** Registers `keel discord`. */
export function registerDiscordCommand(program: Command): void {
  program
    .command('discord')
    .description(
      'run the Discord DM front door (DISCORD_TOKEN, KEEL_DISCORD_OWNER_ID; see the README)',
    )
    .action(async () => {
      process.exitCode = await runDiscord();
    });
}
