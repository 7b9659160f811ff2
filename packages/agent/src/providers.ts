/**
 * Which model the owner talks to, chosen from typed options (the composition root, `@keel/host`,
 * fills them from the configuration; this package never reads the environment) and probed.
 * Default: Anthropic when an API key is given, else Ollama when it answers, else offline.
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
import type { ChatModel } from './model/types.js';

/** The chat providers keel can talk through; `offline` runs without a model. */
export type ChatProvider = 'anthropic' | 'ollama' | 'offline';

/** Options for {@link chooseChatModel}; every field has a default in {@link CHAT_DEFAULTS}. */
export interface ChatOptions {
  /** The provider to use; null chooses (Anthropic with a key, else Ollama when it answers, else offline). */
  provider?: ChatProvider | null;
  /** The Anthropic API key; null: none. */
  anthropicApiKey?: string | null;
  /** The Anthropic API base (a proxy or a test server). */
  anthropicBaseUrl?: string;
  /** The Anthropic model. */
  model?: string;
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
}

/** The defaults of {@link ChatOptions}. */
export const CHAT_DEFAULTS = {
  provider: null,
  anthropicApiKey: null,
  anthropicBaseUrl: DEFAULT_ANTHROPIC_BASE_URL,
  model: DEFAULT_ANTHROPIC_MODEL,
  ollamaHost: DEFAULT_OLLAMA_HOST,
  ollamaModel: DEFAULT_OLLAMA_CHAT_MODEL,
  probeTimeoutMs: 400,
  maxTokens: null,
  contextTokens: null,
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
 * Chooses the chat model: the provider asked for, else Anthropic when a key is given, else Ollama
 * when it answers at `ollamaHost` within `probeTimeoutMs` (default 400 ms), else offline.
 *
 * @throws KeelError `MODEL_AUTH` when the provider is anthropic but no key is given.
 */
export async function chooseChatModel(options: ChatOptions = {}): Promise<ChatChoice> {
  const o = { ...CHAT_DEFAULTS, ...options };
  const limits = {
    ...(o.maxTokens === null ? {} : { maxOutputTokens: o.maxTokens }),
    ...(o.contextTokens === null ? {} : { contextTokens: o.contextTokens }),
  };
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
    });
    return { model, provider: 'anthropic', reason: 'ANTHROPIC_API_KEY is set' };
  };
  const ollama = (reason: string): ChatChoice => ({
    model: new OllamaChatModel({ host: o.ollamaHost, model: o.ollamaModel, ...limits }),
    provider: 'ollama',
    reason,
  });
  switch (o.provider) {
    case 'anthropic':
      return anthropic();
    case 'ollama':
      return ollama('KEEL_CHAT_PROVIDER=ollama');
    case 'offline':
      return { model: null, provider: 'offline', reason: 'KEEL_CHAT_PROVIDER=offline' };
    default:
      if (o.anthropicApiKey) return anthropic();
      if (await ollamaReachable(o.ollamaHost, o.probeTimeoutMs))
        return ollama(`Ollama answers at ${o.ollamaHost}`);
      return {
        model: null,
        provider: 'offline',
        reason: `no ANTHROPIC_API_KEY, and no Ollama at ${o.ollamaHost}`,
      };
  }
}
