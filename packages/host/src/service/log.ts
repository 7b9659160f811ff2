/**
 * The services' logs, rotated by size. systemd (`StandardOutput=append:`) and launchd
 * (`StandardOutPath`) open `$KEEL_HOME/logs/<name>.log` themselves, with `O_APPEND`, and hand the
 * open file to the service as its stdout and stderr: every line lands there, the ones keel prints
 * before it has read its configuration too (a bad configuration is what the log must show). keel
 * cannot reopen that file, so it rotates it the way logrotate's `copytruncate` does: when the log
 * has reached `logs.max_mb`, `<name>.log.1` becomes `.2` (and so on, the oldest past `logs.keep`
 * deleted), the log is copied to `<name>.log.1` and cut to nothing. Every writer holds it with
 * `O_APPEND`, so its next line lands at the new end: at the start, not past a hole. A line written
 * in the moment between the last copy and the cut may be lost (logrotate's `copytruncate` has the
 * same window); what arrives during the copy is copied after it.
 *
 * The service's `keel` process rotates its own log at start and every minute
 * ({@link keepLogRotated}), and only while its stdout or stderr is that file ({@link writesTo}):
 * `keel think` run by hand in a terminal leaves the services' logs alone.
 *
 * @module
 */
import {
  chmodSync,
  closeSync,
  copyFileSync,
  fstatSync,
  openSync,
  readSync,
  renameSync,
  rmSync,
  statSync,
  truncateSync,
  writeSync,
} from 'node:fs';
import type { KeelConfig } from '../config.js';
import { type ServiceName, serviceLogPath } from './render.js';

/** How often {@link keepLogRotated} looks at the log's size, ms. */
export const LOG_CHECK_MS = 60_000;

/** When a log is rotated and how many rotated files are kept (`config.logs`). */
export interface LogRotation {
  /** The size at which the log is rotated, bytes. */
  maxBytes: number;
  /** How many rotated files are kept: `<log>.1` (the newest) to `<log>.<keep>`. */
  keep: number;
}

/** The `n`th rotated file of `path`: `<path>.<n>` (1 the newest). */
export function rotatedLogPath(path: string, n: number): string {
  return `${path}.${n}`;
}

const sizeOf = (path: string): number | null => {
  try {
    return statSync(path).size;
  } catch {
    return null;
  }
};

/** Appends bytes `from`…`to` of `source` to `target` (what was written during the copy). */
function appendRange(source: string, target: string, from: number, to: number): void {
  const input = openSync(source, 'r');
  const output = openSync(target, 'a');
  try {
    const buffer = Buffer.alloc(64 * 1024);
    for (let at = from; at < to; ) {
      const read = readSync(input, buffer, 0, Math.min(buffer.length, to - at), at);
      if (read === 0) break;
      writeSync(output, buffer, 0, read);
      at += read;
    }
  } finally {
    closeSync(input);
    closeSync(output);
  }
}

/** Moves `<path>.1`…`<path>.<keep - 1>` one number up; the one at `keep` is deleted. */
function shiftRotated(path: string, keep: number): void {
  rmSync(rotatedLogPath(path, keep), { force: true });
  for (let n = keep - 1; n >= 1; n--) {
    try {
      renameSync(rotatedLogPath(path, n), rotatedLogPath(path, n + 1));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }
}

/**
 * Rotates the log at `path` when it has reached `rotation.maxBytes` (copytruncate): the rotated
 * files move one number up (the oldest past `rotation.keep` is deleted), the log is copied to
 * `<path>.1` (mode 0600, as the services write it) with whatever was appended during the copy,
 * and cut to nothing.
 *
 * @returns true when it rotated; false when the log is not there or smaller.
 */
export function rotateLog(path: string, rotation: LogRotation): boolean {
  const size = sizeOf(path);
  if (size === null || size < rotation.maxBytes) return false;
  shiftRotated(path, Math.max(1, rotation.keep));
  const first = rotatedLogPath(path, 1);
  copyFileSync(path, first);
  chmodSync(first, 0o600);
  const copied = sizeOf(first) ?? 0;
  const now = sizeOf(path) ?? copied;
  if (now > copied) appendRange(path, first, copied, now);
  truncateSync(path, 0);
  return true;
}

/**
 * Whether this process's stdout or stderr (`fds`) is the file at `path` (the same device and
 * inode): a service manager pointed its output there.
 */
export function writesTo(path: string, fds: readonly number[] = [1, 2]): boolean {
  let target: { dev: number; ino: number };
  try {
    target = statSync(path);
  } catch {
    return false;
  }
  return fds.some((fd) => {
    try {
      const s = fstatSync(fd);
      return s.isFile() && s.dev === target.dev && s.ino === target.ino;
    } catch {
      return false;
    }
  });
}

/** Options for {@link keepLogRotated}. */
export interface KeepRotatedOptions extends LogRotation {
  /** How often the size is looked at, ms (default {@link LOG_CHECK_MS}). */
  intervalMs?: number;
  /** Whether this process writes to the log (default {@link writesTo} of the path). */
  writesHere?: () => boolean;
  /** Where a failed rotation is reported (it never stops the service). */
  log?: (line: string) => void;
}

/**
 * Keeps the log at `path` rotated while this process writes to it: {@link rotateLog} at once and
 * every `intervalMs` on an unref'd timer (it never keeps the process alive). A process that does
 * not write there (run by hand in a terminal) rotates nothing and keeps no timer.
 *
 * @returns a function that stops it.
 */
export function keepLogRotated(path: string, options: KeepRotatedOptions): () => void {
  const here = options.writesHere ?? (() => writesTo(path));
  if (!here()) return () => {};
  const rotation = { maxBytes: options.maxBytes, keep: options.keep };
  const once = () => {
    try {
      rotateLog(path, rotation);
    } catch (err) {
      options.log?.(`could not rotate ${path}: ${(err as Error).message}`);
    }
  };
  once();
  const timer = setInterval(once, options.intervalMs ?? LOG_CHECK_MS);
  timer.unref();
  return () => clearInterval(timer);
}

/**
 * {@link keepLogRotated} for a service's log, `$KEEL_HOME/logs/<name>.log`, with the sizes of
 * `config.logs`: what `keel think` and `keel discord` run for as long as the service runs.
 *
 * @returns a function that stops it.
 */
export function keepServiceLogRotated(
  config: Pick<KeelConfig, 'home' | 'logs'>,
  service: ServiceName,
  log: (line: string) => void = (line) => process.stderr.write(`keel ${service}: ${line}\n`),
): () => void {
  return keepLogRotated(serviceLogPath(config.home, service), { ...config.logs, log });
}
