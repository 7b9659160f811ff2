/**
 * `@keel/host`: keel's composition root. The apps start here; libraries take what it builds as
 * options and never read the environment.
 *
 * - Configuration ({@link readConfig}, what every process calls): each setting declared once in
 *   {@link SETTINGS} (its variable, its key in `$KEEL_HOME/config.toml`, its check, meaning and
 *   default; {@link SETTINGS_SCHEMA} is built from it), every default in {@link DEFAULTS}, the
 *   environment over the file ({@link loadConfig}), the typed and grouped {@link KeelConfig}; a
 *   bad value is `CONFIG_INVALID` naming the variable, or the file, line and key.
 *   {@link discordDoor} is what the Discord door needs.
 * - The config file: {@link configPath}, {@link readConfigFile} / {@link inspectConfigFile},
 *   {@link setConfigValues} (checked, merged, written atomically with mode 0600),
 *   {@link describeConfig} (each value and its source: env, file, default), {@link maskSecret};
 *   {@link configTableRows} is the README's Configuration table.
 * - Wiring ({@link openKeel}): the store with the configured embedder bound, the chat model, the
 *   belief gate chooser and the owner notifier, from one configuration; for a long-running door,
 *   recall's indexes kept built in memory while idle and what a turn wrote embedded once it is
 *   done ({@link keepRecallWarm}, {@link DoorVectors}); a one-shot verb embeds what it wrote
 *   within a short bound ({@link embedWrittenNow}).
 * - Service locks ({@link acquireThinkLock}, {@link acquireServiceLock}, {@link readLockHolder}):
 *   one think service and one Discord door per KEEL_HOME.
 * - Damage ({@link openStore}, {@link closeStore}, {@link damageError}): every verb that writes
 *   checks the database first (its verdict cached by the file's state); the owner's lines are kept
 *   in the recovery file meanwhile ({@link keepForRecovery}) and stored by {@link recoverInto}
 *   (`keel recover`); {@link backupHome} and {@link restoreHome} are `keel backup` and
 *   `keel restore`; {@link purgeBackups} and {@link applyPurgeLedger} carry a purge into the
 *   backups and into every restore (the purge ledger, hashes only): every store {@link openStore}
 *   opens rewrites its home's backups after a purge, whichever door purged
 *   ({@link reachHomeBackups}); {@link isBackup} says which files are backups, and
 *   {@link removeStaleCopies} clears what a copy killed midway left. What the owner is told of a
 *   stop follows its error ({@link stopState}, {@link stopNotice}): a damaged database
 *   (`DB_CORRUPT`) or a journal that does not match its anchor (`JOURNAL_BROKEN`).
 * - Processes: {@link pidAlive}, {@link watchParent} / {@link stopWhenParentGone} (a service
 *   stops with the CLI that started it), {@link runApp} (the CLI starts a service).
 * - Services ({@link renderService}, {@link installServices}, {@link uninstallServices},
 *   {@link serviceStatus}): keel's background services as systemd user units or launchd agents,
 *   rendered purely, installed and started through an injectable command runner.
 * - Errors ({@link reportError}): the one printer of `error CODE` / `fix:` and the exit codes
 *   ({@link EXIT}).
 * - Live checks ({@link runChecks}, `keel doctor`): the chat model takes its key and has its
 *   model, the belief gate's model is pulled, Discord takes the bot token and an owner is paired,
 *   the services run; each a {@link CheckResult} with its code and fix. The whole report
 *   ({@link doctorReport}) that `keel doctor` prints and `keel web` shows.
 * - Pairing ({@link Pairing}): the one-time code a door's owner sends to become its owner, its
 *   expiry and its three tries ({@link newPairingCode}, {@link formatPairingCode}).
 * - The `--json` contract ({@link formatJson}): snake_case keys at every depth, instants as ISO
 *   8601 text with the offset, durations as `*_ms`; every door prints its JSON through it.
 * - Terminal text ({@link terminalText}): no control character but line feed and tab reaches a
 *   terminal; every door writes its text through it.
 *
 * @module
 */
export { BACKUPS_DIR, backupsPath, isBackup, removeStaleCopies } from './backups.js';
export {
  CHECK_NAMES,
  CHECK_TIMEOUT_MS,
  type CheckFinding,
  type CheckName,
  type CheckOptions,
  type CheckResult,
  type CheckStatus,
  checkDiscordOwner,
  checkDiscordToken,
  checkGateModel,
  checkModel,
  listChatModels,
  type ModelListing,
  runChecks,
  type ServiceFacts,
} from './checks.js';
export {
  CONFIG_KEYS,
  CONFIG_TABLE_HEADER,
  type ConfigKey,
  type ConfigTableRow,
  configTableMarkdown,
  configTableRows,
  DEFAULTS,
  DISCORD_TOKEN_FIX,
  type DiscordDoorConfig,
  discordDoor,
  type FileOrigin,
  type KeelConfig,
  type LoadConfigOptions,
  loadConfig,
  MAX_GRACE_MS,
  MAX_INTERVAL_MIN,
  machineZone,
  normalizeOllamaHost,
  type QuietHours,
  type RawSettings,
  replyFitsWindow,
  SECRET_SETTINGS,
  SETTING_BY_KEY,
  SETTING_NAMES,
  SETTINGS,
  SETTINGS_SCHEMA,
  type SettingInfo,
  type SettingName,
  type Settings,
  settingInfo,
  type TomlType,
} from './config.js';
export {
  CONFIG_FILE,
  type ConfigChanges,
  type ConfigDescription,
  type ConfigFile,
  type ConfigValue,
  type ConfigValues,
  configPath,
  describeConfig,
  type FileProblem,
  homeFrom,
  inspectConfigFile,
  maskSecret,
  readConfig,
  readConfigFile,
  type SettingSourceName,
  type SettingState,
  setConfigValues,
  settingFor,
} from './config-file.js';
export {
  DOCTOR_CAPTURE_FAILURES,
  type DoctorOptions,
  type DoctorReport,
  doctorReport,
  type EmbedderReport,
  embedderReport,
} from './doctor-report.js';
export { DOOR_EMBED_LIMIT, DoorVectors, type DoorVectorsOptions } from './door-vectors.js';
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
  keepRecallWarm,
  type NotifyOwner,
  type OpenKeel,
  type OpenNeeds,
  openKeel,
  openStore,
  ownerNotifier,
  WARM_IDLE_MS,
  WARM_STEP_MS,
} from './open.js';
export {
  formatPairingCode,
  newPairingCode,
  PAIRING_ALPHABET,
  PAIRING_CODE_LENGTH,
  PAIRING_MAX_TRIES,
  PAIRING_TTL_MS,
  Pairing,
  type PairingFailure,
  type PairingOptions,
  type PairingVerdict,
  pairingError,
  readPairingCode,
} from './pairing.js';
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
  applyPurgeLedger,
  type BackupReach,
  type LedgerApplied,
  purgeBackups,
  purgeLedgerPath,
  reachHomeBackups,
  readPurgeLedger,
} from './purge-ledger.js';
export {
  describeQuietHours,
  formatQuietHours,
  inQuietHours,
  parseQuietHours,
} from './quiet-hours.js';
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
  backupHome,
  newestBackup,
  type RestoreOptions,
  type RestoreResult,
  restoreHome,
} from './restore.js';
export {
  announceServer,
  checkServers,
  type RunningServer,
  runningServers,
  type ServerInfo,
  type ServerKind,
  serversDir,
} from './servers.js';
export {
  type InstallResult,
  installServices,
  type ManagerCommand,
  SETTLE_MS,
  settingsServicesDoNotSee,
  type UninstallResult,
  uninstallServices,
} from './service/install.js';
export {
  type KeepRotatedOptions,
  keepLogRotated,
  keepServiceLogRotated,
  LOG_CHECK_MS,
  type LogRotation,
  rotatedLogPath,
  rotateLog,
  writesTo,
} from './service/log.js';
export {
  COMMAND_TIMEOUT_MS,
  type CommandResult,
  type CommandRunner,
  commandRunner,
  managerUnreachable,
  parseServiceNames,
  runCommand,
  type ServiceFile,
  type ServiceSetup,
  servicePlatform,
} from './service/manager.js';
export {
  LAUNCHD_FLAG,
  LAUNCHD_LABEL_PREFIX,
  launchdLabel,
  NO_RESTART_EXIT,
  packageManagerPathEntry,
  type RenderedService,
  type RenderInput,
  renderService,
  SERVICE_LOGS_DIR,
  SERVICE_MANAGERS,
  SERVICE_NAMES,
  SERVICES,
  type ServiceDefinition,
  type ServiceName,
  type ServicePlatform,
  serviceDir,
  serviceFileName,
  serviceLogPath,
  servicePath,
  serviceUnit,
  systemdUnitName,
} from './service/render.js';
export {
  LOG_LINES,
  lastLines,
  lastLogLines,
  launchdState,
  type ServiceReport,
  type ServiceState,
  type StatusResult,
  serviceStatus,
  systemdState,
} from './service/status.js';
export { checkService } from './service-checks.js';
export { type StopState, stopNotice, stopState } from './stop-state.js';
export { escapeJsonControls, terminalText } from './terminal-text.js';
export {
  builtinTools,
  type KeelTools,
  MCP_TURN_WAIT_MS,
  mcpServerLine,
  type OpenToolsOptions,
  openTools,
} from './tools.js';
export { embedWrittenNow, WRITE_EMBED_MS, type WrittenVectors } from './write-vectors.js';
