/**
 * The think service's loop: take the lock, run a tick now and then every interval (the next tick
 * waits for the previous one: never two at once), and stop gracefully on SIGTERM/SIGINT/SIGHUP
 * (abort the run in flight, wait for it to settle, close the store, release the lock).
 *
 * A database that takes no writes stops the service: each tick checks the file first (SQLite's
 * quick check, in full from the second tick on; the first relies on the check at open), and
 * `DB_CORRUPT` from the check or the run, or `JOURNAL_BROKEN` from a write (the journal does not
 * match its anchor), ends the loop instead of being retried next tick (`keel think` exits 2). The
 * log and the owner's DM ({@link stoppedNotice}) say which, with the error's fix.
 *
 * The clock, the timer, the signal source and the run function are injected, so the loop is
 * tested without waiting and without a model. The lock is `@keel/host`'s think lock.
 *
 * @module
 */
import type { ChatModel } from '@keel/agent';
import { KeelError } from '@keel/errors';
import type { BeliefGate } from '@keel/gate';
import { acquireThinkLock, damageError, type LockOptions, stopNotice, stopState } from '@keel/host';
import type { MemoryStore } from '@keel/memory';
import type { Notify, RunReport, ThinkConfig, ThinkDeps } from './types.js';

/** The signals that stop the service. */
export const SHUTDOWN_SIGNALS = ['SIGTERM', 'SIGINT', 'SIGHUP'] as const;

/** The clock and the waits of the loop. */
export interface Timer {
  /** Now, ms since the Unix epoch. */
  now(): number;
  /** Resolves after `ms` milliseconds, or as soon as `signal` aborts; never rejects. */
  sleep(ms: number, signal: AbortSignal): Promise<void>;
}

/** The real clock and `setTimeout`. */
export const realTimer: Timer = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve) => {
      if (signal.aborted) return resolve();
      const done = () => {
        clearTimeout(timeout);
        signal.removeEventListener('abort', done);
        resolve();
      };
      const timeout = setTimeout(done, Math.max(0, ms));
      signal.addEventListener('abort', done, { once: true });
    }),
};

/** Where shutdown signals come from (`process`, or an EventEmitter in tests). */
export interface SignalSource {
  on(signal: NodeJS.Signals, listener: () => void): unknown;
  off(signal: NodeJS.Signals, listener: () => void): unknown;
}

/** What the service runs: one tick at a time, then closed once. */
export interface ThinkSession {
  /** One run; `signal` aborts when the service stops (the run should then settle quickly). */
  tick(signal: AbortSignal): Promise<RunReport>;
  /** Releases what the session holds (the store); called once, after the last tick settled. */
  close(): void | Promise<void>;
}

/** Options for {@link runService}. */
export interface ServiceOptions {
  /** The lock's holder record, `$KEEL_HOME/think.lock` (`lockPath` of `@keel/host`). */
  lockPath: string;
  /** Time from the start of one tick to the start of the next, ms (a longer tick delays the next). */
  intervalMs: number;
  /** Opens the session once the lock is held (opens the store, picks the model). */
  open: () => ThinkSession | Promise<ThinkSession>;
  /** Run one tick and return (`keel think --once`); its error is thrown. Default false. */
  once?: boolean;
  /** Called with each completed run's report. */
  onReport?: (report: RunReport) => void;
  /** The service log (one line per call). */
  log?: (line: string) => void;
  /** Default {@link realTimer}. */
  timer?: Timer;
  /** Default `process`; null installs no handlers. */
  signals?: SignalSource | null;
  /** Lock options (tests). */
  lock?: Omit<LockOptions, 'log'>;
}

/** How the service ended. */
export interface ServiceResult {
  /** Runs that completed with a report. */
  ticks: number;
  /** Runs that threw (logged; the loop went on). */
  failures: number;
  /** The signal that stopped it; null when it ended on its own (`once`). */
  stoppedBy: NodeJS.Signals | null;
  /** The newest report. */
  last: RunReport | null;
}

/** `CODE: message` for a log line. */
export function describeError(err: unknown): string {
  if (KeelError.isInstance(err)) return `${err.code}: ${err.message}`;
  return err instanceof Error ? err.message : String(err);
}

/**
 * Runs the service until a shutdown signal (or, with `once`, for one tick): installs the signal
 * handlers, takes the lock, opens the session, ticks now and then every `intervalMs` measured from
 * each tick's start (never overlapping: a tick longer than the interval is followed at once by the
 * next). A tick that throws is logged and the loop goes on, except for a database that takes no
 * writes (`DB_CORRUPT`, `JOURNAL_BROKEN`), which stops the service: the session is closed, the
 * lock released and the error thrown. On
 * SIGTERM/SIGINT/SIGHUP the signal
 * passed to the tick in flight aborts (reason: KeelError `CANCELLED`), the loop waits for it to
 * settle, closes the session and releases the lock; the promise then resolves. A second signal
 * while stopping is only logged.
 *
 * @returns how it ended.
 * @throws KeelError `THINK_RUNNING` when another live process holds the lock (nothing is opened);
 *   `DB_CORRUPT` when a tick finds the database damaged, `JOURNAL_BROKEN` when a write finds the
 *   journal does not match its anchor; with `once`, whatever the tick threw
 *   (after closing and releasing); whatever `open` throws.
 */
export async function runService(options: ServiceOptions): Promise<ServiceResult> {
  const log = options.log ?? (() => {});
  const timer = options.timer ?? realTimer;
  const signals = options.signals === undefined ? process : options.signals;
  const stop = new AbortController();
  const result: ServiceResult = { ticks: 0, failures: 0, stoppedBy: null, last: null };
  const handlers = SHUTDOWN_SIGNALS.map((sig) => {
    const handler = () => {
      if (stop.signal.aborted) {
        log(`think: ${sig}: already stopping`);
        return;
      }
      result.stoppedBy = sig;
      log(`think: ${sig}: stopping`);
      stop.abort(new KeelError('CANCELLED', `keel think is stopping (${sig})`));
    };
    return [sig, handler] as const;
  });
  for (const [sig, handler] of handlers) signals?.on(sig, handler);
  try {
    const lock = acquireThinkLock(options.lockPath, { ...options.lock, log });
    try {
      if (stop.signal.aborted) return result;
      const session = await options.open();
      try {
        await loop(session, options, timer, stop.signal, result, log);
      } finally {
        await session.close();
      }
    } finally {
      lock.release();
    }
  } finally {
    for (const [sig, handler] of handlers) signals?.off(sig, handler);
  }
  return result;
}

async function loop(
  session: ThinkSession,
  options: ServiceOptions,
  timer: Timer,
  stop: AbortSignal,
  result: ServiceResult,
  log: (line: string) => void,
): Promise<void> {
  while (!stop.aborted) {
    const started = timer.now();
    try {
      const report = await session.tick(stop);
      result.ticks++;
      result.last = report;
      options.onReport?.(report);
    } catch (err) {
      if (stop.aborted) {
        const cancelled = KeelError.isInstance(err) && err.code === 'CANCELLED';
        if (!cancelled) log(`think: the run stopped with an error: ${describeError(err)}`);
        break;
      }
      result.failures++;
      if (options.once) throw err;
      const damage = damageError(err);
      if (damage) {
        // Worded by the error: damaged pages, or a journal that does not match its anchor.
        log(`think: ${stopState(damage)?.what}, stopping: ${describeError(damage)}`);
        throw damage;
      }
      log(`think: run failed: ${describeError(err)}`);
    }
    if (options.once) break;
    await timer.sleep(Math.max(0, started + options.intervalMs - timer.now()), stop);
  }
}

/**
 * The owner's DM when the service stopped because the database takes no writes, worded by its
 * error: `keel think stopped: keel's database is damaged (DB_CORRUPT: …)`, or `… keel's journal
 * does not match its anchor (keel.db.anchor) … (JOURNAL_BROKEN: …)`, then what keel does
 * meanwhile, then the error's fix on its own line.
 *
 * @returns null for any other error (the log and the exit code say it).
 */
export function stoppedNotice(err: unknown): string | null {
  if (!damageError(err)) return null;
  return `keel think stopped: ${stopNotice(
    err,
    'keel writes nothing to its database until it is restored; stop keel discord before you restore.',
  )}`;
}

/** Run options passed through to the run function (the same shape as `run.ts`'s RunOptions). */
export interface ThinkRunOptions {
  curate?: 'auto' | 'now' | 'never';
  weekly?: 'auto' | 'now' | 'never';
}

/** Chooses the belief gate (the shape of `@keel/gate`'s `chooseBeliefGate`). */
export type GateChooser = (options: {
  host: string;
  model: string;
  timeoutMs?: number;
}) => Promise<{ gate: BeliefGate; why: string }>;

/** One run (the shape of `runThink`). */
export type RunFunction = (deps: ThinkDeps, options?: ThinkRunOptions) => Promise<RunReport>;

/** Options for {@link createSession}. */
export interface SessionOptions {
  store: MemoryStore;
  config: ThinkConfig;
  model: ChatModel | null;
  notify: Notify | null;
  /** The clock, ms since the Unix epoch. */
  now: () => number;
  log?: (line: string) => void;
  /** Asked before every tick (Ollama may have come or gone since the last). */
  chooseGate: GateChooser;
  run: RunFunction;
  runOptions?: ThinkRunOptions;
}

/**
 * A session over an open store: each tick checks the database (in full from the second tick: the
 * first relies on the check at open), chooses the belief gate afresh (logging the choice and why
 * when it changes), then calls `run` with the deps and the tick's abort signal, and records the
 * state its writes left as sound; a database that takes no writes is thrown, and damage
 * (`DB_CORRUPT`) is also recorded on the store (its verdict cache cleared; a broken journal is not
 * damaged pages, so the file's verdict stands). `close` closes the store.
 */
export function createSession(options: SessionOptions): ThinkSession {
  const log = options.log ?? (() => {});
  let lastWhy: string | null = null;
  let ticks = 0;
  const runOnce = async (signal: AbortSignal): Promise<RunReport> => {
    const { gate, why } = await options.chooseGate({
      host: options.config.ollamaHost,
      model: options.config.gateModel,
    });
    if (why !== lastWhy) log(`think: ${why}`);
    lastWhy = why;
    const deps: ThinkDeps = {
      store: options.store,
      config: options.config,
      gate,
      model: options.model,
      notify: options.notify,
      now: options.now,
      log,
      signal,
    };
    return options.run(deps, options.runOptions);
  };
  return {
    async tick(signal) {
      try {
        options.store.checkIntegrity({ full: ticks++ > 0 });
        const report = await runOnce(signal);
        options.store.recordSound();
        return report;
      } catch (err) {
        const damage = damageError(err);
        if (!damage) throw err;
        if (damage.code === 'DB_CORRUPT') options.store.recordDamage();
        throw damage;
      }
    },
    close() {
      options.store.close();
    },
  };
}

/**
 * A run's report as one human line, e.g. `think run 7: gate pattern, examined 3, queued 1,
 * proposed 0, written 0, interrupts 0; curator did not run; skipped: reflection (no model)`.
 */
export function formatReport(r: RunReport): string {
  const c = r.curated;
  return [
    `think run ${r.runId}: gate ${r.gate}, examined ${r.examined}, queued ${r.queued}, proposed ${r.proposed}, written ${r.written}, interrupts ${r.interrupts}${r.reminders ? `, reminders sent ${r.reminders.sent}, held ${r.reminders.held}, missed ${r.reminders.missed}` : ''}`,
    c
      ? `curated: added ${c.added}, corroborated ${c.corroborated}, superseded ${c.superseded}, conflicts ${c.conflicts}, pruned ${c.pruned}`
      : 'curator did not run',
    ...(r.skipped.length ? [`skipped: ${r.skipped.join('; ')}`] : []),
  ].join('; ');
}
