/**
 * The `Embedder` contract: text in, one fixed-length vector per text out. Implementations live
 * beside it (transformers.js MiniLM, Ollama); the store depends only on this file.
 *
 * @module
 */
import { KeelError } from '@keel/errors';

/** What a text is embedded for. Some models (nomic-embed-text) prefix queries and documents differently. */
export type EmbedPurpose = 'query' | 'document';

/** What an embedder is; its {@link fingerprint} is recorded with the vectors it made. */
export interface EmbedderInfo {
  /** "minilm", "ollama", or a test double's name. */
  provider: string;
  /** The model id, e.g. "Xenova/all-MiniLM-L6-v2" or "nomic-embed-text". */
  model: string;
  /** Vector length. */
  dim: number;
  /** Weight precision, e.g. "q8", "fp32"; "server" when a server decides. */
  dtype: string;
}

/** Turns text into vectors. */
export interface Embedder {
  /** The provider's name, known before {@link Embedder.init}. */
  readonly provider: string;
  /**
   * Loads the model or probes the server. Never downloads anything. Safe to call again (it
   * returns the same info).
   *
   * @throws KeelError `EMBEDDER_UNAVAILABLE` when the model folder or the server is missing.
   */
  init(): Promise<EmbedderInfo>;
  /**
   * One vector per text, in order.
   *
   * @throws KeelError `EMBEDDER_UNAVAILABLE` (the provider failed), `EMBEDDING_INVALID`.
   */
  embed(texts: readonly string[], purpose: EmbedPurpose): Promise<Float32Array[]>;
  /** Releases the model (optional). */
  close?(): Promise<void>;
  /**
   * The cosine similarity under which a nearest neighbour is not a result, when this embedder
   * states its own (test doubles, benchmarks' stand-ins); otherwise the floor calibrated for its
   * provider and model is used (`vectors/floor.ts`).
   */
  readonly similarityFloor?: number;
}

/** The stable string recorded in `meta`: provider, model, dimension and dtype. */
export function fingerprint(info: EmbedderInfo): string {
  return `${info.provider}|${info.model}|${info.dim}|${info.dtype}`;
}

/**
 * Checks what a provider returned and L2-normalises it: exactly one vector per text, each of
 * length `dim`, finite and not all zeros. A bad vector is an error, never stored.
 *
 * @throws KeelError `EMBEDDING_INVALID`.
 */
export function checkEmbeddings(
  info: Pick<EmbedderInfo, 'provider' | 'model' | 'dim'>,
  texts: readonly string[],
  vectors: readonly ArrayLike<number>[] | undefined,
): Float32Array[] {
  const who = `${info.provider} (${info.model})`;
  if (!Array.isArray(vectors) || vectors.length !== texts.length) {
    throw new KeelError(
      'EMBEDDING_INVALID',
      `${who} returned ${Array.isArray(vectors) ? vectors.length : 'no'} vector(s) for ${texts.length} text(s)`,
      { details: { provider: info.provider, model: info.model } },
    );
  }
  return vectors.map((v, i) => {
    if (!v || v.length !== info.dim) {
      throw new KeelError(
        'EMBEDDING_INVALID',
        `${who} returned a vector of length ${v?.length ?? 0} for text ${i}; expected ${info.dim}`,
        { details: { provider: info.provider, model: info.model, index: i } },
      );
    }
    const out = Float32Array.from(v);
    let norm = 0;
    for (const x of out) {
      if (!Number.isFinite(x)) {
        throw new KeelError(
          'EMBEDDING_INVALID',
          `${who} returned a non-finite value in vector ${i}`,
        );
      }
      norm += x * x;
    }
    if (norm === 0)
      throw new KeelError('EMBEDDING_INVALID', `${who} returned an all-zero vector for text ${i}`);
    const scale = 1 / Math.sqrt(norm);
    for (let j = 0; j < out.length; j++) out[j]! *= scale;
    return out;
  });
}
