/**
 * `MemoryStore`: one open keel database and every memory operation on it. Front doors, the agent
 * and the think service hold one of these; the functions behind it are the single places that
 * decide what is written ({@link remember}) and what is recalled ({@link recall}).
 *
 * @module
 */
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import type { Clock, StoreContext } from './context.js';
import { type OpenOptions, openDatabase } from './db.js';
import { addEpisode, type EpisodeInput, getEpisode, recentEpisodes } from './episodes.js';
import { KeelError } from './errors.js';
import { activeFact, activeFacts, evidenceEpisodes, factById, history } from './facts.js';
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
import { type RecallOptions, type RecallResponse, recall } from './recall.js';
import { type Episode, type Fact, KINDS, type Kind, type Scope, type Slot } from './types.js';
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

/** One open keel memory. */
export class MemoryStore {
  readonly ctx: StoreContext;

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

  /** Recall: see {@link recall}. */
  recall(query: string, options?: RecallOptions): RecallResponse {
    return recall(this.ctx, query, options);
  }

  /** The current value of a slot. */
  current(slot: Slot): Fact | undefined {
    return activeFact(this.ctx, slot);
  }

  /** Every current belief (of a scope), strongest first. */
  activeFacts(scope?: Scope): Fact[] {
    return activeFacts(this.ctx, scope);
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

  forget(id: number, options?: OwnerActionOptions & { purge?: boolean }): ForgetResult {
    return forget(this.ctx, id, options);
  }

  decay(): DecayChange[] {
    return decay(this.ctx);
  }

  prune(below?: number): number[] {
    return prune(this.ctx, below);
  }

  verify(): VerifyReport {
    return verify(this.ctx);
  }

  importTurns(parsed: ParsedImport, options: ImportOptions): ImportResult {
    return importTurns(this.ctx, parsed, options);
  }

  /** Row counts and the recall mode, for `keel doctor`. */
  stats(): { facts: number; active: number; pending: number; episodes: number; mode: 'lexical' } {
    const n = (sql: string) => (this.db.prepare(sql).get() as { n: number }).n;
    return {
      facts: n('SELECT count(*) AS n FROM facts'),
      active: n('SELECT count(*) AS n FROM active_facts'),
      pending: n(`SELECT count(*) AS n FROM facts WHERE status = 'pending'`),
      episodes: n('SELECT count(*) AS n FROM episodes'),
      mode: 'lexical',
    };
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}
