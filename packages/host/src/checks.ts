/**
 * The live checks `keel doctor` makes: does what the owner configured actually work? Each is
 * cheap (one request at most), has a timeout, and says what it found as a {@link CheckResult}:
 * `ok`, `warn` (degraded, or nothing the owner asked for), `fail` (configured and not working:
 * `keel doctor` exits 1) or `skip` (nothing to check, or `--offline`), with the `KeelError` code
 * and a one-line fix for every problem.
 *
 * - `model`: the chat model answers and takes the key (`ChatModel.probe`: Anthropic's model
 *   lookup, an OpenAI-compatible server's model list, Ollama's model list with the chat model in
 *   it, `ollama pull <model>` named when it is missing).
 * - `gate_model`: the think service's belief gate model is pulled in Ollama (a failure when the
 *   chat model runs on Ollama too, a warning otherwise: the pattern gate stands in).
 * - `discord_token`: Discord takes the bot token, and its application lets the owner reach the bot
 *   (`GET /applications/@me`: the Message Content intent on, no OAuth2 code grant required, Guild
 *   Install on).
 * - `discord_owner`: an owner is paired (`KEEL_DISCORD_OWNER_ID`; `keel discord pair` sets one).
 * - `think_service`, `discord_service`: the service holds its lock, its PID runs and it keeps the
 *   lock fresh (its heartbeat); the think service has ticked within two intervals. A service
 *   that is not running is a warning, or a failure when the owner installed it
 *   ({@link CheckOptions.installed}).
 *
 * @module
 */
import {
  type ChatChoice,
  type ChatModel,
  chooseChatModel,
  type ListedModel,
  listOllamaModels,
  ollamaHasModel,
} from '@keel/agent';
import { ERROR_FIXES, KeelError, type KeelErrorCode } from '@keel/errors';
import { count } from '@keel/language';
import { fetchBotApplication, installProblems } from '@keel/outbound';
import { ok, problem, skip } from './check-finding.js';
import type { KeelConfig } from './config.js';
import type { Service } from './lock.js';
import { checkServers } from './servers.js';
import { checkService } from './service-checks.js';
import { checkMcpServers } from './tool-checks.js';

/** How long each live check may take by default, ms. */
export const CHECK_TIMEOUT_MS = 5000;

/** The checks, in the order they are reported. */
export const CHECK_NAMES = [
  'model',
  'gate_model',
  'discord_token',
  'discord_owner',
  'think_service',
  'discord_service',
  'mcp_servers',
  'servers',
] as const;

/** A check's name. */
export type CheckName = (typeof CHECK_NAMES)[number];

/**
 * What a check found: `ok`; `warn`, a problem that does not stop what the owner configured
 * (degraded, or a service nobody installed is not running); `fail`, something the owner
 * configured does not work; `skip`, nothing to check (not configured, or network checks off).
 */
export type CheckStatus = 'ok' | 'warn' | 'fail' | 'skip';

/** One check's result. */
export interface CheckResult {
  name: CheckName;
  /** False only for `fail`. */
  ok: boolean;
  status: CheckStatus;
  /** One line: what was checked and found. */
  detail: string;
  /** The error code of the problem (`warn` and `fail`); `INTERNAL` when the check itself broke. */
  code?: KeelErrorCode | 'INTERNAL';
  /** One line the owner can act on (`warn` and `fail`). */
  fix?: string;
  /** How long the check took, ms. */
  durationMs: number;
}

/** Options for {@link runChecks}. */
export interface CheckOptions {
  /** Make the checks that use the network (model, Discord, Ollama). Default true. */
  live?: boolean;
  /** How long each live check may take, ms. Default {@link CHECK_TIMEOUT_MS}. */
  timeoutMs?: number;
  /** Cancels the live checks (they then fail with `CANCELLED`). */
  signal?: AbortSignal;
  /**
   * The chat model already chosen (`chooseChatModel` of `config.chat`), or the error choosing it
   * threw; default: chosen here.
   */
  chat?: ChatChoice | KeelError;
  /** When the think service last ticked, ms since the epoch (the store's `think_runs`); null: never. */
  lastTickAt?: number | null;
  /**
   * Whether the owner installed a service (systemd unit, launchd agent): one that is installed and
   * not running is a failure, else a warning. Default: none known (a warning). Superseded by
   * {@link CheckOptions.services} when that is given.
   */
  installed?: (service: Service) => boolean;
  /**
   * What `keel service status` found of a service (its file, its manager, its log); null or
   * absent: not known (another system, or not asked). It shapes what a service that does not run
   * is told to do.
   */
  services?: (service: Service) => ServiceFacts | null;
  /** The clock, ms. Default `Date.now`. */
  now?: () => number;
  /** Whether a PID is alive (tests). Default `pidAlive`. */
  isAlive?: (pid: number) => boolean;
  /** Custom fetch for Ollama (tests). */
  fetch?: typeof fetch;
}

/** What `keel service status` found of one service, as the service checks use it. */
export interface ServiceFacts {
  /** Its systemd unit or launchd agent is there. */
  installed: boolean;
  /** `systemd` or `launchd`. */
  manager: string;
  /** Whether the manager answered; false: not reachable (no user session, as in a container). */
  managerReachable: boolean;
  /** Its state as the manager reports it (`failed`, `stopped`, …; `unknown` when not asked). */
  state: string;
  /** The last lines of its log, oldest first. */
  logLines: string[];
}

/** What one check found, before it is named and timed. */
export type CheckFinding = Omit<CheckResult, 'name' | 'ok' | 'durationMs'>;

const OFFLINE = 'not checked (--offline)';

/** Runs one check, timing it; an unexpected error is its failure (`INTERNAL`), never the report's. */
async function timed(
  name: CheckName,
  now: () => number,
  run: () => CheckFinding | Promise<CheckFinding>,
): Promise<CheckResult> {
  const started = now();
  let found: CheckFinding;
  try {
    found = await run();
  } catch (err) {
    found = KeelError.isInstance(err)
      ? problem('fail', err.code, err.message)
      : problem('fail', 'INTERNAL', `the check itself failed: ${(err as Error).message ?? err}`);
  }
  return { name, ok: found.status !== 'fail', ...found, durationMs: Math.max(0, now() - started) };
}

/**
 * Runs every check ({@link CHECK_NAMES}) at once and resolves with their results in that order.
 * A problem is a result, never a rejection (a check that breaks is its own `INTERNAL` failure).
 */
export async function runChecks(
  config: KeelConfig,
  options: CheckOptions = {},
): Promise<CheckResult[]> {
  const now = options.now ?? Date.now;
  // Chosen once for the two checks that need it (choosing may probe Ollama).
  const withChat = { ...options, chat: await chosen(config, options) };
  return Promise.all([
    timed('model', now, () => checkModel(config, withChat)),
    timed('gate_model', now, () => checkGateModel(config, withChat)),
    timed('discord_token', now, () => checkDiscordToken(config, options)),
    timed('discord_owner', now, () => checkDiscordOwner(config)),
    timed('think_service', now, () => checkService(config, 'think', options)),
    timed('discord_service', now, () => checkService(config, 'discord', options)),
    timed('mcp_servers', now, () => checkMcpServers(config, options)),
    timed('servers', now, () => checkServers(config.home, options)),
  ]);
}

/** The chat provider keel uses, or the error choosing it ran into. */
async function chosen(config: KeelConfig, options: CheckOptions): Promise<ChatChoice | KeelError> {
  if (options.chat) return options.chat;
  try {
    return await chooseChatModel(config.chat);
  } catch (err) {
    if (KeelError.isInstance(err)) return err;
    throw err;
  }
}

/** The fix for a model problem, naming the setting of the provider in use. */
function modelFix(
  provider: string,
  code: KeelErrorCode,
  model: ChatModel | null,
  config: KeelConfig,
) {
  const c = config.chat;
  switch (code) {
    case 'MODEL_AUTH':
      return provider === 'openai'
        ? `Set OPENAI_API_KEY to a key ${c.openaiBaseUrl} takes; the one set is refused.`
        : 'Set ANTHROPIC_API_KEY to a working key (console.anthropic.com → API keys); the one set is refused.';
    case 'MODEL_NOT_FOUND':
      if (provider === 'ollama') return `ollama pull ${model?.model ?? c.ollamaModel}`;
      return provider === 'openai'
        ? `Choose a model ${c.openaiBaseUrl} lists: \`keel setup\` shows them, or \`keel config set openai.model <model>\` (or the KEEL_OPENAI_MODEL environment variable).`
        : 'Choose a model your key can use: `keel setup` lists them, or `keel config set anthropic.model <model>`, e.g. claude-sonnet-4-6 (or the KEEL_MODEL environment variable).';
    case 'MODEL_UNAVAILABLE':
    case 'MODEL_TIMEOUT':
      if (provider === 'ollama')
        return `Start Ollama (ollama serve), or set OLLAMA_HOST to where it runs (now ${c.ollamaHost}).`;
      return provider === 'openai'
        ? `Start the server at ${c.openaiBaseUrl}, or fix OPENAI_BASE_URL.`
        : `Check the network connection and ANTHROPIC_BASE_URL (now ${c.anthropicBaseUrl}).`;
    default:
      return ERROR_FIXES[code];
  }
}

/** `model`: the chat model answers, takes the key and has the model. */
export async function checkModel(
  config: KeelConfig,
  options: CheckOptions = {},
): Promise<CheckFinding> {
  const choice = await chosen(config, options);
  if (KeelError.isInstance(choice)) {
    const provider = config.chat.provider ?? 'anthropic';
    return problem(
      'fail',
      choice.code,
      choice.message,
      modelFix(provider, choice.code, null, config),
    );
  }
  const { model, provider } = choice;
  if (!model) return skip(`no model: offline (${choice.reason})`);
  const name = `${provider} ${model.model}`;
  if (options.live === false) return skip(`${name}: ${OFFLINE}`);
  if (!model.probe) return skip(`${name}: this provider cannot be checked`);
  try {
    const found = await model.probe({
      timeoutMs: options.timeoutMs ?? CHECK_TIMEOUT_MS,
      ...(options.signal ? { signal: options.signal } : {}),
    });
    if (found.listed === false) {
      return problem(
        'warn',
        'MODEL_NOT_FOUND',
        `${provider}: ${found.detail}`,
        modelFix(provider, 'MODEL_NOT_FOUND', model, config),
      );
    }
    return ok(`${provider}: ${found.detail}`);
  } catch (err) {
    if (!KeelError.isInstance(err)) throw err;
    return problem(
      'fail',
      err.code,
      `${name}: ${err.message}`,
      modelFix(provider, err.code, model, config),
    );
  }
}

/** What {@link listChatModels} found: the check's finding, and the models when it could list. */
export interface ModelListing {
  /** `ok` (the provider listed its models for the key), else the problem with its code and fix. */
  finding: CheckFinding;
  /** The models, in the provider's order (Anthropic: newest first); null when none were listed. */
  models: ListedModel[] | null;
}

/**
 * Lists the models the configured chat provider offers for its key (Anthropic's `GET /v1/models`,
 * an OpenAI-compatible server's `GET /models`): one request, generating nothing, which also proves
 * the key. A problem is the finding (`MODEL_AUTH` with its fix, …), never a rejection.
 */
export async function listChatModels(
  config: KeelConfig,
  options: CheckOptions = {},
): Promise<ModelListing> {
  const choice = await chosen(config, options);
  const provider = KeelError.isInstance(choice)
    ? (config.chat.provider ?? 'anthropic')
    : choice.provider;
  if (KeelError.isInstance(choice)) {
    const fix = modelFix(provider, choice.code, null, config);
    return { finding: problem('fail', choice.code, choice.message, fix), models: null };
  }
  const model = choice.model;
  if (!model?.listModels) {
    return { finding: skip(`${provider}: no model list to ask for`), models: null };
  }
  try {
    const models = await model.listModels({
      timeoutMs: options.timeoutMs ?? CHECK_TIMEOUT_MS,
      ...(options.signal ? { signal: options.signal } : {}),
    });
    const key = config.chat[provider === 'openai' ? 'openaiApiKey' : 'anthropicApiKey'];
    const took = key ? 'the key works' : 'no key needed';
    return {
      finding: ok(`${provider}: ${took}; ${count(models.length, 'model')} listed`),
      models,
    };
  } catch (err) {
    if (!KeelError.isInstance(err)) throw err;
    const fix = modelFix(provider, err.code, model, config);
    return { finding: problem('fail', err.code, err.message, fix), models: null };
  }
}

/**
 * `gate_model`: the belief gate's model is pulled in Ollama. Missing: a failure when the chat model
 * runs on Ollama too (the owner runs keel locally), else a warning (the pattern gate stands in).
 * No Ollama at all: skipped (the pattern gate runs), a warning when the chat model is Ollama's (the
 * `model` check fails for it).
 */
export async function checkGateModel(
  config: KeelConfig,
  options: CheckOptions = {},
): Promise<CheckFinding> {
  const { ollamaHost: host, gateModel: model } = config.think;
  if (options.live === false) return skip(`${model} at ${host}: ${OFFLINE}`);
  const choice = await chosen(config, options);
  const local = !KeelError.isInstance(choice) && choice.provider === 'ollama';
  let names: string[];
  try {
    names = await listOllamaModels(host, {
      timeoutMs: options.timeoutMs ?? CHECK_TIMEOUT_MS,
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.fetch ? { fetch: options.fetch } : {}),
    });
  } catch (err) {
    if (!KeelError.isInstance(err)) throw err;
    const detail = `no Ollama at ${host}: the think service uses the pattern gate (${err.message})`;
    return local ? problem('warn', err.code, detail) : skip(detail);
  }
  if (ollamaHasModel(names, model)) {
    return ok(`${model} is pulled at ${host}: the think service's belief gate runs on Ollama`);
  }
  return problem(
    local ? 'fail' : 'warn',
    'MODEL_NOT_FOUND',
    `Ollama at ${host} has no model ${model} (ollama.gate_model): the think service falls back to the pattern gate`,
    `ollama pull ${model}`,
  );
}

/**
 * `discord_token`: Discord takes the bot token, and the application's settings let the owner add
 * and reach the bot (see `installProblems` of `@keel/outbound`).
 */
export async function checkDiscordToken(
  config: KeelConfig,
  options: CheckOptions = {},
): Promise<CheckFinding> {
  const { token, ownerId, apiUrl } = config.discord;
  if (!token) {
    return ownerId
      ? problem(
          'fail',
          'CONFIG_INVALID',
          'KEEL_DISCORD_OWNER_ID is set but DISCORD_TOKEN is not: keel discord cannot connect',
          'Set DISCORD_TOKEN to the bot token (Discord developer portal → your application → Bot).',
        )
      : skip('not configured (DISCORD_TOKEN)');
  }
  if (options.live === false) return skip(OFFLINE);
  const app = await fetchBotApplication({
    token,
    timeoutMs: options.timeoutMs ?? CHECK_TIMEOUT_MS,
    ...(apiUrl ? { apiUrl } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  const bot = `the bot is ${app.bot.tag} (id ${app.bot.id})`;
  const [first, ...more] = installProblems(app);
  if (!first) return ok(`Discord takes the token: ${bot}`);
  // The Message Content intent off: Discord refuses the door's connection (fail); the others stop
  // the owner from adding the bot to their server (warn: a bot already there keeps working).
  return problem(
    first.kind === 'message_content_off' ? 'fail' : 'warn',
    'DISCORD_AUTH',
    `Discord takes the token (${bot}), but ${[first, ...more].map((p) => p.message).join('; ')}`,
    first.fix,
  );
}

/** `discord_owner`: with a bot token, an owner is paired. */
export function checkDiscordOwner(config: KeelConfig): CheckFinding {
  const { token, ownerId } = config.discord;
  if (!token) return skip('not configured (DISCORD_TOKEN)');
  if (!ownerId) {
    return problem(
      'fail',
      'NOT_PAIRED',
      'a bot token is set but no owner is paired (KEEL_DISCORD_OWNER_ID): keel discord answers nobody and does not start',
      'Run `keel discord pair`: it shows the link that adds your bot to your own server, and a code to send it in its DM from your own account.',
    );
  }
  return ok(`paired: keel answers only Discord user ${ownerId}`);
}
