/**
 * `MemoryStore`: one open keel database and every memory operation on it. Front doors, the agent
 * and the think service hold one of these; nothing outside `@keel/memory` holds the database
 * handle. The functions behind it are the single places that decide what is written
 * (`facts/review.ts`), how fact state changes (`facts/transitions.ts`) and what is recalled
 * (`recall/recall.ts`, through {@link MemoryStore.recall}, the one recall door); the other
 * tables are reached through their repositories ({@link MemoryStore.beliefQueue}, …).
 *
 * @module
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { dirname, join } from 'node:path';
import { KeelError } from '@keel/errors';
import { SecretLedger } from '@keel/language';
import Database from 'better-sqlite3';
import type { BackupReach, ReachBackups } from './backup.js';
import { type Clock, countRows, type StoreContext, stmt } from './context.js';
import { type OpenOptions, openDatabase } from './db.js';
import type { Embedder } from './embed/types.js';
import { type ExportOptions, exportMemory } from './export/export.js';
import type { KeelExport } from './export/format.js';
import { type DedupeChange, dedupeActive } from './facts/dedupe.js';
import {
  appendPurgeLedger,
  ledgerEntry,
  PURGE_LEDGER_FILE,
  type PurgeLedgerEntry,
  purgedPhrases,
  saidAgainSince,
} from './facts/ledger.js';
import { type DecayChange, decay, prune } from './facts/maintenance.js';
import {
  findMentions,
  type MentionReport,
  mergeMentionReports,
  mergeReceipts,
  type PurgeMentionsOptions,
  type PurgeReceipt,
  purgeMentions,
} from './facts/mentions.js';
import {
  confirm,
  type ForgetResult,
  forget,
  type OwnerActionOptions,
  type ReviewQueue,
  reject,
  reviewQueue,
} from './facts/owner.js';
import {
  type AnswerResult,
  type AskInput,
  answerQuestion,
  askQuestion,
  openQuestions,
  type PendingQuestion,
} from './facts/questions.js';
import {
  activeFact,
  activeFacts,
  type BeliefFilter,
  type BeliefListing,
  currentBeliefs,
  evidenceEpisodes,
  factById,
  factCounts,
  factsHolding,
  history,
  pendingFacts,
  strongestFacts,
} from './facts/read.js';
import { type RetractOptions, type RetractResult, retractBelief } from './facts/retract.js';
import { type RememberInput, remember, type WriteResult } from './facts/review.js';
import {
  declineForget,
  type ForgetRequest,
  flagStaleBeliefs,
  requestForget,
  reviewFlagsHolder,
  type StaleOptions,
} from './facts/review-flags.js';
import { forgottenSaidAgain } from './facts/tombstones.js';
import { type AccessCount, recordAccess } from './facts/transitions.js';
import { type BeliefExplanation, explainBelief } from './facts/why.js';
import { type ImportOptions, type ImportResult, importTurns } from './import/import.js';
import { importKeelExport, type KeelExportImportResult } from './import/keel-export.js';
import type { ParsedImport } from './import/parsers.js';
import { IntegrityGuard, type IntegrityOptions, type IntegrityVerdict } from './integrity.js';
import { anchorPathFor, anchorWrites, type HeadMark, lastEntry } from './journal/anchor.js';
import {
  checkpointPathFor,
  dropCheckpoint,
  FULL_CHECK_EVERY_MS,
  readCheckpoint,
  writeCheckpoint,
} from './journal/checkpoint.js';
import { type CompactOptions, compactJournal } from './journal/compact.js';
import {
  journalHolder,
  recordStepFailure,
  type StepFailure,
  stepFailures,
} from './journal/journal.js';
import { unexplainedFacts } from './journal/rows.js';
import { CATCH_UP_ROWS, RecallIndex } from './recall/postings.js';
import {
  type RecallMode,
  type RecallOptions,
  type RecallResponse,
  recall,
} from './recall/recall.js';
import { type OwnerTextHolder, scrubberFor } from './redaction.js';
import { BeliefQueueRepo } from './repos/belief-queue.js';
import { DiaryRepo } from './repos/diary.js';
import {
  addEpisode,
  type ConversationTurn,
  conversationBetween,
  type EpisodeInput,
  episodeBySource,
  episodeSupports,
  episodesHolder,
  getEpisode,
  lastOwnerTurn,
  recentEpisodes,
} from './repos/episodes.js';
import { InterruptsRepo } from './repos/interrupts.js';
import { MetaRepo } from './repos/meta.js';
import { RemindersRepo } from './repos/reminders.js';
import { OwnerSessionRepo, sessionHolders } from './repos/session.js';
import { ThinkRunsRepo } from './repos/think-runs.js';
import { ToolCallsRepo, ToolGrantsRepo } from './repos/tool-calls.js';
import type { Actor, Episode, Fact, Scope, Slot } from './types.js';
import {
  type EmbedSinceOptions,
  type EmbedSinceResult,
  pendingVectorRows,
  queueMark,
  removeStaleVectors,
  type SyncOptions,
  VectorIndex,
  type VectorStatus,
} from './vectors/index.js';
import { type VerifyReport, verify } from './verify.js';

/** The database file inside a keel home folder. */
export const DB_FILENAME = 'keel.db';

/** Options for {@link MemoryStore.open}. */
export interface StoreOptions extends OpenOptions {
  /** The clock; ms since epoch. Default `Date.now`. */
  now?: Clock;
  /**
   * Check the file before anything can be written to it (before migrations): a damaged file is
   * `DB_CORRUPT` and nothing is written. See `integrity.ts`. Default: no check at open.
   */
  integrity?: IntegrityOptions;
  /**
   * The purge ledger every purge through this store appends to (see `facts/ledger.ts`): default
   * {@link PURGE_LEDGER_FILE} beside the database; null for none (a copy being restored or
   * rewritten, whose purges are the ledger's own).
   */
  purgeLedger?: string | null;
  /**
   * What carries a purge through this store into keel's backups ({@link ReachBackups}:
   * `@keel/host`'s `openStore` gives every store it opens on a KEEL_HOME the rewrite of
   * `$KEEL_HOME/backups`); {@link MemoryStore.reachBackups} runs it once a purge is done. Default
   * none: a store opened on a bare file reaches no backups.
   */
  backups?: ReachBackups | null;
}

/**
 * Rows {@link MemoryStore.catchUpVectors} embeds in one call by default: a think tick's share (the
 * rest wait for the next tick; `keel reindex` embeds everything at once).
 */
export const CATCH_UP_LIMIT = 256;

/** The store's handle by store, reachable only through `@keel/memory/internal`. */
const contexts = new WeakMap<MemoryStore, StoreContext>();

/**
 * The database handle and clock behind a store: for the store's own tests and benchmarks only
 * (exported from `@keel/memory/internal`, never from the package's public entry).
 */
export function contextOf(store: MemoryStore): StoreContext {
  return contexts.get(store)!;
}

/** One open keel memory. */
export class MemoryStore {
  /** The database file's path. */
  readonly path: string;
  /** The pending-beliefs queue (the think service's gate, reflection and curator). */
  readonly beliefQueue: BeliefQueueRepo;
  /** The think service's run records. */
  readonly thinkRuns: ThinkRunsRepo;
  /** The curator's diary. */
  readonly diary: DiaryRepo;
  /** Things to tell the owner now (reminders, deadlines). */
  readonly interrupts: InterruptsRepo;
  /** Reminders the owner asked for (created from their words or the `remind` tool). */
  readonly reminders: RemindersRepo;
  /** Small named values services keep (watermarks, last-seen ids). */
  readonly meta: MetaRepo;
  /** The tool log: every call the model asked for, run or not. */
  readonly toolCalls: ToolCallsRepo;
  /** The owner's standing "always" grants for tools. */
  readonly toolGrants: ToolGrantsRepo;

  readonly #ctx: StoreContext;
  /** The secrets of the span {@link withSecrets} runs, across its units of work. */
  readonly #secretScope = new AsyncLocalStorage<SecretLedger>();
  readonly #guard: IntegrityGuard;
  readonly #ledger: string | null;
  readonly #backups: ReachBackups | null;
  readonly #sessions = new Map<string, OwnerSessionRepo>();
  #vectors: VectorIndex | null = null;
  #lexicalReason = 'no embedder configured';
  /** A purge ran inside a unit of work: fold the WAL into the file once it commits. */
  #checkpointAfterCommit = false;
  /** Uses of facts recall counted, by fact id, waiting for the next write ({@link flushAccess}). */
  readonly #uses = new Map<number, AccessCount>();
  /** Recall's full-text indexes mirrored in memory, once {@link warmRecall} built them. */
  readonly #mirror: RecallIndex;

  private constructor(
    db: Database.Database,
    now: Clock,
    path: string,
    guard: IntegrityGuard,
    ledger: string | null,
    backups: ReachBackups | null,
  ) {
    this.path = path;
    this.#guard = guard;
    this.#ledger = ledger;
    this.#backups = backups;
    const scope = this.#secretScope;
    let unit: SecretLedger | undefined;
    this.#ctx = {
      db,
      now,
      // The unit of work's ledger, else the span's ({@link withSecrets}), else none.
      get ledger() {
        return unit ?? scope.getStore();
      },
      set ledger(ledger: SecretLedger | undefined) {
        unit = ledger;
      },
    };
    this.#mirror = new RecallIndex(db);
    contexts.set(this, this.#ctx);
    this.beliefQueue = new BeliefQueueRepo(this.#ctx);
    this.thinkRuns = new ThinkRunsRepo(this.#ctx);
    this.diary = new DiaryRepo(this.#ctx);
    this.interrupts = new InterruptsRepo(this.#ctx);
    this.reminders = new RemindersRepo(this.#ctx);
    this.meta = new MetaRepo(this.#ctx);
    this.toolCalls = new ToolCallsRepo(this.#ctx);
    this.toolGrants = new ToolGrantsRepo(this.#ctx);
  }

  /**
   * Opens the database at `path` (created and migrated if needed). With `options.integrity`, the
   * file is checked first: a damaged one is `DB_CORRUPT` before a migration could write to it.
   *
   * @throws KeelError `DB_OPEN_FAILED`, `DB_CORRUPT`, `FTS5_UNAVAILABLE`, `SCHEMA_FROM_FUTURE`.
   */
  static open(path: string, options: StoreOptions = {}): MemoryStore {
    const now = options.now ?? Date.now;
    const { integrity, purgeLedger, backups, ...open } = options;
    const guard = new IntegrityGuard(path, integrity, now);
    const db = openDatabase(path, { ...open, now }, (handle) => {
      if (path !== ':memory:' && !open.readonly) anchorWrites(handle, anchorPathFor(path), now);
      guard.opened();
      if (integrity) guard.check(handle, integrity.check === 'full', true);
    });
    if (!integrity) guard.opened();
    const ledger =
      purgeLedger !== undefined
        ? purgeLedger
        : path === ':memory:' || options.readonly
          ? null
          : join(dirname(path), PURGE_LEDGER_FILE);
    return new MemoryStore(db, now, path, guard, ledger, backups ?? null);
  }

  /** Opens `<home>/keel.db`. */
  static openHome(home: string, options: StoreOptions = {}): MemoryStore {
    return MemoryStore.open(join(home, DB_FILENAME), options);
  }

  /** The store's clock, ms since epoch. */
  now(): number {
    return this.#ctx.now();
  }

  // -------------------------------------------------------------------------------------------
  // Facts: the write review, reads, the owner's verbs, the curator's upkeep

  /** The write review: see `facts/review.ts`. Writes the access counts recall has counted too. */
  remember(input: RememberInput): WriteResult {
    if (this.#uses.size === 0) return remember(this.#ctx, input);
    return this.#ctx.db
      .transaction(() => {
        const r = remember(this.#ctx, input);
        this.#writeUses();
        return r;
      })
      .immediate();
  }

  /** The current value of a slot. */
  current(slot: Slot): Fact | undefined {
    return activeFact(this.#ctx, slot);
  }

  /** Every current belief (of a scope), strongest first. */
  activeFacts(scope?: Scope): Fact[] {
    return activeFacts(this.#ctx, scope);
  }

  /**
   * The current beliefs the journal does not explain (changed outside keel, or once found so):
   * recall and the prompt leave them out, and `keel verify` names each. Reads every current
   * belief's row once.
   *
   * @returns their ids, ascending.
   */
  unexplainedBeliefs(): number[] {
    return [...unexplainedFacts(this.#ctx.db, activeFacts(this.#ctx))].sort((a, b) => a - b);
  }

  /**
   * Every belief keel holds now (`keel beliefs`): each slot's current value and each pending
   * conflict, filtered by scope, kind, source and confidence, by kind and key or strongest first;
   * never a superseded, forgotten or rejected row. Beliefs the journal does not explain are left
   * out and named by id, as recall leaves them out (see `currentBeliefs`).
   */
  beliefs(filter?: BeliefFilter): BeliefListing {
    return currentBeliefs(this.#ctx, filter);
  }

  /** The strongest current beliefs of some kinds, at most `limit` (see `strongestFacts`). */
  strongestFacts(scope: Scope, kinds: readonly string[], limit: number): Fact[] {
    return strongestFacts(this.#ctx, scope, kinds, limit);
  }

  /** Audit read of one fact in any status. */
  fact(id: number): Fact | undefined {
    return factById(this.#ctx, id);
  }

  /** Episode ids supporting a fact. */
  evidence(factId: number): number[] {
    return evidenceEpisodes(this.#ctx, factId);
  }

  /** Every pending conflict (a value that contradicts a current belief), oldest first. */
  pendingConflicts(): Fact[] {
    return pendingFacts(this.#ctx);
  }

  /** Every version of a slot, newest first. */
  history(slot: Slot): Fact[] {
    return history(this.#ctx, slot);
  }

  /**
   * Why keel holds belief `id`: its slot's versions, their evidence episodes and the journal's
   * decisions about them (see `facts/why.ts`). Undefined when no such fact exists.
   */
  why(id: number): BeliefExplanation | undefined {
    return explainBelief(this.#ctx, id);
  }

  /** Pending conflicts, weak beliefs and stale beliefs (the owner's review queue). */
  review(threshold?: number): ReviewQueue {
    return reviewQueue(this.#ctx, threshold);
  }

  /** The owner confirms a belief (owner_confirmed, 1.0). @throws KeelError `NOT_FOUND`, `INVALID_STATE`. */
  confirm(id: number, options?: OwnerActionOptions): { fact: Fact; superseded: Fact | null } {
    return confirm(this.#ctx, id, options);
  }

  /** The owner rejects a belief (rejected, tombstoned). @throws KeelError `NOT_FOUND`, `INVALID_STATE`. */
  reject(id: number, options?: OwnerActionOptions): Fact {
    return reject(this.#ctx, id, options);
  }

  /**
   * Asks the owner to forget a belief (the model proposes; only the owner forgets): the request
   * waits in the review queue (`review().forget`) until the owner forgets the belief or keeps it.
   * Nothing about the belief changes.
   *
   * @returns the open request, and whether this call made it.
   * @throws KeelError `NOT_FOUND`, `INVALID_STATE` (not active or pending).
   */
  requestForget(
    id: number,
    request: { actor: Actor; why?: string; episodeId?: number },
  ): { request: ForgetRequest; created: boolean } {
    return requestForget(this.#ctx, id, request);
  }

  /** The owner keeps a belief someone asked to forget. @returns false when none was asked. */
  keep(id: number): boolean {
    return declineForget(this.#ctx, id);
  }

  /**
   * Raises a question on an active belief: does what was said end it? It waits in the review queue
   * (`review().questions`) and beside the belief in the prompt until the owner answers (see
   * `facts/questions.ts`). Nothing about the belief changes.
   *
   * @returns the open question, and whether this call raised it.
   * @throws KeelError `NOT_FOUND`, `INVALID_STATE` (not active), `INVALID_INPUT`.
   */
  ask(factId: number, input: AskInput): { question: PendingQuestion; created: boolean } {
    return askQuestion(this.#ctx, factId, input);
  }

  /** Every open pending question, oldest first (also in `review().questions`). */
  questions(): PendingQuestion[] {
    return openQuestions(this.#ctx);
  }

  /**
   * The owner answers question `q<id>`: yes closes the belief as of the turn it rests on (history
   * kept), no leaves it as it was.
   *
   * @throws KeelError `NOT_FOUND` (no open question), `INVALID_STATE` (the belief is gone already).
   */
  answer(id: number, answer: 'yes' | 'no', options?: OwnerActionOptions): AnswerResult {
    return answerQuestion(this.#ctx, id, answer, options);
  }

  /**
   * Retracts a belief when the owner said it stopped being true (no tombstone; see
   * `facts/retract.ts`): the owner's word only on the owner's own say (actor `owner`); anyone
   * else's retraction of it becomes a question when it rests on the owner's turn.
   *
   * @throws KeelError `NOT_FOUND`, `INVALID_STATE` (not active).
   */
  retract(id: number, options: RetractOptions): RetractResult {
    return retractBelief(this.#ctx, id, options);
  }

  /**
   * The beliefs the owner forgot (not purged) that `clause` of the owner's says again, word for
   * word in meaning: every content word of the forgotten value, and nothing more ("I drink oat
   * milk" again after forgetting it; not "my friend drinks oat milk"). What a door may offer to
   * restore: the owner saying it again is the one way back.
   */
  forgottenSaidAgain(clause: string, scope: Scope = 'owner'): Fact[] {
    return forgottenSaidAgain(this.#ctx, scope, clause);
  }

  /**
   * Forgets a fact (retracted, tombstoned); with `purge`, erases its value from every row of its
   * slot that holds it and from every place that can hold the owner's words
   * ({@link MemoryStore.ownerTextHolders}); beliefs in other slots that quote it are listed
   * (`otherSlots`) and cut only with `otherSlots: 'erase'` (the owner is asked first). Its vector
   * (and those of redacted episodes) is deleted at once.
   *
   * @throws KeelError `NOT_FOUND`, `INVALID_STATE`.
   */
  forget(
    id: number,
    options: OwnerActionOptions & { purge?: boolean; otherSlots?: 'keep' | 'erase' } = {},
  ): ForgetResult {
    const before = factById(this.#ctx, id);
    const r = forget(this.#ctx, id, options, this.ownerTextHolders());
    if (options.purge && before && before.purged_at === null) this.#record(before.value);
    this.#afterPurge(
      r.purged && (r.erasedFacts.length > 0 || Object.values(r.reached).some((n) => n > 0)),
    );
    return r;
  }

  /**
   * Every stored text that mentions `value`, folded (`Sao Paulo` finds `São Paulo`; case, accents
   * and punctuation ignored, whole words): beliefs' values and keys, the owner's turns and keel's
   * replies, session messages, reminders and interrupts, the think service's runs, belief queue
   * and diary, review flags, journal payloads — each with its place, table, column, row id and a
   * short excerpt. Reads only: what {@link purgeMentions} would erase, for a door to show first.
   *
   * @throws KeelError `INVALID_INPUT` (not text, or no word to find).
   */
  findMentions(value: string): MentionReport {
    return findMentions(this.#ctx, value, this.ownerTextHolders());
  }

  /**
   * Erases every stored mention of `value` ({@link findMentions}) in one transaction: a belief
   * whose value or key mentions it is retracted and purged; in every other text the mention is
   * replaced by `[purged]`, the rest kept; the full-text index follows and the stale vectors are
   * deleted; the value's content is tombstoned in every scope, so only the owner's own word can
   * bring it back. See `facts/mentions.ts`.
   *
   * @param options - `actor` (who purges, journaled); `only` (the places to walk, default all).
   * @returns the receipt: rows reached per place (counts and ids), beliefs retracted, tombstones.
   * @throws KeelError `INVALID_INPUT` (not text, no word to find, an unknown place).
   */
  purgeMentions(value: string, options: PurgeMentionsOptions): PurgeReceipt {
    const r = purgeMentions(this.#ctx, value, options, this.ownerTextHolders());
    this.#record(value);
    this.#afterPurge(r.total > 0);
    return r;
  }

  /** A purge of `value` ran: the ledger keeps its hashes (`facts/ledger.ts`). */
  #record(value: string): void {
    if (this.#ledger === null) return;
    const entry = ledgerEntry(value, this.#ctx.now());
    if (entry) appendPurgeLedger(this.#ledger, entry);
  }

  /**
   * Whether the owner said the value of a purge ledger's `entry` again in this store after that
   * purge (`saidAgainSince` in `facts/ledger.ts`): then the entry is not applied here. Reads only.
   */
  saidAgainSince(entry: PurgeLedgerEntry): boolean {
    return saidAgainSince(this.#ctx, entry);
  }

  /** The purge ledger this store appends to, or null (see {@link StoreOptions.purgeLedger}). */
  get purgeLedger(): string | null {
    return this.#ledger;
  }

  /**
   * Carries the purges made so far into keel's backups ({@link StoreOptions.backups}): what every
   * door's purge runs once the purge itself is done (outside any unit of work: it reads the purge
   * ledger and the backups, never this store's file, and holds none of its locks).
   *
   * @returns one line per backup, by name; null when this store was given no backups to reach.
   *   Never rejects: a backup that cannot be reached is listed with its error.
   */
  async reachBackups(): Promise<BackupReach[] | null> {
    return this.#backups ? this.#backups() : null;
  }

  /**
   * The phrases of this store's texts that say a value known only by its hashed content (a purge
   * ledger's entry, a purged belief's tombstone): see `purgedPhrases` in `facts/ledger.ts`. Reads
   * only.
   *
   * @param content - the hashes of the value's folded content words, per spelling.
   */
  purgedPhrases(content: readonly (readonly string[])[]): string[] {
    return purgedPhrases(this.#ctx, content, this.ownerTextHolders());
  }

  /**
   * What a purge of a value known only by its hashed content would erase: every mention of each
   * phrase that says it ({@link purgedPhrases}), as {@link findMentions} lists them. Reads only.
   */
  findPurgedContent(content: readonly (readonly string[])[]): {
    phrases: string[];
    report: MentionReport | null;
  } {
    const phrases = this.purgedPhrases(content);
    return {
      phrases,
      report: mergeMentionReports(phrases.map((p) => this.findMentions(p))),
    };
  }

  /**
   * Purges a value known only by its hashed content: each phrase of this store that says it
   * ({@link purgedPhrases}) is purged by mention ({@link purgeMentions}) in one transaction. What
   * a restore applies for each entry of the purge ledger, and `forget --purge` for a belief
   * whose value was purged already.
   *
   * @param valueHash - the purged value's hash, for the receipt.
   * @returns the phrases found and one receipt for them all (null when none was found).
   */
  purgeContent(
    content: readonly (readonly string[])[],
    valueHash: string,
    options: PurgeMentionsOptions,
  ): { phrases: string[]; receipt: PurgeReceipt | null } {
    const phrases = this.purgedPhrases(content);
    if (phrases.length === 0) return { phrases, receipt: null };
    const receipts = this.transaction(() =>
      phrases.map((p) => purgeMentions(this.#ctx, p, options, this.ownerTextHolders())),
    );
    const receipt = mergeReceipts(receipts, valueHash);
    // A purge made before the ledger was kept (an older keel) is kept in it from now on.
    if (this.#ledger !== null) {
      appendPurgeLedger(this.#ledger, {
        at: this.#ctx.now(),
        value_hash: valueHash,
        content: content.map((f) => [...f]),
      });
    }
    this.#afterPurge(receipt.total > 0);
    return { phrases, receipt };
  }

  /**
   * The hashed content of belief `id`'s value as its purge tombstone keeps it, or null when the
   * belief was not purged (or its tombstone keeps no content).
   */
  purgedContentOf(id: number): { content: string[][]; valueHash: string } | null {
    const row = this.#ctx.db
      .prepare(
        `SELECT t.content, t.value_hash FROM tombstones t JOIN facts f ON f.id = t.fact_id
         WHERE t.fact_id = ? AND t.reason = 'purged' AND f.purged_at IS NOT NULL
           AND t.content IS NOT NULL
         ORDER BY t.id DESC LIMIT 1`,
      )
      .get(id) as { content: string; value_hash: string } | undefined;
    if (!row) return null;
    const content = JSON.parse(row.content) as string[][];
    return content.length > 0 ? { content, valueHash: row.value_hash } : null;
  }

  /** After a purge: stale vectors deleted; FTS segments merged and the WAL folded when it erased. */
  #afterPurge(erased: boolean): void {
    if (this.#vectors) this.#vectors.removeStale();
    else removeStaleVectors(this.#ctx);
    if (!erased) return;
    // Merge FTS segments so deleted tokens are gone from disk, and fold the WAL into the file
    // (inside a caller's unit of work SQLite refuses a checkpoint: it runs once the unit commits).
    this.optimizeIndexes();
    if (this.#ctx.db.inTransaction) this.#checkpointAfterCommit = true;
    else this.#ctx.db.pragma('wal_checkpoint(TRUNCATE)');
  }

  /**
   * Beliefs in other slots than fact `id`'s whose value holds its value (what `forget --purge`
   * would leave unless told to erase them too): for a door to ask before purging.
   *
   * @throws KeelError `NOT_FOUND`.
   */
  otherSlotsHolding(id: number): Fact[] {
    const fact = factById(this.#ctx, id);
    if (!fact) throw new KeelError('NOT_FOUND', `no fact ${id}`, { details: { id } });
    const scrubber = scrubberFor(fact.value);
    if (!scrubber || fact.purged_at !== null) return [];
    return factsHolding(this.#ctx, scrubber).filter(
      (r) => !(r.scope === fact.scope && r.kind === fact.kind && r.key === fact.key),
    );
  }

  /**
   * Every repository that can hold the owner's words, for purge: episodes, the journal's
   * payloads, the owner session (anchor, turn inputs and errors, messages), the belief queue,
   * the think service's runs, the curator's diary, the interrupts, the review flags, the reminders,
   * the tool log (arguments, result excerpts) and the tool grants (exact keys). Fact rows are erased by the
   * purge itself.
   */
  ownerTextHolders(): OwnerTextHolder[] {
    return [
      episodesHolder(this.#ctx),
      journalHolder(this.#ctx),
      ...sessionHolders(this.#ctx),
      this.beliefQueue.holder(),
      this.thinkRuns.holder(),
      this.diary.holder(),
      this.interrupts.holder(),
      this.reminders.holder(),
      reviewFlagsHolder(this.#ctx),
      this.toolCalls.holder(),
      this.toolGrants.holder(),
    ];
  }

  /**
   * Decay: lowers idle single-evidence beliefs (see `facts/maintenance.ts`), after writing the
   * access counts recall has counted in this process (use slows decay).
   */
  decay(): DecayChange[] {
    this.flushAccess();
    return decay(this.#ctx);
  }

  /** Prunes decayed beliefs below `below` (tombstoned). @returns the ids pruned. */
  prune(below?: number): number[] {
    return prune(this.#ctx, below);
  }

  /** Merges duplicate current beliefs (same value under different keys): see `facts/dedupe.ts`. */
  dedupe(): DedupeChange[] {
    return dedupeActive(this.#ctx);
  }

  /**
   * Redacts redundant snapshots from journal entries older than `options.before` (ms since epoch);
   * the chain still verifies. See `journal/compact.ts`.
   *
   * @throws KeelError `INVALID_INPUT`.
   */
  compactJournal(options: CompactOptions): { compacted: number } {
    return compactJournal(this.#ctx, options);
  }

  /**
   * Flags active beliefs with no evidence for `olderThanDays` (default 180) for review.
   *
   * @returns the ids flagged by this run.
   * @throws KeelError `INVALID_INPUT`.
   */
  flagStaleBeliefs(options?: StaleOptions): number[] {
    return flagStaleBeliefs(this.#ctx, options);
  }

  /**
   * Records that capturing the owner's explicit statement in `episodeId` failed (the turn went on:
   * its reply and episodes are stored). `keel doctor` shows the newest.
   */
  recordCaptureFailure(episodeId: number, code: string, message: string): void {
    recordStepFailure(this.#ctx, 'capture_error', { episodeId, code, message });
  }

  /** The newest capture failures, newest first. */
  captureFailures(limit = 5): StepFailure[] {
    return stepFailures(this.#ctx, 'capture_error', limit);
  }

  // -------------------------------------------------------------------------------------------
  // Episodes and the other tables

  /** Records an episode. @throws KeelError `INVALID_INPUT`, `TOO_LARGE`. */
  addEpisode(input: EpisodeInput): Episode {
    return addEpisode(this.#ctx, input);
  }

  /**
   * The owner's latest conversation turn as stored (secrets withheld), or null: the context a
   * scan of their next turn reads (`scanSecrets(text, { context })`), so that the secret half of
   * a key pair whose id half that turn held is withheld too. `addEpisode` reads it itself.
   */
  lastOwnerTurn(): string | null {
    return lastOwnerTurn(this.#ctx);
  }

  /** One episode by id. */
  episode(id: number): Episode | undefined {
    return getEpisode(this.#ctx, id);
  }

  /** The newest episodes, newest first. */
  recentEpisodes(limit?: number): Episode[] {
    return recentEpisodes(this.#ctx, limit);
  }

  /** The owner's conversation with keel in `[from, to)` (ms), oldest first (no imports). */
  conversationBetween(from: number, to: number): ConversationTurn[] {
    return conversationBetween(this.#ctx, from, to);
  }

  /**
   * Whether an episode's words support `text` (`any` or `all` of its content words, stemmed as
   * recall stems them); see `repos/episodes.ts`.
   */
  episodeSupports(episodeId: number, text: string, mode: 'any' | 'all'): boolean {
    return episodeSupports(this.#ctx, episodeId, text, mode);
  }

  /** The episode filed under a source document (null: none, as a caught-up DM) and id. */
  episodeBySource(sourceDoc: string | null, sourceId: string): Episode | undefined {
    return episodeBySource(this.#ctx, sourceDoc, sourceId);
  }

  /** A named conversation's tables (there is one owner session, "owner"). */
  session(name = 'owner'): OwnerSessionRepo {
    let s = this.#sessions.get(name);
    if (!s) {
      s = new OwnerSessionRepo(this.#ctx, name);
      this.#sessions.set(name, s);
    }
    return s;
  }

  /** Imports parsed turns as episodes (idempotent). */
  importTurns(parsed: ParsedImport, options: ImportOptions): ImportResult {
    return importTurns(this.#ctx, parsed, options);
  }

  /**
   * The whole memory as a keel export (`export/format.ts`): every belief in any status with its
   * evidence episodes and journal changes, every tombstone (hashes only), every episode with
   * `includeEpisodes`. A purged value and a credential never appear in it.
   */
  exportMemory(options?: ExportOptions): KeelExport {
    return exportMemory(this.#ctx, options);
  }

  /**
   * Imports a keel export (the parsed JSON of `keel export --format json`) into this store, which
   * must hold no beliefs or tombstones yet, in one transaction journaled by the `import` actor.
   *
   * @throws KeelError `IMPORT_FORMAT` (not a well-formed export), `STORE_NOT_EMPTY`.
   */
  importKeelExport(data: unknown): KeelExportImportResult {
    return importKeelExport(this.#ctx, data);
  }

  // -------------------------------------------------------------------------------------------
  // Recall and vectors

  /**
   * The one recall: hybrid (BM25 fused with the nearest neighbours at or above the embedder's
   * similarity floor) when an embedder is bound and its vectors are current, else lexical, with
   * `reason` saying why (no embedder, paused, the embedder failed). Rows written since the last
   * {@link catchUpVectors} or {@link embedSince} are found by their words until then.
   *
   * Recall writes nothing: the returned facts' uses (unless `touch` is false) are counted in
   * memory and written by this store's next unit of work, `remember`, `decay` or `close`
   * ({@link flushAccess}).
   *
   * @throws KeelError `INVALID_INPUT` (a non-string query, a limit outside 1..200).
   */
  async recall(query: string, options?: RecallOptions): Promise<RecallResponse> {
    const ctx = this.#ctx;
    const counted = (r: RecallResponse) => {
      if (options?.touch !== false) {
        const now = ctx.now();
        for (const x of r.results) {
          if (x.type !== 'fact') continue;
          const use = this.#uses.get(x.id);
          if (use) {
            use.count++;
            use.at = Math.max(use.at, now);
          } else this.#uses.set(x.id, { count: 1, at: now });
        }
      }
      return r;
    };
    const mirror = this.#mirror;
    const lexical = (reason: string) =>
      counted({ ...recall(ctx, query, options, undefined, mirror), reason });
    const vectors = this.#vectors;
    if (options?.asOf !== undefined) return lexical('as-of recall reads history by its words');
    if (!vectors) return lexical(this.#lexicalReason);
    if (!vectors.active) return lexical(vectors.status().reason ?? 'vectors paused');
    let queryVector: Float32Array;
    try {
      queryVector = await vectors.embedQuery(query);
    } catch (err) {
      if (!KeelError.isInstance(err)) throw err;
      return lexical(`embedder failed (${err.code}): ${err.message}`);
    }
    const floor = 1 - vectors.floor;
    return counted(
      recall(
        ctx,
        query,
        options,
        {
          nearest: (entity, k) =>
            vectors
              .knn(entity, queryVector, k)
              .filter((n) => n.distance <= floor)
              .map((n) => n.id),
        },
        mirror,
      ),
    );
  }

  /** True once {@link close} ran (or the connection was lost). */
  get closed(): boolean {
    return !this.#ctx.db.open;
  }

  /**
   * Builds recall's full-text indexes mirrored in memory (`recall/postings.ts`: FTS5's BM25
   * ranking of turns and facts, without FTS5's per-row cost), by about `budgetMs` of work. A
   * long-running door calls it while idle (`@keel/host` `keepRecallWarm`); a one-shot command
   * never does, and its recall asks FTS5 (the same ranking, slower). Recall keeps the turns'
   * mirror current itself; a redaction, or more than {@link CATCH_UP_ROWS} turns written at once
   * (an import), drops it until it is built again. The facts' mirror is rebuilt here after facts
   * changed (recall asks FTS5 for facts until then).
   *
   * @param budgetMs - work to do now, ms (default: all of it; about 1 s for 90k chat turns).
   * @returns true when recall uses both; false while one is being built or once this store closed.
   */
  warmRecall(budgetMs = Number.POSITIVE_INFINITY): boolean {
    if (!this.#ctx.db.open) return false;
    return this.#mirror.step(budgetMs);
  }

  /**
   * Writes the access counts recall has counted in this process (one short transaction; nothing
   * when there are none). The store's units of work, `remember`, `decay` and `close` call it.
   *
   * @returns the facts whose count was written.
   */
  flushAccess(): number {
    const n = this.#uses.size;
    if (n === 0) return 0;
    this.#ctx.db.transaction(() => this.#writeUses()).immediate();
    return n;
  }

  /** Writes the counted uses inside the caller's transaction and forgets them. */
  #writeUses(): void {
    if (this.#uses.size === 0) return;
    recordAccess(this.#ctx, this.#uses);
    this.#uses.clear();
  }

  /**
   * The vector arm's bounded catch-up: deletes the vectors of rows that changed and embeds up to
   * `limit` waiting rows (the oldest first), a batch per transaction. The think service runs it
   * every tick; recall never embeds or writes. Nothing happens without a bound embedder.
   *
   * @param limit - rows to embed at most (default {@link CATCH_UP_LIMIT}).
   * @returns rows embedded and rows still waiting.
   * @throws KeelError `EMBEDDER_UNAVAILABLE`, `EMBEDDING_INVALID` (nothing of the failed batch is
   *   stored).
   */
  async catchUpVectors(
    limit: number = CATCH_UP_LIMIT,
  ): Promise<{ embedded: number; remaining: number }> {
    return this.#vectors ? this.#vectors.sync({ limit }) : { embedded: 0, remaining: 0 };
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
    this.#vectors = null;
    this.#lexicalReason = reason;
    if (!embedder) return null;
    this.#vectors = await VectorIndex.attach(this.#ctx, embedder);
    return this.#vectors.status();
  }

  /** The bound vector index (for benchmarks and tools), or null. */
  get vectorIndex(): VectorIndex | null {
    return this.#vectors;
  }

  /** The vector arm's state, or null when no embedder is bound. */
  vectorStatus(): VectorStatus | null {
    return this.#vectors?.status() ?? null;
  }

  /**
   * Embeds rows written since the last sync (e.g. after an import), in batches.
   *
   * @returns rows embedded and rows still waiting; zeros when no embedder is bound.
   * @throws KeelError `EMBEDDER_UNAVAILABLE`, `EMBEDDING_INVALID` (nothing of the failed batch is
   *   stored), `CANCELLED`.
   */
  async embedPending(options?: SyncOptions): Promise<{ embedded: number; remaining: number }> {
    return this.#vectors ? this.#vectors.sync(options) : { embedded: 0, remaining: 0 };
  }

  /**
   * The vector queue's mark: every row written or changed after this call is queued after it (see
   * {@link embedSince}). Reads only; no embedder needs to be bound.
   */
  vectorMark(): number {
    return queueMark(this.#ctx.db);
  }

  /**
   * Embeds what was written since `mark` (a {@link vectorMark}) now, not at the next
   * {@link catchUpVectors}: the newest rows queued after it, at most `limit` (default 64). What
   * it leaves (older rows, rows past the limit, rows that should lose their vector) stays queued
   * for the catch-up. Nothing without a bound embedder, or while the vector arm is paused.
   *
   * @returns rows embedded, and the queue's mark when it began (the next call's `mark`).
   * @throws KeelError `EMBEDDER_UNAVAILABLE`, `EMBEDDING_INVALID` (nothing of the failed batch is
   *   stored), `CANCELLED` (`signal` aborted: nothing more is stored).
   */
  async embedSince(mark: number, options?: EmbedSinceOptions): Promise<EmbedSinceResult> {
    if (!this.#vectors) return { embedded: 0, through: this.vectorMark() };
    return this.#vectors.embedSince(mark, options);
  }

  /** Rows waiting for a vector (see `pendingVectorRows`); no embedder needs to be bound. */
  pendingVectors(): number {
    return pendingVectorRows(this.#ctx);
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
    const index = await VectorIndex.attach(this.#ctx, embedder, { forReindex: true });
    this.#vectors = index;
    const r = await index.reindex(options);
    return { ...r, status: index.status() };
  }

  // -------------------------------------------------------------------------------------------
  // The file

  /**
   * Runs `fn` (synchronous or not) as one span of secrets, as an agent turn is: a secret withheld
   * from any write in the span (the owner's words, a unit of work's) is withheld from every later
   * write in it, inside a unit of work or not — the tool log, the session, a fact the model
   * proposes. The span's secrets are kept in memory only, as long as work started inside the span
   * lives (a connection opened during a turn keeps them: it can only withhold more). A span inside a
   * span is the outer one; spans running at the same time are apart.
   *
   * With `ledger`, the span keeps its secrets there instead of in a ledger of its own, so spans
   * given the same ledger share them: what one withheld, every later one withholds (an MCP
   * connection's calls, each its own span). The caller holds the ledger, in memory only, as long
   * as it should remember.
   *
   * @param ledger the secrets to keep across spans; default a new one, forgotten when `fn` settles.
   * @returns what `fn` returned.
   */
  withSecrets<T>(fn: () => T, ledger?: SecretLedger): T {
    if (this.#secretScope.getStore()) return fn();
    return this.#secretScope.run(ledger ?? new SecretLedger(), fn);
  }

  /**
   * Runs `fn` as one unit of work: one IMMEDIATE transaction, inside which every store write
   * (remember, decay, prune, dedupe, repository writes, ...) becomes a savepoint. When `fn`
   * returns, everything it did commits at once; when it throws, nothing it did is kept and the
   * error is rethrown. Nested calls become savepoints of the outer unit.
   *
   * `fn` must be synchronous: an async function would commit before its awaits finish, so a
   * returned promise is refused and everything done before it is rolled back. A purge inside the
   * unit folds the WAL into the database file after the unit commits (as `forget` does alone).
   *
   * A secret withheld from one of the unit's writes is withheld from all of them, wherever it
   * repeats: the owner's turn says "my wifi password is sunshine", and "sunshine" in keel's reply,
   * in a tool call's arguments or in a fact proposed from the turn is withheld or refused too. The
   * unit's secrets are kept in memory only, and forgotten when it ends.
   *
   * @returns what `fn` returned.
   * @throws whatever `fn` throws; KeelError `INVALID_INPUT` when `fn` returns a promise; SQLite's
   *   `SQLITE_BUSY` when another process holds the write lock past the busy timeout.
   */
  transaction<T>(fn: () => T): T {
    const db = this.#ctx.db;
    const outermost = !db.inTransaction;
    if (outermost) this.#ctx.ledger = this.#secretScope.getStore() ?? new SecretLedger();
    let result: T;
    try {
      result = db
        .transaction((): T => {
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
          if (outermost) this.#writeUses();
          return value;
        })
        .immediate();
    } catch (err) {
      if (outermost) this.#checkpointAfterCommit = false;
      throw err;
    } finally {
      if (outermost) this.#ctx.ledger = undefined;
    }
    if (outermost && this.#checkpointAfterCommit) {
      this.#checkpointAfterCommit = false;
      db.pragma('wal_checkpoint(TRUNCATE)');
    }
    return result;
  }

  /**
   * The journal's head: its newest entry's sequence number and hash (seq 0 and an empty hash for
   * an empty journal), what `keel verify --head` prints (`formatHead`). Reads one row; checks
   * nothing (see {@link verify}).
   */
  journalEnd(): HeadMark {
    return lastEntry(this.#ctx.db);
  }

  /**
   * Walks the journal chain and checks every invariant (`keel verify`), the journal's end against
   * its anchor file beside the database, and (`against`) against a head the owner kept.
   *
   * With `incremental` (`keel doctor`), the chain is hashed only after the checkpoint beside the
   * database (`keel.db.checked`, see `journal/checkpoint.ts`) when a whole check wrote it less
   * than a day ago; otherwise the check is whole. A whole check that passes writes the checkpoint,
   * one that fails removes it (a file-backed store opened for writing only). `keel verify` is
   * always whole.
   */
  verify(
    options: { against?: HeadMark; incremental?: boolean; quickChecked?: boolean } = {},
  ): VerifyReport {
    const { incremental, ...rest } = options;
    const file =
      this.path === ':memory:' || this.#ctx.db.readonly ? null : checkpointPathFor(this.path);
    const now = this.#ctx.now();
    const kept = incremental && file ? readCheckpoint(file) : null;
    const since = kept && now - kept.at < FULL_CHECK_EVERY_MS && kept.at <= now ? kept : undefined;
    const report = verify(this.#ctx, {
      ...(this.path === ':memory:' ? {} : { anchorFile: anchorPathFor(this.path) }),
      ...(since ? { since } : {}),
      ...rest,
    });
    const last = report.journal.last;
    if (file && report.scope === 'whole') {
      // A whole check that failed leaves no checkpoint: the next doctor is whole and says so too.
      if (report.ok && last) writeCheckpoint(file, { ...last, at: now });
      else dropCheckpoint(this.path);
    }
    return report;
  }

  /**
   * SQLite's quick check of the file (catches damaged pages without reading every index).
   *
   * @param limit - the most problems listed.
   * @returns `["ok"]` for a sound file, else what is damaged.
   * @throws SQLite's corruption errors when the damage stops even the check.
   */
  quickCheck(limit = 1): string[] {
    return (
      this.#ctx.db.pragma(`quick_check(${Math.max(1, Math.floor(limit))})`) as {
        quick_check: string;
      }[]
    ).map((r) => r.quick_check);
  }

  /**
   * Checks the file before a write: SQLite's quick check, unless (`full` false, the default) this
   * process or the verdict cache vouches for the file's current state (see `integrity.ts`). Front
   * doors call it before each turn; the services in full on their schedule.
   *
   * @returns how it was checked and how long it took.
   * @throws KeelError `DB_CORRUPT` (the cache is cleared; nothing should be written);
   *   `INVALID_STATE` when the file was replaced since this store opened it.
   */
  checkIntegrity(options: { full?: boolean } = {}): IntegrityVerdict {
    return this.#guard.check(this.#ctx.db, options.full ?? false);
  }

  /**
   * Records the file's current state as sound after this process's own writes, so the next check
   * (here or in another keel process) need not read the whole file. Call it after a turn, and after
   * {@link close}; it does nothing unless this store found the file sound and met no damage.
   *
   * @returns whether a verdict was recorded.
   */
  recordSound(): boolean {
    return this.#guard.recordSound();
  }

  /**
   * This process met damage (SQLite reported a corrupt page): the verdict cache is cleared, later
   * checks fail, and nothing is vouched for again.
   */
  recordDamage(): void {
    this.#guard.recordDamage();
  }

  /** The newest integrity check's verdict (the one at open, or a later one), or null. */
  get lastIntegrityCheck(): IntegrityVerdict | null {
    return this.#guard.last;
  }

  /** Whether this store met damage (see {@link recordDamage}). */
  get damaged(): boolean {
    return this.#guard.damaged;
  }

  /** The SQLite library's version, e.g. "3.53.2". */
  sqliteVersion(): string {
    return (stmt(this.#ctx.db, 'SELECT sqlite_version() AS v').get() as { v: string }).v;
  }

  /**
   * Merges the full-text indexes' segments (FTS5 `optimize`) so recall reads one b-tree per index
   * after a day of small writes, and purged tokens leave the file. Runs inside a caller's
   * transaction when there is one.
   */
  optimizeIndexes(): void {
    for (const table of ['facts_fts', 'episodes_fts']) {
      stmt(this.#ctx.db, `INSERT INTO ${table} (${table}) VALUES ('optimize')`).run();
    }
  }

  /** Row counts and the recall mode, for `keel doctor` and the status lines. */
  stats(): { facts: number; active: number; pending: number; episodes: number; mode: RecallMode } {
    return {
      ...factCounts(this.#ctx),
      episodes: countRows(this.#ctx.db, 'SELECT count(*) AS n FROM episodes'),
      mode: this.#vectors?.active ? 'hybrid' : 'lexical',
    };
  }

  /**
   * Closes the file (idempotent), first writing the access counts recall has counted
   * ({@link flushAccess}; dropped if they cannot be written). The last connection to close folds
   * the WAL into the file; once this store met damage ({@link recordDamage}) neither is done (the
   * WAL stays beside the file, and `keel restore` keeps it with the damaged file).
   */
  close(): void {
    const db = this.#ctx.db;
    if (!db.open) return;
    if (!this.#guard.damaged && !db.readonly) {
      try {
        this.flushAccess();
      } catch {
        // Use counts slow decay and nothing else: ones that cannot be written now are dropped.
      }
    }
    if (!this.#guard.damaged || this.path === ':memory:') {
      db.close();
      return;
    }
    // A read-only connection never checkpoints: while it has read (and so holds its lock),
    // closing this one is not the last close, and it closes last itself.
    let reader: Database.Database | null = null;
    try {
      reader = new Database(this.path, { readonly: true, fileMustExist: true });
      stmt(reader, 'SELECT count(*) FROM sqlite_master').get();
    } catch {
      // its first page is damaged too: SQLite will not get as far as a checkpoint either
    }
    db.close();
    reader?.close();
  }
}
