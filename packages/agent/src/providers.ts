/**
 * Which model the owner talks to, chosen from typed options (the composition root, `@keel/host`,
 * fills them from the configuration; this package never reads the environment) and probed.
 * Default: Anthropic when an API key is given, else an OpenAI-compatible server when its key is
 * given, else Ollama when it answers, else offline.
 *
 * @module
 */
import { KeelError } from '@keel/errors';
import { DEFAULT_OLLAMA_HOST } from '@keel/memory';
import {
  AnthropicChatModel,
  DEFAULT_ANTHROPIC_BASE_URL,
  DEFAULT_ANTHROPIC_MODEL,
} from './model/anthropic.js';
import { DEFAULT_OLLAMA_CHAT_MODEL, OllamaChatModel } from './model/ollama.js';
// Loads the `openai` client itself only on the first request (a dynamic import inside).
import {
  DEFAULT_OPENAI_BASE_URL,
  DEFAULT_OPENAI_MODEL,
  OpenAIChatModel,
  type OpenAIMaxTokensParam,
} from './model/openai.js';
import type { ChatModel } from './model/types.js';

/** The chat providers keel can talk through; `offline` runs without a model. */
export type ChatProvider = 'anthropic' | 'openai' | 'ollama' | 'offline';

/** Options for {@link chooseChatModel}; every field has a default in {@link CHAT_DEFAULTS}. */
export interface ChatOptions {
  /**
   * The provider to use; null chooses (Anthropic with a key, else OpenAI-compatible with a key,
   * else Ollama when it answers, else offline).
   */
  provider?: ChatProvider | null;
  /** The Anthropic API key; null: none. */
  anthropicApiKey?: string | null;
  /** The Anthropic API base (a proxy or a test server). */
  anthropicBaseUrl?: string;
  /** The Anthropic model. */
  model?: string;
  /** The OpenAI (or OpenAI-compatible server's) API key; null: none (local servers need none). */
  openaiApiKey?: string | null;
  /** The OpenAI-compatible API base with its version path, e.g. `http://127.0.0.1:1234/v1`. */
  openaiBaseUrl?: string;
  /** The model name on the OpenAI-compatible server. */
  openaiModel?: string;
  /**
   * The request field for the output limit; null: `max_completion_tokens` for api.openai.com,
   * else `max_tokens`.
   */
  openaiMaxTokensParam?: OpenAIMaxTokensParam | null;
  /** The Ollama server, e.g. `http://127.0.0.1:11434`. */
  ollamaHost?: string;
  /** The Ollama chat model (one that supports tools). */
  ollamaModel?: string;
  /** How long the probe of Ollama may take when choosing, ms. */
  probeTimeoutMs?: number;
  /** `max_tokens` of each model call; null: the model's default (see the providers). */
  maxTokens?: number | null;
  /** The model's context window, tokens; null: the model's own (see the providers). */
  contextTokens?: number | null;
  /**
   * How long the chat model (Anthropic, OpenAI-compatible, Ollama) may send nothing before the
   * attempt is retried, ms; null: the providers' default (30 s). See `RetryOptions.stallTimeoutMs`.
   */
  stallTimeoutMs?: number | null;
}

/** The defaults of {@link ChatOptions}. */
export const CHAT_DEFAULTS = {
  provider: null,
  anthropicApiKey: null,
  anthropicBaseUrl: DEFAULT_ANTHROPIC_BASE_URL,
  model: DEFAULT_ANTHROPIC_MODEL,
  openaiApiKey: null,
  openaiBaseUrl: DEFAULT_OPENAI_BASE_URL,
  openaiModel: DEFAULT_OPENAI_MODEL,
  openaiMaxTokensParam: null,
  ollamaHost: DEFAULT_OLLAMA_HOST,
  ollamaModel: DEFAULT_OLLAMA_CHAT_MODEL,
  probeTimeoutMs: 400,
  maxTokens: null,
  contextTokens: null,
  stallTimeoutMs: null,
} as const satisfies Required<ChatOptions>;

/** True when an Ollama server answers at `host` within `timeoutMs`. */
export async function ollamaReachable(host: string, timeoutMs = 400): Promise<boolean> {
  try {
    const res = await fetch(new URL('/api/tags', host), { signal: AbortSignal.timeout(timeoutMs) });
    return res.ok;
  } catch {
    return false;
  }
}

/** The chosen model, or null for offline, with why. */
export interface ChatChoice {
  model: ChatModel | null;
  provider: ChatProvider;
  reason: string;
}

/**
 * Chooses the chat model: the provider asked for, else Anthropic when its key is given, else the
 * OpenAI-compatible server when its key is given, else Ollama when it answers at `ollamaHost`
 * within `probeTimeoutMs` (default 400 ms), else offline. Choosing `openai` loads nothing yet: the
 * `openai` client is imported on the model's first request.
 *
 * @throws KeelError `MODEL_AUTH` when the provider is anthropic but no key is given.
 */
export async function chooseChatModel(options: ChatOptions = {}): Promise<ChatChoice> {
  const o = { ...CHAT_DEFAULTS, ...options };
  const limits = {
    ...(o.maxTokens === null ? {} : { maxOutputTokens: o.maxTokens }),
    ...(o.contextTokens === null ? {} : { contextTokens: o.contextTokens }),
  };
  const stall = o.stallTimeoutMs === null ? {} : { stallTimeoutMs: o.stallTimeoutMs };
  const anthropic = (): ChatChoice => {
    if (!o.anthropicApiKey) {
      throw new KeelError(
        'MODEL_AUTH',
        'KEEL_CHAT_PROVIDER is anthropic but ANTHROPIC_API_KEY is not set',
      );
    }
    const model = new AnthropicChatModel({
      apiKey: o.anthropicApiKey,
      baseURL: o.anthropicBaseUrl,
      model: o.model,
      ...limits,
      ...stall,
    });
    return { model, provider: 'anthropic', reason: 'ANTHROPIC_API_KEY is set' };
  };
  const openai = (reason: string): ChatChoice => ({
    model: new OpenAIChatModel({
      apiKey: o.openaiApiKey,
      baseURL: o.openaiBaseUrl,
      model: o.openaiModel,
      maxTokensParam: o.openaiMaxTokensParam,
      ...limits,
      ...stall,
    }),
    provider: 'openai',
    reason,
  });
  const ollama = (reason: string): ChatChoice => ({
    model: new OllamaChatModel({ host: o.ollamaHost, model: o.ollamaModel, ...limits, ...stall }),
    provider: 'ollama',
    reason,
  });
  switch (o.provider) {
    case 'anthropic':
      return anthropic();
    case 'openai':
      return openai(`KEEL_CHAT_PROVIDER=openai, ${o.openaiBaseUrl}`);
    case 'ollama':
      return ollama('KEEL_CHAT_PROVIDER=ollama');
    case 'offline':
      return { model: null, provider: 'offline', reason: 'KEEL_CHAT_PROVIDER=offline' };
    default:
      if (o.anthropicApiKey) return anthropic();
      if (o.openaiApiKey) return openai(`OPENAI_API_KEY is set, ${o.openaiBaseUrl}`);
      if (await ollamaReachable(o.ollamaHost, o.probeTimeoutMs))
        return ollama(`Ollama answers at ${o.ollamaHost}`);
      return {
        model: null,
        provider: 'offline',
        reason: `no ANTHROPIC_API_KEY or OPENAI_API_KEY, and no Ollama at ${o.ollamaHost}`,
      };
  }
}
