/**
 * Local sentence embeddings (all-MiniLM-L6-v2, 384-d) through `@huggingface/transformers`, loaded
 * from a folder under `$KEEL_HOME/models`. Remote loading is switched off: nothing is downloaded
 * on the query path (`keel models pull` is the explicit step, see `hub.ts`).
 *
 * @module
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { KeelError } from '@keel/errors';
import { checkEmbeddings, type Embedder, type EmbedderInfo, type EmbedPurpose } from './types.js';

/** A model keel knows how to pull and run. */
export interface ModelSpec {
  /** Short name used by `keel models pull <name>`. */
  name: string;
  /** Hugging Face repository id; also the folder under the models directory. */
  id: string;
  /** Weight precision transformers.js loads (q8 → onnx/model_quantized.onnx). */
  dtype: 'q8' | 'fp32';
  /** Files needed, relative to the repository root. */
  files: readonly string[];
}

/** all-MiniLM-L6-v2 in ONNX form (Xenova's conversion), 8-bit quantised: about 23 MB. */
export const MINILM: ModelSpec = {
  name: 'minilm',
  id: 'Xenova/all-MiniLM-L6-v2',
  dtype: 'q8',
  files: ['config.json', 'tokenizer.json', 'tokenizer_config.json', 'onnx/model_quantized.onnx'],
};

/** The models `keel models` knows. */
export const MODELS: readonly ModelSpec[] = [MINILM];

/** True when every file of `spec` is present under `modelsDir`. */
export function modelInstalled(modelsDir: string, spec: ModelSpec = MINILM): boolean {
  return spec.files.every((f) => existsSync(join(modelsDir, spec.id, f)));
}

/** Options for {@link MiniLmEmbedder}. */
export interface MiniLmOptions {
  /** The models folder, e.g. `$KEEL_HOME/models`. */
  modelsDir: string;
  /** Which model. Default {@link MINILM}. */
  spec?: ModelSpec;
}

type Extractor = (
  texts: string[],
  options: { pooling: 'mean'; normalize: boolean },
) => Promise<{ dims: number[]; data: Float32Array }>;

/** An {@link Embedder} running a sentence-transformers model in-process (ONNX runtime). */
export class MiniLmEmbedder implements Embedder {
  readonly provider = 'minilm';
  readonly modelsDir: string;
  readonly spec: ModelSpec;
  private loading: Promise<{ extractor: Extractor; info: EmbedderInfo }> | null = null;

  constructor(options: MiniLmOptions) {
    this.modelsDir = options.modelsDir;
    this.spec = options.spec ?? MINILM;
  }

  private async load(): Promise<{ extractor: Extractor; info: EmbedderInfo }> {
    if (!modelInstalled(this.modelsDir, this.spec)) {
      throw new KeelError(
        'EMBEDDER_UNAVAILABLE',
        `model ${this.spec.id} is not installed in ${this.modelsDir} (run: keel models pull ${this.spec.name})`,
        { details: { modelsDir: this.modelsDir, model: this.spec.id } },
      );
    }
    const { env, pipeline } = await import('@huggingface/transformers');
    // The library's settings are global: pin them before every load.
    env.allowRemoteModels = false;
    env.allowLocalModels = true;
    env.localModelPath = this.modelsDir;
    env.useFSCache = false;
    try {
      const extractor = (await pipeline('feature-extraction', this.spec.id, {
        dtype: this.spec.dtype,
        local_files_only: true,
      })) as unknown as Extractor;
      const probe = await extractor(['dimension probe'], { pooling: 'mean', normalize: true });
      const dim = probe.dims[probe.dims.length - 1] ?? 0;
      const info = { provider: this.provider, model: this.spec.id, dim, dtype: this.spec.dtype };
      return { extractor, info };
    } catch (err) {
      throw new KeelError(
        'EMBEDDER_UNAVAILABLE',
        `cannot load ${this.spec.id} from ${this.modelsDir}: ${(err as Error).message}`,
        { cause: err, details: { modelsDir: this.modelsDir, model: this.spec.id } },
      );
    }
  }

  /** @throws KeelError `EMBEDDER_UNAVAILABLE` when the model folder is missing or unreadable. */
  async init(): Promise<EmbedderInfo> {
    this.loading ??= this.load();
    try {
      return (await this.loading).info;
    } catch (err) {
      this.loading = null;
      throw err;
    }
  }

  /** @throws KeelError `EMBEDDER_UNAVAILABLE`, `EMBEDDING_INVALID`. */
  async embed(texts: readonly string[], _purpose: EmbedPurpose): Promise<Float32Array[]> {
    const info = await this.init();
    if (texts.length === 0) return [];
    const { extractor } = await this.loading!;
    const out = await extractor([...texts], { pooling: 'mean', normalize: true });
    const dim = out.dims[out.dims.length - 1] ?? 0;
    const rows = Array.from({ length: texts.length }, (_, i) =>
      out.data.subarray(i * dim, (i + 1) * dim),
    );
    return checkEmbeddings(info, texts, rows);
  }
}
