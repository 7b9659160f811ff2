/**
 * {@link embedWrittenNow}: what a one-shot verb (`keel remember`) just wrote is found by meaning
 * at once, not only after the next think tick. The verb binds the configured embedder and embeds
 * the rows its own write queued (`MemoryStore.embedSince`), within a short bound
 * ({@link WRITE_EMBED_MS}); past it, or when the embedder fails, the rows stay queued for the
 * tick's catch-up and the verb goes on. A long-running door does the same from its idle loop
 * (`door-vectors.ts`).
 *
 * @module
 */
import { KeelError } from '@keel/errors';
import type { MemoryStore } from '@keel/memory';
import type { KeelConfig } from './config.js';
import { configuredEmbedder } from './open.js';

/** How long a one-shot verb waits for its rows' vectors, ms (choosing the embedder included). */
export const WRITE_EMBED_MS = 2000;

/** What {@link embedWrittenNow} did. */
export interface WrittenVectors {
  /** Rows whose vector was stored now. */
  embedded: number;
  /** Why nothing (or not everything) was embedded now, or null; what is left waits for the tick. */
  reason: string | null;
}

/**
 * Embeds what was written since `mark` (`store.vectorMark()` read before the write) with the
 * configured embedder, waiting at most `timeoutMs`. Binds the embedder to `store` first (the
 * store's vectors come into use on a first binding). Never throws for the embedder's sake: a
 * slow, failing or missing embedder leaves the rows queued for the think tick and says why. Past
 * the bound, nothing more is written and the embedder's requests are ended, so the process can
 * exit at once.
 *
 * @param timeoutMs - the bound, ms (default {@link WRITE_EMBED_MS}).
 */
export async function embedWrittenNow(
  config: KeelConfig,
  store: MemoryStore,
  mark: number,
  timeoutMs: number = WRITE_EMBED_MS,
): Promise<WrittenVectors> {
  if (config.embedder.choice === 'none') {
    return { embedded: 0, reason: 'embedder set to none (KEEL_EMBEDDER=none)' };
  }
  const stop = new AbortController();
  let closeEmbedder: (() => Promise<void>) | undefined;
  const work = (async (): Promise<WrittenVectors> => {
    const selection = await configuredEmbedder(config, { signal: stop.signal });
    closeEmbedder = selection.embedder?.close?.bind(selection.embedder);
    if (!selection.embedder) return { embedded: 0, reason: `no embedder: ${selection.reason}` };
    if (stop.signal.aborted) throw new KeelError('CANCELLED', 'the bound passed');
    const status = await store.useEmbedder(selection.embedder, selection.reason);
    if (status?.state !== 'active') {
      return { embedded: 0, reason: status?.reason ?? 'vectors paused' };
    }
    const r = await store.embedSince(mark, { signal: stop.signal });
    return { embedded: r.embedded, reason: null };
  })();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<WrittenVectors>((resolve) => {
    timer = setTimeout(() => {
      stop.abort();
      resolve({
        embedded: 0,
        reason: `the embedder did not answer within ${timeoutMs} ms: the think tick embeds it`,
      });
    }, timeoutMs);
  });
  try {
    return await Promise.race([
      work.catch((err: unknown): WrittenVectors => {
        if (!KeelError.isInstance(err) && !store.closed) throw err;
        const why = KeelError.isInstance(err) ? `${err.code}: ${err.message}` : String(err);
        return { embedded: 0, reason: why };
      }),
      late,
    ]);
  } finally {
    clearTimeout(timer);
    if (stop.signal.aborted) await closeEmbedder?.().catch(() => {});
  }
}
