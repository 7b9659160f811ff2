/**
 * The `keel` command: with no verb the terminal client, else one verb. Each verb group lives in
 * its own module under `commands/` (a thin adapter over `@keel/memory`, `@keel/agent` or
 * `@keel/host`); this module only assembles them and runs the program. Every verb takes `--json`.
 *
 * @module
 */
import { KeelError } from '@keel/errors';
import { Command, CommanderError } from 'commander';
import { registerAskCommand } from './commands/ask.js';
import { registerBackupCommands } from './commands/backup.js';
import { registerConfigCommand } from './commands/config.js';
import { registerDiscordCommand } from './commands/discord.js';
import { registerDoctorCommand } from './commands/doctor.js';
import { registerImportCommand } from './commands/import.js';
import {
  registerRecallCommands,
  registerRememberCommand,
  registerReviewCommands,
} from './commands/memory.js';
import { registerModelCommands } from './commands/models.js';
import { launchdExitCode, registerServiceCommands } from './commands/service.js';
import { registerSetupCommand } from './commands/setup.js';
import { registerThinkCommand } from './commands/think.js';
import { registerVerifyCommand } from './commands/verify.js';
import { type Config, loadConfig } from './config.js';
import { action, EXIT, reportError, wantsJson } from './output.js';
import { runTerminal } from './terminal.js';

/**
 * Builds the `keel` program. Actions set `process.exitCode`; nothing calls `process.exit` so
 * output is always flushed. With `config` null only the verbs that need no loaded configuration
 * are there (`keel config`, which mends a bad one).
 *
 * @throws KeelError `CONFIG_INVALID` when `config` is not given and the environment or the config
 *   file is bad.
 */
export function buildProgram(config: Config | null = loadConfig()): Command {
  const program = new Command('keel')
    .description(
      'keel: a personal agent that remembers honestly. With no verb, opens the terminal.',
    )
    .option('--json', 'print JSON')
    .showHelpAfterError('(keel --help lists every verb)')
    .configureOutput({ writeErr: (s) => process.stderr.write(s.startsWith('error:') ? '' : s) })
    .helpCommand('help [verb]', 'show help for a verb')
    .exitOverride();

  if (config) {
    program.action(
      action((_opts: unknown, cmd: Command) => runTerminal(config, { json: wantsJson(cmd) })),
    );

    // The verbs, in the order `keel --help` lists them.
    registerRememberCommand(program, config); // remember
    registerAskCommand(program, config); // ask
    registerRecallCommands(program, config); // recall, history
    registerReviewCommands(program, config); // forget, keep, review, confirm, reject
    registerImportCommand(program, config); // import
    registerVerifyCommand(program, config); // verify
    registerDoctorCommand(program, config); // doctor
    registerBackupCommands(program, config); // backup, restore, recover
    registerModelCommands(program, config); // models pull|list, reindex
    registerDiscordCommand(program); // discord
    registerThinkCommand(program); // think
    registerServiceCommands(program, config); // service install|uninstall|status
    registerSetupCommand(program, config); // setup
  }
  registerConfigCommand(program); // config list|get|set|unset
  return program;
}

/**
 * Runs the program on `argv` and resolves to the exit code (under launchd, see
 * `launchdExitCode`).
 */
export async function main(argv: string[] = process.argv): Promise<number> {
  return launchdExitCode(argv, await run(argv));
}

async function run(argv: string[]): Promise<number> {
  const wantsJson = argv.includes('--json');
  const verb = argv.slice(2).find((a) => !a.startsWith('-'));
  let program: Command;
  try {
    // `keel config` reads the settings itself, so that it can show and mend a bad one.
    program = verb === 'config' ? buildProgram(null) : buildProgram();
  } catch (err) {
    return reportError(err, wantsJson); // a bad setting (CONFIG_INVALID)
  }
  if (
    verb !== undefined &&
    verb !== 'help' &&
    !program.commands.some((c) => c.name() === verb || c.aliases().includes(verb))
  ) {
    return reportError(
      new KeelError('INVALID_INPUT', `unknown verb "${verb}"; \`keel --help\` lists every verb`),
      wantsJson,
    );
  }
  try {
    await program.parseAsync(argv);
  } catch (err) {
    if (err instanceof CommanderError) {
      if (
        err.code === 'commander.helpDisplayed' ||
        err.code === 'commander.version' ||
        err.exitCode === 0
      ) {
        return EXIT.ok;
      }
      // A verb with sub-verbs given none (e.g. `keel models`): its help was shown.
      if (err.code === 'commander.help') return EXIT.failed;
      return reportError(
        new KeelError('INVALID_INPUT', err.message.replace(/^error:\s*/, '')),
        wantsJson,
      );
    }
    return reportError(err, wantsJson);
  }
  return typeof process.exitCode === 'number' ? process.exitCode : EXIT.ok;
}
