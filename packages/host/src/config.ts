/**
 * keel's configuration: one schema for every setting keel reads, with every default in one place
 * ({@link DEFAULTS}). Only this package and the apps read `process.env`; the apps hand it to
 * {@link loadConfig} and pass the typed {@link KeelConfig} (or parts of it) on as options.
 *
 * Sources: the environment, and `$KEEL_HOME/config.toml` beneath it (a variable always beats the
 * file). Each setting is declared once, in {@link SETTINGS}: its variable, its key in the file,
 * its check, its meaning and its default. This module is pure: `config-file.ts` reads and writes
 * the file and hands its values to {@link loadConfig} through the `file` option.
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
import { formatQuietHours, parseQuietHours, type QuietHours } from './quiet-hours.js';

/** Raw settings by variable name, as the environment (or the config file, mapped) holds them. */
export type RawSettings = Readonly<Record<string, string | undefined>>;

export type { QuietHours } from './quiet-hours.js';

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
  /**
   * `KEEL_STALL_TIMEOUT_MS`: how long the chat model (Anthropic, OpenAI-compatible, Ollama) may
   * send nothing before the attempt is given up and retried (`MODEL_TIMEOUT` after the last), ms.
   */
  stallTimeoutMs?: number;
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
  /** `KEEL_LOG_MAX_MB`: the size at which a service's log is rotated, MB. */
  logMaxMb?: number;
  /** `KEEL_LOG_KEEP`: how many rotated logs of each service are kept. */
  logKeep?: number;
  /** `KEEL_PARENT_PID` (internal): the `keel` process that started this one; null: none. */
  parentPid?: number | null;
}

/** The longest think interval accepted, minutes (one day: the curator needs a tick a night). */
export const MAX_INTERVAL_MIN = 1440;
/** The longest Discord grace period accepted, ms (an hour). */
export const MAX_GRACE_MS = 3_600_000;
/** The largest `KEEL_LOG_MAX_MB` accepted, MB (a gigabyte). */
export const MAX_LOG_MB = 1024;
/** The most rotated logs `KEEL_LOG_KEEP` keeps of each service. */
export const MAX_LOG_KEEP = 20;
/** The largest `KEEL_MAX_TOKENS` accepted (the most any Claude model writes in one reply). */
export const MAX_OUTPUT_TOKENS = 128_000;
/** The shortest and longest `KEEL_STALL_TIMEOUT_MS` accepted, ms. */
export const STALL_TIMEOUT_RANGE = [1_000, 600_000] as const;
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
  stallTimeoutMs: 30_000,
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
  logMaxMb: 10,
  logKeep: 3,
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
    /** Silence after which a hosted model's attempt is retried, ms. */
    stallTimeoutMs: number;
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
  /** The services' logs, `$KEEL_HOME/logs/<name>.log` (see `@keel/host`'s `rotateLog`). */
  logs: {
    /** The size at which a log is rotated, bytes. */
    maxBytes: number;
    /** How many rotated logs are kept (`<name>.log.1` the newest). */
    keep: number;
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
const quietHours: Check<QuietHours> = (v) => parseQuietHours(v);
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
const modelName = (example: string) => ({
  form: `must be a model name without spaces, e.g. ${example}`,
  check: oneWord,
});
const address = (example: string) => ({
  form: `must be an http(s) address, e.g. ${example}`,
  check: httpUrl,
});
const secretText = (what: string) => ({
  form: `must be ${what} in one piece (no spaces or line breaks inside: check what was pasted)`,
  check: oneWord,
  secret: true,
});

/** How `config.toml` writes a setting: a quoted string, or a bare whole number. */
export type TomlType = 'string' | 'integer';

/** What keel knows about one setting besides its check: where it is set and what it means. */
export interface SettingInfo<K extends string | null = string | null> {
  /**
   * Its key in `$KEEL_HOME/config.toml`, dotted: `think.interval_min` is `interval_min` under
   * `[think]`, `time_zone` a key before any section. Null: environment only (`KEEL_HOME`, the
   * folder that holds the file, and keel's internal variables).
   */
  key: K;
  /** How the file writes it. */
  toml: TomlType;
  /** The expected form, as an error says it ("must be …"). */
  form: string;
  /** What it is for, as the README's Configuration table says it. */
  meaning: string;
  /** The field of {@link Settings} (and of {@link DEFAULTS}) it sets. */
  setting: keyof Settings;
  /** The default as the README says it; absent: the value in {@link DEFAULTS}. */
  defaultText?: string;
  /** A credential: never printed (an error gives its length; `keel config` masks it). */
  secret?: boolean;
  /** Set by keel itself, never by the owner: not in the README, the file or `keel config`. */
  internal?: boolean;
}

/**
 * One setting: its {@link SettingInfo} and its schema field, built from `check`; `stored`, when
 * given, is the form the config file keeps a valid value in (else the text as given).
 */
function setting<T, const K extends string | null>(
  spec: SettingInfo<K> & { check: Check<T>; stored?: (value: T) => string },
) {
  const { check, ...info } = spec;
  return { ...info, schema: field(spec.form, check) };
}

/**
 * Every setting keel reads, by environment variable, in the order the README and `keel config
 * list` show them: its key in `config.toml`, its check (the field of {@link SETTINGS_SCHEMA}), the
 * form an error asks for, what it means and its default. The one place a setting is declared.
 */
export const SETTINGS = {
  KEEL_HOME: setting({
    key: null,
    toml: 'string',
    setting: 'home',
    form: 'must be a folder path, e.g. ~/.keel',
    check: plainText,
    meaning:
      'the data folder (made mode 0700, with a `.gitignore` that ignores it all): the database (`keel.db`, mode 0600, WAL) and `config.toml` live in it, so it is set in the environment only',
  }),
  KEEL_CHAT_PROVIDER: setting({
    key: 'model.provider',
    toml: 'string',
    setting: 'chatProvider',
    form: 'must be anthropic, openai, ollama or offline',
    check: oneOf(['anthropic', 'openai', 'ollama', 'offline'] as const),
    meaning: 'the chat model: `anthropic`, `openai`, `ollama` or `offline`',
    defaultText:
      'anthropic when an Anthropic key is set, else openai when an OpenAI key is set, else ollama when it answers at `ollama.host`, else offline',
  }),
  KEEL_MAX_TOKENS: setting({
    key: 'model.max_tokens',
    toml: 'integer',
    setting: 'maxTokens',
    form: `must be a whole number of tokens from 64 to ${MAX_OUTPUT_TOKENS}, e.g. 8192`,
    check: wholeNumber(64, MAX_OUTPUT_TOKENS),
    meaning: `the longest reply of one model call (\`max_tokens\`), 64 to ${MAX_OUTPUT_TOKENS}; at most a quarter of \`model.context_tokens\``,
    defaultText:
      "the model's: 8192 for Claude (4096 for the early Claude 3 models), 2048 for Ollama (an eighth of a smaller window)",
  }),
  KEEL_CONTEXT_TOKENS: setting({
    key: 'model.context_tokens',
    toml: 'integer',
    setting: 'contextTokens',
    form: `must be a whole number of tokens from ${CONTEXT_TOKENS_RANGE[0]} to ${CONTEXT_TOKENS_RANGE[1]}, e.g. 200000`,
    check: wholeNumber(...CONTEXT_TOKENS_RANGE),
    meaning: `the chat model's context window, ${CONTEXT_TOKENS_RANGE[0]} to ${CONTEXT_TOKENS_RANGE[1]}`,
    defaultText:
      "the model's: 200000 for Claude; for Ollama what `/api/show` reports, at most 32768 (sent as `num_ctx`)",
  }),
  KEEL_STALL_TIMEOUT_MS: setting({
    key: 'model.stall_timeout_ms',
    toml: 'integer',
    setting: 'stallTimeoutMs',
    form: `must be a whole number of milliseconds from ${STALL_TIMEOUT_RANGE[0]} to ${STALL_TIMEOUT_RANGE[1]}, e.g. 30000`,
    check: wholeNumber(...STALL_TIMEOUT_RANGE),
    meaning:
      'how long the chat model (Anthropic, OpenAI-compatible, Ollama) may send nothing before keel retries (then `MODEL_TIMEOUT`), ms; the door says keel waits after a third of it, at most 5 s',
  }),
  ANTHROPIC_API_KEY: setting({
    key: 'anthropic.api_key',
    toml: 'string',
    setting: 'anthropicApiKey',
    ...secretText('the API key'),
    meaning: 'your Anthropic API key',
    defaultText: 'unset',
  }),
  ANTHROPIC_BASE_URL: setting({
    key: 'anthropic.base_url',
    toml: 'string',
    setting: 'anthropicBaseUrl',
    ...address(DEFAULT_ANTHROPIC_BASE_URL),
    meaning: 'a proxy or test server for the Anthropic API',
  }),
  KEEL_MODEL: setting({
    key: 'anthropic.model',
    toml: 'string',
    setting: 'anthropicModel',
    ...modelName(DEFAULT_ANTHROPIC_MODEL),
    meaning: 'the Anthropic model',
  }),
  OPENAI_API_KEY: setting({
    key: 'openai.api_key',
    toml: 'string',
    setting: 'openaiApiKey',
    ...secretText('the API key'),
    meaning: 'your OpenAI key, or the key of the OpenAI-compatible server (a local one needs none)',
    defaultText: 'unset',
  }),
  OPENAI_BASE_URL: setting({
    key: 'openai.base_url',
    toml: 'string',
    setting: 'openaiBaseUrl',
    ...address(`${DEFAULT_OPENAI_BASE_URL} or http://127.0.0.1:1234/v1`),
    meaning:
      "the OpenAI-compatible API, with its version path (OpenRouter, LM Studio, vLLM, llama.cpp's server)",
  }),
  KEEL_OPENAI_MODEL: setting({
    key: 'openai.model',
    toml: 'string',
    setting: 'openaiModel',
    ...modelName(DEFAULT_OPENAI_MODEL),
    meaning: 'the model on that server (one that calls tools)',
  }),
  KEEL_OPENAI_MAX_TOKENS_PARAM: setting({
    key: 'openai.max_tokens_param',
    toml: 'string',
    setting: 'openaiMaxTokensParam',
    form: `must be ${OPENAI_MAX_TOKENS_PARAMS.join(' or ')}`,
    check: oneOf(OPENAI_MAX_TOKENS_PARAMS),
    meaning: `the request field for the output limit: ${OPENAI_MAX_TOKENS_PARAMS.map((p) => `\`${p}\``).join(' or ')}`,
    defaultText: '`max_completion_tokens` for api.openai.com, else `max_tokens`',
  }),
  OLLAMA_HOST: setting({
    key: 'ollama.host',
    toml: 'string',
    setting: 'ollamaHost',
    form: 'is not an address; use e.g. http://127.0.0.1:11434',
    check: (v) => normalizeOllamaHost(v) ?? undefined,
    meaning: 'the Ollama server (chat, embeddings and the belief gate)',
  }),
  KEEL_OLLAMA_CHAT_MODEL: setting({
    key: 'ollama.chat_model',
    toml: 'string',
    setting: 'ollamaChatModel',
    ...modelName(DEFAULT_OLLAMA_CHAT_MODEL),
    meaning: 'the Ollama chat model (one that supports tools)',
  }),
  KEEL_OLLAMA_EMBED_MODEL: setting({
    key: 'ollama.embed_model',
    toml: 'string',
    setting: 'ollamaEmbedModel',
    ...modelName(DEFAULT_OLLAMA_EMBED_MODEL),
    meaning: 'the Ollama embed model',
  }),
  KEEL_GATE_MODEL: setting({
    key: 'ollama.gate_model',
    toml: 'string',
    setting: 'gateModel',
    ...modelName(DEFAULT_GATE_MODEL),
    meaning:
      'the belief gate: a small local model in Ollama that decides which of your sentences become beliefs (`ollama pull` it; without it a pattern gate stands in)',
  }),
  KEEL_EMBEDDER: setting({
    key: 'embedder.provider',
    toml: 'string',
    setting: 'embedder',
    form: `must be one of: ${EMBEDDER_CHOICES.join(', ')}`,
    check: oneOf(EMBEDDER_CHOICES),
    meaning: `the embedder: ${EMBEDDER_CHOICES.map((c) => `\`${c}\``).join(', ')}`,
    defaultText:
      '`auto`: minilm when `keel models pull` has installed it, else ollama when it answers at `ollama.host` with the embed model, else none (lexical recall)',
  }),
  KEEL_HF_ENDPOINT: setting({
    key: 'embedder.hf_endpoint',
    toml: 'string',
    setting: 'hfEndpoint',
    ...address(DEFAULT_HF_ENDPOINT),
    meaning: 'the hub `keel models pull` downloads from (a mirror)',
  }),
  DISCORD_TOKEN: setting({
    key: 'discord.token',
    toml: 'string',
    setting: 'discordToken',
    ...secretText('the bot token'),
    meaning: 'the Discord bot token (`keel discord`; the think service DMs you with it)',
    defaultText: 'unset (required by `keel discord`)',
  }),
  KEEL_DISCORD_OWNER_ID: setting({
    key: 'discord.owner_id',
    toml: 'string',
    setting: 'discordOwnerId',
    form: 'must be a Discord user id, 15 to 21 digits (Developer Mode, then Copy User ID)',
    check: ownerId,
    meaning: 'the only Discord user keel answers (a string of digits, in quotes)',
    defaultText: 'unset (required: `keel discord` refuses to start without one)',
  }),
  KEEL_DISCORD_API_URL: setting({
    key: 'discord.api_url',
    toml: 'string',
    setting: 'discordApiUrl',
    ...address('https://discord.com/api'),
    meaning: "a proxy or test server for Discord's REST API",
    defaultText: '`https://discord.com/api`',
  }),
  KEEL_DISCORD_GRACE_MS: setting({
    key: 'discord.grace_ms',
    toml: 'integer',
    setting: 'discordGraceMs',
    form: `must be a whole number of milliseconds from 0 to ${MAX_GRACE_MS}, e.g. 15000`,
    check: wholeNumber(0, MAX_GRACE_MS),
    meaning: 'how long SIGTERM waits for the Discord turn in progress, ms',
  }),
  KEEL_TZ: setting({
    key: 'time_zone',
    toml: 'string',
    setting: 'tz',
    form: 'is not a time zone name (use an IANA name such as Europe/Berlin)',
    check: timeZone,
    meaning: 'your IANA time zone (quiet hours, the night, "yesterday" in a turn)',
    defaultText: "the machine's",
  }),
  KEEL_QUIET_HOURS: setting({
    key: 'quiet_hours',
    toml: 'string',
    setting: 'quietHours',
    form: 'must be two different times of day as START-END, e.g. 23-7, 11pm-7am or 22:30-06:15',
    check: quietHours,
    stored: formatQuietHours,
    meaning:
      'hours in which nobody is messaged, `START-END` in your time zone: `23-7`, `11pm-7am`, `22:30-06:15` (kept as `23-7`, or `HH:MM-HH:MM` with minutes)',
    defaultText: 'none',
  }),
  KEEL_THINK_INTERVAL_MIN: setting({
    key: 'think.interval_min',
    toml: 'integer',
    setting: 'thinkIntervalMin',
    form: `must be a whole number from 1 to ${MAX_INTERVAL_MIN}, e.g. 15`,
    check: wholeNumber(1, MAX_INTERVAL_MIN),
    meaning: `minutes between think ticks, 1 to ${MAX_INTERVAL_MIN}`,
  }),
  KEEL_CURATE_AT: setting({
    key: 'think.night_hour',
    toml: 'integer',
    setting: 'curateAt',
    form: 'must be a whole number from 0 to 23, e.g. 3',
    check: wholeNumber(0, 23),
    meaning:
      'the nightly curator: the local hour (0 to 23) from which it consolidates memory, once a night',
  }),
  KEEL_LOG_MAX_MB: setting({
    key: 'logs.max_mb',
    toml: 'integer',
    setting: 'logMaxMb',
    form: `must be a whole number of megabytes from 1 to ${MAX_LOG_MB}, e.g. 10`,
    check: wholeNumber(1, MAX_LOG_MB),
    meaning: `the size at which a service's log (\`$KEEL_HOME/logs/<name>.log\`) is rotated, MB, 1 to ${MAX_LOG_MB}`,
  }),
  KEEL_LOG_KEEP: setting({
    key: 'logs.keep',
    toml: 'integer',
    setting: 'logKeep',
    form: `must be a whole number from 1 to ${MAX_LOG_KEEP}, e.g. 3`,
    check: wholeNumber(1, MAX_LOG_KEEP),
    meaning: `how many rotated logs of each service are kept (\`<name>.log.1\` the newest), 1 to ${MAX_LOG_KEEP}`,
  }),
  KEEL_PARENT_PID: setting({
    key: null,
    toml: 'integer',
    setting: 'parentPid',
    form: 'must be a process id (a whole number from 1); keel sets it itself when it starts a service, so unset it',
    check: (v) => parseParentPid(v) ?? undefined,
    meaning: 'the `keel` process that started this one (keel sets it)',
    internal: true,
  }),
};

/** Every setting keel reads, by variable name. */
export type SettingName = keyof typeof SETTINGS;
/** A key of `config.toml` (dotted: `think.night_hour`). */
export type ConfigKey = Exclude<(typeof SETTINGS)[SettingName]['key'], null>;

/** The schema fields of `settings`, by variable name. */
function shapeOf<S extends Record<string, { schema: z.ZodType }>>(
  settings: S,
): { [N in keyof S]: S[N]['schema'] } {
  return Object.fromEntries(Object.entries(settings).map(([name, s]) => [name, s.schema])) as {
    [N in keyof S]: S[N]['schema'];
  };
}

/**
 * The schema of every setting, by variable name (built from {@link SETTINGS}). Each value arrives
 * trimmed and non-empty (an empty value counts as unset); each field's issue message is the
 * expected form.
 */
export const SETTINGS_SCHEMA = z.object(shapeOf(SETTINGS));

/** Every variable keel reads, in the order of {@link SETTINGS}. */
export const SETTING_NAMES = Object.keys(SETTINGS) as SettingName[];

/** A setting's {@link SettingInfo}. */
export function settingInfo(name: SettingName): SettingInfo {
  return SETTINGS[name];
}

/** Variables whose value is never printed (an error shows only its length). */
export const SECRET_SETTINGS: ReadonlySet<SettingName> = new Set(
  SETTING_NAMES.filter((name) => settingInfo(name).secret),
);

/** Every key `config.toml` may hold, in the order of {@link SETTINGS}. */
export const CONFIG_KEYS = SETTING_NAMES.flatMap((name) => {
  const key = settingInfo(name).key;
  return key === null ? [] : [key as ConfigKey];
});

/** The variable a `config.toml` key sets. */
export const SETTING_BY_KEY: ReadonlyMap<string, SettingName> = new Map(
  SETTING_NAMES.flatMap((name) => {
    const key = settingInfo(name).key;
    return key === null ? [] : [[key, name] as const];
  }),
);

/** Where the config file's values came from, so an error can name the file, line and key. */
export interface FileOrigin {
  /** The file, absolute. */
  path: string;
  /** The line (from 1) of each variable's key in the file, when known. */
  lines: Partial<Record<SettingName, number>>;
}

/** Options for {@link loadConfig}. */
export interface LoadConfigOptions {
  /**
   * Settings from the config file, by variable name: merged under the environment (the
   * environment wins for a variable set in both). `readConfig` reads them from
   * `$KEEL_HOME/config.toml`.
   */
  file?: RawSettings;
  /** Where {@link LoadConfigOptions.file} was read: errors then name the file, line and key. */
  origin?: FileOrigin;
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
 * How an error names a given value: the variable (or, read from a file whose origin is known, the
 * key with the file and line), the value in quotes (a secret: only its length) and where it came
 * from.
 */
function described(name: SettingName, g: Given | undefined, origin: FileOrigin | undefined) {
  const shown = !g
    ? ''
    : SECRET_SETTINGS.has(name)
      ? ` (${g.value.length} characters, not shown)`
      : ` "${g.value}"`;
  if (g?.from !== 'the config file') return `${name}${shown}`;
  const key = settingInfo(name).key;
  if (!origin || key === null) return `${name}${shown} (in the config file)`;
  const line = origin.lines[name];
  return `${key}${shown} (in ${origin.path}${line ? `, line ${line}` : ''})`;
}

/**
 * The fix for bad settings: when every one came from the config file, the lines to edit and the
 * `keel config` commands; else the code's (environment variables).
 */
function fixFor(
  names: SettingName[],
  given: Map<SettingName, Given>,
  origin: FileOrigin | undefined,
): string | undefined {
  if (!origin || !names.every((n) => given.get(n)?.from === 'the config file')) return undefined;
  const keys = [...new Set(names)].map((n) => settingInfo(n).key);
  const lines = [...new Set(names.map((n) => origin.lines[n]).filter((l) => l !== undefined))];
  const at = lines.length ? ` line${lines.length > 1 ? 's' : ''} ${lines.join(', ')} of` : '';
  return `Correct${at} ${origin.path} as said above, or run \`keel config set ${keys[0]} <value>\` (\`keel config unset ${keys[0]}\` goes back to the default).`;
}

/**
 * Whether a reply limit fits a context window: the reply may take at most a quarter of it (the
 * rest holds the conversation).
 */
export function replyFitsWindow(maxTokens: number, contextTokens: number): boolean {
  return maxTokens * 4 <= contextTokens;
}

/**
 * Reads every setting from the environment and the config file's values beneath it
 * (`options.file`; `readConfig` reads them from `$KEEL_HOME/config.toml`), checks each against
 * {@link SETTINGS_SCHEMA}, fills the rest from {@link DEFAULTS} and groups the result. Empty and
 * blank values count as unset. `OLLAMA_HOST` is normalised once (a bare `host:port` gets
 * `http://`). Unknown variables are ignored.
 *
 * @param env - the process environment (or any name → value map).
 * @throws KeelError `CONFIG_INVALID` naming every bad setting (a variable, or a key with the file
 *   and line), its value (secrets: only their length) and the expected form.
 */
export function loadConfig(env: RawSettings, options: LoadConfigOptions = {}): KeelConfig {
  const given = merge(env, options.file);
  const { origin } = options;
  const parsed = SETTINGS_SCHEMA.safeParse(
    Object.fromEntries([...given].map(([name, g]) => [name, g.value])),
  );
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => {
      const name = String(issue.path[0]) as SettingName;
      return { name, message: `${described(name, given.get(name), origin)} ${issue.message}` };
    });
    const names = problems.map((p) => p.name);
    const fix = fixFor(names, given, origin);
    throw new KeelError('CONFIG_INVALID', problems.map((p) => p.message).join('; '), {
      details: { variables: names, ...(origin ? { file: origin.path } : {}) },
      ...(fix ? { fix } : {}),
    });
  }
  const v = parsed.data;
  if (v.KEEL_MAX_TOKENS !== undefined && v.KEEL_CONTEXT_TOKENS !== undefined) {
    if (!replyFitsWindow(v.KEEL_MAX_TOKENS, v.KEEL_CONTEXT_TOKENS)) {
      const names: SettingName[] = ['KEEL_MAX_TOKENS', 'KEEL_CONTEXT_TOKENS'];
      const fix = fixFor(names, given, origin);
      throw new KeelError(
        'CONFIG_INVALID',
        `${described('KEEL_MAX_TOKENS', given.get('KEEL_MAX_TOKENS'), origin)} must be at most a quarter of ${described('KEEL_CONTEXT_TOKENS', given.get('KEEL_CONTEXT_TOKENS'), origin)} (the rest holds the conversation)`,
        {
          details: { variables: names, ...(origin ? { file: origin.path } : {}) },
          ...(fix ? { fix } : {}),
        },
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
      stallTimeoutMs: v.KEEL_STALL_TIMEOUT_MS,
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
      logMaxMb: v.KEEL_LOG_MAX_MB,
      logKeep: v.KEEL_LOG_KEEP,
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
      stallTimeoutMs: s.stallTimeoutMs,
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
    logs: { maxBytes: s.logMaxMb * 1024 * 1024, keep: s.logKeep },
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

/** The fix for a missing bot token, in config terms. */
export const DISCORD_TOKEN_FIX =
  '`keel config set discord.token -` and paste the bot token (or `keel setup`, or DISCORD_TOKEN in the environment).';

/**
 * The Discord door's settings, refusing to go on without an owner id (the door fails closed) or a
 * token.
 *
 * @throws KeelError `CONFIG_INVALID` when the owner id (`KEEL_DISCORD_OWNER_ID`,
 *   `discord.owner_id`) or the token (`DISCORD_TOKEN`, `discord.token`) is not set.
 */
export function discordDoor(config: KeelConfig): DiscordDoorConfig {
  const { token, ownerId, apiUrl, graceMs } = config.discord;
  if (!ownerId) {
    throw new KeelError(
      'CONFIG_INVALID',
      'KEEL_DISCORD_OWNER_ID is not set (discord.owner_id in config.toml); keel answers nobody on Discord without an owner (fail closed)',
      {
        fix: '`keel discord pair` pairs your Discord account (or `keel config set discord.owner_id <your user id>`).',
      },
    );
  }
  if (!token) {
    throw new KeelError(
      'CONFIG_INVALID',
      'DISCORD_TOKEN is not set (discord.token in config.toml: the bot token from the Discord developer portal)',
      { fix: DISCORD_TOKEN_FIX },
    );
  }
  return { token, ownerId, graceMs, ...(apiUrl ? { apiUrl } : {}) };
}

/** One row of the README's Configuration table: key, variable, meaning, default (Markdown). */
export type ConfigTableRow = readonly [key: string, variable: string, meaning: string, def: string];

/** The header of the README's Configuration table. */
export const CONFIG_TABLE_HEADER: ConfigTableRow = ['key', 'variable', 'meaning', 'default'];

/**
 * The README's Configuration table, from {@link SETTINGS}: one row per setting the owner sets
 * (keel's internal variables aside), its key in `config.toml` (`—`: environment only), its
 * variable, its meaning and its default (the text given, else {@link DEFAULTS}' value).
 */
export function configTableRows(): ConfigTableRow[] {
  return SETTING_NAMES.filter((name) => !settingInfo(name).internal).map((name) => {
    const info = settingInfo(name);
    const value: unknown = DEFAULTS[info.setting];
    const def = info.defaultText ?? (value === null ? 'unset' : `\`${String(value)}\``);
    return [info.key === null ? '—' : `\`${info.key}\``, `\`${name}\``, info.meaning, def];
  });
}

/** {@link configTableRows} as a Markdown table (unpadded; the formatter pads it). */
export function configTableMarkdown(): string {
  const line = (cells: readonly string[]) =>
    `| ${cells.map((c) => c.replaceAll('|', '\\|')).join(' | ')} |`;
  return [
    line(CONFIG_TABLE_HEADER),
    line(CONFIG_TABLE_HEADER.map(() => '---')),
    ...configTableRows().map(line),
  ].join('\n');
}
