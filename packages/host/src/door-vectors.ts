/**
 * {@link DoorVectors}: what a long-running door (the terminal, Discord) wrote is found by meaning
 * at once, not only after the next think tick. From the door's idle loop (`keepRecallWarm`), it
 * embeds what was written since it last looked (`MemoryStore.embedSince`), once no turn holds the
 * session: after the reply, never on its path. Everything older stays for the tick's bounded
 * catch-up, which remains the one that catches up.
 *
 * @module
 */
import { turnUnderWay } from '@keel/agent';
import type { MemoryStore } from '@keel/memory';

/** Rows a door embeds at most in one look (the newest; older ones wait for the tick). */
export const DOOR_EMBED_LIMIT = 64;

/** Options for {@link DoorVectors}. */
export interface DoorVectorsOptions {
  /** Whether a turn holds the session now (default: the session's turn lock, any process). */
  turnUnderWay?: () => boolean;
  /** Rows embedded at most in one look (default {@link DOOR_EMBED_LIMIT}). */
  limit?: number;
}

/**
 * A door's half of fresh vectors: each {@link look} (from the idle loop) embeds what was written
 * since the last one, in the background, once no turn holds the session, with the embedder bound
 * to the store (nothing happens without one). What was there when the door opened is the tick's.
 * A look while an embedding is under way does nothing; a failed embedding is not retried (its rows
 * wait for the tick).
 */
export class DoorVectors {
  #mark: number;
  #running: Promise<void> | null = null;
  readonly #stop = new AbortController();
  readonly #turnUnderWay: () => boolean;
  readonly #limit: number;

  constructor(
    private readonly store: MemoryStore,
    options: DoorVectorsOptions = {},
  ) {
    this.#mark = store.vectorMark();
    this.#turnUnderWay = options.turnUnderWay ?? (() => turnUnderWay(store.path));
    this.#limit = options.limit ?? DOOR_EMBED_LIMIT;
  }

  /** Starts embedding what is new, when there is any and nothing stands in the way. Never throws. */
  look(): void {
    const store = this.store;
    if (this.#running || this.#stop.signal.aborted || store.closed) return;
    if (!store.vectorIndex?.active) return;
    let through: number;
    try {
      through = store.vectorMark();
      if (through <= this.#mark || this.#turnUnderWay()) return;
    } catch {
      return; // the file is busy or damaged: a later look tries again
    }
    this.#running = store
      .embedSince(this.#mark, { limit: this.#limit, signal: this.#stop.signal })
      .then(
        (r) => {
          this.#mark = r.through;
        },
        () => {
          // Not retried: the rows stay queued for the tick.
          this.#mark = through;
        },
      )
      .finally(() => {
        this.#running = null;
      });
  }

  /** Resolves once no embedding is under way. */
  async settled(): Promise<void> {
    await this.#running;
  }

  /**
   * Stops, before the door closes its store: an embedding under way stores nothing more, and the
   * embedder's requests under way are ended (`Embedder.close`), so a slow embedder does not hold
   * the closing process open.
   */
  stop(): void {
    this.#stop.abort();
    if (this.#running) void this.store.vectorIndex?.embedder.close?.().catch(() => {});
  }
}
