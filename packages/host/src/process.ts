/**
 * Processes: whether a PID is alive, the watch a service keeps on the `keel` CLI that started it
 * ({@link watchParent}, {@link stopWhenParentGone}), and {@link runApp}, how the CLI starts a
 * service as a child process (no app imports another).
 *
 * @module
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { KeelError } from '@keel/errors';
import { reportError } from './report.js';

/** The environment variable the CLI sets to its own PID for a child it starts (internal). */
export const PARENT_PID_VARIABLE = 'KEEL_PARENT_PID';

/**
 * True when a process with this id exists: `process.kill(pid, 0)` succeeds, or fails with EPERM
 * (it exists but belongs to someone else). ESRCH means it is gone.
 */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * `KEEL_PARENT_PID`, which the `keel` CLI sets to its own PID when it spawns a service (so the
 * service stops when the CLI is gone): a positive whole number, or null when unset, empty or not a
 * PID.
 */
export function parseParentPid(raw: string | undefined): number | null {
  const t = raw?.trim() ?? '';
  const n = /^\d+$/.test(t) ? Number(t) : Number.NaN;
  return Number.isSafeInteger(n) && n > 0 ? n : null;
}

/** How often {@link watchParent} looks at the parent by default, ms. */
export const PARENT_CHECK_MS = 1000;

/** Options for {@link watchParent}. */
export interface ParentWatchOptions {
  /** The PID of the process that started this one (the `keel` CLI), from `KEEL_PARENT_PID`. */
  parentPid: number;
  /** Called once, when the parent is gone; the watch then ends. */
  onGone: () => void;
  /** Time between checks, ms (default {@link PARENT_CHECK_MS}). */
  intervalMs?: number;
  /** This process's current parent PID (default `process.ppid`, read afresh each time). */
  ppid?: () => number;
  /** Whether a PID is alive (default {@link pidAlive}). */
  alive?: (pid: number) => boolean;
}

/**
 * Watches the process that started this one: when this process's parent PID is no longer
 * `parentPid` (the parent died and the process was re-parented, e.g. after a SIGKILL of `keel`) or
 * `parentPid` is not alive, calls `onGone` once and stops watching. Checks at once, then every
 * `intervalMs` on an unref'd timer (it never keeps the process alive).
 *
 * @returns a function that stops the watch.
 */
export function watchParent(options: ParentWatchOptions): () => void {
  const ppid = options.ppid ?? (() => process.ppid);
  const alive = options.alive ?? pidAlive;
  let timer: ReturnType<typeof setInterval> | null = null;
  const stop = () => {
    if (timer) clearInterval(timer);
    timer = null;
  };
  const gone = () => ppid() !== options.parentPid || !alive(options.parentPid);
  if (gone()) {
    options.onGone();
    return stop;
  }
  timer = setInterval(() => {
    if (!gone()) return;
    stop();
    options.onGone();
  }, options.intervalMs ?? PARENT_CHECK_MS);
  timer.unref();
  return stop;
}

/**
 * A service's watch on the CLI that started it: with a parent PID, once that process is gone
 * (e.g. `keel` was killed with SIGKILL), logs `<name>: the keel process that started this one
 * (PID n) is gone: stopping` and sends this process SIGTERM, the same graceful stop as a
 * `systemctl stop` (before the service installs its handlers, SIGTERM's default simply ends it:
 * nothing is held yet). Without one (started by systemd or by hand) nothing is watched.
 *
 * @param parentPid - `config.process.parentPid`.
 * @returns a function that stops the watch.
 */
export function stopWhenParentGone(
  parentPid: number | null,
  options: { name: string; log: (line: string) => void },
): () => void {
  if (parentPid === null) return () => {};
  return watchParent({
    parentPid,
    onGone: () => {
      options.log(
        `${options.name}: the keel process that started this one (PID ${parentPid}) is gone: stopping`,
      );
      process.kill(process.pid, 'SIGTERM');
    },
  });
}

/** The signals {@link runApp} passes on to the child. */
export const FORWARDED_SIGNALS = ['SIGTERM', 'SIGINT', 'SIGHUP'] as const;

/** Options for {@link runApp}. */
export interface RunAppOptions {
  /** The child's environment before `KEEL_PARENT_PID` is added. Default `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** Report an entry point that is missing or cannot start as JSON too (`--json`). */
  json?: boolean;
}

/**
 * Runs `node <main> ...args` with inherited stdio and resolves to its exit code. The child gets
 * the environment plus `KEEL_PARENT_PID` (this process's PID: the app stops gracefully once this
 * process is gone, even after SIGKILL); SIGTERM, SIGINT and SIGHUP are forwarded to it.
 *
 * @returns the child's exit code; 1 when it ended by a signal or could not start; 2 when `main`
 *   is missing (not built: reported as `FILE_UNREADABLE`).
 */
export function runApp(
  main: string,
  args: string[] = [],
  options: RunAppOptions = {},
): Promise<number> {
  if (!existsSync(main)) {
    return Promise.resolve(
      reportError(
        new KeelError(
          'FILE_UNREADABLE',
          `${main} is missing; build first (pnpm exec turbo run build)`,
        ),
        options.json ?? false,
      ),
    );
  }
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [main, ...args], {
      env: { ...(options.env ?? process.env), [PARENT_PID_VARIABLE]: String(process.pid) },
      stdio: 'inherit',
    });
    const handlers = FORWARDED_SIGNALS.map((s) => [s, () => child.kill(s)] as const);
    const detach = () => {
      for (const [s, h] of handlers) process.off(s, h);
    };
    for (const [s, h] of handlers) process.on(s, h);
    child.on('exit', (code, signal) => {
      detach();
      resolve(code ?? (signal ? 1 : 0));
    });
    child.on('error', (err) => {
      detach();
      const why = new Error(`could not start ${main}: ${err.message}`, { cause: err });
      resolve(reportError(why, options.json ?? false));
    });
  });
}
