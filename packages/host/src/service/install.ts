/**
 * `keel service install|uninstall|status`: writes the files {@link renderService} renders into the
 * service manager's folder, then has the manager load and start them (systemd:
 * `systemctl --user daemon-reload`, `enable`, `restart`; launchd: `launchctl bootstrap gui/<uid>`),
 * looks at each a moment later, and says which run; uninstall stops them and removes the files;
 * status shows each service's state and the last lines of its log.
 *
 * The manager is reached only through a {@link CommandRunner} and the files go to the folder the
 * caller names, so a test runs all of it against a temporary folder and a recording runner. A
 * manager that cannot be reached (no systemd user session, as in a container; no launchd GUI domain,
 * as over SSH) is not a crash: the files are written, and the result carries
 * `SERVICE_MANAGER_UNAVAILABLE` naming the commands that start them.
 *
 * @module
 */
import { execFile } from 'node:child_process';
import {
  closeSync,
  existsSync,
  fstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  readSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { KeelError } from '@keel/errors';
import { type RawSettings, SETTING_NAMES, type SettingName } from '../config.js';
import { ensureHome } from '../files.js';
import {
  renderService,
  SERVICE_LOGS_DIR,
  SERVICE_MANAGERS,
  SERVICE_NAMES,
  type ServiceName,
  type ServicePlatform,
} from './render.js';

/** What a command printed and how it ended (127: the command was not found). */
export interface CommandResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a command (no shell) and resolves to how it ended; never rejects. */
export type CommandRunner = (command: string, args: readonly string[]) => Promise<CommandResult>;

/** How long one manager command may take before it is ended, ms. */
export const COMMAND_TIMEOUT_MS = 30_000;

/** How long install waits after starting the services before it looks at them, ms. */
export const SETTLE_MS = 3_000;

/** How many log lines status shows per service by default. */
export const LOG_LINES = 10;

/** The default {@link CommandRunner}: `execFile`, no shell, {@link COMMAND_TIMEOUT_MS}. */
export const runCommand: CommandRunner = (command, args) =>
  new Promise((resolve) => {
    execFile(
      command,
      [...args],
      { encoding: 'utf8', timeout: COMMAND_TIMEOUT_MS },
      (err, stdout, stderr) => {
        if (!err) {
          resolve({ code: 0, stdout, stderr });
          return;
        }
        const code = (err as { code?: unknown }).code;
        if (code === 'ENOENT') resolve({ code: 127, stdout, stderr: `${command}: not found` });
        else
          resolve({
            code: typeof code === 'number' ? code : 1,
            stdout,
            stderr: stderr || err.message,
          });
      },
    );
  });

/** Where and for whom services are installed: everything that varies between machines. */
export interface ServiceSetup {
  platform: ServicePlatform;
  /** The manager's folder for the files (see `serviceDir`). */
  dir: string;
  /** The absolute path of node (`process.execPath`). */
  nodePath: string;
  /** The resolved path of keel's CLI `main.js`. */
  keelPath: string;
  /** The user's home folder. */
  home: string;
  /** The absolute KEEL_HOME the services use. */
  keelHome: string;
  /** The services' `PATH` (see `servicePath`). */
  path: string;
  /** The user's id (launchd's `gui/<uid>` domain). */
  uid: number;
  /** The user's name (systemd's linger). */
  user: string;
  /** Runs the manager's commands (default {@link runCommand}). */
  run?: CommandRunner;
  /** Stop timeouts that differ from the definitions', seconds. */
  stopTimeoutSec?: Partial<Record<ServiceName, number>>;
  /** How long install waits before it looks at the services, ms (default {@link SETTLE_MS}). */
  settleMs?: number;
  /** Waits `ms` (default a timer). */
  sleep?: (ms: number) => Promise<void>;
}

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
  /** The last lines of its log, oldest first. */
  logLines: string[];
}

/** A manager command install or uninstall ran (or, in a dry run, would run). */
export interface ManagerCommand {
  argv: string[];
  /** Its exit code; null: not run (a dry run). */
  code: number | null;
  /** The first line of what it printed on stderr, when it failed. */
  stderr: string;
}

/** A file install writes. */
export interface ServiceFile {
  name: ServiceName;
  unit: string;
  path: string;
  logPath: string;
  content: string;
}

/** What {@link installServices} did. */
export interface InstallResult {
  platform: ServicePlatform;
  manager: 'systemd' | 'launchd';
  dir: string;
  dryRun: boolean;
  files: ServiceFile[];
  commands: ManagerCommand[];
  /** Each service a moment after it was started (empty when nothing was started). */
  services: ServiceReport[];
  /** True when the manager started every service and each still ran a moment later. */
  started: boolean;
  notes: string[];
  /** Why not everything was started, or null. */
  error: KeelError | null;
}

/** What {@link uninstallServices} did. */
export interface UninstallResult {
  platform: ServicePlatform;
  manager: 'systemd' | 'launchd';
  dir: string;
  dryRun: boolean;
  /** The files removed (in a dry run: that would be removed). */
  removed: { name: ServiceName; unit: string; path: string }[];
  /** The services that were not installed. */
  absent: ServiceName[];
  commands: ManagerCommand[];
  notes: string[];
  error: KeelError | null;
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

/** A command of a plan; `mayFail` ones (e.g. unloading what is not loaded) do not stop it. */
interface Step {
  argv: string[];
  mayFail?: boolean;
}

/**
 * The platform keel installs services on for `process.platform`.
 *
 * @throws KeelError `SERVICE_MANAGER_UNAVAILABLE` for any other system.
 */
export function servicePlatform(platform: string): ServicePlatform {
  if (platform === 'linux' || platform === 'darwin') return platform;
  throw new KeelError(
    'SERVICE_MANAGER_UNAVAILABLE',
    `keel installs its services with systemd (Linux) or launchd (macOS), not on ${platform}: run \`keel think\` and \`keel discord\` yourself`,
  );
}

/**
 * The service names `args` names, in {@link SERVICE_NAMES} order, each once; none: `fallback`.
 *
 * @throws KeelError `INVALID_INPUT` for a name that is not a service.
 */
export function parseServiceNames(
  args: readonly string[],
  fallback: readonly ServiceName[] = SERVICE_NAMES,
): ServiceName[] {
  const unknown = args.filter((a) => !(SERVICE_NAMES as string[]).includes(a));
  if (unknown.length > 0) {
    throw new KeelError(
      'INVALID_INPUT',
      `no service named ${unknown.map((u) => `"${u}"`).join(', ')}; the services: ${SERVICE_NAMES.join(', ')}`,
    );
  }
  const wanted = args.length > 0 ? args : fallback;
  return SERVICE_NAMES.filter((n) => wanted.includes(n));
}

/**
 * The keel settings set in `env` that a service would not see: it gets only `KEEL_HOME` and
 * `PATH`, and reads the rest from `$KEEL_HOME/config.toml`. A variable whose value the file holds
 * too (`file`: the file's settings by variable name, as {@link readConfigFile} gives them) is
 * seen, and not named.
 */
export function settingsServicesDoNotSee(
  env: RawSettings,
  file: Readonly<Record<string, string>> = {},
): SettingName[] {
  return SETTING_NAMES.filter((n) => {
    const value = env[n]?.trim();
    return n !== 'KEEL_HOME' && n !== 'KEEL_PARENT_PID' && Boolean(value) && file[n] !== value;
  });
}

const domain = (setup: ServiceSetup) => `gui/${setup.uid}`;

function filesFor(names: readonly ServiceName[], setup: ServiceSetup): ServiceFile[] {
  return names.map((name) => {
    const r = renderService({
      platform: setup.platform,
      service: name,
      nodePath: setup.nodePath,
      keelPath: setup.keelPath,
      home: setup.home,
      keelHome: setup.keelHome,
      path: setup.path,
      ...(setup.stopTimeoutSec?.[name] === undefined
        ? {}
        : { stopTimeoutSec: setup.stopTimeoutSec[name] }),
    });
    return {
      name,
      unit: r.unit,
      path: join(setup.dir, r.fileName),
      logPath: r.logPath,
      content: r.content,
    };
  });
}

/** The first non-empty line of a command's output. */
const firstLine = (text: string) =>
  text
    .split('\n')
    .map((l) => l.trim())
    .find(Boolean) ?? '';

/**
 * Whether a failed command means the manager cannot be reached at all: the command is missing,
 * there is no systemd user session (no bus), or no launchd GUI domain (error 125, over SSH).
 */
export function managerUnreachable(r: CommandResult): boolean {
  return (
    r.code === 127 ||
    /Failed to connect to bus|not been booted with systemd|DBUS_SESSION_BUS_ADDRESS|XDG_RUNTIME_DIR|Domain does not support specified action|Could not find domain/i.test(
      r.stderr,
    )
  );
}

/** The commands that start `files` by hand, as one shell line. */
function startByHand(setup: ServiceSetup, files: ServiceFile[]): string {
  if (setup.platform === 'linux') {
    const units = files.map((f) => f.unit).join(' ');
    return `systemctl --user daemon-reload && systemctl --user enable --now ${units}`;
  }
  return files.map((f) => `launchctl bootstrap ${domain(setup)} '${f.path}'`).join(' && ');
}

function managerName(setup: ServiceSetup): string {
  return setup.platform === 'linux'
    ? "systemd's user manager"
    : `launchd's GUI domain (${domain(setup)})`;
}

/** The install commands, in order. */
function installPlan(setup: ServiceSetup, files: ServiceFile[]): Step[] {
  if (setup.platform === 'linux') {
    const units = files.map((f) => f.unit);
    return [
      { argv: ['systemctl', '--user', 'daemon-reload'] },
      { argv: ['systemctl', '--user', 'enable', ...units] },
      // restart, not start: a reinstall (a new node, keel moved) takes effect at once.
      { argv: ['systemctl', '--user', 'restart', ...units] },
    ];
  }
  return files.flatMap((f) => [
    // Unload the copy a previous install loaded, if any, so the new file is read.
    { argv: ['launchctl', 'bootout', `${domain(setup)}/${f.unit}`], mayFail: true },
    { argv: ['launchctl', 'enable', `${domain(setup)}/${f.unit}`] },
    { argv: ['launchctl', 'bootstrap', domain(setup), f.path] },
  ]);
}

const sleepFor = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Writes `content` to `path` through a temporary file and a rename (never half a file). */
function writeAtomically(path: string, content: string): void {
  const tmp = `${path}.tmp-${process.pid}`;
  writeFileSync(tmp, content, { mode: 0o644 });
  renameSync(tmp, path);
}

/** Files from older keel versions that the owner should remove (hand-installed, env files). */
function leftovers(setup: ServiceSetup): string[] {
  const notes: string[] = [];
  if (setup.platform === 'darwin') {
    const old = join(setup.dir, 'com.keel.discord.plist');
    if (existsSync(old)) {
      notes.push(
        `an older Discord agent is still installed (${old}): remove it, or two doors compete: launchctl bootout ${domain(setup)}/com.keel.discord && rm '${old}'`,
      );
    }
  }
  for (const name of ['think.env', 'discord.env']) {
    const env = join(setup.home, '.config', 'keel', name);
    if (existsSync(env)) {
      notes.push(
        `${env} is no longer read by the services: move its settings into KEEL_HOME's configuration, then delete it (it holds secrets)`,
      );
    }
  }
  return notes;
}

/**
 * Writes the services' files into `setup.dir` (creating it, KEEL_HOME and its `logs/` folder,
 * mode 0700), then loads and (re)starts them and looks at each `settleMs` later. With `dryRun`
 * nothing is written or run: the result holds the files and the commands it would run.
 *
 * @returns the result; `error` is `SERVICE_MANAGER_UNAVAILABLE` when the manager could not be
 *   reached (the files are written), `SERVICE_FAILED` when a command failed or a service was not
 *   running a moment after it started (its log's last lines in the message).
 * @throws KeelError `INVALID_INPUT` from `renderService` (a path a unit file cannot hold).
 */
export async function installServices(
  names: readonly ServiceName[],
  setup: ServiceSetup,
  options: { dryRun?: boolean } = {},
): Promise<InstallResult> {
  const files = filesFor(names, setup);
  const plan = installPlan(setup, files);
  const result: InstallResult = {
    platform: setup.platform,
    manager: SERVICE_MANAGERS[setup.platform],
    dir: setup.dir,
    dryRun: Boolean(options.dryRun),
    files,
    commands: [],
    services: [],
    started: false,
    notes: leftovers(setup),
    error: null,
  };
  if (options.dryRun) {
    result.commands = plan.map((s) => ({ argv: s.argv, code: null, stderr: '' }));
    return result;
  }
  ensureHome(setup.keelHome);
  mkdirSync(join(setup.keelHome, SERVICE_LOGS_DIR), { recursive: true, mode: 0o700 });
  mkdirSync(setup.dir, { recursive: true });
  for (const f of files) writeAtomically(f.path, f.content);

  const run = setup.run ?? runCommand;
  const wrote = `wrote ${files.map((f) => f.path).join(', ')}`;
  for (const step of plan) {
    const [command = '', ...args] = step.argv;
    let r = await run(command, args);
    if (r.code !== 0 && !step.mayFail && command === 'launchctl' && args[0] === 'bootstrap') {
      // Right after a bootout launchd may still be unloading the old copy ("5: Input/output error").
      await (setup.sleep ?? sleepFor)(1000);
      r = await run(command, args);
    }
    result.commands.push({
      argv: step.argv,
      code: r.code,
      stderr: r.code === 0 ? '' : firstLine(r.stderr),
    });
    if (r.code === 0 || step.mayFail) continue;
    result.error = managerUnreachable(r)
      ? new KeelError(
          'SERVICE_MANAGER_UNAVAILABLE',
          `${wrote}, but could not reach ${managerName(setup)} (${firstLine(r.stderr) || `exit ${r.code}`}), so nothing was started. Start them in a logged-in session of ${setup.user}: ${startByHand(setup, files)}`,
          { details: { command: step.argv, exit_code: r.code } },
        )
      : new KeelError(
          'SERVICE_FAILED',
          `${wrote}, but \`${step.argv.join(' ')}\` failed (exit ${r.code}): ${firstLine(r.stderr) || 'no message'}`,
          { details: { command: step.argv, exit_code: r.code } },
        );
    return result;
  }

  await (setup.sleep ?? sleepFor)(setup.settleMs ?? SETTLE_MS);
  const status = await serviceStatus(names, setup, { logLines: 5 });
  result.services = status.services;
  result.notes.push(...status.notes);
  if (setup.platform === 'linux') {
    const linger = await run('loginctl', ['show-user', setup.user, '--property=Linger', '--value']);
    if (linger.code === 0 && linger.stdout.trim() === 'no') {
      result.notes.push(
        `the services run while ${setup.user} is logged in; to keep them running after you log out and start them at boot: loginctl enable-linger ${setup.user}`,
      );
    }
  }
  const down = status.services.filter((s) => s.state !== 'running');
  if (down.length === 0) {
    result.started = true;
    return result;
  }
  result.error = new KeelError(
    'SERVICE_FAILED',
    down
      .map(
        (s) =>
          `${s.unit} is ${s.state}${s.lastExitCode === null ? '' : ` (exit ${s.lastExitCode})`} right after it was started; ${s.logPath} ends: ${s.logLines.slice(-3).join(' | ') || '(empty)'}`,
      )
      .join('; '),
    { details: { services: down.map((s) => s.name) } },
  );
  return result;
}

/**
 * Stops the installed services among `names`, removes their files and has the manager forget
 * them. Services not installed are listed in `absent`. With `dryRun` nothing is run or removed.
 *
 * @returns the result; `error` is `SERVICE_MANAGER_UNAVAILABLE` when the manager could not be
 *   reached (the files are removed; the message says how to stop what may still run), or
 *   `SERVICE_FAILED` when systemd refused to stop them (the files are kept).
 */
export async function uninstallServices(
  names: readonly ServiceName[],
  setup: ServiceSetup,
  options: { dryRun?: boolean } = {},
): Promise<UninstallResult> {
  const files = filesFor(names, setup);
  const present = files.filter((f) => existsSync(f.path));
  const result: UninstallResult = {
    platform: setup.platform,
    manager: SERVICE_MANAGERS[setup.platform],
    dir: setup.dir,
    dryRun: Boolean(options.dryRun),
    removed: present.map((f) => ({ name: f.name, unit: f.unit, path: f.path })),
    absent: files.filter((f) => !present.includes(f)).map((f) => f.name),
    commands: [],
    notes: [],
    error: null,
  };
  if (present.length === 0) return result;
  const units = present.map((f) => f.unit);
  const before: Step[] =
    setup.platform === 'linux'
      ? [{ argv: ['systemctl', '--user', 'disable', '--now', ...units] }]
      : units.map((u) => ({ argv: ['launchctl', 'bootout', `${domain(setup)}/${u}`] }));
  const after: Step[] =
    setup.platform === 'linux' ? [{ argv: ['systemctl', '--user', 'daemon-reload'] }] : [];
  if (options.dryRun) {
    result.commands = [...before, ...after].map((s) => ({ argv: s.argv, code: null, stderr: '' }));
    return result;
  }
  const run = setup.run ?? runCommand;
  let unreachable: CommandResult | null = null;
  for (const step of before) {
    const [command = '', ...args] = step.argv;
    const r = await run(command, args);
    result.commands.push({
      argv: step.argv,
      code: r.code,
      stderr: r.code === 0 ? '' : firstLine(r.stderr),
    });
    if (r.code === 0) continue;
    if (managerUnreachable(r)) {
      unreachable = r;
      break;
    }
    // launchd: a service that is not loaded cannot be booted out, and that is fine.
    if (setup.platform === 'darwin') continue;
    result.removed = [];
    result.error = new KeelError(
      'SERVICE_FAILED',
      `\`${step.argv.join(' ')}\` failed (exit ${r.code}): ${firstLine(r.stderr) || 'no message'}; the unit files are kept`,
      { details: { command: step.argv, exit_code: r.code } },
    );
    return result;
  }
  for (const f of present) rmSync(f.path, { force: true });
  if (unreachable) {
    const stop =
      setup.platform === 'linux'
        ? `systemctl --user stop ${units.join(' ')} && systemctl --user daemon-reload`
        : units.map((u) => `launchctl bootout ${domain(setup)}/${u}`).join(' && ');
    result.error = new KeelError(
      'SERVICE_MANAGER_UNAVAILABLE',
      `removed ${present.map((f) => f.path).join(', ')}, but could not reach ${managerName(setup)} (${firstLine(unreachable.stderr) || `exit ${unreachable.code}`}). If they still run, stop them in a logged-in session of ${setup.user}: ${stop}`,
    );
    return result;
  }
  for (const step of after) {
    const [command = '', ...args] = step.argv;
    const r = await run(command, args);
    result.commands.push({
      argv: step.argv,
      code: r.code,
      stderr: r.code === 0 ? '' : firstLine(r.stderr),
    });
  }
  return result;
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
      logLines: lastLines(f.logPath, options.logLines ?? LOG_LINES),
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
