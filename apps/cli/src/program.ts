/**
 * The `keel` command: with no verb the terminal client, else one verb. Each verb group lives in
 * its own module under `commands/` (a thin adapter over `@keel/memory`, `@keel/agent` or
 * `@keel/host`), listed in `verbs.ts`; this module assembles the program and runs it. Every verb
 * takes `--json`.
 *
 * Only what a run needs is loaded (see {@link main}): `keel --help` lists the verbs from
 * `verbs.ts` with the argument parser alone; `keel <verb>` reads the configuration and imports
 * that verb's module only; `keel` alone imports the terminal.
 *
 * @module
 */
import { KeelError } from '@keel/errors';
import { Command, CommanderError, Help } from 'commander';
import { closest, distance } from 'fastest-levenshtein';
import type { Config } from './config.js';
import { asTyped } from './invocation.js';
import { findVerb, VERBS, type Verb } from './verbs.js';
import { keelVersion } from './version.js';

/** The exit code this module returns itself for success (`@keel/host`'s `EXIT.ok`). */
const OK = 0;

/** The flag a service run by launchd carries (`@keel/host`'s `LAUNCHD_FLAG`). */
const LAUNCHD_FLAG = '--launchd';

/** Prints an error with its code and fix (as JSON with `--json`); resolves to the exit code. */
async function report(err: unknown, json: boolean): Promise<number> {
  // A missing better-sqlite3 fails the import of @keel/host itself: reported without it.
  const { nativeModuleError, reportNativeError } = await import('./native.js');
  const native = nativeModuleError(err);
  if (native) return reportNativeError(native, json);
  const { reportError } = await import('./output.js');
  return reportError(err, json);
}

/** Reads the configuration (this imports `@keel/host`). */
async function readConfig(): Promise<Config> {
  return (await import('./config.js')).loadConfig();
}

/**
 * The program without its verbs: the root options, `--version`, help, and the terminal as the
 * action when no verb is given, with `config` (read when the terminal starts when not given).
 */
function rootProgram(config?: Config, json = false): Command {
  const program = new Command('keel')
    .description(
      'keel: a personal agent that remembers honestly. With no verb, opens the terminal.',
    )
    .option('--json', 'print JSON')
    .version(keelVersion(), '-V, --version', "print keel's version")
    // Commander's own error lines are not printed: keel reports each as `error CODE` + `fix:`.
    .configureOutput({
      // Help and usage name keel's commands as the owner types them (`invocation.ts`).
      writeOut: (s) => process.stdout.write(asTyped(s)),
      writeErr: (s) => process.stderr.write(s.startsWith('error:') || json ? '' : asTyped(s)),
    })
    .helpCommand('help [verb]', 'show help for a verb')
    .exitOverride();
  program.action(async (_opts: unknown, cmd: Command) => {
    const { action, wantsJson } = await import('./output.js');
    await action(async (c: Command) => {
      const { runTerminal } = await import('./terminal.js');
      return runTerminal(config ?? (await readConfig()), { json: wantsJson(c) });
    })(cmd);
  });
  return program;
}

/**
 * Adds every verb the way `keel --help` lists it, from `verbs.ts` alone (nothing is imported):
 * a listing, not verbs that run.
 */
function listVerbs(program: Command): void {
  const usage = new Map<Command, string>();
  for (const verb of VERBS) {
    usage.set(program.command(verb.name).description(verb.summary), verb.usage);
  }
  const help = new Help();
  program.configureHelp({
    subcommandTerm: (cmd) => {
      const shown = usage.get(cmd);
      return shown === undefined ? help.subcommandTerm(cmd) : `${cmd.name()} ${shown}`.trim();
    },
  });
}

/** Defines `verb` on `program` unless a module defined it already with another verb. */
async function define(program: Command, verb: Verb, config: () => Config): Promise<void> {
  if (program.commands.some((c) => c.name() === verb.name)) return;
  await verb.define(program, config);
}

/**
 * Builds the whole `keel` program, every verb defined (every verb's module imported): what tests
 * and tools use to look at all of it; a run builds only what it needs ({@link main}).
 *
 * @param config - the configuration; default: read from the environment and the config file.
 * @throws KeelError `CONFIG_INVALID` when `config` is not given and the settings are bad.
 */
export async function buildProgram(config?: Config): Promise<Command> {
  const settings = config ?? (await readConfig());
  const program = rootProgram(settings);
  for (const verb of VERBS) await define(program, verb, () => settings);
  return program;
}

/**
 * Runs the program on `argv` and resolves to the exit code. Actions set `process.exitCode`;
 * nothing calls `process.exit`, so output is always flushed.
 *
 * - `keel --version`, `keel --help`, `keel help`: the parser alone, the verbs listed from
 *   `verbs.ts`;
 * - `keel <verb> …` and `keel help <verb>`: the verb's module is imported and the verb defined;
 *   a verb that needs the configuration reads it first (`CONFIG_INVALID` is reported like any
 *   error; `keel config` reads and mends it itself);
 * - `keel` alone: the terminal (its module imported when it starts).
 *
 * Under launchd (`--launchd`) an error with a code ends with 0 (see `launchdExitCode`).
 */
export async function main(argv: string[] = process.argv): Promise<number> {
  const code = await run(argv);
  if (!argv.includes(LAUNCHD_FLAG)) return code;
  const { launchdExitCode } = await import('./commands/service.js');
  return launchdExitCode(argv, code);
}

/** The deepest command `args` name (`keel models pull …` → `pull`), for a usage error. */
function commandNamed(program: Command, args: readonly string[]): Command {
  let cmd = program;
  for (const a of args) {
    if (a.startsWith('-')) continue;
    const sub = cmd.commands.find((c) => c.name() === a || c.aliases().includes(a));
    if (!sub) break;
    cmd = sub;
  }
  return cmd;
}

/** `keel models pull [options] [name]`: a command's usage with its parents' names. */
function usageOf(cmd: Command): string {
  const names: string[] = [];
  for (let c: Command | null = cmd; c; c = c.parent) names.unshift(c.name());
  return `${names.join(' ')} ${cmd.usage()}`.trim();
}

/**
 * A usage error from the parser as keel's `INVALID_INPUT`, its fix the usage of the verb that
 * was given (a verb with sub-verbs given none: which sub-verbs it has).
 */
function usageError(program: Command, args: readonly string[], err: CommanderError): KeelError {
  const cmd = commandNamed(program, args);
  if (err.code === 'commander.help') {
    const subs = cmd.commands.map((c) => c.name()).filter((n) => n !== 'help');
    return new KeelError('INVALID_INPUT', `${usageOf(cmd).split(' [')[0]} needs a sub-verb`, {
      fix: `Usage: ${usageOf(cmd)}; one of: ${subs.join(', ')} (\`keel ${cmd.name()} <sub-verb> --help\` explains each).`,
    });
  }
  return new KeelError('INVALID_INPUT', err.message.replace(/^error:\s*/, ''), {
    fix: `Usage: ${usageOf(cmd)} (\`${usageOf(cmd).split(' [')[0]} --help\` explains each argument).`,
  });
}

/** A typo this close (edits, at most a third of the word) names the verb meant. */
const SUGGEST_MAX_EDITS = 3;

/**
 * The error for a verb keel does not have: `INVALID_INPUT`, with the nearest verb as the fix
 * ("did you mean `keel remember`?") when one is within a few edits (Levenshtein distance, via
 * `fastest-levenshtein`), else the list of verbs.
 */
export function unknownVerb(name: string): KeelError {
  const names = VERBS.map((v) => v.name);
  const nearest = closest(name, names);
  const edits = distance(name, nearest);
  const close = edits <= Math.min(SUGGEST_MAX_EDITS, Math.max(1, Math.floor(name.length / 3)));
  return new KeelError('INVALID_INPUT', `unknown verb "${name}"`, {
    fix: close
      ? `Did you mean \`keel ${nearest}\`? (\`keel --help\` lists every verb)`
      : `\`keel --help\` lists every verb: ${names.join(', ')}.`,
  });
}

async function run(argv: string[]): Promise<number> {
  const json = argv.includes('--json');
  const args = argv.slice(2);
  const first = args.find((a) => !a.startsWith('-'));
  const name = first === 'help' ? args[args.indexOf('help') + 1] : first;
  const verb = name === undefined ? undefined : findVerb(name);
  let program: Command;
  try {
    if (name !== undefined && verb === undefined && first !== 'help') throw unknownVerb(name);
    if (verb === undefined) {
      // `keel` (the terminal), `keel --help`, `keel --version`, `keel help [unknown]`.
      program = rootProgram(undefined, json);
      listVerbs(program);
    } else {
      const { loadConfig } = await import('./config.js');
      let settings: Config | undefined;
      program = rootProgram(undefined, json);
      await define(program, verb, () => {
        settings ??= loadConfig();
        return settings;
      });
    }
  } catch (err) {
    return report(err, json); // a bad setting (CONFIG_INVALID), an unknown verb
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
        return OK;
      }
      return report(usageError(program, args, err), json);
    }
    return report(err, json);
  }
  return typeof process.exitCode === 'number' ? process.exitCode : OK;
}
