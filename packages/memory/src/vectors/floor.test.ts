// The vector arm's relevance floor (vectors/floor.ts): per embedder, by provider and model.

import { describe, expect, it } from 'vitest';
import {
  DEFAULT_SIMILARITY_FLOOR,
  MINILM_SIMILARITY_FLOOR,
  SIMILARITY_FLOORS,
  similarityFloor,
} from './floor.js';

describe('similarityFloor', () => {
  it('is the calibrated floor of the provider and model', () => {
    expect(similarityFloor({}, { provider: 'minilm', model: 'Xenova/all-MiniLM-L6-v2' })).toBe(
      MINILM_SIMILARITY_FLOOR,
    );
    // Ollama's all-minilm is the same weights; a model without a tag is :latest's.
    expect(similarityFloor({}, { provider: 'ollama', model: 'all-minilm:latest' })).toBe(
      SIMILARITY_FLOORS['ollama|all-minilm'],
    );
    expect(similarityFloor({}, { provider: 'ollama', model: 'all-minilm' })).toBe(
      MINILM_SIMILARITY_FLOOR,
    );
  });

  it('an embedder without a calibration gets the default; one that states its own, that', () => {
    expect(similarityFloor({}, { provider: 'ollama', model: 'nomic-embed-text' })).toBe(
      DEFAULT_SIMILARITY_FLOOR,
    );
    expect(
      similarityFloor(
        { similarityFloor: 0.42 },
        { provider: 'minilm', model: 'Xenova/all-MiniLM-L6-v2' },
      ),
    ).toBe(0.42);
  });
});
