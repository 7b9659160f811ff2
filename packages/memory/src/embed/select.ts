/**
 * Choosing the embedder: an explicit choice (`minilm`, `ollama`, `none`), else the first that is
 * available: the local MiniLM folder, then an Ollama server with the embed model. The result says
 * why, so `keel doctor` and recall can tell the owner.
 *
 * @module
 */
import { KeelError } from '@keel/errors';
import { MINILM, MiniLmEmbedder, modelInstalled } from './minilm.js';
import { DEFAULT_OLLAMA_EMBED_MODEL, OllamaEmbedder } from './ollama.js';
import type { Embedder, EmbedderInfo } from './types.js';

/** Which embedder to run; `auto` picks the first available. */
export type EmbedderChoice = 'auto' | 'minilm' | 'ollama' | 'none';
/** The accepted values of {@link EmbedderChoice}. */
export const EMBEDDER_CHOICES: readonly EmbedderChoice[] = ['auto', 'minilm', 'ollama', 'none'];

/** Options for {@link selectEmbedder}. Apps fill these from the environment; libraries never read it. */
export interface SelectEmbedderOptions {
  choice?: EmbedderChoice;
  /** `$KEEL_HOME/models`. */
  modelsDir: string;
  /** Ollama address; when absent, `auto` still tries Ollama's default. */
  ollamaHost?: string | null;
  /** Ollama embed model. Default nomic-embed-text. */
  ollamaModel?: string | null;
  /** How long the `auto` probe of Ollama may take, ms. Default 1500. */
  probeTimeoutMs?: number;
  /**
   * Ends the Ollama embedder's requests (the probe, and every later one) when it aborts: a caller
   * that stops waiting leaves no request holding the process open.
   */
  signal?: AbortSignal;
}

/** What {@link selectEmbedder} found. */
export interface EmbedderSelection {
  /** The embedder, initialised; null for none. */
  embedder: Embedder | null;
  info: EmbedderInfo | null;
  /** Why this one, or why none (one line). */
  reason: string;
}

/**
 * Picks and initialises an embedder. An explicit `minilm` or `ollama` that cannot run is an error;
 * `auto` falls through to none, with the reasons.
 *
 * @throws KeelError `EMBEDDER_UNAVAILABLE` for an explicit choice that cannot run;
 *   `CONFIG_INVALID` for an unknown choice.
 */
export async function selectEmbedder(options: SelectEmbedderOptions): Promise<EmbedderSelection> {
  const choice = options.choice ?? 'auto';
  if (!EMBEDDER_CHOICES.includes(choice)) {
    throw new KeelError(
      'CONFIG_INVALID',
      `KEEL_EMBEDDER "${choice}" is not an embedder; one of: ${EMBEDDER_CHOICES.join(', ')}`,
    );
  }
  if (choice === 'none')
    return { embedder: null, info: null, reason: 'embedder set to none (KEEL_EMBEDDER=none)' };
  const minilm = () => new MiniLmEmbedder({ modelsDir: options.modelsDir });
  const ollama = (timeoutMs?: number) =>
    new OllamaEmbedder({
      ...(options.ollamaHost ? { host: options.ollamaHost } : {}),
      model: options.ollamaModel || DEFAULT_OLLAMA_EMBED_MODEL,
      ...(timeoutMs ? { timeoutMs } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    });
  if (choice !== 'auto') {
    const embedder = choice === 'minilm' ? minilm() : ollama();
    const info = await embedder.init();
    return { embedder, info, reason: `chosen (KEEL_EMBEDDER=${choice})` };
  }
  const reasons: string[] = [];
  if (modelInstalled(options.modelsDir)) {
    const embedder = minilm();
    try {
      return { embedder, info: await embedder.init(), reason: 'local model installed' };
    } catch (err) {
      reasons.push((err as Error).message);
    }
  } else {
    reasons.push(`no local model (keel models pull ${MINILM.name})`);
  }
  const embedder = ollama(options.probeTimeoutMs ?? 1500);
  try {
    await embedder.init();
    // Probed with a short timeout; embed with the normal one.
    const full = ollama();
    return { embedder: full, info: await full.init(), reason: `Ollama at ${embedder.host}` };
  } catch (err) {
    reasons.push((err as Error).message);
  }
  return { embedder: null, info: null, reason: reasons.join('; ') };
}
