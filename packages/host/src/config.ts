/**
 * keel's configuration: one schema for every setting keel reads, with every default in one place
 * ({@link DEFAULTS}). Only this package and the apps read `process.env`; the apps hand it to
 * {@link loadConfig} and pass the typed {@link KeelConfig} (or parts of it) on as options.
 *
 * Sources: the environment today. A config file is the second source to come: it is merged UNDER
 * the environment (a variable always beats the file), through the `file` option of
 * {@link loadConfig}, with the same names; nothing reads a file yet.
 *
 * @module
 */
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import {
  type ChatProvider,
  DEFAULT_ANTHROPIC_BASE_URL,
  DEFAULT_ANTHROPIC_MODEL,
  DEFAULT_OLLAMA_CHAT_MODEL,
  DEFAULT_OPENAI_BASE_URL,
  DEFAULT_OPENAI_MODEL,
  OPENAI_MAX_TOKENS_PARAMS,
  type OpenAIMaxTokensParam,
} from '@keel/agent';
import { KeelError } from '@keel/errors';
import { DEFAULT_GATE_MODEL } from '@keel/gate';
import {
  DB_FILENAME,
  DEFAULT_HF_ENDPOINT,
  DEFAULT_OLLAMA_EMBED_MODEL,
  DEFAULT_OLLAMA_HOST,
  EMBEDDER_CHOICES,
  type EmbedderChoice,
} from '@keel/memory';
import { validateOwnerId } from '@keel/outbound';
import { z } from 'zod';
import { parseParentPid } from './process.js';

/** Raw settings by variable name, as the environment (or, later, the config file) holds them. */
export type RawSettings = Readonly<Record<string, string | undefined>>;

/** Quiet hours in the owner's time zone: `start` to `end` (hours 0..23, end exclusive, may wrap). */
export interface QuietHours {
  start: number;
  end: number;
}

/** Every setting, typed; a source may give any of them (see {@link DEFAULTS} for the rest). */
export interface Settings {
  /** `KEEL_HOME`: the data folder (`~` is the user's home; resolved to an absolute path). */
  home?: string;
  /** `KEEL_CHAT_PROVIDER`: anthropic, openai, ollama or offline; null chooses (see `chooseChatModel`). */
  chatProvider?: ChatProvider | null;
  /** `ANTHROPIC_API_KEY`; null: none. */
  anthropicApiKey?: string | null;
  /** `ANTHROPIC_BASE_URL`: the Anthropic API base (a proxy or a test server). */
  anthropicBaseUrl?: string;
  /** `KEEL_MODEL`: the Anthropic model. */
  anthropicModel?: string;
  /** `OPENAI_API_KEY`: the key of OpenAI or the OpenAI-compatible server; null: none. */
  openaiApiKey?: string | null;
  /** `OPENAI_BASE_URL`: the OpenAI-compatible API base, with its version path. */
  openaiBaseUrl?: string;
  /** `KEEL_OPENAI_MODEL`: the model on the OpenAI-compatible server. */
  openaiModel?: string;
  /** `KEEL_OPENAI_MAX_TOKENS_PARAM`: the field for the output limit; null: by host. */
  openaiMaxTokensParam?: OpenAIMaxTokensParam | null;
  /** `OLLAMA_HOST`: the Ollama server for chat, embeddings and the belief gate (normalised). */
  ollamaHost?: string;
  /** `KEEL_OLLAMA_CHAT_MODEL`: the Ollama chat model. */
  ollamaChatModel?: string;
  /**
   * `KEEL_MAX_TOKENS`: the longest reply of one model call (`max_tokens`), tokens; null: the
   * model's default (8192 for Claude, 4096 for the early Claude 3 models, at most 2048 for Ollama).
   */
  maxTokens?: number | null;
  /**
   * `KEEL_CONTEXT_TOKENS`: the chat model's context window, tokens; null: the model's own
   * (200,000 for Claude; for Ollama what it reports, up to 32,768).
   */
  contextTokens?: number | null;
  /** `KEEL_EMBEDDER`: minilm, ollama, none, or auto (the first available). */
  embedder?: EmbedderChoice;
  /** `KEEL_OLLAMA_EMBED_MODEL`: the Ollama embed model. */
  ollamaEmbedModel?: string;
  /** `KEEL_HF_ENDPOINT`: the hub `keel models pull` downloads from. */
  hfEndpoint?: string;
  /** `DISCORD_TOKEN`: the bot token; null: none (no Discord door, nothing sent to the owner). */
  discordToken?: string | null;
  /** `KEEL_DISCORD_OWNER_ID`: the only Discord user keel answers; null: none. */
  discordOwnerId?: string | null;
  /** `KEEL_DISCORD_API_URL`: Discord's REST API base; null: discord.js's own. */
  discordApiUrl?: string | null;
  /** `KEEL_DISCORD_GRACE_MS`: how long SIGTERM waits for the Discord turn in progress, ms. */
  discordGraceMs?: number;
  /** `KEEL_GATE_MODEL`: the belief gate's Ollama model. */
  gateModel?: string;
  /** `KEEL_THINK_INTERVAL_MIN`: minutes between think ticks. */
  thinkIntervalMin?: number;
  /** `KEEL_QUIET_HOURS`: when nobody is messaged; null: never quiet. */
  quietHours?: QuietHours | null;
  /** `KEEL_TZ`: the owner's IANA time zone; null: the machine's ({@link machineZone}). */
  tz?: string | null;
  /** `KEEL_CURATE_AT`: the local hour at or after which the nightly curator runs. */
  curateAt?: number;
  /** `KEEL_PARENT_PID` (internal): the `keel` process that started this one; null: none. */
  parentPid?: number | null;
}

/** The longest think interval accepted, minutes (one day: the curator needs a tick a night). */
export const MAX_INTERVAL_MIN = 1440;
/** The longest Discord grace period accepted, ms (an hour). */
export const MAX_GRACE_MS = 3_600_000;
/** The largest `KEEL_MAX_TOKENS` accepted (the most any Claude model writes in one reply). */
export const MAX_OUTPUT_TOKENS = 128_000;
/** The smallest and largest `KEEL_CONTEXT_TOKENS` accepted. */
export const CONTEXT_TOKENS_RANGE = [4_096, 2_000_000] as const;

/** Every setting's default: the one place defaults live. */
export const DEFAULTS = {
  home: '~/.keel',
  chatProvider: null,
  anthropicApiKey: null,
  anthropicBaseUrl: DEFAULT_ANTHROPIC_BASE_URL,
  anthropicModel: DEFAULT_ANTHROPIC_MODEL,
  openaiApiKey: null,
  openaiBaseUrl: DEFAULT_OPENAI_BASE_URL,
  openaiModel: DEFAULT_OPENAI_MODEL,
  openaiMaxTokensParam: null,
  ollamaHost: DEFAULT_OLLAMA_HOST,
  ollamaChatModel: DEFAULT_OLLAMA_CHAT_MODEL,
  maxTokens: null,
  contextTokens: null,
  embedder: 'auto',
  ollamaEmbedModel: DEFAULT_OLLAMA_EMBED_MODEL,
  hfEndpoint: DEFAULT_HF_ENDPOINT,
  discordToken: null,
  discordOwnerId: null,
  discordApiUrl: null,
  discordGraceMs: 15_000,
  gateModel: DEFAULT_GATE_MODEL,
  thinkIntervalMin: 15,
  quietHours: null,
  tz: null,
  curateAt: 3,
  parentPid: null,
} as const satisfies Required<Settings>;

/** keel's configuration, resolved and grouped by who uses it. */
export interface KeelConfig {
  /** The data folder, absolute (`KEEL_HOME`, default `~/.keel`). */
  home: string;
  /** Files inside {@link KeelConfig.home}. */
  paths: {
    /** The database, `<home>/keel.db`. */
    db: string;
    /** Local embedding models, `<home>/models`. */
    models: string;
  };
  /** The chat model (the shape of `@keel/agent`'s `ChatOptions`). */
  chat: {
    provider: ChatProvider | null;
    anthropicApiKey: string | null;
    anthropicBaseUrl: string;
    model: string;
    openaiApiKey: string | null;
    openaiBaseUrl: string;
    openaiModel: string;
    openaiMaxTokensParam: OpenAIMaxTokensParam | null;
    ollamaHost: string;
    ollamaModel: string;
    /** `max_tokens` of each call; null: the model's default. */
    maxTokens: number | null;
    /** The model's context window, tokens; null: the model's own. */
    contextTokens: number | null;
  };
  /** The embedder (see `@keel/memory`'s `selectEmbedder`) and where models are pulled from. */
  embedder: {
    choice: EmbedderChoice;
    ollamaHost: string;
    ollamaModel: string;
    hfEndpoint: string;
  };
  /** The Discord door and the owner's DMs. */
  discord: {
    token: string | null;
    ownerId: string | null;
    apiUrl: string | null;
    graceMs: number;
  };
  /** The think service (the shape of `@keel/think`'s `ThinkConfig`). */
  think: {
    intervalMin: number;
    quietHours: QuietHours | null;
    tz: string;
    curateAt: number;
    ollamaHost: string;
    gateModel: string;
  };
  /** This process. */
  process: {
    /** The PID of the `keel` CLI that started this process, or null. */
    parentPid: number | null;
  };
}

/** The machine's IANA time zone (UTC when the runtime does not know it). */
export function machineZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}

/**
 * `OLLAMA_HOST` as a URL: a bare `host:port` gets `http://`, the scheme is matched and written in
 * lower case, the rest is kept as given. Null when it is not an http(s) address.
 */
export function normalizeOllamaHost(raw: string): string | null {
  const scheme = /^(https?):\/\//i.exec(raw);
  const host = scheme
    ? `${scheme[1]!.toLowerCase()}://${raw.slice(scheme[0].length)}`
    : `http://${raw}`;
  try {
    const url = new URL(host);
    return url.hostname ? host : null;
  } catch {
    return null;
  }
}

/** A validation step: the typed value, or undefined when `raw` is not acceptable. */
type Check<T> = (raw: string) => T | undefined;

/** A schema field: trimmed, non-empty text checked by `check`; `form` says what is expected. */
function field<T>(form: string, check: Check<T>) {
  return z
    .string()
    .transform((raw, ctx) => {
      const value = check(raw);
      if (value === undefined) {
        ctx.addIssue({ code: 'custom', message: form });
        return z.NEVER;
      }
      return value;
    })
    .optional();
}

const CONTROL = /[\u0000-\u001f\u007f]/;
const plainText: Check<string> = (v) => (CONTROL.test(v) ? undefined : v);
const oneWord: Check<string> = (v) => (/\s/.test(v) || CONTROL.test(v) ? undefined : v);
const httpUrl: Check<string> = (v) => {
  try {
    return /^https?:$/.test(new URL(v).protocol) ? v : undefined;
  } catch {
    return undefined;
  }
};
const wholeNumber =
  (min: number, max: number): Check<number> =>
  (v) => {
    const n = /^\d+$/.test(v) ? Number(v) : Number.NaN;
    return Number.isSafeInteger(n) && n >= min && n <= max ? n : undefined;
  };
const oneOf =
  <T extends string>(choices: readonly T[]): Check<T> =>
  (v) => {
    const lower = v.toLowerCase();
    return choices.find((c) => c === lower);
  };
const quietHours: Check<QuietHours> = (v) => {
  const m = /^(\d{1,2})\s*-\s*(\d{1,2})$/.exec(v);
  const start = m ? Number(m[1]) : Number.NaN;
  const end = m ? Number(m[2]) : Number.NaN;
  return m && start <= 23 && end <= 23 && start !== end ? { start, end } : undefined;
};
const timeZone: Check<string> = (v) => {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: v });
    return v;
  } catch {
    return undefined;
  }
};
const ownerId: Check<string> = (v) => {
  try {
    return validateOwnerId(v);
  } catch {
    return undefined;
  }
};
const modelName = (example: string) =>
  field(`must be a model name without spaces, e.g. ${example}`, oneWord);
const address = (example: string) => field(`must be an http(s) address, e.g. ${example}`, httpUrl);
const secret = (what: string) =>
  field(
    `must be ${what} in one piece (no spaces or line breaks inside: check what was pasted)`,
    oneWord,
  );

/**
 * The schema of every setting, by variable name. Each value arrives trimmed and non-empty (an empty
 * value counts as unset); each field's issue message is the expected form.
 */
export const SETTINGS_SCHEMA = z.object({
  KEEL_HOME: field('must be a folder path, e.g. ~/.keel', plainText),
  KEEL_CHAT_PROVIDER: field(
    'must be anthropic, openai, ollama or offline',
    oneOf(['anthropic', 'openai', 'ollama', 'offline'] as const),
  ),
  ANTHROPIC_API_KEY: secret('the API key'),
  ANTHROPIC_BASE_URL: address(DEFAULT_ANTHROPIC_BASE_URL),
  KEEL_MODEL: modelName(DEFAULT_ANTHROPIC_MODEL),
  OPENAI_API_KEY: secret('the API key'),
  OPENAI_BASE_URL: address(`${DEFAULT_OPENAI_BASE_URL} or http://127.0.0.1:1234/v1`),
  KEEL_OPENAI_MODEL: modelName(DEFAULT_OPENAI_MODEL),
  KEEL_OPENAI_MAX_TOKENS_PARAM: field(
    `must be ${OPENAI_MAX_TOKENS_PARAMS.join(' or ')}`,
    oneOf(OPENAI_MAX_TOKENS_PARAMS),
  ),
  OLLAMA_HOST: field(
    'is not an address; use e.g. http://127.0.0.1:11434',
    (v) => normalizeOllamaHost(v) ?? undefined,
  ),
  KEEL_OLLAMA_CHAT_MODEL: modelName(DEFAULT_OLLAMA_CHAT_MODEL),
  KEEL_MAX_TOKENS: field(
    `must be a whole number of tokens from 64 to ${MAX_OUTPUT_TOKENS}, e.g. 8192`,
    wholeNumber(64, MAX_OUTPUT_TOKENS),
  ),
  KEEL_CONTEXT_TOKENS: field(
    `must be a whole number of tokens from ${CONTEXT_TOKENS_RANGE[0]} to ${CONTEXT_TOKENS_RANGE[1]}, e.g. 200000`,
    wholeNumber(...CONTEXT_TOKENS_RANGE),
  ),
  KEEL_EMBEDDER: field(`must be one of: ${EMBEDDER_CHOICES.join(', ')}`, oneOf(EMBEDDER_CHOICES)),
  KEEL_OLLAMA_EMBED_MODEL: modelName(DEFAULT_OLLAMA_EMBED_MODEL),
  KEEL_HF_ENDPOINT: address(DEFAULT_HF_ENDPOINT),
  DISCORD_TOKEN: secret('the bot token'),
  KEEL_DISCORD_OWNER_ID: field(
    'must be a Discord user id, 15 to 21 digits (Developer Mode, then Copy User ID)',
    ownerId,
  ),
  KEEL_DISCORD_API_URL: address('https://discord.com/api'),
  KEEL_DISCORD_GRACE_MS: field(
    `must be a whole number of milliseconds from 0 to ${MAX_GRACE_MS}, e.g. 15000`,
    wholeNumber(0, MAX_GRACE_MS),
  ),
  KEEL_GATE_MODEL: modelName(DEFAULT_GATE_MODEL),
  KEEL_THINK_INTERVAL_MIN: field(
    `must be a whole number from 1 to ${MAX_INTERVAL_MIN}, e.g. 15`,
    wholeNumber(1, MAX_INTERVAL_MIN),
  ),
  KEEL_QUIET_HOURS: field('must be two different hours 0..23 as START-END, e.g. 23-7', quietHours),
  KEEL_TZ: field('is not a time zone name (use an IANA name such as Europe/Berlin)', timeZone),
  KEEL_CURATE_AT: field('must be a whole number from 0 to 23, e.g. 3', wholeNumber(0, 23)),
  KEEL_PARENT_PID: field(
    'must be a process id (a whole number from 1); keel sets it itself when it starts a service, so unset it',
    (v) => parseParentPid(v) ?? undefined,
  ),
});

/** Every variable keel reads. */
export type SettingName = keyof typeof SETTINGS_SCHEMA.shape;
/** Every variable keel reads, in the schema's order. */
export const SETTING_NAMES = Object.keys(SETTINGS_SCHEMA.shape) as SettingName[];
/** Variables whose value is never printed (an error shows only its length). */
export const SECRET_SETTINGS: ReadonlySet<SettingName> = new Set([
  'ANTHROPIC_API_KEY',
  'OPENAI_API_KEY',
  'DISCORD_TOKEN',
]);

/** Options for {@link loadConfig}. */
export interface LoadConfigOptions {
  /**
   * Settings from the config file, by variable name: merged under the environment (the
   * environment wins for a variable set in both). The file itself is not read yet.
   */
  file?: RawSettings;
}

/** One raw value and where it came from. */
interface Given {
  value: string;
  from: 'the environment' | 'the config file';
}

/** The non-empty, trimmed values of every source, the environment last (it wins). */
function merge(env: RawSettings, file: RawSettings | undefined): Map<SettingName, Given> {
  const given = new Map<SettingName, Given>();
  const sources = [
    ['the config file', file ?? {}],
    ['the environment', env],
  ] as const;
  for (const [from, values] of sources) {
    for (const name of SETTING_NAMES) {
      const value = values[name]?.trim();
      if (value) given.set(name, { value, from });
    }
  }
  return given;
}

/** `~` and `~/…` as the user's home folder; then an absolute path. */
function resolveHome(path: string): string {
  const expanded = path === '~' || path.startsWith('~/') ? join(homedir(), path.slice(1)) : path;
  return resolve(expanded);
}

/**
 * Reads every setting from the environment (and, later, the config file beneath it), checks each
 * against {@link SETTINGS_SCHEMA}, fills the rest from {@link DEFAULTS} and groups the result.
 * Empty and blank values count as unset. `OLLAMA_HOST` is normalised once (a bare `host:port` gets
 * `http://`). Unknown variables are ignored.
 *
 * @param env - the process environment (or any name → value map).
 * @throws KeelError `CONFIG_INVALID` naming every bad variable, its value (secrets: only their
 *   length) and the expected form.
 */
export function loadConfig(env: RawSettings, options: LoadConfigOptions = {}): KeelConfig {
  const given = merge(env, options.file);
  const parsed = SETTINGS_SCHEMA.safeParse(
    Object.fromEntries([...given].map(([name, g]) => [name, g.value])),
  );
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => {
      const name = String(issue.path[0]) as SettingName;
      const g = given.get(name);
      const shown = !g
        ? ''
        : SECRET_SETTINGS.has(name)
          ? ` (${g.value.length} characters, not shown)`
          : ` "${g.value}"`;
      const where = g?.from === 'the config file' ? ' (in the config file)' : '';
      return { name, message: `${name}${shown}${where} ${issue.message}` };
    });
    throw new KeelError('CONFIG_INVALID', problems.map((p) => p.message).join('; '), {
      details: { variables: problems.map((p) => p.name) },
    });
  }
  const v = parsed.data;
  if (v.KEEL_MAX_TOKENS !== undefined && v.KEEL_CONTEXT_TOKENS !== undefined) {
    if (v.KEEL_MAX_TOKENS * 4 > v.KEEL_CONTEXT_TOKENS) {
      throw new KeelError(
        'CONFIG_INVALID',
        `KEEL_MAX_TOKENS "${v.KEEL_MAX_TOKENS}" must be at most a quarter of KEEL_CONTEXT_TOKENS "${v.KEEL_CONTEXT_TOKENS}" (the rest holds the conversation)`,
        { details: { variables: ['KEEL_MAX_TOKENS', 'KEEL_CONTEXT_TOKENS'] } },
      );
    }
  }
  const s: Required<Settings> = {
    ...DEFAULTS,
    ...defined({
      home: v.KEEL_HOME,
      chatProvider: v.KEEL_CHAT_PROVIDER,
      anthropicApiKey: v.ANTHROPIC_API_KEY,
      anthropicBaseUrl: v.ANTHROPIC_BASE_URL,
      anthropicModel: v.KEEL_MODEL,
      openaiApiKey: v.OPENAI_API_KEY,
      openaiBaseUrl: v.OPENAI_BASE_URL,
      openaiModel: v.KEEL_OPENAI_MODEL,
      openaiMaxTokensParam: v.KEEL_OPENAI_MAX_TOKENS_PARAM,
      ollamaHost: v.OLLAMA_HOST,
      ollamaChatModel: v.KEEL_OLLAMA_CHAT_MODEL,
      maxTokens: v.KEEL_MAX_TOKENS,
      contextTokens: v.KEEL_CONTEXT_TOKENS,
      embedder: v.KEEL_EMBEDDER,
      ollamaEmbedModel: v.KEEL_OLLAMA_EMBED_MODEL,
      hfEndpoint: v.KEEL_HF_ENDPOINT,
      discordToken: v.DISCORD_TOKEN,
      discordOwnerId: v.KEEL_DISCORD_OWNER_ID,
      discordApiUrl: v.KEEL_DISCORD_API_URL,
      discordGraceMs: v.KEEL_DISCORD_GRACE_MS,
      gateModel: v.KEEL_GATE_MODEL,
      thinkIntervalMin: v.KEEL_THINK_INTERVAL_MIN,
      quietHours: v.KEEL_QUIET_HOURS,
      tz: v.KEEL_TZ,
      curateAt: v.KEEL_CURATE_AT,
      parentPid: v.KEEL_PARENT_PID,
    }),
  };
  return group(s);
}

/** `values` without its undefined entries (so they do not hide a default). */
function defined<T extends object>(values: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined)) as {
    [K in keyof T]?: Exclude<T[K], undefined>;
  };
}

/** The flat settings, grouped by who uses them. */
function group(s: Required<Settings>): KeelConfig {
  const home = resolveHome(s.home);
  return {
    home,
    paths: { db: join(home, DB_FILENAME), models: join(home, 'models') },
    chat: {
      provider: s.chatProvider,
      anthropicApiKey: s.anthropicApiKey,
      anthropicBaseUrl: s.anthropicBaseUrl,
      model: s.anthropicModel,
      openaiApiKey: s.openaiApiKey,
      openaiBaseUrl: s.openaiBaseUrl,
      openaiModel: s.openaiModel,
      openaiMaxTokensParam: s.openaiMaxTokensParam,
      ollamaHost: s.ollamaHost,
      ollamaModel: s.ollamaChatModel,
      maxTokens: s.maxTokens,
      contextTokens: s.contextTokens,
    },
    embedder: {
      choice: s.embedder,
      ollamaHost: s.ollamaHost,
      ollamaModel: s.ollamaEmbedModel,
      hfEndpoint: s.hfEndpoint,
    },
    discord: {
      token: s.discordToken,
      ownerId: s.discordOwnerId,
      apiUrl: s.discordApiUrl,
      graceMs: s.discordGraceMs,
    },
    think: {
      intervalMin: s.thinkIntervalMin,
      quietHours: s.quietHours,
      tz: s.tz ?? machineZone(),
      curateAt: s.curateAt,
      ollamaHost: s.ollamaHost,
      gateModel: s.gateModel,
    },
    process: { parentPid: s.parentPid },
  };
}

/** What the Discord door needs to start. */
export interface DiscordDoorConfig {
  token: string;
  ownerId: string;
  /** Discord's REST API base; absent: discord.js's own. */
  apiUrl?: string;
  /** How long SIGTERM waits for the turn in progress, ms. */
  graceMs: number;
}

/**
 * The Discord door's settings, refusing to go on without an owner id (the door fails closed) or a
 * token.
 *
 * @throws KeelError `CONFIG_INVALID` when `KEEL_DISCORD_OWNER_ID` or `DISCORD_TOKEN` is not set.
 */
export function discordDoor(config: KeelConfig): DiscordDoorConfig {
  const { token, ownerId, apiUrl, graceMs } = config.discord;
  if (!ownerId) {
    throw new KeelError(
      'CONFIG_INVALID',
      'KEEL_DISCORD_OWNER_ID is not set; keel answers nobody on Discord without an owner (fail closed)',
    );
  }
  if (!token) {
    throw new KeelError(
      'CONFIG_INVALID',
      'DISCORD_TOKEN is not set (the bot token from the Discord developer portal)',
    );
  }
  return { token, ownerId, graceMs, ...(apiUrl ? { apiUrl } : {}) };
}
