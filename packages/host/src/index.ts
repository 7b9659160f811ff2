/**
 * `@keel/host`: keel's composition root. The apps start here; libraries take what it builds as
 * options and never read the environment.
 *
 * - Configuration ({@link loadConfig}): one schema for every setting ({@link SETTINGS_SCHEMA}),
 *   every default in {@link DEFAULTS}, the typed and grouped {@link KeelConfig}; a bad value is
 *   `CONFIG_INVALID` naming the variable. {@link discordDoor} is what the Discord door needs.
 * - Wiring ({@link openKeel}): the store with the configured embedder bound, the chat model, the
 *   belief gate chooser and the owner notifier, from one configuration.
 * - Service locks ({@link acquireThinkLock}, {@link acquireServiceLock}, {@link readLockHolder}):
 *   one think service and one Discord door per KEEL_HOME.
 * - Damage ({@link openStore}, {@link closeStore}, {@link damageError}): every verb that writes
 *   checks the database first (its verdict cached by the file's state); the owner's lines are kept
 *   in the recovery file meanwhile ({@link keepForRecovery}) and stored by {@link recoverInto}
 *   (`keel recover`); {@link backupHome} and {@link restoreHome} are `keel backup` and
 *   `keel restore`.
 * - Processes: {@link pidAlive}, {@link watchParent} / {@link stopWhenParentGone} (a service
 *   stops with the CLI that started it), {@link runApp} (the CLI starts a service).
 * - Errors ({@link reportError}): the one printer of `error CODE` / `fix:` and the exit codes
 *   ({@link EXIT}).
 * - The `--json` contract ({@link formatJson}): snake_case keys at every depth, instants as ISO
 *   8601 text with the offset, durations as `*_ms`; every door prints its JSON through it.
 *
 * @module
 */
export {
  DEFAULTS,
  type DiscordDoorConfig,
  discordDoor,
  type KeelConfig,
  type LoadConfigOptions,
  loadConfig,
  MAX_GRACE_MS,
  MAX_INTERVAL_MIN,
  machineZone,
  normalizeOllamaHost,
  type QuietHours,
  type RawSettings,
  SECRET_SETTINGS,
  SETTING_NAMES,
  SETTINGS_SCHEMA,
  type SettingName,
  type Settings,
} from './config.js';
export {
  contractProblems,
  type FormatJsonOptions,
  formatJson,
  ISO_TIME,
  isoTime,
  isTimeField,
  SNAKE_CASE,
  snakeKey,
  toJsonContract,
} from './json.js';
export {
  acquireServiceLock,
  acquireThinkLock,
  LOCK_FILE,
  type LockHolder,
  type LockInfo,
  type LockOptions,
  lockPath,
  parseLockInfo,
  readLockHolder,
  type Service,
  STALE_MS,
  serviceLockPath,
  type ThinkLock,
} from './lock.js';
export {
  closeStore,
  configuredEmbedder,
  damageError,
  INTEGRITY_CACHE_FILE,
  type IntegrityCheck,
  integrityOptions,
  type NotifyOwner,
  type OpenKeel,
  type OpenNeeds,
  openKeel,
  openStore,
  ownerNotifier,
} from './open.js';
export {
  FORWARDED_SIGNALS,
  PARENT_CHECK_MS,
  PARENT_PID_VARIABLE,
  type ParentWatchOptions,
  parseParentPid,
  pidAlive,
  type RunAppOptions,
  runApp,
  stopWhenParentGone,
  watchParent,
} from './process.js';
export {
  fileStamp,
  keepForRecovery,
  pendingRecovery,
  RECOVERY_FILE,
  RECOVERY_SOURCE,
  type RecoverResult,
  type RecoveryInput,
  type RecoveryLine,
  type RecoveryRemember,
  recoverInto,
  recoveryPath,
} from './recovery.js';
export {
  type ErrorReport,
  EXIT,
  exitCodeFor,
  INTERNAL_FIX,
  type ReportStreams,
  reportError,
  toErrorReport,
} from './report.js';
export {
  BACKUPS_DIR,
  backupHome,
  backupsPath,
  newestBackup,
  type RestoreOptions,
  type RestoreResult,
  restoreHome,
} from './restore.js';
