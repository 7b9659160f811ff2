/**
 * `MemoryStore`: one open keel database and every memory operation on it. Front doors, the agent
 * and the think service hold one of these; the functions behind it are the single places that
 * decide what is written ({@link remember}) and what is recalled ({@link recall}).
 *
 * @module
 */
import { join } from 'node:path';
import { KeelError } from '@keel/errors';
import type Database from 'better-sqlite3';
import type { Clock, StoreContext } from './context.js';
import {
  type CompactOptions,
  compactJournal,
  type DedupeChange,
  dedupeActive,
  flagStaleBeliefs,
  type StaleOptions,
} from './curate.js';
import { type OpenOptions, openDatabase } from './db.js';
import type { Embedder } from './embed/types.js';
import { addEpisode, type EpisodeInput, getEpisode, recentEpisodes } from './episodes.js';
import {
  activeFact,
  activeFacts,
  evidenceEpisodes,
  factById,
  history,
  strongestFacts,
} from './facts.js';
import { type ImportOptions, type ImportResult, importTurns } from './import/import.js';
import type { ParsedImport } from './import/parsers.js';
import {
  confirm,
  type ForgetResult,
  forget,
  type OwnerActionOptions,
  type ReviewQueue,
  reject,
  reviewQueue,
} from './lifecycle.js';
import { type DecayChange, decay, prune } from './maintenance.js';
import {
  type RecallMode,
  type RecallOptions,
  type RecallResponse,
  recall,
  type VectorArm,
} from './recall.js';
import { type RetractOptions, type RetractResult, retractBelief } from './retract.js';
import { type Episode, type Fact, KINDS, type Kind, type Scope, type Slot } from './types.js';
import {
  pendingVectorRows,
  removeStaleVectors,
  type SyncOptions,
  VectorIndex,
  type VectorStatus,
} from './vectors.js';
import { type VerifyReport, verify } from './verify.js';
import { normalizeKey, type RememberInput, remember, type WriteResult } from './write.js';

/** The database file inside a keel home folder. */
export const DB_FILENAME = 'keel.db';

/** Options for {@link MemoryStore.open}. */
export interface StoreOptions extends OpenOptions {
  /** The clock; ms since epoch. Default `Date.now`. */
  now?: Clock;
}

/**
 * Parses "kind/key" into a slot.
 *
 * @throws KeelError `INVALID_INPUT` when the kind is unknown or the key is not a slug.
 */
export function parseSlot(ref: string, scope: Scope = 'owner'): Slot {
  const slash = ref.indexOf('/');
  if (slash < 1)
    throw new KeelError(
      'INVALID_INPUT',
      `"${ref}" is not of the form kind/key (e.g. preference/coffee)`,
    );
  const kind = ref.slice(0, slash).toLowerCase();
  if (!KINDS.includes(kind as Kind)) {
    throw new KeelError('INVALID_INPUT', `unknown kind "${kind}"; one of: ${KINDS.join(', ')}`);
  }
  return { scope, kind: kind as Kind, key: normalizeKey(ref.slice(slash + 1)) };
}

/**
 * Parses a fact reference: "42" or "f42".
 *
 * @throws KeelError `INVALID_INPUT`.
 */
export function parseFactId(ref: string | number): number {
  const m = /^f?(\d+)$/i.exec(String(ref).trim());
  if (!m) throw new KeelError('INVALID_INPUT', `"${ref}" is not a fact id (e.g. 42 or f42)`);
  return Number(m[1]);
}

/** Rows {@link MemoryStore.hybridRecall} embeds before answering, at most (the rest wait). */
export const RECALL_SYNC_LIMIT = 64;

/** One open keel memory. */
export class MemoryStore {
  readonly ctx: StoreContext;
  private vectors: VectorIndex | null = null;
  private lexicalReason = 'no embedder configured';

  private constructor(
    readonly db: Database.Database,
    now: Clock,
    /** The database file's path. */
    readonly path: string,
  ) {
    this.ctx = { db, now };
  }

  /**
   * Opens the database at `path` (created and migrated if needed).
   *
   * @throws KeelError `DB_OPEN_FAILED`, `DB_CORRUPT`, `FTS5_UNAVAILABLE`, `SCHEMA_FROM_FUTURE`.
   */
  static open(path: string, options: StoreOptions = {}): MemoryStore {
    const now = options.now ?? Date.now;
    return new MemoryStore(openDatabase(path, { ...options, now }), now, path);
  }

  /** Opens `<home>/keel.db`. */
  static openHome(home: string, options: StoreOptions = {}): MemoryStore {
    return MemoryStore.open(join(home, DB_FILENAME), options);
  }

  /** The write review: see {@link remember}. */
  remember(input: RememberInput): WriteResult {
    return remember(this.ctx, input);
  }

  /** Records an episode. */
  addEpisode(input: EpisodeInput): Episode {
    return addEpisode(this.ctx, input);
  }

  episode(id: number): Episode | undefined {
    return getEpisode(this.ctx, id);
  }

  recentEpisodes(limit?: number): Episode[] {
    return recentEpisodes(this.ctx, limit);
  }

  /** Lexical recall (BM25 only, synchronous): see {@link recall}. */
  recall(query: string, options?: RecallOptions): RecallResponse {
    return recall(this.ctx, query, options);
  }

  /**
   * Binds an embedder to this store's vectors (or none, with the reason recall will give).
   *
   * @throws KeelError `EMBEDDER_UNAVAILABLE` (the embedder or sqlite-vec cannot load),
   *   `EMBEDDER_MISMATCH` (the stored vectors have another dimension: run `keel reindex`).
   */
  async useEmbedder(
    embedder: Embedder | null,
    reason = 'no embedder configured',
  ): Promise<VectorStatus | null> {
    this.vectors = null;
    this.lexicalReason = reason;
    if (!embedder) return null;
    this.vectors = await VectorIndex.attach(this.ctx, embedder);
    return this.vectors.status();
  }

  /** The bound vector index (for benchmarks and tools), or null. */
  get vectorIndex(): VectorIndex | null {
    return this.vectors;
  }

  /** The vector arm's state, or null when no embedder is bound. */
  vectorStatus(): VectorStatus | null {
    return this.vectors?.status() ?? null;
  }

  /**
   * Embeds rows written since the last sync (e.g. after an import), in batches.
   *
   * @returns rows embedded and rows still waiting; zeros when no embedder is bound.
   * @throws KeelError `EMBEDDER_UNAVAILABLE`, `EMBEDDING_INVALID` (nothing of the failed batch is
   *   stored), `CANCELLED`.
   */
  async embedPending(options?: SyncOptions): Promise<{ embedded: number; remaining: number }> {
    return this.vectors ? this.vectors.sync(options) : { embedded: 0, remaining: 0 };
  }

  /** Rows waiting for a vector (see {@link pendingVectorRows}); no embedder needs to be bound. */
  pendingVectors(): number {
    return pendingVectorRows(this.ctx);
  }

  /**
   * Rebuilds every vector with `embedder` (any dimension); rerun after an interruption, it
   * continues. The vector arm is paused until it completes.
   *
   * @throws KeelError `EMBEDDER_UNAVAILABLE`, `EMBEDDING_INVALID`, `CANCELLED`.
   */
  async reindex(
    embedder: Embedder,
    options?: SyncOptions,
  ): Promise<{ embedded: number; resumed: boolean; status: VectorStatus }> {
    const index = await VectorIndex.attach(this.ctx, embedder, { forReindex: true });
    this.vectors = index;
    const r = await index.reindex(options);
    return { ...r, status: index.status() };
  }

  /**
   * Recall with both arms when an embedder is bound and its vectors are current: embeds up to
   * {@link RECALL_SYNC_LIMIT} waiting rows, embeds the query, and fuses BM25 with the nearest
   * neighbours (mode "hybrid"). Otherwise, or when the embedder fails, lexical recall with
   * `reason` saying why.
   *
   * @throws KeelError `INVALID_INPUT` (as {@link recall}).
   */
  async hybridRecall(query: string, options?: RecallOptions): Promise<RecallResponse> {
    const lexical = (reason: string) => ({ ...recall(this.ctx, query, options), reason });
    const vectors = this.vectors;
    if (!vectors) return lexical(this.lexicalReason);
    if (!vectors.active) return lexical(vectors.status().reason ?? 'vectors paused');
    let queryVector: Float32Array;
    try {
      await vectors.sync({ limit: RECALL_SYNC_LIMIT });
      queryVector = await vectors.embedQuery(query);
    } catch (err) {
      if (!KeelError.isInstance(err)) throw err;
      return lexical(`embedder failed (${err.code}): ${err.message}`);
    }
    const arm: VectorArm = {
      nearest: (entity, k) => vectors.knn(entity, queryVector, k).map((n) => n.id),
    };
    return recall(this.ctx, query, options, arm);
  }

  /** The current value of a slot. */
  current(slot: Slot): Fact | undefined {
    return activeFact(this.ctx, slot);
  }

  /** Every current belief (of a scope), strongest first. */
  activeFacts(scope?: Scope): Fact[] {
    return activeFacts(this.ctx, scope);
  }

  /** The strongest current beliefs of some kinds, at most `limit` (see {@link strongestFacts}). */
  strongestFacts(scope: Scope, kinds: readonly string[], limit: number): Fact[] {
    return strongestFacts(this.ctx, scope, kinds, limit);
  }

  /** Audit read of one fact in any status. */
  fact(id: number): Fact | undefined {
    return factById(this.ctx, id);
  }

  /** Episode ids supporting a fact. */
  evidence(factId: number): number[] {
    return evidenceEpisodes(this.ctx, factId);
  }

  /** Every version of a slot, newest first. */
  history(slot: Slot): Fact[] {
    return history(this.ctx, slot);
  }

  review(threshold?: number): ReviewQueue {
    return reviewQueue(this.ctx, threshold);
  }

  confirm(id: number, options?: OwnerActionOptions): { fact: Fact; superseded: Fact | null } {
    return confirm(this.ctx, id, options);
  }

  reject(id: number, options?: OwnerActionOptions): Fact {
    return reject(this.ctx, id, options);
  }

  /**
   * Retracts a belief keel formed itself when the owner said it stopped being true (no tombstone;
   * see retract.ts).
   *
   * @throws KeelError `NOT_FOUND`, `INVALID_STATE` (not active).
   */
  retract(id: number, options: RetractOptions): RetractResult {
    return retractBelief(this.ctx, id, options);
  }

  /** Forgets a fact; its vector (and, with purge, those of redacted episodes) is deleted at once. */
  forget(id: number, options?: OwnerActionOptions & { purge?: boolean }): ForgetResult {
    const r = forget(this.ctx, id, options);
    if (this.vectors) this.vectors.removeStale();
    else removeStaleVectors(this.ctx);
    return r;
  }

  decay(): DecayChange[] {
    return decay(this.ctx);
  }

  prune(below?: number): number[] {
    return prune(this.ctx, below);
  }

  /** Merges duplicate current beliefs (same value under different keys): see {@link dedupeActive}. */
  dedupe(): DedupeChange[] {
    return dedupeActive(this.ctx);
  }

  /**
   * Redacts redundant snapshots from journal entries older than `options.before` (ms since epoch);
   * the chain still verifies. See {@link compactJournal}.
   *
   * @throws KeelError `INVALID_INPUT`.
   */
  compactJournal(options: CompactOptions): { compacted: number } {
    return compactJournal(this.ctx, options);
  }

  /**
   * Flags active beliefs with no evidence for `olderThanDays` (default 180) for review; see
   * {@link flagStaleBeliefs}.
   *
   * @returns the ids flagged by this run.
   * @throws KeelError `INVALID_INPUT`.
   */
  flagStaleBeliefs(options?: StaleOptions): number[] {
    return flagStaleBeliefs(this.ctx, options);
  }

  /**
   * Runs `fn` as one unit of work: one IMMEDIATE transaction, inside which every store write
   * (remember, decay, prune, dedupe, ...) becomes a savepoint. When `fn` returns, everything it did
   * commits at once; when it throws, nothing it did is kept and the error is rethrown. Nested
   * calls become savepoints of the outer unit.
   *
   * `fn` must be synchronous: an async function would commit before its awaits finish, so a
   * returned promise is refused and everything done before it is rolled back. A purge inside the
   * unit folds the WAL into the database file after the unit commits (as `forget` does alone).
   *
   * @returns what `fn` returned.
   * @throws whatever `fn` throws; KeelError `INVALID_INPUT` when `fn` returns a promise; SQLite's
   *   `SQLITE_BUSY` when another process holds the write lock past the busy timeout.
   */
  transaction<T>(fn: () => T): T {
    const outermost = !this.db.inTransaction;
    let from = 0;
    const result = this.db
      .transaction((): T => {
        if (outermost) {
          from = (
            this.db.prepare('SELECT coalesce(max(seq), 0) AS n FROM journal').get() as { n: number }
          ).n;
        }
        const value = fn();
        if (
          value !== null &&
          (typeof value === 'object' || typeof value === 'function') &&
          typeof (value as { then?: unknown }).then === 'function'
        ) {
          throw new KeelError(
            'INVALID_INPUT',
            'transaction() takes a synchronous function; an async one would commit before it finished',
          );
        }
        return value;
      })
      .immediate();
    // A purge inside the unit could not fold the WAL into the file; do it now it has committed.
    if (
      outermost &&
      this.db.prepare(`SELECT 1 FROM journal WHERE seq > ? AND op = 'purge' LIMIT 1`).get(from)
    ) {
      this.db.pragma('wal_checkpoint(TRUNCATE)');
    }
    return result;
  }

  verify(): VerifyReport {
    return verify(this.ctx);
  }

  importTurns(parsed: ParsedImport, options: ImportOptions): ImportResult {
    return importTurns(this.ctx, parsed, options);
  }

  /** Row counts and the recall mode, for `keel doctor`. */
  stats(): { facts: number; active: number; pending: number; episodes: number; mode: RecallMode } {
    const n = (sql: string) => (this.db.prepare(sql).get() as { n: number }).n;
    return {
      facts: n('SELECT count(*) AS n FROM facts'),
      active: n('SELECT count(*) AS n FROM active_facts'),
      pending: n(`SELECT count(*) AS n FROM facts WHERE status = 'pending'`),
      episodes: n('SELECT count(*) AS n FROM episodes'),
      mode: this.vectors?.active ? 'hybrid' : 'lexical',
    };
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}
