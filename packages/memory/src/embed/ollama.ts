/**
 * Embeddings from Ollama's `/api/embed` endpoint through the official `ollama` client.
 *
 * @module
 */

import { KeelError } from '@keel/errors';
import { Ollama } from 'ollama';
import { checkEmbeddings, type Embedder, type EmbedderInfo, type EmbedPurpose } from './types.js';

/** The default Ollama embed model. */
export const DEFAULT_OLLAMA_EMBED_MODEL = 'nomic-embed-text';
/** Ollama's default address. */
export const DEFAULT_OLLAMA_HOST = 'http://127.0.0.1:11434';

/** Options for {@link OllamaEmbedder}. */
export interface OllamaEmbedderOptions {
  /** Server address. Default {@link DEFAULT_OLLAMA_HOST}. */
  host?: string;
  /** Embed model. Default {@link DEFAULT_OLLAMA_EMBED_MODEL}. */
  model?: string;
  /** How long to wait for the server, ms. Default 30000 (a cold model load is slow). */
  timeoutMs?: number;
  /** Ends every request, under way or later, when it aborts (as {@link OllamaEmbedder.close} does). */
  signal?: AbortSignal;
}

/** nomic-embed-text is trained with task prefixes; other models get the text unchanged. */
function prefix(model: string, purpose: EmbedPurpose): string {
  if (!model.startsWith('nomic-embed-text')) return '';
  return purpose === 'query' ? 'search_query: ' : 'search_document: ';
}

/** An {@link Embedder} backed by an Ollama server. */
export class OllamaEmbedder implements Embedder {
  readonly provider = 'ollama';
  readonly host: string;
  readonly model: string;
  private readonly client: Ollama;
  private readonly timeoutMs: number;
  private info: EmbedderInfo | null = null;
  /** Aborted by {@link close}: every request under way ends, and no other starts. */
  private readonly closing = new AbortController();

  constructor(options: OllamaEmbedderOptions = {}) {
    this.host = options.host ?? DEFAULT_OLLAMA_HOST;
    this.model = options.model ?? DEFAULT_OLLAMA_EMBED_MODEL;
    this.timeoutMs = options.timeoutMs ?? 30_000;
    const timeoutMs = this.timeoutMs;
    const closing = options.signal
      ? AbortSignal.any([this.closing.signal, options.signal])
      : this.closing.signal;
    this.client = new Ollama({
      host: this.host,
      fetch: (input, init) =>
        fetch(input, {
          ...init,
          signal: AbortSignal.any([AbortSignal.timeout(timeoutMs), closing]),
        }),
    });
  }

  /**
   * Ends every request under way (each rejects with `EMBEDDER_UNAVAILABLE`), so a caller that
   * stopped waiting (a bounded embed) leaves no connection holding the process open.
   */
  async close(): Promise<void> {
    this.closing.abort(new Error('the embedder was closed'));
  }

  private unavailable(err: unknown): KeelError {
    if (KeelError.isInstance(err)) return err;
    const message = (err as Error).message ?? String(err);
    return new KeelError(
      'EMBEDDER_UNAVAILABLE',
      `Ollama at ${this.host}: ${message === 'fetch failed' ? 'not reachable' : message}`,
      { cause: err, details: { host: this.host, model: this.model } },
    );
  }

  /**
   * Checks the server lists the model and learns its dimension from one probe embedding.
   *
   * @throws KeelError `EMBEDDER_UNAVAILABLE` (unreachable, or the model is not pulled),
   *   `EMBEDDING_INVALID` (the probe returned no vector).
   */
  async init(): Promise<EmbedderInfo> {
    if (this.info) return this.info;
    let names: string[];
    try {
      names = (await this.client.list()).models.map((m) => m.name);
    } catch (err) {
      throw this.unavailable(err);
    }
    const wanted = this.model.includes(':') ? this.model : `${this.model}:latest`;
    if (!names.includes(this.model) && !names.includes(wanted)) {
      throw new KeelError(
        'EMBEDDER_UNAVAILABLE',
        `Ollama at ${this.host} has no model "${this.model}" (run: ollama pull ${this.model})`,
        { details: { host: this.host, model: this.model, models: names } },
      );
    }
    const probe = await this.raw(['dimension probe'], 'document');
    const dim = probe[0]?.length ?? 0;
    if (dim === 0) {
      throw new KeelError(
        'EMBEDDING_INVALID',
        `Ollama model "${this.model}" returned an empty embedding`,
        { details: { host: this.host, model: this.model } },
      );
    }
    this.info = { provider: this.provider, model: this.model, dim, dtype: 'server' };
    return this.info;
  }

  private async raw(texts: readonly string[], purpose: EmbedPurpose): Promise<number[][]> {
    try {
      const p = prefix(this.model, purpose);
      const r = await this.client.embed({ model: this.model, input: texts.map((t) => p + t) });
      return r.embeddings;
    } catch (err) {
      throw this.unavailable(err);
    }
  }

  /** @throws KeelError `EMBEDDER_UNAVAILABLE`, `EMBEDDING_INVALID`. */
  async embed(texts: readonly string[], purpose: EmbedPurpose): Promise<Float32Array[]> {
    const info = await this.init();
    if (texts.length === 0) return [];
    return checkEmbeddings(info, texts, await this.raw(texts, purpose));
  }
}
