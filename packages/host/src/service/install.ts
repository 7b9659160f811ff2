/**
 * `keel service install|uninstall`: writes the files {@link renderService} renders into the
 * service manager's folder, then has the manager load and start them (systemd:
 * `systemctl --user daemon-reload`, `enable`, `restart`; launchd: `launchctl bootstrap gui/<uid>`),
 * looks at each a moment later (see `status.ts`), and says which run; uninstall stops them and
 * removes the files.
 *
 * The manager is reached only through a {@link CommandRunner} and the files go to the folder the
 * caller names, so a test runs all of it against a temporary folder and a recording runner. A
 * manager that cannot be reached (no systemd user session, as in a container; no launchd GUI domain,
 * as over SSH) is not a crash: the files are written, and the result carries
 * `SERVICE_MANAGER_UNAVAILABLE` naming the commands that start them.
 *
 * @module
 */
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { KeelError } from '@keel/errors';
import { type RawSettings, SETTING_NAMES, type SettingName } from '../config.js';
import { ensureHome } from '../files.js';
import {
  type CommandResult,
  domain,
  filesFor,
  firstLine,
  managerName,
  managerUnreachable,
  runCommand,
  type ServiceFile,
  type ServiceSetup,
} from './manager.js';
import {
  SERVICE_LOGS_DIR,
  SERVICE_MANAGERS,
  type ServiceName,
  type ServicePlatform,
} from './render.js';
import { type ServiceReport, serviceStatus } from './status.js';

/** How long install waits after starting the services before it looks at them, ms. */
export const SETTLE_MS = 3_000;

/** A manager command install or uninstall ran (or, in a dry run, would run). */
export interface ManagerCommand {
  argv: string[];
  /** Its exit code; null: not run (a dry run). */
  code: number | null;
  /** The first line of what it printed on stderr, when it failed. */
  stderr: string;
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

/** A command of a plan; `mayFail` ones (e.g. unloading what is not loaded) do not stop it. */
interface Step {
  argv: string[];
  mayFail?: boolean;
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

/** The commands that start `files` by hand, as one shell line. */
function startByHand(setup: ServiceSetup, files: ServiceFile[]): string {
  if (setup.platform === 'linux') {
    const units = files.map((f) => f.unit).join(' ');
    return `systemctl --user daemon-reload && systemctl --user enable --now ${units}`;
  }
  return files.map((f) => `launchctl bootstrap ${domain(setup)} '${f.path}'`).join(' && ');
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
