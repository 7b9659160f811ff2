/**
 * `keel service status`: each service's file (there, and still what install would write), its
 * state and PID as systemd or launchd reports it, how its last run ended, and the last lines of
 * its log.
 *
 * @module
 */
import { closeSync, existsSync, fstatSync, openSync, readFileSync, readSync } from 'node:fs';
import { rotatedLogPath } from './log.js';
import {
  domain,
  filesFor,
  firstLine,
  managerName,
  managerUnreachable,
  runCommand,
  type ServiceSetup,
} from './manager.js';
import { SERVICE_MANAGERS, type ServiceName, type ServicePlatform } from './render.js';

/** How many log lines status shows per service by default. */
export const LOG_LINES = 10;

/** A service's state as its manager reports it. */
export type ServiceState =
  /** Its process runs. */
  | 'running'
  /** It stopped with an error and the manager starts it again soon. */
  | 'restarting'
  /** It is loaded and not running (stopped, or ended on an error that restarting cannot fix). */
  | 'stopped'
  /** It ended on an error and the manager does not start it again. */
  | 'failed'
  /** Its file is there, but the manager has not loaded it. */
  | 'not_loaded'
  /** Its file is not there. */
  | 'not_installed'
  /** The manager could not be asked. */
  | 'unknown';

/** One service as status (and install, after starting) reports it. */
export interface ServiceReport {
  name: ServiceName;
  /** The unit name or launchd label. */
  unit: string;
  /** Its file in the manager's folder. */
  file: string;
  installed: boolean;
  /** Whether the file is what install would write now (null: not installed). */
  upToDate: boolean | null;
  state: ServiceState;
  pid: number | null;
  /** How its last run ended, when the manager says. */
  lastExitCode: number | null;
  logPath: string;
  /** The last lines of its log (before a rotation: of the rotated one too), oldest first. */
  logLines: string[];
}
/** What {@link serviceStatus} found. */
export interface StatusResult {
  platform: ServicePlatform;
  manager: 'systemd' | 'launchd';
  dir: string;
  /** False when the manager could not be asked (the states are `unknown`). */
  reachable: boolean;
  services: ServiceReport[];
  notes: string[];
}

/** The last `n` lines of a file (read from its last 64 KiB), or none when it is not there. */
export function lastLines(path: string, n: number): string[] {
  if (n <= 0) return [];
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return [];
  }
  try {
    const size = fstatSync(fd).size;
    const length = Math.min(size, 64 * 1024);
    const buffer = Buffer.alloc(length);
    readSync(fd, buffer, 0, length, size - length);
    const lines = buffer.toString('utf8').split('\n');
    if (length < size) lines.shift(); // a partial first line
    while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
    return lines.slice(-n);
  } finally {
    closeSync(fd);
  }
}

/**
 * The last `n` lines a service logged: those of its log, and when that holds fewer (it was just
 * rotated) the last of `<log>.1` before them.
 */
export function lastLogLines(path: string, n: number): string[] {
  const current = lastLines(path, n);
  if (current.length >= n) return current;
  return [...lastLines(rotatedLogPath(path, 1), n - current.length), ...current];
}

/** `key=value` lines (systemctl show) as a map. */
function properties(text: string): Map<string, string> {
  const map = new Map<string, string>();
  for (const line of text.split('\n')) {
    const i = line.indexOf('=');
    if (i > 0) map.set(line.slice(0, i).trim(), line.slice(i + 1).trim());
  }
  return map;
}

const wholeNumber = (value: string | undefined): number | null =>
  value !== undefined && /^-?\d+$/.test(value) ? Number(value) : null;

/** A systemd unit's state from `systemctl show` (LoadState, ActiveState, SubState, …). */
export function systemdState(props: Map<string, string>): {
  state: ServiceState;
  pid: number | null;
  lastExitCode: number | null;
} {
  const pid = wholeNumber(props.get('MainPID'));
  const exit = wholeNumber(props.get('ExecMainStatus'));
  const active = props.get('ActiveState');
  const sub = props.get('SubState');
  let state: ServiceState = 'unknown';
  if (props.get('LoadState') === 'not-found') state = 'not_loaded';
  else if (active === 'active' && sub === 'running') state = 'running';
  else if (active === 'activating' && sub === 'auto-restart') state = 'restarting';
  else if (active === 'activating') state = 'running';
  else if (active === 'failed') state = 'failed';
  else if (active === 'inactive' || active === 'deactivating') state = 'stopped';
  return {
    state,
    pid: pid !== null && pid > 0 ? pid : null,
    lastExitCode: state === 'running' ? null : exit,
  };
}

/** A launchd job's state from `launchctl print gui/<uid>/<label>`. */
export function launchdState(text: string): {
  state: ServiceState;
  pid: number | null;
  lastExitCode: number | null;
} {
  const state = /^\s*state = (.+)$/m.exec(text)?.[1]?.trim();
  const pid = wholeNumber(/^\s*pid = (\d+)$/m.exec(text)?.[1]);
  const exit = wholeNumber(/^\s*last exit code = (-?\d+)/m.exec(text)?.[1]);
  let s: ServiceState = 'unknown';
  if (state === 'running') s = 'running';
  else if (state === 'spawn scheduled') s = 'restarting';
  // KeepAlive starts again after any exit but 0 (keel's launchd agents end an error with 0).
  else if (state === 'not running' || state === 'waiting') {
    s = exit !== null && exit !== 0 ? 'restarting' : 'stopped';
  }
  return { state: s, pid, lastExitCode: exit };
}

/**
 * Each service among `names`: whether its file is there and still what install would write, its
 * state and PID as the manager reports them, how its last run ended, and the last `logLines` lines
 * of its log (default {@link LOG_LINES}). Never throws for an unreachable manager: the states are
 * then `unknown` and `reachable` is false.
 */
export async function serviceStatus(
  names: readonly ServiceName[],
  setup: ServiceSetup,
  options: { logLines?: number } = {},
): Promise<StatusResult> {
  const run = setup.run ?? runCommand;
  const result: StatusResult = {
    platform: setup.platform,
    manager: SERVICE_MANAGERS[setup.platform],
    dir: setup.dir,
    reachable: true,
    services: [],
    notes: [],
  };
  for (const f of filesFor(names, setup)) {
    const installed = existsSync(f.path);
    let current: string | null = null;
    try {
      current = installed ? readFileSync(f.path, 'utf8') : null;
    } catch {
      current = null;
    }
    const report: ServiceReport = {
      name: f.name,
      unit: f.unit,
      file: f.path,
      installed,
      upToDate: installed ? current === f.content : null,
      state: installed ? 'unknown' : 'not_installed',
      pid: null,
      lastExitCode: null,
      logPath: f.logPath,
      logLines: lastLogLines(f.logPath, options.logLines ?? LOG_LINES),
    };
    if (installed && result.reachable) {
      const r =
        setup.platform === 'linux'
          ? await run('systemctl', [
              '--user',
              'show',
              f.unit,
              '--property=LoadState,ActiveState,SubState,MainPID,ExecMainStatus',
            ])
          : await run('launchctl', ['print', `${domain(setup)}/${f.unit}`]);
      if (r.code === 0) {
        Object.assign(
          report,
          setup.platform === 'linux' ? systemdState(properties(r.stdout)) : launchdState(r.stdout),
        );
      } else if (managerUnreachable(r)) {
        result.reachable = false;
        result.notes.push(
          `could not reach ${managerName(setup)} (${firstLine(r.stderr) || `exit ${r.code}`}): the states are unknown`,
        );
      } else if (setup.platform === 'darwin') {
        report.state = 'not_loaded'; // launchctl print: "Could not find service"
      }
    }
    if (report.upToDate === false) {
      result.notes.push(
        `${f.path} is not what \`keel service install\` writes now (another node, keel moved, another KEEL_HOME?): run it again`,
      );
    }
    result.services.push(report);
  }
  return result;
}
