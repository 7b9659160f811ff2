/**
 * keel's background services and the files that install them, rendered without touching the
 * machine: a systemd user unit on Linux (`~/.config/systemd/user/keel-think.service`) or a launchd
 * agent on macOS (`~/Library/LaunchAgents/dev.keel.think.plist`). {@link renderService} is pure:
 * the same inputs give the same bytes, so a test can render into a temporary folder and check it,
 * and `keel service status` can tell whether an installed file is still what install would write.
 *
 * Every service runs `<node> <keel> <verb>`: the absolute path of the node that ran the installer
 * (not `/usr/bin/env node`, which a service manager's PATH does not find under nvm) and the real
 * location of the CLI's `main.js`. The environment holds `KEEL_HOME` and `PATH` only: secrets stay
 * in KEEL_HOME's configuration, never in a unit file. stdout and stderr are appended to
 * `$KEEL_HOME/logs/<name>.log`. A service is restarted when it fails, except on exit 2 (an error
 * with a code: a bad configuration, another copy running, a damaged database), which restarting
 * cannot fix: systemd is told so with `RestartPreventExitStatus=2`; launchd cannot tell exit codes
 * apart (`KeepAlive` knows only `SuccessfulExit`), so the agent passes {@link LAUNCHD_FLAG} and keel
 * ends such an error with exit 0 there.
 *
 * @module
 */
import { dirname, join } from 'node:path';
import { KeelError } from '@keel/errors';
import { build as buildPlist } from 'plist';
import { EXIT } from '../report.js';

/** The systems keel installs services on, as `process.platform` names them. */
export type ServicePlatform = 'linux' | 'darwin';

/** The service manager of each {@link ServicePlatform}. */
export const SERVICE_MANAGERS = { linux: 'systemd', darwin: 'launchd' } as const;

/** keel's background services. */
export type ServiceName = 'think' | 'discord';

/** What a service is and how it is run and stopped. */
export interface ServiceDefinition {
  name: ServiceName;
  /** One line for `Description=` and the listing. */
  description: string;
  /** The `keel` arguments that run it in the foreground. */
  args: readonly string[];
  /** How long a stop waits after SIGTERM before killing it, seconds (default). */
  stopTimeoutSec: number;
  /** How long after a failure it is started again, seconds. */
  restartSec: number;
  /** Work that can wait: a lower CPU priority (`Nice=10`, launchd's `Background`). */
  background: boolean;
}

/** keel's services, in the order they are listed and installed. */
export const SERVICES: Readonly<Record<ServiceName, ServiceDefinition>> = {
  think: {
    name: 'think',
    description: 'keel think service (belief gate, reflection, reminders, nightly curator)',
    args: ['think'],
    stopTimeoutSec: 60,
    restartSec: 30,
    background: true,
  },
  discord: {
    name: 'discord',
    description: 'keel Discord DM front door',
    args: ['discord'],
    // KEEL_DISCORD_GRACE_MS (default 15 s) for the turn in progress, then the rest of the stop.
    stopTimeoutSec: 30,
    restartSec: 10,
    background: false,
  },
};

/** Every service name, in {@link SERVICES} order. */
export const SERVICE_NAMES = Object.keys(SERVICES) as ServiceName[];

/** The folder inside KEEL_HOME that holds the services' logs. */
export const SERVICE_LOGS_DIR = 'logs';

/**
 * The exit code a service is not restarted on: {@link EXIT}.error, an error with a code (the
 * owner's to fix).
 */
export const NO_RESTART_EXIT: number = EXIT.error;

/**
 * The flag a launchd agent passes to `keel think` / `keel discord`: an error with a code then ends
 * with exit 0 instead of {@link NO_RESTART_EXIT}, so `KeepAlive` (`SuccessfulExit: false`) does
 * not restart keel into the same error every ten seconds.
 */
export const LAUNCHD_FLAG = '--launchd';

/** The prefix of a launchd label (`dev.keel.think`). */
export const LAUNCHD_LABEL_PREFIX = 'dev.keel.';

/** What {@link renderService} needs: everything that varies between machines. */
export interface RenderInput {
  platform: ServicePlatform;
  service: ServiceName;
  /** The absolute path of node (`process.execPath`). */
  nodePath: string;
  /** The absolute, resolved path of keel's CLI `main.js`. */
  keelPath: string;
  /** The user's home folder (the services' working folder). */
  home: string;
  /** The absolute KEEL_HOME the service uses. */
  keelHome: string;
  /** The `PATH` the service gets (see {@link servicePath}). */
  path: string;
  /** Overrides the definition's stop timeout, seconds (e.g. from `KEEL_DISCORD_GRACE_MS`). */
  stopTimeoutSec?: number;
}

/** One rendered service file. */
export interface RenderedService {
  service: ServiceName;
  platform: ServicePlatform;
  /** The file's name in the manager's folder: `keel-think.service` or `dev.keel.think.plist`. */
  fileName: string;
  /** What the manager calls it: the unit (`keel-think.service`) or the label (`dev.keel.think`). */
  unit: string;
  /** Where its stdout and stderr go: `<KEEL_HOME>/logs/<name>.log`. */
  logPath: string;
  /** The file's bytes. */
  content: string;
}

/** The systemd unit name of a service: `keel-think.service`. */
export function systemdUnitName(service: ServiceName): string {
  return `keel-${service}.service`;
}

/** The launchd label of a service: `dev.keel.think`. */
export function launchdLabel(service: ServiceName): string {
  return `${LAUNCHD_LABEL_PREFIX}${service}`;
}

/** The manager's name for a service on `platform` (unit name or label). */
export function serviceUnit(platform: ServicePlatform, service: ServiceName): string {
  return platform === 'linux' ? systemdUnitName(service) : launchdLabel(service);
}

/** The file name of a service on `platform`. */
export function serviceFileName(platform: ServicePlatform, service: ServiceName): string {
  return platform === 'linux' ? systemdUnitName(service) : `${launchdLabel(service)}.plist`;
}

/** The log file of a service: `<keelHome>/logs/<name>.log`. */
export function serviceLogPath(keelHome: string, service: ServiceName): string {
  return join(keelHome, SERVICE_LOGS_DIR, `${service}.log`);
}

/**
 * The folder the manager reads user services from: `$XDG_CONFIG_HOME/systemd/user` (default
 * `~/.config/systemd/user`) on Linux, `~/Library/LaunchAgents` on macOS.
 */
export function serviceDir(
  platform: ServicePlatform,
  home: string,
  xdgConfigHome?: string | undefined,
): string {
  if (platform === 'darwin') return join(home, 'Library', 'LaunchAgents');
  const config = xdgConfigHome?.startsWith('/') ? xdgConfigHome : join(home, '.config');
  return join(config, 'systemd', 'user');
}

/**
 * Whether a `PATH` entry is one a package manager put there for the script it runs, not a folder
 * of the machine: `npm run`/`npm start` (npm's `@npmcli/run-script`, `setPATH`) and `pnpm run`
 * (`@pnpm/npm-lifecycle`) put the `node_modules/.bin` folder of the project and of every folder
 * above it (and `npm exec`'s own `…/_npx/…/node_modules/.bin`) before the caller's `PATH`, and
 * with them the `node-gyp-bin` folder they ship (npm:
 * `…/@npmcli/run-script/lib/node-gyp-bin`, pnpm: `…/pnpm/dist/node-gyp-bin`), a `node-gyp` shim
 * for building native addons. Both are build tools of one project's scripts: a service installed
 * from `npm start` must not carry them (and a project's `.bin` may shadow a system command).
 */
export function packageManagerPathEntry(entry: string): boolean {
  const folder = entry.replace(/\/+$/, '');
  return /(^|\/)node_modules\/\.bin$/.test(folder) || /(^|\/)node-gyp-bin$/.test(folder);
}

/**
 * The `PATH` a service gets: node's own folder first, then the installer's `PATH` without
 * relative or empty entries, the folders a package manager adds for its scripts
 * ({@link packageManagerPathEntry}: keel installed from `npm start` or `pnpm run`) and repeats.
 */
export function servicePath(nodePath: string, installerPath: string | undefined): string {
  const inherited = (installerPath ?? '')
    .split(':')
    .filter((p) => p.startsWith('/') && !packageManagerPathEntry(p));
  return [...new Set([dirname(nodePath), ...inherited])].join(':');
}

/**
 * Renders one service's file (pure).
 *
 * @throws KeelError `INVALID_INPUT` when a path is not absolute or holds a control character (a
 *   unit file cannot carry it).
 */
export function renderService(input: RenderInput): RenderedService {
  for (const [what, value] of [
    ['node', input.nodePath],
    ['keel', input.keelPath],
    ['home', input.home],
    ['KEEL_HOME', input.keelHome],
  ] as const) {
    if (!value.startsWith('/')) {
      throw new KeelError('INVALID_INPUT', `the ${what} path "${value}" is not absolute`);
    }
  }
  for (const value of [input.nodePath, input.keelPath, input.home, input.keelHome, input.path]) {
    if (/[\u0000-\u001f\u007f]/.test(value)) {
      throw new KeelError(
        'INVALID_INPUT',
        `a path for the service holds a control character (${JSON.stringify(value)})`,
      );
    }
  }
  const definition = SERVICES[input.service];
  const logPath = serviceLogPath(input.keelHome, input.service);
  const stopTimeoutSec = input.stopTimeoutSec ?? definition.stopTimeoutSec;
  return {
    service: input.service,
    platform: input.platform,
    fileName: serviceFileName(input.platform, input.service),
    unit: serviceUnit(input.platform, input.service),
    logPath,
    content:
      input.platform === 'linux'
        ? systemdUnit(input, definition, logPath, stopTimeoutSec)
        : launchdPlist(input, definition, logPath, stopTimeoutSec),
  };
}

/** `%` is a specifier in every systemd value: `%%` is a literal one. */
const systemdPercent = (value: string) => value.replaceAll('%', '%%');

/** A double-quoted systemd word (`\` and `"` escaped); `dollar` also escapes `$` as `$$`. */
function systemdQuoted(value: string, dollar: boolean): string {
  let v = systemdPercent(value).replaceAll('\\', '\\\\').replaceAll('"', '\\"');
  if (dollar) v = v.replaceAll('$', '$$$$');
  return `"${v}"`;
}

/** A word of a systemd command line: as it is when it needs no quoting, else quoted. */
const systemdWord = (value: string, dollar: boolean) =>
  /^[A-Za-z0-9_./:@+=,-]+$/.test(value) ? value : systemdQuoted(value, dollar);

/**
 * A systemd user unit (see systemd.service(5), systemd.exec(5), systemd.kill(5)). The command's
 * path takes no `$` expansion; its arguments do, so theirs are escaped. `KillMode=mixed` sends
 * SIGTERM to the `keel` process only, which passes it on to the service it started.
 */
function systemdUnit(
  input: RenderInput,
  d: ServiceDefinition,
  logPath: string,
  stopTimeoutSec: number,
): string {
  const exec = [
    systemdWord(input.nodePath, false),
    ...[input.keelPath, ...d.args].map((a) => systemdWord(a, true)),
  ].join(' ');
  const log = systemdPercent(logPath);
  return [
    `# keel ${d.name}: written by \`keel service install\`; \`keel service uninstall\` removes it.`,
    '# Secrets are not kept here: the service reads them from KEEL_HOME.',
    '[Unit]',
    `Description=${d.description}`,
    '',
    '[Service]',
    'Type=simple',
    `Environment=${systemdQuoted(`KEEL_HOME=${input.keelHome}`, false)}`,
    `Environment=${systemdQuoted(`PATH=${input.path}`, false)}`,
    `ExecStart=${exec}`,
    `StandardOutput=append:${log}`,
    `StandardError=append:${log}`,
    'KillMode=mixed',
    'KillSignal=SIGTERM',
    `TimeoutStopSec=${stopTimeoutSec}`,
    'Restart=on-failure',
    `RestartSec=${d.restartSec}`,
    `# Exit ${NO_RESTART_EXIT} is an error with a code (configuration, another copy running, a damaged`,
    '# database): restarting cannot fix it.',
    `RestartPreventExitStatus=${NO_RESTART_EXIT}`,
    ...(d.background ? ['Nice=10'] : []),
    '# Logs and anything else it creates are readable by this user only.',
    'UMask=0077',
    'NoNewPrivileges=true',
    '',
    '[Install]',
    'WantedBy=default.target',
    '',
  ].join('\n');
}

/** A launchd agent (see launchd.plist(5)), built by the `plist` library. */
function launchdPlist(
  input: RenderInput,
  d: ServiceDefinition,
  logPath: string,
  stopTimeoutSec: number,
): string {
  return `${buildPlist({
    Label: launchdLabel(d.name),
    ProgramArguments: [input.nodePath, input.keelPath, ...d.args, LAUNCHD_FLAG],
    EnvironmentVariables: { KEEL_HOME: input.keelHome, PATH: input.path },
    WorkingDirectory: input.home,
    RunAtLoad: true,
    // Restart after a failure; keel turns an error restarting cannot fix into exit 0 here.
    KeepAlive: { SuccessfulExit: false },
    ThrottleInterval: d.restartSec,
    ExitTimeOut: stopTimeoutSec,
    ...(d.background ? { ProcessType: 'Background' } : {}),
    // 0o077 (launchd takes it in decimal): logs readable by this user only.
    Umask: 0o077,
    StandardOutPath: logPath,
    StandardErrorPath: logPath,
  })}\n`;
}
