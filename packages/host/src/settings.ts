/**
 * Every setting keel reads, declared once ({@link SETTINGS}): its variable, its key in
 * `config.toml`, its check (a field of {@link SETTINGS_SCHEMA}), the form an error asks for, its
 * meaning and its default text. `config.ts` loads and groups them.
 *
 * @module
 */
import {
  DEFAULT_ANTHROPIC_BASE_URL,
  DEFAULT_ANTHROPIC_MODEL,
  DEFAULT_OLLAMA_CHAT_MODEL,
  DEFAULT_OPENAI_BASE_URL,
  DEFAULT_OPENAI_MODEL,
  OPENAI_MAX_TOKENS_PARAMS,
} from '@keel/agent';
import { DEFAULT_GATE_MODEL } from '@keel/gate';
import { DEFAULT_HF_ENDPOINT, DEFAULT_OLLAMA_EMBED_MODEL, EMBEDDER_CHOICES } from '@keel/memory';
import type { Policy } from '@keel/tools';
import { z } from 'zod';
import {
  address,
  BUILTIN_TOOLS,
  type BuiltinTool,
  type Check,
  field,
  modelName,
  normalizeOllamaHost,
  oneOf,
  ownerId,
  pathList,
  plainText,
  policyList,
  quietHours,
  secretText,
  timeZone,
  toolList,
  wholeNumber,
} from './setting-checks.js';

export { BUILTIN_TOOLS, type BuiltinTool, normalizeOllamaHost } from './setting-checks.js';

import type { Settings } from './config.js';
import { parseParentPid } from './process.js';
import { formatQuietHours } from './quiet-hours.js';

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
/** The longest a shell command may run, seconds (one hour). */
export const MAX_SHELL_TIMEOUT_S = 3600;
/** The longest keel waits for the owner to approve a tool call, seconds (one hour). */
export const MAX_APPROVAL_TIMEOUT_S = 3600;
/** The shortest and longest `KEEL_STALL_TIMEOUT_MS` accepted, ms. */
export const STALL_TIMEOUT_RANGE = [1_000, 600_000] as const;
/** The smallest and largest `KEEL_CONTEXT_TOKENS` accepted. */
export const CONTEXT_TOKENS_RANGE = [4_096, 2_000_000] as const;

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
  KEEL_TOOLS: setting({
    key: 'tools.enabled',
    toml: 'string',
    setting: 'tools',
    form: `must be built-in tools separated by commas (${BUILTIN_TOOLS.join(', ')}), or none`,
    check: toolList,
    stored: (names: BuiltinTool[]) => (names.length ? names.join(',') : 'none'),
    meaning:
      'the built-in tools the model is offered, separated by commas, or `none`; what each may do without asking is `tools.policies`',
    defaultText: `\`${BUILTIN_TOOLS.join(',')}\``,
  }),
  KEEL_TOOL_POLICIES: setting({
    key: 'tools.policies',
    toml: 'string',
    setting: 'toolPolicies',
    form: 'must be name=allow|ask|deny pairs separated by commas, e.g. shell=deny,fetch_url=allow,mcp:files=allow',
    check: policyList,
    stored: (p: Record<string, Policy>) =>
      Object.entries(p)
        .map(([name, policy]) => `${name}=${policy}`)
        .join(','),
    meaning:
      'what a tool may do without asking: `name=allow|ask|deny` pairs for a built-in tool, an MCP server (`mcp:<server>`) or one of its tools (`mcp:<server>/<tool>`)',
    defaultText:
      'reading files and listing folders inside the allowed roots, and the memory tools and `remind`, `allow`; everything that writes, runs code, reaches the network or messages someone `ask`',
  }),
  KEEL_WORKSPACE: setting({
    key: 'tools.workspace',
    toml: 'string',
    setting: 'workspace',
    form: 'must be a folder path, e.g. ~/keel-workspace',
    check: plainText,
    meaning:
      'the folder `shell` runs in and the first root the file tools may reach (made when first used)',
    defaultText: '`$KEEL_HOME/workspace`',
  }),
  KEEL_TOOL_ROOTS: setting({
    key: 'tools.roots',
    toml: 'string',
    setting: 'toolRoots',
    form: 'must be folder paths separated by colons, e.g. ~/notes:~/code',
    check: pathList,
    stored: (paths: string[]) => paths.join(':'),
    meaning:
      'more folders the file tools may read (and, when you allow it, write), separated by `:`; nothing outside them and the workspace is reached',
    defaultText: 'none (the workspace only)',
  }),
  KEEL_SHELL_TIMEOUT_S: setting({
    key: 'tools.shell_timeout_s',
    toml: 'integer',
    setting: 'shellTimeoutS',
    form: `must be a whole number of seconds from 1 to ${MAX_SHELL_TIMEOUT_S}, e.g. 60`,
    check: wholeNumber(1, MAX_SHELL_TIMEOUT_S),
    meaning: `how long a \`shell\` command may run before it is stopped, seconds, 1 to ${MAX_SHELL_TIMEOUT_S}`,
  }),
  KEEL_FETCH_PRIVATE: setting({
    key: 'tools.fetch_private',
    toml: 'string',
    setting: 'fetchPrivate',
    form: 'must be yes or no',
    check: oneOf(['yes', 'no'] as const),
    meaning:
      '`yes` lets `fetch_url` reach this machine and private networks (127.0.0.1, 10/8, 192.168/16, …); `no` refuses them',
  }),
  KEEL_APPROVAL_TIMEOUT_S: setting({
    key: 'tools.approval_timeout_s',
    toml: 'integer',
    setting: 'approvalTimeoutS',
    form: `must be a whole number of seconds from 5 to ${MAX_APPROVAL_TIMEOUT_S}, e.g. 120`,
    check: wholeNumber(5, MAX_APPROVAL_TIMEOUT_S),
    meaning: `how long keel waits for your answer to a tool it asks about before it takes it as no, seconds, 5 to ${MAX_APPROVAL_TIMEOUT_S}`,
  }),
  KEEL_MCP_CONFIG: setting({
    key: 'tools.mcp_config',
    toml: 'string',
    setting: 'mcpConfig',
    form: 'must be a file path, e.g. ~/.keel/mcp.json',
    check: plainText,
    meaning:
      "the MCP servers whose tools keel offers, in Claude Desktop's `mcpServers` JSON shape (see MCP servers below)",
    defaultText: '`$KEEL_HOME/mcp.json`',
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
