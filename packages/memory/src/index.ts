/**
 * `@keel/memory`: keel's store. One SQLite file; numbered migrations; facts with slots,
 * confidence, evidence and supersession; episodes; tombstones; a hash-chained journal; the write
 * review with its evidence gate; hybrid recall (BM25 fused with sqlite-vec nearest neighbours, or
 * lexical-only and saying why); embedders; decay and prune; verification; import.
 *
 * Imports no other keel package.
 *
 * @module
 */
export { type Clock, type StoreContext, stmt } from './context.js';
export {
  type CompactOptions,
  DEDUPE_MIN_WORDS,
  DEDUPE_REASON,
  type DedupeChange,
  STALE_AFTER_DAYS,
  type StaleOptions,
} from './curate.js';
export { type OpenOptions, openDatabase, registerFunctions } from './db.js';
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
export { type EpisodeInput, MAX_EPISODE_CHARS } from './episodes.js';
export type { ImportOptions, ImportResult } from './import/import.js';
export {
  type ImportedTurn,
  type ImportFormat,
  type ParsedImport,
  parseImport,
  parseLocomoDate,
  parseLongMemEvalDate,
} from './import/parsers.js';
export { GENESIS_HASH, type JournalBreak, type JournalEntry, verifyJournal } from './journal.js';
export {
  type ForgetResult,
  type OwnerActionOptions,
  type PendingItem,
  PURGED,
  type ReviewQueue,
  WEAK_BELIEF_THRESHOLD,
} from './lifecycle.js';
export { DECAY_GRACE_WEEKS, DECAY_PER_WEEK, type DecayChange, PRUNE_BELOW } from './maintenance.js';
export { getMeta, setMeta } from './meta.js';
export {
  LATEST_VERSION,
  MIGRATIONS,
  type Migration,
  migrate,
  schemaVersion,
} from './migrations.js';
export {
  EPISODE_HALF_LIFE_MS,
  type EpisodeResult,
  type FactResult,
  KEY_BOOST,
  NEIGHBOUR_WEIGHT,
  type Provenance,
  type RecallMode,
  type RecallOptions,
  type RecallResponse,
  type RecallResult,
  RRF_K,
  type VectorArm,
} from './recall.js';
export {
  REFUSED_OWNER_RETRACTION,
  type RetractOptions,
  type RetractResult,
  retractBelief,
} from './retract.js';
export { findSecret, looksLikeInjection, redactSecrets, SECRET_PLACEHOLDER } from './scan.js';
export {
  DB_FILENAME,
  MemoryStore,
  parseFactId,
  parseSlot,
  RECALL_SYNC_LIMIT,
  type StoreOptions,
} from './store.js';
export { foldForIndex, ftsMatch, humanAge, normalizeValue, queryTerms, valueHash } from './text.js';
export * from './types.js';
export {
  EMBED_BATCH,
  episodeText,
  factText,
  loadVectorExtension,
  type Neighbour,
  type SyncOptions,
  VectorIndex,
  type VectorStatus,
} from './vectors.js';
export type { VerifyProblem, VerifyReport } from './verify.js';
export {
  authority,
  confidenceCeiling,
  FIRST_SIGHTING_CAP,
  isOwnerSource,
  MAX_VALUE_CHARS,
  NON_OWNER_MAX,
  normalizeKey,
  REFUSED_FORGOTTEN_EPISODE,
  REFUSED_FORGOTTEN_VALUE,
  REPEAT_STEP,
  type RememberInput,
  STRONG_CONFIDENCE,
  type WriteResult,
} from './write.js';
