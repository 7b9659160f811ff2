/**
 * What `import('@huggingface/transformers')` becomes in the bundled keel (`scripts/bundle.mjs`
 * puts this module in its place): the local embedder's runtime, loaded from the folder
 * `keel models pull` installs it into (see `runtime.ts`), the first time an embedder runs.
 * Without it, importing this module throws `EMBEDDER_UNAVAILABLE`, whose fix names
 * `keel models pull`.
 *
 * Exports what keel's MiniLM embedder uses: `env` and `pipeline`.
 *
 * @module
 */
import type * as Transformers from '@huggingface/transformers';
import { loadEmbedderRuntime } from './runtime.js';

const runtime = loadEmbedderRuntime();

/** transformers.js's settings. */
export const env: typeof Transformers.env = runtime.env;
/** transformers.js's pipeline factory. */
export const pipeline: typeof Transformers.pipeline = runtime.pipeline;
