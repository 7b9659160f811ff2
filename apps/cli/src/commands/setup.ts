/**
 * `keel setup`: the guided setup in the terminal (the questions themselves are in
 * `setup-flow.ts`, loaded only when setup runs), and the one place that decides whether keel's
 * first start runs it ({@link offersFirstSetup}): `keel` with no verb (what `npm start` opens), in
 * a `KEEL_HOME` with neither `config.toml` nor a database yet, with a person at a terminal, asks
 * first. A keel that has run before (configured through the environment) is not asked again.
 *
 * Without a terminal (`--json`, piped input or output) `keel setup` asks nothing and ends with
 * `SETUP_NEEDS_TERMINAL`; the first start then opens the terminal as it always did.
 *
 * @module
 */
import { existsSync } from 'node:fs';
import { configPath } from '@keel/host';
import type { Command } from 'commander';
import { type Config, loadConfig } from '../config.js';
import { action, wantsJson } from '../output.js';

/** The environment variable that stops the first start from offering setup (`1`, `true`, `yes`). */
export const SKIP_SETUP_VARIABLE = 'KEEL_SKIP_SETUP';

/** What {@link offersFirstSetup} decides from. */
export interface FirstStartFacts {
  /** `$KEEL_HOME/config.toml` exists. */
  configExists: boolean;
  /** keel's database exists (keel has run in this `KEEL_HOME` before). */
  databaseExists: boolean;
  /** Standard input is a terminal. */
  stdinTTY: boolean;
  /** Standard output is a terminal. */
  stdoutTTY: boolean;
  /** `--json` was given (a program reads the output). */
  json: boolean;
  /** The value of {@link SKIP_SETUP_VARIABLE}, if set. */
  skip: string | undefined;
}

/** Whether a value of {@link SKIP_SETUP_VARIABLE} asks to skip (`1`, `true`, `yes`). */
export function skipRequested(value: string | undefined): boolean {
  return /^\s*(1|true|yes)\s*$/i.test(value ?? '');
}

/**
 * Whether keel's first start runs `keel setup` before the terminal: there is no config file and
 * no database yet (keel never ran here), a person is at a terminal (stdin and stdout both),
 * `--json` was not given and
 * {@link SKIP_SETUP_VARIABLE} does not ask to skip. Piped input, a script or a service never
 * enters setup.
 */
export function offersFirstSetup(facts: FirstStartFacts): boolean {
  return (
    !facts.configExists &&
    !facts.databaseExists &&
    facts.stdinTTY &&
    facts.stdoutTTY &&
    !facts.json &&
    !skipRequested(facts.skip)
  );
}

/** Options for {@link firstStart}. */
export interface FirstStartOptions {
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
  json: boolean;
  /** Default `process.env`. */
  env?: NodeJS.ProcessEnv;
}

const isTTY = (stream: NodeJS.ReadableStream | NodeJS.WritableStream) =>
  Boolean((stream as { isTTY?: boolean }).isTTY);

/**
 * The terminal's first start: when {@link offersFirstSetup} says so, runs `keel setup` (saying how
 * to skip it) and resolves to the configuration as setup left it; else resolves to `config` as
 * it is, without asking anything.
 *
 * @throws KeelError `CONFIG_INVALID` when the configuration cannot be read again after setup
 *   (setup checks every value it writes, so only a change made meanwhile by something else).
 */
export async function firstStart(config: Config, options: FirstStartOptions): Promise<Config> {
  const env = options.env ?? process.env;
  const offer = offersFirstSetup({
    configExists: existsSync(configPath(config.home)),
    databaseExists: existsSync(config.paths.db),
    stdinTTY: isTTY(options.input),
    stdoutTTY: isTTY(options.output),
    json: options.json,
    skip: env[SKIP_SETUP_VARIABLE],
  });
  if (!offer) return config;
  const { runSetup } = await import('./setup-flow.js');
  await runSetup(config, { firstStart: true, env });
  return loadConfig(env);
}

/** Registers `keel setup`. */
export function registerSetupCommand(program: Command, config: Config): void {
  program
    .command('setup')
    .description(
      'set keel up in the terminal, step by step: the model, Discord and pairing, your time zone and quiet hours, the embedder, the services (rerun it to change any of them)',
    )
    .action(
      action(async (_opts: unknown, cmd: Command) => {
        const { runSetup } = await import('./setup-flow.js');
        return runSetup(config, { json: wantsJson(cmd) });
      }),
    );
}
