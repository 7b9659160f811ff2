/**
 * `keel service install|uninstall|status [think|discord]`: keel's background services as systemd
 * user units (Linux) or launchd agents (macOS), run by this node and this keel, with KEEL_HOME,
 * their logs in `$KEEL_HOME/logs/` and no restart on an error restarting cannot fix (see
 * `@keel/host`'s `renderService` and `installServices`). `--dry-run` prints what would be written
 * and run. Also {@link launchdExitCode}: how a service run by launchd ends on such an error.
 *
 * @module
 */
import { existsSync, realpathSync } from 'node:fs';
import { homedir, userInfo } from 'node:os';
import { KeelError } from '@keel/errors';
import {
  configPath,
  EXIT,
  type InstallResult,
  inspectConfigFile,
  installServices,
  LAUNCHD_FLAG,
  type ManagerCommand,
  NO_RESTART_EXIT,
  parseServiceNames,
  type ServiceReport,
  type ServiceSetup,
  type StatusResult,
  serviceDir,
  servicePath,
  servicePlatform,
  serviceStatus,
  settingInfo,
  settingsServicesDoNotSee,
  type UninstallResult,
  uninstallServices,
} from '@keel/host';
import type { Command } from 'commander';
import type { Config } from '../config.js';
import { action, emit, reportError, wantsJson } from '../output.js';
import { keelMain as keelEntry } from '../paths.js';
import { parsePositiveInt } from './shared.js';

/**
 * The resolved path of the `keel` entry point: the one beside this module when it is there
 * (`bundle/keel.mjs`, or `dist/main.js` of a tsc build; see `paths.ts`), else the script node runs
 * (`process.argv[1]`, e.g. a global `keel` link), symlinks resolved.
 *
 * @throws KeelError `FILE_UNREADABLE` when neither exists.
 */
export function keelMain(): string {
  const beside = keelEntry();
  const candidate = existsSync(beside) ? beside : process.argv[1];
  if (!candidate || !existsSync(candidate)) {
    throw new KeelError(
      'FILE_UNREADABLE',
      `cannot find keel's entry point (${beside}); build first (npm start, or pnpm exec turbo run build)`,
    );
  }
  return realpathSync(candidate);
}

/** Where and for whom this process installs services (this node, this keel, this user). */
export function serviceSetup(config: Config, env: NodeJS.ProcessEnv = process.env): ServiceSetup {
  const platform = servicePlatform(process.platform);
  const home = homedir();
  return {
    platform,
    dir: serviceDir(platform, home, env.XDG_CONFIG_HOME),
    nodePath: process.execPath,
    keelPath: keelMain(),
    home,
    keelHome: config.home,
    path: servicePath(process.execPath, env.PATH),
    uid: process.getuid?.() ?? 0,
    user: userInfo().username,
    // The turn in progress gets KEEL_DISCORD_GRACE_MS, then the door closes.
    stopTimeoutSec: { discord: Math.ceil(config.discord.graceMs / 1000) + 15 },
  };
}

/** Whether the Discord door has what it needs to start (a token and an owner). */
function discordConfigured(config: Config): boolean {
  return Boolean(config.discord.token && config.discord.ownerId);
}

const commandJson = (c: ManagerCommand) => ({
  command: c.argv,
  exit_code: c.code,
  stderr: c.stderr,
});

const reportJson = (s: ServiceReport) => ({
  name: s.name,
  unit: s.unit,
  file: s.file,
  installed: s.installed,
  up_to_date: s.upToDate,
  state: s.state,
  pid: s.pid,
  last_exit_code: s.lastExitCode,
  log_path: s.logPath,
  log_lines: s.logLines,
});

const errorJson = (e: KeelError | null) => e && { code: e.code, message: e.message, fix: e.fix };

/** `keel service install --json`. */
export function installJson(r: InstallResult) {
  return {
    action: 'install',
    platform: r.platform,
    manager: r.manager,
    dir: r.dir,
    dry_run: r.dryRun,
    files: r.files.map((f) => ({
      service: f.name,
      unit: f.unit,
      path: f.path,
      log_path: f.logPath,
      ...(r.dryRun ? { content: f.content } : {}),
    })),
    commands: r.commands.map(commandJson),
    services: r.services.map(reportJson),
    started: r.started,
    notes: r.notes,
    error: errorJson(r.error),
  };
}

/** `keel service uninstall --json`. */
export function uninstallJson(r: UninstallResult) {
  return {
    action: 'uninstall',
    platform: r.platform,
    manager: r.manager,
    dir: r.dir,
    dry_run: r.dryRun,
    removed: r.removed.map((f) => ({ service: f.name, unit: f.unit, path: f.path })),
    absent: r.absent,
    commands: r.commands.map(commandJson),
    notes: r.notes,
    error: errorJson(r.error),
  };
}

/** `keel service status --json`. */
export function statusJson(r: StatusResult) {
  return {
    platform: r.platform,
    manager: r.manager,
    dir: r.dir,
    reachable: r.reachable,
    services: r.services.map(reportJson),
    notes: r.notes,
  };
}

/** One service's state in a line: `running, pid 4242` / `failed (exit 2)`. */
function stateLine(s: ServiceReport): string {
  if (s.state === 'not_installed') return 'not installed';
  const detail =
    s.pid !== null ? `, pid ${s.pid}` : s.lastExitCode !== null ? ` (exit ${s.lastExitCode})` : '';
  const stale = s.upToDate === false ? '; its file is out of date' : '';
  return `${s.state.replace('_', ' ')}${detail}${stale}`;
}

function commandLine(c: ManagerCommand): string {
  const ran = c.argv.join(' ');
  if (c.code === null) return `would run: ${ran}`;
  return c.code === 0 ? `ran: ${ran}` : `ran: ${ran}: exit ${c.code} (${c.stderr || 'no message'})`;
}

function installText(r: InstallResult): string {
  const lines: string[] = [];
  for (const f of r.files) {
    if (r.dryRun) lines.push(`--- would write ${f.path}`, f.content.trimEnd(), '---');
    else lines.push(`wrote ${f.path} (log: ${f.logPath})`);
  }
  lines.push(...r.commands.map(commandLine));
  for (const s of r.services) lines.push(`${s.name.padEnd(8)} ${stateLine(s)}`);
  if (r.started) lines.push(`started: ${r.services.map((s) => s.name).join(', ')}`);
  lines.push(...r.notes.map((n) => `note: ${n}`));
  return lines.join('\n');
}

function uninstallText(r: UninstallResult): string {
  const verb = r.dryRun ? 'would remove' : 'removed';
  return [
    ...r.commands.map(commandLine),
    ...r.removed.map((f) => `${verb} ${f.path}`),
    ...r.absent.map((n) => `${n}: not installed`),
    ...r.notes.map((n) => `note: ${n}`),
  ].join('\n');
}

function statusText(r: StatusResult): string {
  const kind = r.manager === 'systemd' ? 'systemd user units' : 'launchd agents';
  const lines = [`keel services (${kind} in ${r.dir})`];
  for (const s of r.services) {
    lines.push(`${s.name.padEnd(8)} ${stateLine(s)}`);
    if (s.installed || s.logLines.length > 0) {
      lines.push(`  log ${s.logPath}${s.logLines.length === 0 ? ' (empty)' : ':'}`);
      lines.push(...s.logLines.map((l) => `    ${l}`));
    }
  }
  lines.push(...r.notes.map((n) => `note: ${n}`));
  return lines.join('\n');
}

/** Prints `error` (stderr) when there is one and returns the exit code. */
function ending(error: KeelError | null): number {
  return error ? reportError(error, false) : EXIT.ok;
}

/**
 * The exit code a service ends with under launchd: with {@link LAUNCHD_FLAG} in `argv`, an error
 * with a code ({@link NO_RESTART_EXIT}) becomes 0, since launchd's `KeepAlive` can only be told
 * not to restart after a successful exit; every other code is kept.
 */
export function launchdExitCode(
  argv: readonly string[],
  code: number,
  stderr: { write(text: string): unknown } = process.stderr,
): number {
  if (code !== NO_RESTART_EXIT || !argv.includes(LAUNCHD_FLAG)) return code;
  stderr.write(
    `keel: ending with 0, not ${code}, so launchd does not start keel again into the same error; fix it, then run \`keel service install\` again\n`,
  );
  return EXIT.ok;
}

const SERVICES_HELP = `
Services: think (the think service: \`keel think\`) and discord (the Discord door:
\`keel discord\`). Each runs as this user with this node (${process.execPath}) and this keel,
KEEL_HOME and PATH in its environment (settings and secrets stay in KEEL_HOME), its output
appended to $KEEL_HOME/logs/<name>.log, rotated at logs.max_mb (default 10 MB) with logs.keep
(default 3) older ones kept as <name>.log.1 (the newest) and up. It is restarted after a failure,
but not after an error restarting cannot fix (exit 2: configuration, another copy running, a
damaged database). Where no service manager runs (a container), run \`keel think\` and
\`keel discord\` in a terminal (tmux, screen or nohup); \`keel doctor\` says whether they run.
`;

/** Registers `keel service install|uninstall|status`. */
export function registerServiceCommands(program: Command, config: Config): void {
  const service = program
    .command('service')
    .description(
      "install keel's background services (think, discord) with systemd or launchd; remove them; show them",
    )
    .addHelpText('after', SERVICES_HELP);

  service
    .command('install')
    .description(
      'write the services (default: think, and discord when it is configured), then start them',
    )
    .argument('[names...]', 'think, discord')
    .option('--dry-run', 'print the files and the commands; write and run nothing')
    .action(
      action(async (names: string[], opts: { dryRun?: boolean }, cmd: Command) => {
        const chosen = parseServiceNames(
          names,
          discordConfigured(config) ? ['think', 'discord'] : ['think'],
        );
        const result = await installServices(chosen, serviceSetup(config), {
          dryRun: Boolean(opts.dryRun),
        });
        const notes: string[] = [];
        if (names.length === 0 && !chosen.includes('discord')) {
          notes.push(
            'discord is not installed: it has no bot token and owner yet (`keel config set discord.token -`, then `keel discord pair`, then `keel service install discord`)',
          );
        } else if (chosen.includes('discord') && !discordConfigured(config)) {
          notes.push(
            'discord has no bot token and owner here: it stops at start with CONFIG_INVALID until they are configured (`keel config set discord.token -`, then `keel discord pair`)',
          );
        }
        const file = inspectConfigFile(config.home).settings;
        for (const name of settingsServicesDoNotSee(process.env, file)) {
          const key = settingInfo(name).key;
          notes.push(
            `${name} is set in this shell but not in ${configPath(config.home)}, and the services get only KEEL_HOME and PATH: ${key ? `\`keel config set ${key} …\` keeps it for them` : 'set it in the unit yourself if a service needs it'}`,
          );
        }
        result.notes.push(...notes);
        emit(wantsJson(cmd), installJson(result), () => installText(result));
        return ending(result.error);
      }),
    );

  service
    .command('uninstall')
    .description('stop the services and remove their files (default: every installed one)')
    .argument('[names...]', 'think, discord')
    .option('--dry-run', 'print what would be stopped and removed; do nothing')
    .action(
      action(async (names: string[], opts: { dryRun?: boolean }, cmd: Command) => {
        const result = await uninstallServices(parseServiceNames(names), serviceSetup(config), {
          dryRun: Boolean(opts.dryRun),
        });
        emit(wantsJson(cmd), uninstallJson(result), () => uninstallText(result));
        return ending(result.error);
      }),
    );

  service
    .command('status')
    .description(
      'each service: installed or not, its state, and the last lines of its log (exit 1 when an installed one does not run)',
    )
    .argument('[names...]', 'think, discord')
    .option('--lines <n>', 'log lines per service (default 10)', parsePositiveInt)
    .action(
      action(async (names: string[], opts: { lines?: number }, cmd: Command) => {
        const result = await serviceStatus(parseServiceNames(names), serviceSetup(config), {
          ...(opts.lines === undefined ? {} : { logLines: opts.lines }),
        });
        emit(wantsJson(cmd), statusJson(result), () => statusText(result));
        const down = result.services.some((s) => s.installed && s.state !== 'running');
        return down ? EXIT.failed : EXIT.ok;
      }),
    );
}
