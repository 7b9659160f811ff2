// Installing, removing and showing the services against a temporary folder and a recording command
// runner that answers as systemctl / launchctl do (a working manager, none reachable, a refusal).
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { installServices, settingsServicesDoNotSee, uninstallServices } from './install.js';
import {
  type CommandResult,
  type CommandRunner,
  managerUnreachable,
  parseServiceNames,
  runCommand,
  type ServiceSetup,
} from './manager.js';
import { renderService, type ServicePlatform } from './render.js';
import { lastLines, launchdState, serviceStatus, systemdState } from './status.js';

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'keel-install-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const ok = (stdout = ''): CommandResult => ({ code: 0, stdout, stderr: '' });
const NO_BUS: CommandResult = {
  code: 1,
  stdout: '',
  stderr: 'Failed to connect to bus: No medium found\n',
};
const RUNNING =
  'LoadState=loaded\nActiveState=active\nSubState=running\nMainPID=4242\nExecMainStatus=0\n';

/** A runner that records every command and answers with `answer` (default: success). */
function recorder(answer: (argv: string[]) => CommandResult = () => ok()) {
  const calls: string[][] = [];
  return {
    calls,
    run: async (command: string, args: readonly string[]) => {
      const argv = [command, ...args];
      calls.push(argv);
      return answer(argv);
    },
  };
}

function setup(platform: ServicePlatform, run: CommandRunner): ServiceSetup {
  return {
    platform,
    dir: join(root, 'units'),
    nodePath: process.execPath,
    keelPath: '/opt/keel/apps/cli/dist/main.js',
    home: join(root, 'home'),
    keelHome: join(root, 'keel'),
    path: '/usr/bin:/bin',
    uid: 501,
    user: 'ada',
    run,
    settleMs: 0,
    sleep: async () => {},
  };
}

/** systemctl as a working user manager: every service runs; linger is off. */
const systemd = (argv: string[]) => {
  if (argv[2] === 'show') return ok(RUNNING);
  if (argv[0] === 'loginctl') return ok('no\n');
  return ok();
};

describe('install on Linux (systemd)', () => {
  it('writes the units, reloads, enables and restarts them, and sees them run', async () => {
    const r = recorder(systemd);
    const s = setup('linux', r.run);
    const result = await installServices(['think', 'discord'], s);
    expect(result.error).toBeNull();
    expect(result.started).toBe(true);
    for (const name of ['think', 'discord'] as const) {
      const file = join(s.dir, `keel-${name}.service`);
      const { stopTimeoutSec: _, ...inputs } = s;
      expect(readFileSync(file, 'utf8')).toBe(renderService({ ...inputs, service: name }).content);
    }
    expect(statSync(join(s.keelHome, 'logs')).mode & 0o777).toBe(0o700);
    expect(r.calls.slice(0, 3)).toEqual([
      ['systemctl', '--user', 'daemon-reload'],
      ['systemctl', '--user', 'enable', 'keel-think.service', 'keel-discord.service'],
      ['systemctl', '--user', 'restart', 'keel-think.service', 'keel-discord.service'],
    ]);
    expect(result.services.map((x) => [x.name, x.state, x.pid])).toEqual([
      ['think', 'running', 4242],
      ['discord', 'running', 4242],
    ]);
    expect(result.notes.join('\n')).toMatch(/loginctl enable-linger ada/);
  });

  it('without a user session: the units are written and the error says how to start them', async () => {
    const r = recorder(() => NO_BUS);
    const s = setup('linux', r.run);
    const result = await installServices(['think'], s);
    expect(existsSync(join(s.dir, 'keel-think.service'))).toBe(true);
    expect(result.started).toBe(false);
    expect(result.error?.code).toBe('SERVICE_MANAGER_UNAVAILABLE');
    expect(result.error?.message).toContain('Failed to connect to bus');
    expect(result.error?.message).toContain(
      'systemctl --user daemon-reload && systemctl --user enable --now keel-think.service',
    );
    expect(r.calls).toEqual([['systemctl', '--user', 'daemon-reload']]);
    // The control: the same install with a reachable manager is no error.
    expect((await installServices(['think'], setup('linux', recorder(systemd).run))).error).toBe(
      null,
    );
  });

  it('a service that stops right after it started (a bad configuration) is SERVICE_FAILED with its log', async () => {
    const r = recorder((argv) =>
      argv[2] === 'show' && argv[3] === 'keel-discord.service'
        ? ok('LoadState=loaded\nActiveState=failed\nSubState=failed\nMainPID=0\nExecMainStatus=2\n')
        : systemd(argv),
    );
    const s = setup('linux', r.run);
    mkdirSync(join(s.keelHome, 'logs'), { recursive: true });
    writeFileSync(
      join(s.keelHome, 'logs', 'discord.log'),
      'error CONFIG_INVALID: KEEL_DISCORD_OWNER_ID is not set\nfix: Fix the environment variable\n',
    );
    const result = await installServices(['think', 'discord'], s);
    expect(result.started).toBe(false);
    expect(result.error?.code).toBe('SERVICE_FAILED');
    expect(result.error?.message).toMatch(/keel-discord\.service is failed \(exit 2\)/);
    expect(result.error?.message).toContain('KEEL_DISCORD_OWNER_ID is not set');
    expect(result.error?.message).not.toContain('keel-think.service');
  });

  it('a command systemd refuses is SERVICE_FAILED naming it; nothing after it runs', async () => {
    const r = recorder((argv) =>
      argv[2] === 'enable'
        ? { code: 1, stdout: '', stderr: 'Failed to enable unit: Access denied\n' }
        : systemd(argv),
    );
    const result = await installServices(['think'], setup('linux', r.run));
    expect(result.error?.code).toBe('SERVICE_FAILED');
    expect(result.error?.message).toContain('`systemctl --user enable keel-think.service` failed');
    expect(r.calls).toHaveLength(2);
  });

  it('--dry-run writes and runs nothing, and lists the files and the commands', async () => {
    const r = recorder(systemd);
    const s = setup('linux', r.run);
    const result = await installServices(['think'], s, { dryRun: true });
    expect(r.calls).toEqual([]);
    expect(existsSync(s.dir)).toBe(false);
    expect(existsSync(s.keelHome)).toBe(false);
    expect(result.files[0]?.content).toContain('ExecStart=');
    expect(result.commands.map((c) => [c.argv.join(' '), c.code])).toEqual([
      ['systemctl --user daemon-reload', null],
      ['systemctl --user enable keel-think.service', null],
      ['systemctl --user restart keel-think.service', null],
    ]);
  });
});

describe('install on macOS (launchd)', () => {
  const launchd = (argv: string[]) => {
    if (argv[1] === 'bootout')
      return { code: 3, stdout: '', stderr: 'Boot-out failed: 3: No such process' };
    if (argv[1] === 'print')
      return ok('gui/501/dev.keel.think = {\n\tstate = running\n\tpid = 77\n}');
    return ok();
  };

  it('unloads an older copy, enables and bootstraps the agent in gui/<uid>, and sees it run', async () => {
    const r = recorder(launchd);
    const s = setup('darwin', r.run);
    const result = await installServices(['think'], s);
    const plist = join(s.dir, 'dev.keel.think.plist');
    expect(readFileSync(plist, 'utf8')).toContain('<string>dev.keel.think</string>');
    expect(r.calls).toEqual([
      ['launchctl', 'bootout', 'gui/501/dev.keel.think'],
      ['launchctl', 'enable', 'gui/501/dev.keel.think'],
      ['launchctl', 'bootstrap', 'gui/501', plist],
      ['launchctl', 'print', 'gui/501/dev.keel.think'],
    ]);
    expect(result.error).toBeNull();
    expect(result.services[0]).toMatchObject({ state: 'running', pid: 77 });
  });

  it('without a GUI session (over SSH): error 125 is SERVICE_MANAGER_UNAVAILABLE naming the bootstrap', async () => {
    const r = recorder((argv) =>
      argv[1] === 'bootstrap'
        ? {
            code: 125,
            stdout: '',
            stderr: 'Bootstrap failed: 125: Domain does not support specified action',
          }
        : launchd(argv),
    );
    const s = setup('darwin', r.run);
    const result = await installServices(['think'], s);
    expect(result.error?.code).toBe('SERVICE_MANAGER_UNAVAILABLE');
    expect(result.error?.message).toContain(
      `launchctl bootstrap gui/501 '${join(s.dir, 'dev.keel.think.plist')}'`,
    );
  });
});

describe('uninstall', () => {
  it('stops and disables the installed units, removes them and reloads; the rest are absent', async () => {
    const s = setup('linux', recorder(systemd).run);
    await installServices(['think'], s);
    const r = recorder(systemd);
    const result = await uninstallServices(['think', 'discord'], { ...s, run: r.run });
    expect(result.error).toBeNull();
    expect(result.removed.map((f) => f.name)).toEqual(['think']);
    expect(result.absent).toEqual(['discord']);
    expect(existsSync(join(s.dir, 'keel-think.service'))).toBe(false);
    expect(r.calls).toEqual([
      ['systemctl', '--user', 'disable', '--now', 'keel-think.service'],
      ['systemctl', '--user', 'daemon-reload'],
    ]);
  });

  it('when systemd refuses to stop them, the units are kept (SERVICE_FAILED)', async () => {
    const s = setup('linux', recorder(systemd).run);
    await installServices(['think'], s);
    const refuse = recorder(() => ({ code: 1, stdout: '', stderr: 'Access denied' }));
    const result = await uninstallServices(['think'], { ...s, run: refuse.run });
    expect(result.error?.code).toBe('SERVICE_FAILED');
    expect(result.removed).toEqual([]);
    expect(existsSync(join(s.dir, 'keel-think.service'))).toBe(true);
  });

  it('without a user session the units are removed, and the error says how to stop what may run', async () => {
    const s = setup('linux', recorder(systemd).run);
    await installServices(['think'], s);
    const result = await uninstallServices(['think'], { ...s, run: recorder(() => NO_BUS).run });
    expect(existsSync(join(s.dir, 'keel-think.service'))).toBe(false);
    expect(result.error?.code).toBe('SERVICE_MANAGER_UNAVAILABLE');
    expect(result.error?.message).toContain('systemctl --user stop keel-think.service');
  });

  it('on macOS boots out each agent (one not loaded is fine) and removes it', async () => {
    const s = setup('darwin', recorder(() => ok('state = running')).run);
    await installServices(['think', 'discord'], s);
    const r = recorder((argv) =>
      argv[2] === 'gui/501/dev.keel.discord'
        ? { code: 113, stdout: '', stderr: 'Could not find specified service' }
        : ok(),
    );
    const result = await uninstallServices(['think', 'discord'], { ...s, run: r.run });
    expect(result.error).toBeNull();
    expect(result.removed.map((f) => f.name)).toEqual(['think', 'discord']);
    expect(existsSync(join(s.dir, 'dev.keel.think.plist'))).toBe(false);
  });
});

describe('status', () => {
  it('each service: installed or not, its state, whether its file is current, its last log lines', async () => {
    const s = setup('linux', recorder(systemd).run);
    await installServices(['think'], s);
    writeFileSync(
      join(s.keelHome, 'logs', 'think.log'),
      `${Array.from({ length: 30 }, (_, i) => `line ${i + 1}`).join('\n')}\n`,
    );
    const result = await serviceStatus(['think', 'discord'], s, { logLines: 3 });
    expect(result.services.map((x) => [x.name, x.installed, x.upToDate, x.state])).toEqual([
      ['think', true, true, 'running'],
      ['discord', false, null, 'not_installed'],
    ]);
    expect(result.services[0]?.logLines).toEqual(['line 28', 'line 29', 'line 30']);

    // Another node (an nvm upgrade): the installed file is no longer what install writes.
    const moved = await serviceStatus(['think'], { ...s, nodePath: '/opt/node-22/bin/node' });
    expect(moved.services[0]?.upToDate).toBe(false);
    expect(moved.notes.join('\n')).toMatch(/run it again/);
  });

  it('an unreachable manager leaves the states unknown and says so', async () => {
    const s = setup('linux', recorder(systemd).run);
    await installServices(['think'], s);
    const result = await serviceStatus(['think'], { ...s, run: recorder(() => NO_BUS).run });
    expect(result.reachable).toBe(false);
    expect(result.services[0]?.state).toBe('unknown');
    expect(result.notes[0]).toMatch(/could not reach systemd's user manager/);
  });

  it("reads systemd's and launchd's words for a state", () => {
    const props = (text: string) =>
      new Map(text.split('\n').map((l) => l.split('=') as [string, string]));
    expect(
      systemdState(props('LoadState=loaded\nActiveState=active\nSubState=running\nMainPID=9')),
    ).toEqual({
      state: 'running',
      pid: 9,
      lastExitCode: null,
    });
    expect(
      systemdState(
        props(
          'LoadState=loaded\nActiveState=activating\nSubState=auto-restart\nMainPID=0\nExecMainStatus=1',
        ),
      ),
    ).toEqual({ state: 'restarting', pid: null, lastExitCode: 1 });
    expect(
      systemdState(props('LoadState=loaded\nActiveState=failed\nSubState=failed\nExecMainStatus=2'))
        .state,
    ).toBe('failed');
    expect(systemdState(props('LoadState=not-found\nActiveState=inactive')).state).toBe(
      'not_loaded',
    );
    expect(launchdState('\tstate = running\n\tpid = 5\n')).toEqual({
      state: 'running',
      pid: 5,
      lastExitCode: null,
    });
    expect(launchdState('\tstate = not running\n\tlast exit code = 1\n').state).toBe('restarting');
    expect(launchdState('\tstate = not running\n\tlast exit code = 0\n').state).toBe('stopped');
  });
});

describe('the pieces', () => {
  it('runCommand reports an exit code, and 127 for a command that is not there', async () => {
    expect((await runCommand(process.execPath, ['-e', 'process.exit(3)'])).code).toBe(3);
    expect((await runCommand(process.execPath, ['-e', 'process.stdout.write("hi")'])).stdout).toBe(
      'hi',
    );
    const missing = await runCommand('keel-no-such-command', []);
    expect(missing.code).toBe(127);
    expect(managerUnreachable(missing)).toBe(true);
    expect(managerUnreachable({ code: 1, stdout: '', stderr: 'Access denied' })).toBe(false);
  });

  it('lastLines reads the end of a large log without a partial first line', () => {
    const file = join(root, 'big.log');
    writeFileSync(file, `${'x'.repeat(100_000)}\n${'y'.repeat(70_000)}\nlast\n`);
    expect(lastLines(file, 5)).toEqual(['last']);
    expect(lastLines(join(root, 'none.log'), 5)).toEqual([]);
  });

  it('service names: in order, each once; an unknown one is INVALID_INPUT', () => {
    expect(parseServiceNames(['discord', 'think', 'discord'])).toEqual(['think', 'discord']);
    expect(parseServiceNames([], ['think'])).toEqual(['think']);
    expect(() => parseServiceNames(['web'])).toThrow(/no service named "web"/);
  });

  it('names the settings set in a shell that the services would not see (KEEL_HOME aside)', () => {
    expect(
      settingsServicesDoNotSee({
        KEEL_HOME: '/x',
        ANTHROPIC_API_KEY: 'sk',
        KEEL_TZ: ' ',
        HOME: '/h',
      }),
    ).toEqual(['ANTHROPIC_API_KEY']);
    // A value config.toml holds too is seen by the services; one it holds differently is not.
    expect(
      settingsServicesDoNotSee(
        { ANTHROPIC_API_KEY: 'sk', KEEL_TZ: 'Europe/Berlin', DISCORD_TOKEN: 't1' },
        { ANTHROPIC_API_KEY: 'sk', DISCORD_TOKEN: 't0' },
      ).sort(),
    ).toEqual(['DISCORD_TOKEN', 'KEEL_TZ']);
  });
});
