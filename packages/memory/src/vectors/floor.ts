/**
 * The relevance floor of the vector arm: a nearest neighbour whose cosine similarity to the query
 * is below its embedder's floor is not a result. Without one, the nearest rows are returned however
 * far they are, so a question about nothing keel knows ("nothingmatcheszzz") gets three unrelated
 * turns in hybrid mode where lexical recall says nothing was found.
 *
 * A cosine scale belongs to one model (the same cut-off keeps everything with one model and drops
 * real matches with another: "The Threshold Trap: Why Fixed Cosine Similarity Cutoffs Fail Across
 * Embedding Models", clawRxiv 2604.01081, 2026), so the floor is per embedder, keyed by provider
 * and model as {@link EmbedderInfo} names them, and calibrated on the shared data by
 * `bench/similarity-floor.ts`: the similarity of each question's nearest neighbour, and of its
 * evidence, against the nearest neighbour of nonsense and unrelated queries. See
 * docs/decisions/2026-12-02-vector-relevance-floor.md.
 *
 * @module
 */
import type { Embedder, EmbedderInfo } from '../embed/types.js';

/**
 * The floor of all-MiniLM-L6-v2 (keel's local embedder, and Ollama's `all-minilm`, the same
 * weights): 0.25.
 *
 * Provisional: not measured on the machines keel is built on, where no sentence-embedding weights
 * can be fetched. Set from the model's published behaviour (in the study above, unrelated sentence
 * pairs score at most 0.075 and paraphrases at least 0.564), above the unrelated pairs with room
 * for the nearest of many unrelated rows scoring higher than any one pair. `node --import tsx
 * bench/similarity-floor.ts --embedder minilm` measures it on the shared data wherever the model is
 * installed (`keel models pull`); its figures replace this value.
 */
export const MINILM_SIMILARITY_FLOOR = 0.25;

/**
 * The floor for an embedder keel has no calibration for: the MiniLM floor
 * ({@link MINILM_SIMILARITY_FLOOR}), the only model of keel's defaults. A model whose unrelated
 * rows score higher keeps some noise above it (as every model did before there was a floor).
 * Calibrate it with `bench/similarity-floor.ts` and add it to {@link SIMILARITY_FLOORS}.
 */
export const DEFAULT_SIMILARITY_FLOOR = MINILM_SIMILARITY_FLOOR;

/**
 * Calibrated floors by `provider|model` (as {@link EmbedderInfo} names them; an Ollama model
 * without a tag is `:latest`'s).
 */
export const SIMILARITY_FLOORS: Readonly<Record<string, number>> = {
  'minilm|Xenova/all-MiniLM-L6-v2': MINILM_SIMILARITY_FLOOR,
  'ollama|all-minilm': MINILM_SIMILARITY_FLOOR,
};

/**
 * The similarity floor for `embedder`: its own `similarityFloor` when it states one (test doubles,
 * benchmarks' stand-ins), else the calibrated floor of its provider and model
 * ({@link SIMILARITY_FLOORS}), else {@link DEFAULT_SIMILARITY_FLOOR}.
 *
 * @returns a cosine similarity in [-1, 1]; a neighbour below it is not a result.
 */
export function similarityFloor(
  embedder: Pick<Embedder, 'similarityFloor'>,
  info: Pick<EmbedderInfo, 'provider' | 'model'>,
): number {
  if (embedder.similarityFloor !== undefined) return embedder.similarityFloor;
  const model = info.model.endsWith(':latest') ? info.model.slice(0, -7) : info.model;
  return SIMILARITY_FLOORS[`${info.provider}|${model}`] ?? DEFAULT_SIMILARITY_FLOOR;
}
