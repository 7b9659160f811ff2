/**
 * `keel think`: runs the think service (its entry point found by `appMain`: `think.mjs` beside the
 * bundled CLI, or `apps/think/dist/main.js`) as a child process (see `@keel/host`'s `runApp`) and
 * returns its exit code.
 *
 * @module
 */
import { DEFAULT_GATE_MODEL } from '@keel/gate';
import { keepServiceLogRotated, LAUNCHD_FLAG, runApp } from '@keel/host';
import { type Command, Option } from 'commander';
import type { Config } from '../config.js';
import { wantsJson } from '../output.js';
import { appMain } from '../paths.js';

/** The flags `keel think` passes on. */
export interface ThinkFlags {
  once?: boolean;
  curate?: boolean;
  json?: boolean;
}

/** The arguments for `main.js` from the flags. */
export function thinkArgs(flags: ThinkFlags): string[] {
  return [
    ...(flags.once ? ['--once'] : []),
    ...(flags.curate ? ['--curate'] : []),
    ...(flags.json ? ['--json'] : []),
  ];
}

/** Starts the think service (or one run of it) and resolves to its exit code. */
export function runThinkService(flags: ThinkFlags, main = appMain('think')): Promise<number> {
  return runApp(main, thinkArgs(flags), { json: Boolean(flags.json) });
}

/** `keel think --help`: what it does and the variables it reads. */
const THINK_HELP = `
Each tick the belief gate looks at new owner turns (a local Ollama model, or the built-in
pattern gate when Ollama does not answer), reflection proposes belief changes, and urgent items
are sent to the owner on Discord (never in quiet hours). Once a night the curator turns queued
turns into facts; once a week a review lists stale beliefs. Only one service runs per KEEL_HOME
($KEEL_HOME/think.lock); a second exits with THINK_RUNNING.

Settings, in $KEEL_HOME/config.toml (keel config set KEY VALUE) or their variable, which wins:
  KEEL_HOME                               the data folder (default ~/.keel; variable only)
  think.interval_min   KEEL_THINK_INTERVAL_MIN  minutes between ticks, 1..1440 (default 15)
  quiet_hours          KEEL_QUIET_HOURS   hours when nobody is messaged, START-END, e.g. 23-7
  time_zone            KEEL_TZ            the owner's IANA time zone (default the machine's)
  think.night_hour     KEEL_CURATE_AT     the local hour 0..23 the nightly curator runs at (default 3)
  ollama.host          OLLAMA_HOST        the Ollama server for the belief gate
  ollama.gate_model    KEEL_GATE_MODEL    the belief gate's Ollama model (default ${DEFAULT_GATE_MODEL})
  model.provider, anthropic.api_key, openai.api_key, … (keel config list shows them all)
                           the model for reflection and the curator, chosen as for the terminal;
                           without one those steps are skipped
  discord.token, discord.owner_id (keel discord pair)
                           where urgent items go; without both nothing is sent

--json prints each run as one line (snake_case keys, times as ISO 8601), and an error as
{"error":{"code","message","fix"}}:
  {"gate":"ollama|pattern","examined":0,"queued":0,"proposed":0,"written":0,
   "curated":null|{"added","corroborated","superseded","conflicts","pruned"},
   "interrupts":0,"skipped":[...],"run_id":1,...}
Exit codes: 0 done or stopped (SIGTERM/SIGINT/SIGHUP), 2 an error with a code (configuration,
another service running, the database), 1 anything else (a bug: systemd restarts the service).
`;

/**
 * Registers `keel think`. With `config`, the service keeps its log rotated (`logs.max_mb`,
 * `logs.keep`; see `keepServiceLogRotated`).
 */
export function registerThinkCommand(program: Command, config?: Config): void {
  program
    .command('think')
    .description(
      'run the think service: gate, reflect and interrupt each tick, curate nightly (see the README)',
    )
    .option('--once', 'run one tick and exit')
    .option('--curate', 'with --once: run the nightly curator now')
    .addOption(
      new Option(LAUNCHD_FLAG, 'run by launchd: end an error with a code with 0').hideHelp(),
    )
    .addHelpText('after', THINK_HELP)
    .action(async (opts: { once?: boolean; curate?: boolean }, cmd: Command) => {
      const stopRotating = config ? keepServiceLogRotated(config, 'think') : () => {};
      try {
        process.exitCode = await runThinkService({ ...opts, json: wantsJson(cmd) });
      } finally {
        stopRotating();
      }
    });
}
