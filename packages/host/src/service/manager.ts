/**
 * Reaching the service manager: where and for whom services are installed ({@link ServiceSetup}),
 * the files a setup has ({@link filesFor}), how a manager command is run ({@link CommandRunner},
 * {@link runCommand}: never a shell, never a rejection) and when a failed command means the manager
 * cannot be reached at all ({@link managerUnreachable}: no systemd user session, as in a container;
 * no launchd GUI domain, as over SSH).
 *
 * @module
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { KeelError } from '@keel/errors';
import { renderService, SERVICE_NAMES, type ServiceName, type ServicePlatform } from './render.js';

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

/**
 * A {@link CommandRunner}: `execFile`, no shell, ended after `timeoutMs` (a hung manager reads as a
 * failed command).
 */
export function commandRunner(timeoutMs: number): CommandRunner {
  return (command, args) =>
    new Promise((resolve) => {
      execFile(
        command,
        [...args],
        { encoding: 'utf8', timeout: timeoutMs },
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
}

/** The default {@link CommandRunner}: {@link commandRunner} with {@link COMMAND_TIMEOUT_MS}. */
export const runCommand: CommandRunner = commandRunner(COMMAND_TIMEOUT_MS);

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

/** A file install writes. */
export interface ServiceFile {
  name: ServiceName;
  unit: string;
  path: string;
  logPath: string;
  content: string;
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

/** launchd's domain of the user's services: `gui/<uid>`. */
export const domain = (setup: ServiceSetup) => `gui/${setup.uid}`;

/** The files `names` would have for `setup`, rendered (see `renderService`). */
export function filesFor(names: readonly ServiceName[], setup: ServiceSetup): ServiceFile[] {
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
export const firstLine = (text: string) =>
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

/** The manager as a message names it. */
export function managerName(setup: ServiceSetup): string {
  return setup.platform === 'linux'
    ? "systemd's user manager"
    : `launchd's GUI domain (${domain(setup)})`;
}
