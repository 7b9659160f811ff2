/**
 * Loading a provider's client package on first use, so `keel --help` and a recall never pay for
 * an SDK they do not call.
 *
 * @module
 */
import { KeelError } from '@keel/errors';

/**
 * A loader that imports a client package once, on its first call; a failed import is forgotten
 * (the next call tries again) and becomes a `MODEL_UNAVAILABLE` naming the package.
 *
 * @param label - how the package is named in the error ("the Anthropic client package").
 * @param load - the dynamic `import()` of the package.
 * @throws KeelError `MODEL_UNAVAILABLE` (from the returned function) when the import fails.
 */
export function lazyModule<M>(label: string, load: () => Promise<M>): () => Promise<M> {
  let loading: Promise<M> | undefined;
  return () => {
    loading ??= load().catch((error: unknown) => {
      loading = undefined;
      throw new KeelError(
        'MODEL_UNAVAILABLE',
        `${label} cannot be loaded: ${error instanceof Error ? error.message : String(error)}`,
        { cause: error },
      );
    });
    return loading;
  };
}
