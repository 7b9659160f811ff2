/**
 * `@keel/think`: the background service that keeps keel's memory honest while the owner is away:
 * a tick every interval (belief gate, reflection, interrupts), the nightly curator and the weekly
 * review, run under one lock with graceful shutdown.
 *
 * @module
 */
export {
  DEFAULT_CURATE_AT,
  DEFAULT_INTERVAL_MIN,
  loadThinkConfig,
  MAX_INTERVAL_MIN,
  machineZone,
  parseThinkArgs,
  type ThinkArgs,
} from './config.js';
export {
  acquireThinkLock,
  LOCK_FILE,
  type LockInfo,
  type LockOptions,
  lockPath,
  parseLockInfo,
  pidAlive,
  type ThinkLock,
} from './lock.js';
export { type RunDetails, type RunOptions, runThink } from './run.js';
export {
  curationDue,
  isoWeek,
  isQuiet,
  local,
  nightOf,
  parseQuietHours,
  previousWeek,
  validateZone,
} from './schedule.js';
export {
  createSession,
  describeError,
  formatReport,
  type GateChooser,
  type RunFunction,
  realTimer,
  runService,
  type ServiceOptions,
  type ServiceResult,
  type SessionOptions,
  SHUTDOWN_SIGNALS,
  type SignalSource,
  type ThinkRunOptions,
  type ThinkSession,
  type Timer,
} from './service.js';
export type * from './types.js';
