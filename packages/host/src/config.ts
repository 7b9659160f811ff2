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
import { KeelError } from '@keel/errors';
import { DB_FILENAME } from '@keel/memory';
import { DEFAULTS, type KeelConfig, type Settings } from './config-shape.js';
import {
  SECRET_SETTINGS,
  SETTING_NAMES,
  SETTINGS_SCHEMA,
  type SettingName,
  settingInfo,
} from './settings.js';

export * from './settings.js';

/** Raw settings by variable name, as the environment (or the config file, mapped) holds them. */
export type RawSettings = Readonly<Record<string, string | undefined>>;

export * from './config-shape.js';
export type { QuietHours } from './quiet-hours.js';

/** The machine's IANA time zone (UTC when the runtime does not know it). */
export function machineZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}

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
      tools: v.KEEL_TOOLS,
      toolPolicies: v.KEEL_TOOL_POLICIES,
      workspace: v.KEEL_WORKSPACE,
      toolRoots: v.KEEL_TOOL_ROOTS,
      shellTimeoutS: v.KEEL_SHELL_TIMEOUT_S,
      fetchPrivate: v.KEEL_FETCH_PRIVATE,
      approvalTimeoutS: v.KEEL_APPROVAL_TIMEOUT_S,
      mcpConfig: v.KEEL_MCP_CONFIG,
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
    tools: toolsConfig(s, home),
    process: { parentPid: s.parentPid },
  };
}

/** The tools' settings, with paths resolved (`~` is the user's home; relative to the data folder). */
function toolsConfig(s: Required<Settings>, home: string): KeelConfig['tools'] {
  const path = (p: string) => (p === '~' || p.startsWith('~/') ? resolveHome(p) : resolve(home, p));
  const workspace = s.workspace ? path(s.workspace) : join(home, 'workspace');
  return {
    enabled: [...s.tools],
    policies: { ...s.toolPolicies },
    workspace,
    roots: [...new Set([workspace, ...s.toolRoots.map(path)])],
    shellTimeoutMs: s.shellTimeoutS * 1000,
    fetchPrivate: s.fetchPrivate === 'yes',
    approvalTimeoutMs: s.approvalTimeoutS * 1000,
    mcpConfig: s.mcpConfig ? path(s.mcpConfig) : join(home, 'mcp.json'),
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

export * from './config-table.js';
