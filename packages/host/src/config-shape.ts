/**
 * keel's configuration as typed: every setting ({@link Settings}), its default ({@link DEFAULTS}:
 * the one place defaults live), and the configuration resolved and grouped by who uses it
 * ({@link KeelConfig}). `config.ts` loads it.
 *
 * @module
 */
import {
  type ChatProvider,
  DEFAULT_ANTHROPIC_BASE_URL,
  DEFAULT_ANTHROPIC_MODEL,
  DEFAULT_OLLAMA_CHAT_MODEL,
  DEFAULT_OPENAI_BASE_URL,
  DEFAULT_OPENAI_MODEL,
  type OpenAIMaxTokensParam,
} from '@keel/agent';
import { DEFAULT_GATE_MODEL } from '@keel/gate';
import {
  DEFAULT_HF_ENDPOINT,
  DEFAULT_OLLAMA_EMBED_MODEL,
  DEFAULT_OLLAMA_HOST,
  type EmbedderChoice,
} from '@keel/memory';
import type { Policy } from '@keel/tools';
import type { QuietHours } from './quiet-hours.js';
import { BUILTIN_TOOLS, type BuiltinTool } from './settings.js';

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
  /** `KEEL_TOOLS`: the built-in tools the model is offered. */
  tools?: BuiltinTool[];
  /** `KEEL_TOOL_POLICIES`: the owner's policies by tool, server or server tool name. */
  toolPolicies?: Record<string, Policy>;
  /** `KEEL_WORKSPACE`: the workspace folder; null: `<home>/workspace`. */
  workspace?: string | null;
  /** `KEEL_TOOL_ROOTS`: more folders the file tools may reach. */
  toolRoots?: string[];
  /** `KEEL_SHELL_TIMEOUT_S`: the longest a shell command runs, seconds. */
  shellTimeoutS?: number;
  /** `KEEL_FETCH_PRIVATE`: whether `fetch_url` may reach loopback and private networks. */
  fetchPrivate?: 'yes' | 'no';
  /** `KEEL_APPROVAL_TIMEOUT_S`: how long an approval waits for the owner, seconds. */
  approvalTimeoutS?: number;
  /** `KEEL_MCP_CONFIG`: the MCP servers file; null: `<home>/mcp.json`. */
  mcpConfig?: string | null;
  /** `KEEL_PARENT_PID` (internal): the `keel` process that started this one; null: none. */
  parentPid?: number | null;
}

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
  tools: [...BUILTIN_TOOLS],
  toolPolicies: {},
  workspace: null,
  toolRoots: [],
  shellTimeoutS: 60,
  fetchPrivate: 'no',
  approvalTimeoutS: 120,
  mcpConfig: null,
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
  /** The model's action tools (`@keel/tools`): which are on, what they may reach, the owner's policies. */
  tools: {
    /** The built-in tools offered. */
    enabled: BuiltinTool[];
    /** The owner's policies, by tool, `mcp:<server>` or `mcp:<server>/<tool>`. */
    policies: Record<string, Policy>;
    /** The workspace, absolute: `shell` runs in it; the file tools' first root. */
    workspace: string;
    /** Every folder the file tools may reach, absolute, the workspace first. */
    roots: string[];
    /** The longest a shell command runs, ms. */
    shellTimeoutMs: number;
    /** Whether `fetch_url` may reach loopback and private networks. */
    fetchPrivate: boolean;
    /** How long an approval waits for the owner, ms; no answer is no. */
    approvalTimeoutMs: number;
    /** The MCP servers file, absolute. */
    mcpConfig: string;
  };
  /** This process. */
  process: {
    /** The PID of the `keel` CLI that started this process, or null. */
    parentPid: number | null;
  };
}
