import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const src = (path: string) => fileURLToPath(new URL(path, import.meta.url));

/**
 * The local embedder's runtime, as `keel models runtime` installs it (npm test does, before the
 * tests): the workspace's own @huggingface/transformers is there for its types only, without the
 * ONNX runtime (see pnpm-workspace.yaml).
 */
const embedderRuntime = src(
  './apps/cli/runtime/node_modules/@huggingface/transformers/dist/transformers.node.mjs',
);

export default defineConfig({
  resolve: {
    alias: {
      '@keel/errors': src('./packages/errors/src/index.ts'),
      '@keel/language/test': src('./packages/language/src/test.ts'),
      '@keel/language': src('./packages/language/src/index.ts'),
      '@keel/memory/internal': src('./packages/memory/src/internal.ts'),
      '@keel/memory': src('./packages/memory/src/index.ts'),
      '@keel/gate': src('./packages/gate/src/index.ts'),
      '@keel/agent/test': src('./packages/agent/src/test.ts'),
      '@keel/agent': src('./packages/agent/src/index.ts'),
      '@keel/prompt': src('./packages/prompt/src/index.ts'),
      '@keel/tools': src('./packages/tools/src/index.ts'),
      '@keel/discord': src('./apps/discord/src/index.ts'),
      '@keel/mcp': src('./apps/mcp/src/index.ts'),
      '@keel/think': src('./apps/think/src/index.ts'),
      '@keel/outbound': src('./packages/outbound/src/index.ts'),
      '@keel/host': src('./packages/host/src/index.ts'),
      ...(existsSync(embedderRuntime) ? { '@huggingface/transformers': embedderRuntime } : {}),
    },
  },
  test: {
    include: ['packages/*/src/**/*.test.ts', 'apps/*/src/**/*.test.ts', 'tests/**/*.test.ts'],
    setupFiles: ['tests/support/environment.ts'],
    // Deadlines bound a hang, not speed: a machine busy with other builds runs a test many times
    // slower than an idle one (speed goals live in bench/).
    testTimeout: 180_000,
    hookTimeout: 180_000,
    expect: { poll: { timeout: 30_000 } },
    pool: 'forks',
  },
});
