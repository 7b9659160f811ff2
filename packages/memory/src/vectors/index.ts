/**
 * The vector arm's storage: sqlite-vec `vec0` tables for facts and episodes, kept in step with the
 * rows they describe, and a k-nearest-neighbour search over them.
 *
 * - **What gets a vector** (`tables.ts`). Active facts and conversation episodes. Once vectors are
 *   in use (an embedder has been bound once: `meta` holds its fingerprint), triggers (schema steps
 *   5 and 7) queue every row whose embedded text or eligibility changes in `vector_queue`, so any
 *   writer (even a process without an embedder) leaves a note; before that nothing is queued, and
 *   the first binding queues every row written so far. A search leaves the queued rows out
 *   without writing (superseded, retracted, pending, purged or redacted rows can never fill the
 *   top-k); {@link VectorIndex.sync} (the think tick's bounded catch-up, `keel reindex`, a forget)
 *   deletes their old vectors and embeds what is queued and eligible, in batches, each batch one
 *   transaction (an interrupted run loses nothing and a rerun continues).
 *   {@link VectorIndex.embedSince} embeds what was written since a mark at once (`keel remember`,
 *   a door once a turn is done), leaving everything else to the sync. Recall never embeds or
 *   writes.
 * - **Relevance floor** (`floor.ts`). A nearest neighbour less similar to the query than its
 *   embedder's calibrated floor is not a result: a question about nothing finds nothing.
 * - **Search** (`vector-index.ts`, `quantised.ts`, `hamming.ts`). The float vectors are kept in
 *   `vec0` (the record; {@link VectorIndex.exactKnn} is sqlite-vec's brute-force KNN over them,
 *   about 38 ms at 100k×384 here). Recall uses a faster path, measured in `bench/hybrid.ts`: a
 *   binary-quantised first pass (sign bits, Hamming distance computed with `i64.popcnt` in
 *   WebAssembly; in memory: 48 bytes a row for 384-d) keeps the best `max(20·k, 600)` candidates,
 *   rescored by cosine on 8-bit copies of the vectors (in memory, 384 bytes a row). Both copies
 *   live in a plain `*_codes` table next to the `vec0` table and are loaded once per process,
 *   after a few exact searches, so a one-shot command never pays the load.
 *   (sqlite-vec's own `bit[N]` KNN and rowid lookups were measured slower: 36 ms and 25 µs a row.)
 * - **Fingerprint.** `meta.vector_fingerprint` records the embedder (provider, model, dimension,
 *   dtype) that made the vectors. Another dimension is refused (`EMBEDDER_MISMATCH`); the same
 *   dimension from another model pauses the arm until `keel reindex` has rebuilt every vector.
 * - **Checks** (`check.ts`). `keel verify` compares the tables with the rows and `meta`;
 *   {@link VectorIndex.repair} mends what it finds.
 * - **Loading sqlite-vec** (`extension.ts`): probed once per connection; when it cannot load,
 *   binding an embedder fails with `EMBEDDER_UNAVAILABLE` and recall stays lexical, saying why.
 *
 * @module
 */
export { checkVectors, pendingVectorRows, type VectorProblem } from './check.js';
export {
  DEFAULT_SIMILARITY_FLOOR,
  MINILM_SIMILARITY_FLOOR,
  SIMILARITY_FLOORS,
  similarityFloor,
} from './floor.js';
export type { Neighbour } from './quantised.js';
export { queueMark, removeStaleVectors, type VectorEntity } from './tables.js';
export {
  type EmbedSinceOptions,
  type EmbedSinceResult,
  type SyncOptions,
  VectorIndex,
  type VectorStatus,
} from './vector-index.js';
