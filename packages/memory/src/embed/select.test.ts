// Choosing the embedder: explicit choices, and `auto` taking the first available (local model,
// then Ollama with the embed model, then none, saying why). Ollama is the fake server on 127.0.0.1.

import { KeelError } from '@keel/errors';
import { afterEach, describe, expect, it } from 'vitest';
import { refusedPort } from '../../../../tests/support/fake-hub.js';
import { startFakeOllama } from '../../../../tests/support/fake-ollama.js';
import { tempDir } from '../test-helpers.js';
import { MINILM } from './minilm.js';
import { selectEmbedder } from './select.js';
import { writeTinyBertModel } from './testkit.js';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

describe('selectEmbedder', () => {
  it('auto prefers the installed local model over a reachable Ollama', async () => {
    const ollama = await startFakeOllama();
    closers.push(() => ollama.close());
    const modelsDir = tempDir();
    await writeTinyBertModel(modelsDir, MINILM);
    const s = await selectEmbedder({ modelsDir, ollamaHost: ollama.url });
    expect(s.info).toMatchObject({ provider: 'minilm', model: MINILM.id });
    expect(ollama.requests).toEqual([]); // not even probed
  });

  it('auto falls back to Ollama with the embed model, and to none with every reason', async () => {
    const ollama = await startFakeOllama({ models: ['nomic-embed-text:latest'] });
    closers.push(() => ollama.close());
    const modelsDir = tempDir();
    const viaOllama = await selectEmbedder({ modelsDir, ollamaHost: ollama.url });
    expect(viaOllama.info).toMatchObject({
      provider: 'ollama',
      model: 'nomic-embed-text',
      dim: 16,
    });

    const port = await refusedPort();
    const none = await selectEmbedder({ modelsDir, ollamaHost: `http://127.0.0.1:${port}` });
    expect(none.embedder).toBeNull();
    expect(none.reason).toContain('no local model (keel models pull minilm)');
    expect(none.reason).toContain('not reachable');
  });

  it('an explicit choice that cannot run is an error; none is none', async () => {
    const modelsDir = tempDir();
    const err = await selectEmbedder({ modelsDir, choice: 'minilm' }).catch((e: unknown) => e);
    expect(KeelError.isInstance(err) && err.code).toBe('EMBEDDER_UNAVAILABLE');
    const none = await selectEmbedder({ modelsDir, choice: 'none' });
    expect(none).toMatchObject({ embedder: null, reason: expect.stringContaining('none') });
  });
});
