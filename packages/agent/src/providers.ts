/**
 * Which model the owner talks to: read from the environment (apps only read it) and probed.
 * Default: Anthropic when ANTHROPIC_API_KEY is set, else Ollama when it answers, else offline.
 *
 * @module
 */
import {
  AnthropicChatModel,
  type ChatModel,
  DEFAULT_OLLAMA_CHAT_MODEL,
  OllamaChatModel,
} from '@keel/agent';
import { KeelError } from '@keel/errors';

/** The chat configuration from the environment. */
export interface ChatConfig {
  /** KEEL_CHAT_PROVIDER, when set. */
  provider: 'anthropic' | 'ollama' | 'offline' | null;
  anthropicApiKey: string | null;
  /** ANTHROPIC_BASE_URL (a proxy or a test server). */
  anthropicBaseUrl: string | null;
  /** KEEL_MODEL: the Anthropic model. */
  model: string | null;
  /** OLLAMA_HOST, default http://127.0.0.1:11434. */
  ollamaHost: string;
  /** KEEL_OLLAMA_CHAT_MODEL. */
  ollamaModel: string;
}

/** Default Ollama address. */
export const DEFAULT_OLLAMA_HOST = 'http://127.0.0.1:11434';

/**
 * Parses the chat configuration from an environment (KEEL_CHAT_PROVIDER, ANTHROPIC_API_KEY,
 * ANTHROPIC_BASE_URL, KEEL_MODEL, OLLAMA_HOST, KEEL_OLLAMA_CHAT_MODEL).
 *
 * @param env - the app's environment (e.g. `process.env`).
 * @throws KeelError `INVALID_INPUT` for an unknown KEEL_CHAT_PROVIDER.
 */
export function loadChatConfig(env: Record<string, string | undefined>): ChatConfig {
  const raw = env.KEEL_CHAT_PROVIDER?.trim().toLowerCase() || null;
  if (raw && raw !== 'anthropic' && raw !== 'ollama' && raw !== 'offline') {
    throw new KeelError(
      'INVALID_INPUT',
      `KEEL_CHAT_PROVIDER is "${raw}"; use anthropic, ollama or offline`,
    );
  }
  let host = env.OLLAMA_HOST?.trim() || DEFAULT_OLLAMA_HOST;
  if (!/^https?:\/\//.test(host)) host = `http://${host}`;
  return {
    provider: raw as ChatConfig['provider'],
    anthropicApiKey: env.ANTHROPIC_API_KEY?.trim() || null,
    anthropicBaseUrl: env.ANTHROPIC_BASE_URL?.trim() || null,
    model: env.KEEL_MODEL?.trim() || null,
    ollamaHost: host,
    ollamaModel: env.KEEL_OLLAMA_CHAT_MODEL?.trim() || DEFAULT_OLLAMA_CHAT_MODEL,
  };
}

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
  provider: 'anthropic' | 'ollama' | 'offline';
  reason: string;
}

/**
 * Chooses the chat model.
 *
 * @throws KeelError `MODEL_AUTH` when KEEL_CHAT_PROVIDER=anthropic but no key is set.
 */
export async function chooseChatModel(config: ChatConfig): Promise<ChatChoice> {
  const anthropic = (): ChatChoice => {
    if (!config.anthropicApiKey) {
      throw new KeelError(
        'MODEL_AUTH',
        'KEEL_CHAT_PROVIDER is anthropic but ANTHROPIC_API_KEY is not set',
      );
    }
    const model = new AnthropicChatModel({
      apiKey: config.anthropicApiKey,
      ...(config.anthropicBaseUrl ? { baseURL: config.anthropicBaseUrl } : {}),
      ...(config.model ? { model: config.model } : {}),
    });
    return { model, provider: 'anthropic', reason: 'ANTHROPIC_API_KEY is set' };
  };
  const ollama = (reason: string): ChatChoice => ({
    model: new OllamaChatModel({ host: config.ollamaHost, model: config.ollamaModel }),
    provider: 'ollama',
    reason,
  });
  switch (config.provider) {
    case 'anthropic':
      return anthropic();
    case 'ollama':
      return ollama('KEEL_CHAT_PROVIDER=ollama');
    case 'offline':
      return { model: null, provider: 'offline', reason: 'KEEL_CHAT_PROVIDER=offline' };
    default:
      if (config.anthropicApiKey) return anthropic();
      if (await ollamaReachable(config.ollamaHost))
        return ollama(`Ollama answers at ${config.ollamaHost}`);
      return {
        model: null,
        provider: 'offline',
        reason: `no ANTHROPIC_API_KEY, and no Ollama at ${config.ollamaHost}`,
      };
  }
}
