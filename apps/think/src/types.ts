/**
 * The think service's shapes: its configuration, what a run needs, and what a run reports.
 *
 * @module
 */
import type { ChatModel } from '@keel/agent';
import type { BeliefGate } from '@keel/gate';
import type { QuietHours } from '@keel/host';
import type { MemoryStore } from '@keel/memory';

/** Quiet hours in the owner's time zone: `start` to `end` (hours 0..23, end exclusive, may wrap). */
export type { QuietHours } from '@keel/host';

/** The service's configuration: `think` of `@keel/host`'s `KeelConfig` (one variable each). */
export interface ThinkConfig {
  /** Minutes between ticks (KEEL_THINK_INTERVAL_MIN, default 15). */
  intervalMin: number;
  /** When the service never messages the owner (KEEL_QUIET_HOURS, e.g. `23-7`); null: never quiet. */
  quietHours: QuietHours | null;
  /** The owner's IANA time zone (KEEL_TZ, default the machine's). */
  tz: string;
  /** The local hour at or after which the nightly curator runs (KEEL_CURATE_AT, default 3). */
  curateAt: number;
  /** Ollama host for the belief gate (OLLAMA_HOST). */
  ollamaHost: string;
  /** The belief gate's Ollama model (KEEL_GATE_MODEL). */
  gateModel: string;
}

/** How the service reaches the owner (a Discord DM); resolves when the message is sent. */
export type Notify = (text: string) => Promise<void>;

/** Everything one run needs. Nothing here reads the environment. */
export interface ThinkDeps {
  store: MemoryStore;
  config: ThinkConfig;
  /** The belief gate that runs this tick (Ollama, or the pattern gate when Ollama is absent). */
  gate: BeliefGate;
  /** The frontier model for reflection and the curator; null: those steps are skipped and say so. */
  model: ChatModel | null;
  /** How to DM the owner; null when no Discord front door is configured. */
  notify: Notify | null;
  /** The clock, ms since the Unix epoch. */
  now: () => number;
  /** A line for the service log (stderr). */
  log?: (line: string) => void;
  /** Cancels model calls on shutdown. */
  signal?: AbortSignal;
}

/** What the nightly curator did (zeros when it did not run). */
export interface CuratedCounts {
  added: number;
  corroborated: number;
  superseded: number;
  conflicts: number;
  pruned: number;
}

/** What one run did: the `--json` output of `keel think --once`. */
export interface RunReport {
  /** Which belief gate ran. */
  gate: 'ollama' | 'pattern';
  /** Owner turns the gate looked at. */
  examined: number;
  /** Turns the gate put in the pending-beliefs queue. */
  queued: number;
  /** Deltas reflection (and the curator) proposed. */
  proposed: number;
  /** Writes the store accepted (created, corroborated or updated a fact). */
  written: number;
  /** The curator's counts; null when the curator did not run in this run. */
  curated: CuratedCounts | null;
  /** Messages sent to the owner. */
  interrupts: number;
  /**
   * The reminders the owner asked for: sent, held (quiet hours, no front door) and missed (more
   * than a day late). Absent from reports written before reminders existed.
   */
  reminders?: { sent: number; held: number; missed: number };
  /** Steps skipped and why (no model, quiet hours, ...). */
  skipped: string[];
  /** The `think_runs` row of this run. */
  runId: number;
}
