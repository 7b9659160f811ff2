/**
 * `@keel/think`: the background service that keeps keel's memory honest while the owner is away:
 * a tick every interval (belief gate, reflection, interrupts), the nightly curator and the weekly
 * review, run under one lock with graceful shutdown. Its settings, its lock and its wiring come from
 * `@keel/host`.
 *
 * @module
 */
export { applyDelta, type DeltaOutcome, slotKey } from './apply.js';
export { parseThinkArgs, type ThinkArgs } from './args.js';
export { type Delta, DeltaSchema } from './deltas.js';
export {
  deliverReminders,
  MISSED_AFTER_MS,
  REMINDER_MAX_ATTEMPTS,
  type ReminderDelivery,
  reminderMessage,
} from './reminders.js';
export { type RunDetails, type RunOptions, runThink } from './run.js';
export {
  curationDue,
  isoWeek,
  isQuiet,
  local,
  nightOf,
  previousWeek,
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
export { type HeadNotice, headMessage, type WeeklyStep } from './weekly.js';
