/**
 * The questions of `keel setup` (loaded by `setup.ts` only when setup runs: it brings in the
 * prompt library, @clack/prompts, and the live checks).
 *
 * The steps, each skippable, each answer saved at once in `$KEEL_HOME/config.toml` through
 * `setConfigValues` (checked, mode 0600), the current value offered as the default and secrets
 * shown masked:
 *
 * 1. the model: an Anthropic key or an OpenAI-compatible server (checked with one cheap live call,
 *    `checkModel`; a failure prints its code and fix and asks again), a local Ollama (its models
 *    listed; the chat and belief-gate models chosen, `ollama pull` named for one not pulled), or
 *    offline;
 * 2. Discord: the bot token (checked, `checkDiscordToken`), then pairing: `keel discord pair
 *    --json` runs as a child process (the Discord app's `pairDiscord`; no app imports another),
 *    its code is shown, a wrong code or the expiry is said and pairing offered again;
 * 3. the time zone (the machine's offered), quiet hours, the nightly hour;
 * 4. the embedder: `keel models pull` offered when the hub answers (skipped: recall stays lexical);
 * 5. the services: `installServices` for think (and discord once paired); where the service
 *    manager cannot be reached (a container) it says plainly that nothing was started;
 *
 * then a summary of what is configured and the next commands. Ctrl-C at any point stops setup,
 * keeps what was saved and says what that is.
 *
 * @module
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import * as p from '@clack/prompts';
import { listOllamaModels, ollamaHasModel } from '@keel/agent';
import { KeelError } from '@keel/errors';
import {
  CHECK_TIMEOUT_MS,
  type CheckFinding,
  type ConfigChanges,
  type ConfigKey,
  type ConfigValues,
  checkDiscordToken,
  checkModel,
  configPath,
  describeConfig,
  INTERNAL_FIX,
  inspectConfigFile,
  installServices,
  type KeelConfig,
  loadConfig,
  machineZone,
  maskSecret,
  normalizeOllamaHost,
  PARENT_PID_VARIABLE,
  runApp,
  SETTING_BY_KEY,
  type ServiceName,
  setConfigValues,
  settingInfo,
} from '@keel/host';
import { listInstalledModels, MINILM } from '@keel/memory';
import type { Config } from '../config.js';
import { appMain } from '../paths.js';
import { keelMain, serviceSetup } from './service.js';

/** Options for {@link runSetup}. */
export interface SetupOptions {
  /** `--json` was given: setup needs a person, so it refuses (`SETUP_NEEDS_TERMINAL`). */
  json?: boolean;
  /** Run by keel's first start (no config file yet): says how to skip, and keel opens after. */
  firstStart?: boolean;
  /** Default `process.env`. */
  env?: NodeJS.ProcessEnv;
}

/** What the steps share. */
interface Ctx {
  home: string;
  env: NodeJS.ProcessEnv;
  /** Aborted by Ctrl-C while no question is asked (a check, the pairing, a download). */
  signal: AbortSignal;
  /** The keys saved in this run, in order. */
  saved: ConfigKey[];
  /** Models Ollama listed in the model step, when it was asked. */
  ollamaModels: string[] | null;
  /** What the embedder step found or did, for the summary. */
  embedder: string;
  /** What the services step did, for the summary. */
  services: string;
}

/** Setup stopped by the owner (Ctrl-C, Escape). */
function stopped(): KeelError {
  return new KeelError('CANCELLED', 'setup was stopped', { details: { setup: true } });
}

function isStop(err: unknown): boolean {
  return KeelError.isInstance(err) && err.code === 'CANCELLED';
}

/** The answer to a prompt, or {@link stopped} when the owner cancelled it. */
async function ask<T>(ctx: Ctx, prompt: () => Promise<T | symbol>): Promise<Exclude<T, symbol>> {
  if (ctx.signal.aborted) throw stopped();
  const answer = await prompt();
  if (p.isCancel(answer) || ctx.signal.aborted) throw stopped();
  return answer as Exclude<T, symbol>;
}

/** The file's values as they are now. */
function fileValues(ctx: Ctx): ConfigValues {
  return inspectConfigFile(ctx.home).values;
}

const text = (v: unknown): string | undefined =>
  typeof v === 'string' || typeof v === 'number' ? String(v) : undefined;

/**
 * A `validate` for a prompt that sets `key`: the setting's own check (the one schema), as the
 * form it expects; empty input passes (it keeps the current value or skips).
 */
function validFor(key: ConfigKey) {
  const name = SETTING_BY_KEY.get(key)!;
  return (value: string | undefined): string | undefined => {
    const v = value?.trim();
    if (!v) return undefined;
    try {
      loadConfig({ [name]: v });
      return undefined;
    } catch {
      return `${key} ${settingInfo(name).form}`;
    }
  };
}

/**
 * The configuration as it would be with `changes` saved: the environment and the file as they
 * are, with `changes` over both (for checking a value before it is written).
 */
function candidate(ctx: Ctx, changes: ConfigValues): KeelConfig {
  const file = inspectConfigFile(ctx.home);
  const env: Record<string, string | undefined> = { ...ctx.env };
  for (const [key, value] of Object.entries(changes)) {
    const name = SETTING_BY_KEY.get(key);
    if (name && value !== undefined) env[name] = String(value);
  }
  return loadConfig(env, { file: file.settings, origin: file.origin });
}

/**
 * Saves `changes` in the config file (checked, mode 0600) and says when the environment sets one
 * of them too (the variable wins over the file).
 */
function save(ctx: Ctx, changes: ConfigChanges): void {
  const before = fileValues(ctx) as Record<string, unknown>;
  const wanted = Object.entries(changes).filter(([, v]) => v !== undefined);
  if (wanted.length === 0) return;
  const written = setConfigValues(ctx.home, Object.fromEntries(wanted) as ConfigChanges);
  const after = written.values as Record<string, unknown>;
  for (const [key, value] of wanted) {
    const changed = before[key] !== after[key];
    if (changed && !ctx.saved.includes(key as ConfigKey)) ctx.saved.push(key as ConfigKey);
    const name = SETTING_BY_KEY.get(key);
    const inEnv = name ? ctx.env[name]?.trim() : undefined;
    if (name && inEnv && value !== null && inEnv !== String(value)) {
      p.log.warn(
        `${name} is set in your environment and wins over ${key} in config.toml: unset it${settingInfo(name).secret ? '' : ` or set it to ${value}`}.`,
      );
    }
  }
}

/** A check's outcome as setup treats it. */
type Verdict = 'save' | 'again' | 'skip';

/**
 * Runs a live check and says what it found; on a failure prints the code and the fix and asks
 * what to do: try again, save anyway, or skip.
 */
async function verify(
  ctx: Ctx,
  what: string,
  run: () => Promise<CheckFinding>,
  againLabel: string,
): Promise<Verdict> {
  p.log.step(`Checking ${what}…`);
  let found: CheckFinding;
  try {
    found = await run();
  } catch (err) {
    found = KeelError.isInstance(err)
      ? { status: 'fail', code: err.code, detail: err.message, fix: err.fix }
      : { status: 'fail', code: 'INTERNAL', detail: String(err), fix: INTERNAL_FIX };
  }
  if (ctx.signal.aborted) throw stopped();
  switch (found.status) {
    case 'ok':
      p.log.success(found.detail);
      return 'save';
    case 'skip':
      p.log.info(found.detail);
      return 'save';
    case 'warn':
      p.log.warn(`${found.code}: ${found.detail}\nfix: ${found.fix}`);
      return 'save';
    case 'fail':
      p.log.error(`${found.code}: ${found.detail}\nfix: ${found.fix}`);
      return ask(ctx, () =>
        p.select<Verdict>({
          message: 'What now?',
          options: [
            { value: 'again', label: againLabel },
            { value: 'save', label: 'Save it anyway' },
            { value: 'skip', label: 'Skip this step (nothing more is saved)' },
          ],
        }),
      );
  }
}

/** A secret asked masked: Enter keeps the current one (`had`), or skips when there is none. */
async function secret(ctx: Ctx, key: ConfigKey, what: string, had: string | undefined) {
  const typed = await ask(ctx, () =>
    p.password({
      message: had ? `${what} (Enter keeps ${maskSecret(had)})` : `${what} (Enter skips)`,
      validate: validFor(key),
    }),
  );
  return typed.trim() || had || '';
}

/**
 * A value asked with its current one as the default (Enter keeps it); `whose` says where that
 * default comes from when it is not the file's (`this machine's`).
 */
function value(
  ctx: Ctx,
  key: ConfigKey,
  message: string,
  current: string,
  whose?: string,
): Promise<string> {
  return ask(ctx, () =>
    p.text({
      message: `${message} (Enter: ${current}${whose ? `, ${whose}` : ''})`,
      placeholder: current,
      defaultValue: current,
      validate: validFor(key),
    }),
  ).then((v) => v.trim() || current);
}

type ModelChoice = 'anthropic' | 'openai' | 'ollama' | 'offline' | 'keep';

/** The model now, in words, from the file. */
function modelNow(values: ConfigValues): string {
  const provider = text(values['model.provider']);
  if (provider) return provider;
  if (values['anthropic.api_key']) return 'anthropic (its key is set)';
  if (values['openai.api_key']) return 'openai (its key is set)';
  return 'none chosen';
}

/** Step 1: the model. */
async function modelStep(ctx: Ctx): Promise<void> {
  const values = fileValues(ctx);
  const provider = text(values['model.provider']) as ModelChoice | undefined;
  const choice = await ask(ctx, () =>
    p.select<ModelChoice>({
      message: 'Which model should keel talk to?',
      initialValue: provider ?? 'anthropic',
      options: [
        { value: 'anthropic', label: 'Anthropic (Claude)', hint: 'an API key' },
        {
          value: 'openai',
          label: 'OpenAI or an OpenAI-compatible server',
          hint: 'OpenRouter, LM Studio, vLLM, llama.cpp',
        },
        { value: 'ollama', label: 'A local Ollama', hint: 'runs on this machine' },
        {
          value: 'offline',
          label: 'None: offline',
          hint: 'keel stores and recalls what you say, without a model',
        },
        { value: 'keep', label: `Skip: keep it as it is (${modelNow(values)})` },
      ],
    }),
  );
  switch (choice) {
    case 'anthropic':
      return anthropicStep(ctx, text(values['anthropic.api_key']));
    case 'openai':
      return openaiStep(ctx, values);
    case 'ollama':
      return ollamaStep(ctx, values);
    case 'offline':
      save(ctx, { 'model.provider': 'offline' });
      p.log.success('keel runs offline: it stores what you say and answers with what it recalls.');
      return;
    case 'keep':
      return;
  }
}

async function anthropicStep(ctx: Ctx, had: string | undefined): Promise<void> {
  for (;;) {
    const key = await secret(
      ctx,
      'anthropic.api_key',
      'Your Anthropic API key (console.anthropic.com → API keys)',
      had,
    );
    if (!key) {
      p.log.info('No key given: the model is left as it was.');
      return;
    }
    const changes = { 'model.provider': 'anthropic', 'anthropic.api_key': key } as const;
    const verdict = await verify(
      ctx,
      'the key with Anthropic',
      () =>
        checkModel(candidate(ctx, changes), { signal: ctx.signal, timeoutMs: CHECK_TIMEOUT_MS }),
      'Enter another key',
    );
    if (verdict === 'again') continue;
    if (verdict === 'save') save(ctx, changes);
    return;
  }
}

async function openaiStep(ctx: Ctx, values: ConfigValues): Promise<void> {
  const now = candidate(ctx, {}).chat;
  for (;;) {
    const baseUrl = await value(
      ctx,
      'openai.base_url',
      'The API address, with its version path',
      now.openaiBaseUrl,
    );
    const key = await secret(
      ctx,
      'openai.api_key',
      'Its API key (a local server needs none)',
      text(values['openai.api_key']),
    );
    const model = await value(
      ctx,
      'openai.model',
      'The model (one that calls tools)',
      now.openaiModel,
    );
    const changes: ConfigValues = {
      'model.provider': 'openai',
      'openai.base_url': baseUrl,
      'openai.model': model,
      ...(key ? { 'openai.api_key': key } : {}),
    };
    const verdict = await verify(
      ctx,
      `${model} at ${baseUrl}`,
      () =>
        checkModel(candidate(ctx, changes), { signal: ctx.signal, timeoutMs: CHECK_TIMEOUT_MS }),
      'Enter them again',
    );
    if (verdict === 'again') continue;
    if (verdict === 'save') save(ctx, changes);
    return;
  }
}

/** Chooses one of Ollama's models (or names another, to be pulled). */
async function pickOllamaModel(
  ctx: Ctx,
  message: string,
  names: string[],
  current: string,
): Promise<string> {
  const OTHER = '\u0000other';
  const options = names.map((n) => ({ value: n, label: n, hint: 'pulled' }));
  if (!names.some((n) => ollamaHasModel([n], current))) {
    options.push({ value: current, label: current, hint: `not pulled: ollama pull ${current}` });
  }
  options.push({ value: OTHER, label: 'Another model…', hint: 'named next' });
  const initial = names.find((n) => ollamaHasModel([n], current)) ?? current;
  const chosen = await ask(ctx, () =>
    p.select<string>({ message, options, initialValue: initial }),
  );
  if (chosen !== OTHER) return chosen;
  return ask(ctx, () =>
    p.text({
      message: 'Its name, as `ollama pull` takes it',
      validate: (v) => validFor('ollama.chat_model')(v) ?? (v?.trim() ? undefined : 'a name'),
    }),
  ).then((v) => v.trim());
}

async function ollamaStep(ctx: Ctx, values: ConfigValues): Promise<void> {
  const now = candidate(ctx, {});
  for (;;) {
    const host = await value(ctx, 'ollama.host', 'Where Ollama runs', now.chat.ollamaHost);
    const url = normalizeOllamaHost(host) ?? host;
    p.log.step(`Looking for Ollama at ${url}…`);
    let names: string[];
    try {
      names = await listOllamaModels(url, { timeoutMs: CHECK_TIMEOUT_MS, signal: ctx.signal });
    } catch (err) {
      if (ctx.signal.aborted || !KeelError.isInstance(err)) throw err;
      p.log.error(
        `${err.code}: ${err.message}\nfix: Start Ollama (\`ollama serve\`, or the Ollama app), or give the address it listens on.`,
      );
      const next = await ask(ctx, () =>
        p.select<'again' | 'skip'>({
          message: 'What now?',
          options: [
            { value: 'again', label: 'Look again (or at another address)' },
            { value: 'skip', label: 'Skip: the model is left as it was' },
          ],
        }),
      );
      if (next === 'again') continue;
      return;
    }
    ctx.ollamaModels = names;
    p.log.success(
      names.length
        ? `Ollama at ${url} has: ${names.join(', ')}`
        : `Ollama at ${url} answers, with no models pulled yet`,
    );
    const chat = await pickOllamaModel(
      ctx,
      'The chat model (one that supports tools)',
      names,
      text(values['ollama.chat_model']) ?? now.chat.ollamaModel,
    );
    const gate = await pickOllamaModel(
      ctx,
      "The think service's belief gate model (a small one)",
      names,
      text(values['ollama.gate_model']) ?? now.think.gateModel,
    );
    save(ctx, {
      'model.provider': 'ollama',
      'ollama.host': host,
      'ollama.chat_model': chat,
      'ollama.gate_model': gate,
    });
    for (const model of new Set([chat, gate])) {
      if (!ollamaHasModel(names, model))
        p.log.warn(`${model} is not pulled yet: ollama pull ${model}`);
    }
    p.log.success(`keel talks to ${chat} on Ollama; the belief gate uses ${gate}.`);
    return;
  }
}

/** One line `keel discord pair --json` prints. */
interface PairEvent {
  event?: 'code' | 'wrong_code' | 'paired';
  display?: string;
  expires_at?: string;
  bot?: { id: string; tag: string };
  author_id?: string;
  tries_left?: number;
  owner_id?: string;
  username?: string;
  shadowed_by_env?: boolean;
  error?: { code: string; message: string; fix: string };
}

/** What one pairing ended with. */
type PairOutcome =
  | { paired: { ownerId: string; username: string; shadowed: boolean } }
  | { error: { code: string; message: string; fix: string } };

/**
 * Runs `keel discord pair --json` (the Discord app's pairing, as a child process) and shows its
 * events as they come: the code, each wrong code. Ctrl-C reaches it too (it stops, `CANCELLED`).
 */
function runPairing(ctx: Ctx): Promise<PairOutcome> {
  const discordMain = appMain('discord');
  if (!existsSync(discordMain)) {
    return Promise.resolve({
      error: {
        code: 'FILE_UNREADABLE',
        message: `${discordMain} is missing`,
        fix: 'Build first (npm start, or pnpm exec turbo run build).',
      },
    });
  }
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [discordMain, 'pair', '--json'], {
      env: { ...ctx.env, [PARENT_PID_VARIABLE]: String(process.pid) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let outcome: PairOutcome | null = null;
    let stderr = '';
    createInterface({ input: child.stdout }).on('line', (line) => {
      let e: PairEvent;
      try {
        e = JSON.parse(line) as PairEvent;
      } catch {
        return;
      }
      if (e.error) outcome = { error: e.error };
      else if (e.event === 'code') {
        const until = e.expires_at ? new Date(e.expires_at).toLocaleTimeString() : '';
        p.note(
          `    ${e.display}\n\nDM it to ${e.bot?.tag ?? 'your bot'} from your own Discord account${until ? ` by ${until}` : ''}.\nWhoever sends it becomes keel's owner; three wrong codes stop the pairing.`,
          'Your pairing code',
        );
        p.log.step('Waiting for your DM… (Ctrl-C stops setup)');
      } else if (e.event === 'wrong_code') {
        const left = e.tries_left ?? 0;
        p.log.warn(
          `A wrong code from Discord user ${e.author_id}: nothing changed; ${left ? `${left} more tr${left === 1 ? 'y' : 'ies'} allowed` : 'the pairing stops'}.`,
        );
      } else if (e.event === 'paired' && e.owner_id) {
        outcome = {
          paired: {
            ownerId: e.owner_id,
            username: e.username ?? '?',
            shadowed: e.shadowed_by_env === true,
          },
        };
      }
    });
    child.stderr.on('data', (d) => {
      stderr = `${stderr}${d}`.slice(-4000);
    });
    const onAbort = () => child.kill('SIGTERM');
    ctx.signal.addEventListener('abort', onAbort, { once: true });
    child.on('error', (err) => {
      outcome ??= {
        error: {
          code: 'INTERNAL',
          message: `could not start pairing: ${err.message}`,
          fix: INTERNAL_FIX,
        },
      };
    });
    child.on('close', (code) => {
      ctx.signal.removeEventListener('abort', onAbort);
      const last = stderr.trim().split('\n').at(-1) ?? '';
      resolve(
        outcome ?? {
          error: {
            code: 'INTERNAL',
            message: `keel discord pair ended with exit code ${code}${last ? `: ${last}` : ''}`,
            fix: INTERNAL_FIX,
          },
        },
      );
    });
  });
}

/** Pairs the owner's Discord account, offering again after a wrong code or the expiry. */
async function pairStep(ctx: Ctx): Promise<void> {
  for (;;) {
    p.log.step('Connecting to Discord as your bot…');
    const outcome = await runPairing(ctx);
    if (ctx.signal.aborted) throw stopped();
    if ('paired' in outcome) {
      const { ownerId, username, shadowed } = outcome.paired;
      if (!ctx.saved.includes('discord.owner_id')) ctx.saved.push('discord.owner_id');
      p.log.success(
        `Paired: ${username} (${ownerId}) is keel's owner on Discord; saved as discord.owner_id.`,
      );
      if (shadowed) {
        p.log.warn(
          `KEEL_DISCORD_OWNER_ID is set in your environment and wins over the file: unset it, or set it to ${ownerId}.`,
        );
      }
      return;
    }
    const { code, message, fix } = outcome.error;
    p.log.error(`${code}: ${message}\nfix: ${fix}`);
    const next = await ask(ctx, () =>
      p.select<'again' | 'skip'>({
        message: 'Pair again?',
        options: [
          { value: 'again', label: 'Pair again, with a new code' },
          { value: 'skip', label: 'Skip pairing (`keel discord pair` does it later)' },
        ],
      }),
    );
    if (next === 'skip') return;
  }
}

/** Step 2: Discord, the bot token and pairing. */
async function discordStep(ctx: Ctx): Promise<void> {
  const values = fileValues(ctx);
  const had = text(values['discord.token']);
  const owner = text(values['discord.owner_id']);
  type Choice = 'token' | 'pair' | 'skip';
  const options: { value: Choice; label: string; hint?: string }[] = had
    ? [
        {
          value: 'pair',
          label: owner ? `Pair again (the owner now: ${owner})` : 'Pair your Discord account',
          hint: `the bot token ${maskSecret(had)} is set`,
        },
        { value: 'token', label: 'Enter another bot token, then pair' },
        { value: 'skip', label: 'Skip: keep it as it is' },
      ]
    : [
        { value: 'token', label: 'Set it up: the bot token, then pairing' },
        { value: 'skip', label: 'Skip: no Discord' },
      ];
  const choice = await ask(ctx, () =>
    p.select<Choice>({
      message: 'Talk to keel from Discord DMs?',
      options,
      initialValue: had ? (owner ? 'skip' : 'pair') : 'token',
    }),
  );
  if (choice === 'skip') return;
  if (choice === 'token') {
    p.log.info(
      'At discord.com/developers/applications: New Application → Bot: turn on Message Content Intent, then Reset Token and copy it.',
    );
    for (;;) {
      const token = await secret(ctx, 'discord.token', 'The bot token', undefined);
      if (!token) {
        p.log.info('No token given: Discord is left as it was.');
        return;
      }
      const changes = { 'discord.token': token };
      const verdict = await verify(
        ctx,
        'the token with Discord',
        () =>
          checkDiscordToken(candidate(ctx, changes), {
            signal: ctx.signal,
            timeoutMs: CHECK_TIMEOUT_MS,
          }),
        'Enter another token',
      );
      if (verdict === 'again') continue;
      if (verdict === 'skip') return;
      save(ctx, changes);
      break;
    }
    const now = await ask(ctx, () =>
      p.confirm({ message: 'Pair your Discord account now? (you DM the bot a code)' }),
    );
    if (!now) {
      p.log.info('Not paired: `keel discord pair` does it later; until then keel answers nobody.');
      return;
    }
  }
  await pairStep(ctx);
}

/** Step 3: the time zone, quiet hours and the nightly hour. */
async function timeStep(ctx: Ctx): Promise<void> {
  const values = fileValues(ctx);
  const zoneNow = text(values.time_zone);
  const zone = await value(
    ctx,
    'time_zone',
    'Your time zone',
    zoneNow ?? machineZone(),
    zoneNow ? undefined : "this machine's",
  );
  const quietNow = text(values.quiet_hours);
  const quiet = await ask(ctx, () =>
    p.text({
      message: `Quiet hours, when keel sends you nothing: START-END in your time zone, e.g. 23-7 (Enter: ${quietNow ?? 'none'}${quietNow ? '; "none" clears them' : ''})`,
      placeholder: quietNow ?? 'none',
      defaultValue: quietNow ?? 'none',
      validate: (v) => (/^\s*none\s*$/i.test(v ?? '') ? undefined : validFor('quiet_hours')(v)),
    }),
  ).then((v) => v.trim());
  const nightNow = text(values['think.night_hour']) ?? '3';
  const night = await value(
    ctx,
    'think.night_hour',
    'The hour (0 to 23) from which the nightly curator runs',
    nightNow,
  );
  const changes: ConfigChanges = {};
  if (zone !== zoneNow) changes.time_zone = zone;
  if (/^none$/i.test(quiet)) {
    if (quietNow) changes.quiet_hours = null;
  } else if (quiet && quiet !== quietNow) changes.quiet_hours = quiet;
  if (night !== nightNow) changes['think.night_hour'] = Number(night);
  save(ctx, changes);
  const quietText = changes.quiet_hours === null ? 'none' : (changes.quiet_hours ?? quietNow);
  p.log.success(
    `Time zone ${zone}; quiet hours ${quietText ?? 'none'}; the night starts at ${night}:00.`,
  );
}

/** Whether `url` answers at all (any HTTP status) within a few seconds. */
async function reachable(url: string, signal: AbortSignal): Promise<boolean> {
  try {
    await fetch(url, {
      method: 'HEAD',
      signal: AbortSignal.any([signal, AbortSignal.timeout(CHECK_TIMEOUT_MS)]),
    });
    return true;
  } catch {
    return false;
  }
}

/** Step 4: the embedder. */
async function embedderStep(ctx: Ctx): Promise<void> {
  const config = candidate(ctx, {});
  if (config.embedder.choice === 'none') {
    p.log.info('The embedder is switched off (embedder.provider none): recall matches words.');
    ctx.embedder = 'none (switched off): recall matches words (lexical)';
    return;
  }
  const installed = listInstalledModels(config.paths.models).filter((m) => m.installed);
  if (installed.length > 0) {
    p.log.success(
      `The local embedder is installed (${installed.map((m) => m.id).join(', ')}): recall matches meaning as well as words.`,
    );
    ctx.embedder = `${MINILM.name}: hybrid recall`;
    return;
  }
  if (ctx.ollamaModels && ollamaHasModel(ctx.ollamaModels, config.embedder.ollamaModel)) {
    p.log.success(
      `Ollama has ${config.embedder.ollamaModel}: recall embeds with it and matches meaning as well as words.`,
    );
    ctx.embedder = `ollama ${config.embedder.ollamaModel}: hybrid recall`;
    return;
  }
  const endpoint = config.embedder.hfEndpoint;
  p.log.step(`The embedder: looking for ${endpoint}…`);
  if (!(await reachable(endpoint, ctx.signal))) {
    if (ctx.signal.aborted) throw stopped();
    p.log.info(
      `${endpoint} cannot be reached: skipped. Recall matches words (lexical) until \`keel models pull\`, run when online.`,
    );
    return;
  }
  const choice = await ask(ctx, () =>
    p.select<'pull' | 'skip'>({
      message: `Download the local embedder (${MINILM.id}, about 23 MB)? Recall then matches meaning as well as words.`,
      options: [
        { value: 'pull', label: 'Download it now (keel models pull)' },
        { value: 'skip', label: 'Skip: recall matches words (keel models pull later)' },
      ],
    }),
  );
  if (choice === 'skip') {
    p.log.info('Skipped: recall stays lexical until `keel models pull`.');
    return;
  }
  const code = await runApp(keelMain(), ['models', 'pull'], { env: ctx.env });
  if (ctx.signal.aborted) throw stopped();
  if (code === 0) {
    p.log.success('The embedder is installed: recall is hybrid from now on.');
    ctx.embedder = `${MINILM.name}: hybrid recall`;
  } else {
    p.log.warn(
      'The download failed (see above): recall stays lexical. `keel models pull` tries again.',
    );
  }
}

/** Step 5: the services. */
async function servicesStep(ctx: Ctx): Promise<void> {
  if (process.platform !== 'linux' && process.platform !== 'darwin') {
    ctx.services = 'not installed (systemd or launchd only)';
    p.log.info(
      `keel installs its services with systemd (Linux) or launchd (macOS), not on ${process.platform}: run \`keel think\` (and \`keel discord\`) yourself.`,
    );
    return;
  }
  const config = candidate(ctx, {});
  const names: ServiceName[] =
    config.discord.token && config.discord.ownerId ? ['think', 'discord'] : ['think'];
  const kind = process.platform === 'linux' ? 'systemd user services' : 'launchd agents';
  const choice = await ask(ctx, () =>
    p.select<'install' | 'dry' | 'skip'>({
      message: `Keep keel running in the background? (the think service${names.includes('discord') ? ' and the Discord door' : ''})`,
      options: [
        { value: 'install', label: `Install and start ${names.join(' and ')}`, hint: kind },
        { value: 'dry', label: 'Show what would be installed; change nothing' },
        { value: 'skip', label: 'Skip (`keel service install` later)' },
      ],
    }),
  );
  if (choice === 'skip') {
    ctx.services = 'not installed (`keel service install`)';
    return;
  }
  const result = await installServices(names, serviceSetup(config, ctx.env), {
    dryRun: choice === 'dry',
  });
  if (result.dryRun) {
    p.note(
      [
        ...result.files.map((f) => `would write ${f.path}`),
        ...result.commands.map((c) => `would run: ${c.argv.join(' ')}`),
      ].join('\n'),
      'keel service install (nothing changed)',
    );
    ctx.services = 'not installed (shown only)';
    return;
  }
  const unreachable = result.error?.code === 'SERVICE_MANAGER_UNAVAILABLE';
  // Without a manager its message names the files written and the commands that start them.
  if (!unreachable) {
    for (const f of result.files) p.log.message(`wrote ${f.path} (log: ${f.logPath})`);
  }
  for (const note of result.notes) p.log.info(note);
  if (result.error && unreachable) {
    p.log.warn(`Nothing was started: ${result.error.message}\nfix: ${result.error.fix}`);
    ctx.services = `written, not started (${names.join(', ')})`;
  } else if (result.error) {
    p.log.error(`${result.error.code}: ${result.error.message}\nfix: ${result.error.fix}`);
    ctx.services = `installed, not running (${names.join(', ')}): keel service status`;
  } else {
    p.log.success(`Started: ${result.services.map((s) => `${s.name} (${s.state})`).join(', ')}.`);
    ctx.services = `running (${names.join(', ')})`;
  }
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

/** What was saved in this run, as the stop message says it. */
function savedText(ctx: Ctx): string {
  return ctx.saved.length
    ? `Saved in ${configPath(ctx.home)}: ${ctx.saved.join(', ')}.`
    : 'Nothing was saved.';
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
