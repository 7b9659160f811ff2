/**
 * The questions of `keel setup` (loaded by `setup.ts` only when setup runs: it brings in the
 * prompt library, @clack/prompts, and the live checks).
 *
 * The steps (each in `setup/`: `model.ts`, `discord.ts`, `time.ts`, `embedder.ts`,
 * `services.ts`; what they share in `setup/context.ts`), each skippable, each answer saved at once
 * in `$KEEL_HOME/config.toml` through `setConfigValues` (checked, mode 0600), the current value
 * offered as the default and secrets shown masked:
 *
 * 1. the model: an Anthropic key or an OpenAI-compatible server (the key checked by listing the
 *    models it can use, `listChatModels`; a failure prints its code and fix and asks again), then
 *    the model from that list (`setup/pick-model.ts`; typed where there is none), checked with
 *    `checkModel` (a refused one is said and the list offered again); a local Ollama (its models
 *    listed; the chat and belief-gate models chosen, `ollama pull` named for one not pulled); or
 *    offline;
 * 2. Discord: the bot token (checked, `checkDiscordToken`), then pairing: `keel discord pair
 *    --json` runs as a child process (the Discord app's `pairDiscord`; no app imports another),
 *    its code is shown, a wrong code or the expiry is said and pairing offered again;
 * 3. the time zone (the machine's offered), quiet hours (any common clock form, shown back in the
 *    stored one), the nightly hour (the curator explained);
 * 4. the embedder: `keel models pull` offered when the hub answers (skipped: recall stays lexical);
 * 5. the services: `installServices` for think (and discord once paired); where the service
 *    manager cannot be reached (a container) it says plainly that nothing was started;
 *
 * then a summary of what is configured and the next commands. Each answer is saved when it is
 * given (a key once it is checked, with its provider), so Ctrl-C at any question stops setup with
 * exactly the answers before it saved, and says which (with their values, secrets masked).
 *
 * @module
 */
import * as p from '@clack/prompts';
import { KeelError } from '@keel/errors';
import {
  type ConfigKey,
  configPath,
  describeConfig,
  inspectConfigFile,
  maskSecret,
  SETTING_BY_KEY,
  settingInfo,
} from '@keel/host';
import type { Config } from '../config.js';
import { type Ctx, isStop } from './setup/context.js';
import { discordStep } from './setup/discord.js';
import { embedderStep } from './setup/embedder.js';
import { modelStep } from './setup/model.js';
import { servicesStep } from './setup/services.js';
import { timeStep } from './setup/time.js';

/** Options for {@link runSetup}. */
export interface SetupOptions {
  /** `--json` was given: setup needs a person, so it refuses (`SETUP_NEEDS_TERMINAL`). */
  json?: boolean;
  /** Run by keel's first start (no config file yet): says how to skip, and keel opens after. */
  firstStart?: boolean;
  /** Default `process.env`. */
  env?: NodeJS.ProcessEnv;
}
/** The keys the summary shows when they are set. */
const SUMMARY_KEYS: ConfigKey[] = [
  'model.provider',
  'anthropic.api_key',
  'anthropic.model',
  'openai.base_url',
  'openai.api_key',
  'openai.model',
  'ollama.host',
  'ollama.chat_model',
  'ollama.gate_model',
  'discord.token',
  'discord.owner_id',
  'time_zone',
  'quiet_hours',
  'think.night_hour',
];

/** What is configured now, one setting a line (secrets masked), then the embedder and services. */
function summary(ctx: Ctx): string {
  const { settings } = describeConfig(ctx.env);
  const lines: string[] = [];
  for (const key of SUMMARY_KEYS) {
    const s = settings.find((x) => x.key === key);
    if (!s || s.source === 'default' || s.value === null) continue;
    const shown = s.secret ? maskSecret(String(s.value)) : String(s.value);
    lines.push(`${key.padEnd(18)} ${shown}${s.source === 'env' ? '  (from the environment)' : ''}`);
  }
  if (lines.length === 0) lines.push('nothing set: keel runs offline with every default');
  lines.push(`${'embedder'.padEnd(18)} ${ctx.embedder}`);
  lines.push(`${'services'.padEnd(18)} ${ctx.services}`);
  return lines.join('\n');
}

/** What was saved in this run, as the stop message says it: each key with its value now. */
function savedText(ctx: Ctx): string {
  if (ctx.saved.length === 0) return 'Nothing was saved.';
  const values = inspectConfigFile(ctx.home).values as Record<string, unknown>;
  const shown = ctx.saved.map((key) => {
    const v = values[key];
    if (v === undefined) return `${key} (removed)`;
    const name = SETTING_BY_KEY.get(key);
    return `${key} = ${name && settingInfo(name).secret ? maskSecret(String(v)) : String(v)}`;
  });
  return `Saved in ${configPath(ctx.home)}: ${shown.join(', ')}.`;
}

/**
 * Runs `keel setup`: the steps (see the module description), then the summary. Ctrl-C (or Escape)
 * at any point stops it, keeps what was saved and says what that is.
 *
 * @returns the exit code: 0 (done, or stopped by the owner).
 * @throws KeelError `SETUP_NEEDS_TERMINAL` with `--json`, or when stdin or stdout is not a
 *   terminal (nothing is asked or written); `CONFIG_INVALID` when the config file cannot be
 *   written or read; `FILE_UNREADABLE` when keel is not built.
 */
export async function runSetup(config: Config, options: SetupOptions = {}): Promise<number> {
  const env = options.env ?? process.env;
  const why = options.json
    ? 'with --json the output is for a program'
    : !process.stdin.isTTY
      ? 'its input is not a terminal'
      : !process.stdout.isTTY
        ? 'its output is not a terminal'
        : null;
  if (why) {
    throw new KeelError(
      'SETUP_NEEDS_TERMINAL',
      `keel setup asks questions and needs a person at a terminal (${why}); nothing was asked or written`,
    );
  }
  const stop = new AbortController();
  const onSigint = () => stop.abort();
  process.on('SIGINT', onSigint);
  const ctx: Ctx = {
    home: config.home,
    env,
    signal: stop.signal,
    saved: [],
    ollamaModels: null,
    embedder: 'none: recall matches words (lexical)',
    services: 'not installed',
  };
  const path = configPath(config.home);
  p.intro('keel setup');
  p.note(
    options.firstStart
      ? `keel is not set up yet: there is no ${path}.\nA few questions set it up; each can be skipped.\nTo skip them all, press Ctrl-C now: keel opens as it is.\n(KEEL_SKIP_SETUP=1 stops this offer; \`keel setup\` asks them any time.)`
      : `Each answer is saved in ${path} (mode 0600) as you go; each step can be skipped.\nCtrl-C stops at any point and keeps what was saved.`,
  );
  try {
    await modelStep(ctx);
    await discordStep(ctx);
    await timeStep(ctx);
    await embedderStep(ctx);
    await servicesStep(ctx);
    p.note(summary(ctx), `keel is set up (${path})`);
    p.outro(
      options.firstStart
        ? 'keel opens now. Later: `keel doctor` checks all of it, `keel setup` changes any of it.'
        : 'Next: `keel` opens the terminal (or `npm start`); `keel doctor` checks all of it.',
    );
    return 0;
  } catch (err) {
    if (!isStop(err)) throw err;
    if (options.firstStart && ctx.saved.length === 0) {
      p.cancel(
        'Setup skipped: nothing was saved. keel opens now; `keel setup` sets it up any time.',
      );
    } else {
      p.cancel(
        `Setup stopped. ${savedText(ctx)}${options.firstStart ? ' keel opens now;' : ''} \`keel setup\` goes on from there.`,
      );
    }
    return 0;
  } finally {
    process.off('SIGINT', onSigint);
  }
}
