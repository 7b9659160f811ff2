// The transformers.js path: the real pipeline (tokenizer, ONNX runtime, mean pooling) on a tiny
// BERT-shaped model generated here, loaded from a models folder with remote loading off.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { KeelError } from '@keel/errors';
import { describe, expect, it } from 'vitest';
import { openTempStore, tempDir } from '../test-helpers.js';
import { MINILM, MiniLmEmbedder } from './minilm.js';
import { describeEmbedderConformance, writeTinyBertModel } from './testkit.js';

describeEmbedderConformance('MiniLM path (tiny generated BERT model)', async () => {
  const { mkdtempSync, rmSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const dir = mkdtempSync(join(tmpdir(), 'keel-minilm-'));
  await writeTinyBertModel(dir, MINILM);
  return {
    embedder: new MiniLmEmbedder({ modelsDir: dir }),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
});

describe('MiniLM embedder', () => {
  it('reports the dimension of the model it loaded, offline', async () => {
    const dir = tempDir();
    await writeTinyBertModel(dir, MINILM, 24);
    const info = await new MiniLmEmbedder({ modelsDir: dir }).init();
    expect(info).toEqual({ provider: 'minilm', model: MINILM.id, dim: 24, dtype: 'q8' });
  });

  it('a missing model folder is EMBEDDER_UNAVAILABLE naming keel models pull, and nothing is downloaded', async () => {
    const dir = tempDir();
    const err = await new MiniLmEmbedder({ modelsDir: dir }).init().catch((e: unknown) => e);
    expect(KeelError.isInstance(err) && err.code).toBe('EMBEDDER_UNAVAILABLE');
    expect((err as Error).message).toContain('keel models pull minilm');
    expect(existsSync(join(dir, MINILM.id))).toBe(false);
  });

  it('drives hybrid recall end to end: every row gets a vector and recall runs hybrid', async () => {
    const dir = tempDir();
    await writeTinyBertModel(dir, MINILM);
    const { store } = openTempStore();
    const fact = store.remember({
      kind: 'note',
      key: 'garden',
      value: 'tomatoes in the garden',
      source: 'owner_stated',
    }).fact!;
    await store.useEmbedder(new MiniLmEmbedder({ modelsDir: dir }));
    // One vector: the fact (its `remember` command episode is not conversation, so not embedded).
    expect(await store.embedPending()).toEqual({ embedded: 1, remaining: 0 });
    const r = await store.recall('tomatoes', { type: 'fact', touch: false });
    expect(r.mode).toBe('hybrid');
    expect(r.results[0]!.id).toBe(fact.id);
  });
});
