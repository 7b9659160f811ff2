/**
 * `@keel/memory`: keel's store, the only code that speaks SQL. One SQLite file opened through
 * {@link MemoryStore}; nothing outside this package holds the database handle.
 *
 * - **The store** — `MemoryStore` (`store.ts`): open, the one unit of work, verify, stats.
 * - **Integrity** (`integrity.ts`, `backup.ts`) — SQLite's quick check before writes, its verdict
 *   cached by the file's state; online backups (`backupDatabase`) and the check a file must pass
 *   to be restored (`inspectDatabase`).
 * - **Schema** (`schema/`) — numbered migrations applied in one place; a database newer than
 *   the code is refused (`SCHEMA_FROM_FUTURE`).
 * - **Facts** (`facts/`) — the write review that decides what is written (`review.ts`), the
 *   evidence gate (`evidence-gate.ts`), the one module that changes fact state
 *   (`transitions.ts`), the owner's verbs (`owner.ts`: review, confirm, reject, forget, purge),
 *   purge by mention (`mentions.ts`: `findMentions`, `purgeMentions`), retraction, decay and
 *   prune, dedupe, tombstones (which bind a value's folded content), review flags, keys.
 * - **Recall** (`recall/`) — the one recall: BM25 over FTS5 fused by reciprocal rank with the
 *   vector arm when an embedder is bound (`MemoryStore.recall`), lexical otherwise and saying why;
 *   the FTS5 indexes mirrored in memory for a long-running door (`postings.ts`,
 *   `MemoryStore.warmRecall`: the same ranking without FTS5's per-row cost).
 * - **Vectors** (`vectors/`) and **embedders** (`embed/`) — sqlite-vec tables kept in step by a
 *   queue (caught up by `MemoryStore.catchUpVectors`, never by recall); the relevance floor per
 *   embedder (`similarityFloor`); local MiniLM or Ollama embeddings; `keel models pull`.
 * - **Journal** (`journal/`) — the append-only hash-chained log and its head, the records of the
 *   rows each decision changed (`rows.ts`), journaled redactions, verification, replay against the
 *   tables (`replay.ts`: what `keel verify` can and cannot detect), and compaction.
 * - **Repositories** (`repos/`) — every other table: episodes, the owner session (sessions, turns,
 *   messages), the belief queue, think runs, the curator's diary, interrupts, reminders, meta,
 *   imports, the tool log and the owner's tool grants.
 * - **Redaction** (`redaction.ts`) — every repository that can hold the owner's words erases a
 *   purged value; purge walks them all.
 * - **Text** — the store's own use of `@keel/language` (folding, hashes, the secret scan and the
 *   injection scan are there): user text as an FTS5 query (`recall/fts-query.ts`).
 * - **Import** (`import/`) — LoCoMo and LongMemEval conversations as episodes.
 *
 * Tests and benchmarks reach the database handle through `@keel/memory/internal`.
 *
 * @module
 */

export {
  type BackupReach,
  type BackupResult,
  backupDatabase,
  type DatabaseInfo,
  inspectDatabase,
  isSqliteFile,
  partialName,
  partialPid,
  type ReachBackups,
  sealDatabase,
  temporaryCopyPid,
} from './backup.js';
export type { OpenOptions } from './db.js';
export {
  DEFAULT_HF_ENDPOINT,
  type InstalledModel,
  listInstalledModels,
  type PullOptions,
  type PullProgress,
  pullModel,
} from './embed/hub.js';
export {
  MINILM,
  MiniLmEmbedder,
  type MiniLmOptions,
  MODELS,
  type ModelSpec,
  modelInstalled,
} from './embed/minilm.js';
export {
  DEFAULT_OLLAMA_EMBED_MODEL,
  DEFAULT_OLLAMA_HOST,
  OllamaEmbedder,
  type OllamaEmbedderOptions,
} from './embed/ollama.js';
export {
  EMBEDDER_CHOICES,
  type EmbedderChoice,
  type EmbedderSelection,
  type SelectEmbedderOptions,
  selectEmbedder,
} from './embed/select.js';
export {
  checkEmbeddings,
  type Embedder,
  type EmbedderInfo,
  type EmbedPurpose,
  fingerprint,
} from './embed/types.js';
export { type ExportOptions, isPurgedValue } from './export/export.js';
export {
  EXPORT_FORMAT,
  EXPORT_VERSION,
  type ExportedBelief,
  type ExportedChange,
  type ExportedEpisode,
  type ExportedEvidence,
  type ExportedTombstone,
  isKeelExport,
  type KeelExport,
} from './export/format.js';
export {
  DEDUPE_MIN_WORDS,
  DEDUPE_REASON,
  type DedupeChange,
} from './facts/dedupe.js';
export {
  authority,
  confidenceCeiling,
  FIRST_SIGHTING_CAP,
  isOwnerSource,
  NON_OWNER_MAX,
  REPEAT_STEP,
  STRONG_CONFIDENCE,
} from './facts/evidence-gate.js';
export {
  normalizeKey,
  parseAnswer,
  parseFactId,
  parseQuestionId,
  parseSlot,
} from './facts/keys.js';
export {
  appendPurgeLedger,
  ledgerEntry,
  PURGE_LEDGER_FILE,
  type PurgeLedgerEntry,
  parsePurgeLedger,
} from './facts/ledger.js';
export {
  DECAY_GRACE_WEEKS,
  DECAY_PER_WEEK,
  type DecayChange,
  PRUNE_BELOW,
} from './facts/maintenance.js';
export {
  FACTS_PLACE,
  type Mention,
  type MentionReport,
  type PurgeMentionsOptions,
  type PurgeReach,
  type PurgeReceipt,
} from './facts/mentions.js';
export {
  type ForgetResult,
  type OwnerActionOptions,
  type OwnerActor,
  type PendingItem,
  type ReviewQueue,
  WEAK_BELIEF_THRESHOLD,
} from './facts/owner.js';
export {
  type AnswerResult,
  type AskInput,
  type PendingQuestion,
  QUESTION_MAX_CHARS,
  questionText,
} from './facts/questions.js';
export {
  BELIEF_ORDERS,
  type BeliefFilter,
  type BeliefListing,
  type BeliefOrder,
} from './facts/read.js';
export {
  ASKED_OWNER_RETRACTION,
  REFUSED_OWNER_RETRACTION,
  type RetractOptions,
  type RetractResult,
} from './facts/retract.js';
export {
  type ConfidenceCap,
  MAX_VALUE_CHARS,
  REFUSED_FORGOTTEN_CONTENT,
  REFUSED_FORGOTTEN_EPISODE,
  REFUSED_FORGOTTEN_VALUE,
  REFUSED_NOT_EVIDENCE,
  REFUSED_OUTSIDE_REPEAT,
  REFUSED_UNSAID,
  type RememberInput,
  secretRefusal,
  type WriteResult,
} from './facts/review.js';
export { type ForgetRequest, STALE_AFTER_DAYS, type StaleOptions } from './facts/review-flags.js';
export type { BeliefExplanation, WhyChange, WhyEvidence } from './facts/why.js';
export type { ImportOptions, ImportResult } from './import/import.js';
export { type KeelExportImportResult, parseKeelExport } from './import/keel-export.js';
export {
  type ImportedTurn,
  type ImportFormat,
  type ParsedImport,
  parseImport,
  parseLocomoDate,
  parseLongMemEvalDate,
} from './import/parsers.js';
export {
  DEFAULT_MAX_AGE_MS as INTEGRITY_MAX_AGE_MS,
  fileState,
  type IntegrityOptions,
  type IntegrityVerdict,
} from './integrity.js';
export {
  type AnchorBreak,
  anchorPathFor,
  anchorRestored,
  carryOwnAnchor,
  formatHead,
  type HeadMark,
  parseHead,
} from './journal/anchor.js';
export { writeRaw as writePrivateFile } from './journal/atomic-file.js';
export type { CompactOptions } from './journal/compact.js';
export {
  GENESIS_HASH,
  type JournalBreak,
  type StepFailure,
  verifyJournal,
} from './journal/journal.js';
export {
  CANNOT_DETECT,
  type ReplayProblem,
  type ReplayReport,
  type RowCounts,
} from './journal/replay.js';
export {
  EPISODE_HALF_LIFE_MS,
  type EpisodeResult,
  type FactResult,
  KEY_BOOST,
  NEIGHBOUR_WEIGHT,
  NEIGHBOUR_WEIGHT_2,
  type Provenance,
  RECENCY_WEIGHT,
  type RecallMode,
  type RecallOptions,
  type RecallResponse,
  type RecallResult,
  RRF_K,
} from './recall/recall.js';
export {
  ERASED_BY_PURGE,
  NO_OWNER_TEXT,
  type OwnerTextColumn,
  type OwnerTextHolder,
  type OwnerTextMention,
  PURGED,
} from './redaction.js';
export type { GateInput, QueuedTurn, QueueState } from './repos/belief-queue.js';
export { WATERMARK_KEY } from './repos/belief-queue.js';
export type { DiaryEntry, NightCounts } from './repos/diary.js';
export {
  type ConversationTurn,
  type EpisodeInput,
  MAX_EPISODE_CHARS,
} from './repos/episodes.js';
export type { DueInterrupt, PendingInterrupt } from './repos/interrupts.js';
export {
  type CancelledReminder,
  type CreatedReminder,
  MAX_REMINDER_CHARS,
  type NewReminder,
  REMINDER_STATUSES,
  type Reminder,
  type ReminderAuthor,
  type ReminderStatus,
  RemindersRepo,
  SAME_REMINDER_MS,
} from './repos/reminders.js';
export type {
  MessageRow,
  NewMessage,
  OwnerSessionRepo,
  TurnRow,
  TurnStatus,
} from './repos/session.js';
export type { RunKind, RunOutcome, ThinkRunRow, TickInfo } from './repos/think-runs.js';
export {
  type GrantScope,
  TOOL_APPROVALS,
  TOOL_ARGUMENTS_CHARS,
  TOOL_EXCERPT_CHARS,
  type ToolApproval,
  type ToolCallInput,
  type ToolCallRow,
  type ToolCallsRepo,
  type ToolGrantRow,
  type ToolGrantsRepo,
} from './repos/tool-calls.js';
export {
  LATEST_VERSION,
  MIGRATIONS,
  type Migration,
  migrate,
  schemaVersion,
} from './schema/index.js';
export {
  CATCH_UP_LIMIT,
  DB_FILENAME,
  MemoryStore,
  type StoreOptions,
} from './store.js';
export * from './types.js';
export {
  DEFAULT_SIMILARITY_FLOOR,
  type EmbedSinceOptions,
  type EmbedSinceResult,
  MINILM_SIMILARITY_FLOOR,
  type Neighbour,
  SIMILARITY_FLOORS,
  type SyncOptions,
  similarityFloor,
  VectorIndex,
  type VectorStatus,
} from './vectors/index.js';
export { ANCHOR_FIX, type VerifyOptions, type VerifyProblem, type VerifyReport } from './verify.js';
