/**
 * `keel service` end to end: the built CLI writes real unit files into a temporary HOME, talking to
 * stand-ins for `systemctl` and `loginctl` put first on PATH (they record their arguments and answer
 * as a working user manager, or as one that cannot be reached, as in this container). Then the
 * command the unit names is run as the service manager would run it: only KEEL_HOME and PATH in its
 * environment, its output appended to the log file the unit names.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CLI } from '../support/cli.js';

let root: string;
let home: string;
let keelHome: string;
let bin: string;
let calls: string;
const children: ChildProcess[] = [];

/** A stand-in for systemctl and loginctl: records each call; FAKE_SYSTEMD says how to answer. */
const FAKE = `#!/bin/sh
echo "$(basename "$0") $*" >> "$FAKE_CALLS"
if [ "$FAKE_SYSTEMD" = "no-bus" ]; then
  echo "Failed to connect to bus: No medium found" >&2
  exit 1
fi
case "$(basename "$0") $2" in
  "systemctl show") printf 'LoadState=loaded\\nActiveState=active\\nSubState=running\\nMainPID=4242\\nExecMainStatus=0\\n' ;;
  "loginctl "*) echo yes ;;
esac
exit 0
`;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'keel-service-'));
  home = join(root, 'home');
  keelHome = join(root, 'keel home');
  bin = join(root, 'bin');
  calls = join(root, 'calls.log');
  mkdirSync(home);
  mkdirSync(bin);
  for (const name of ['systemctl', 'loginctl']) {
    writeFileSync(join(bin, name), FAKE);
    chmodSync(join(bin, name), 0o755);
  }
});
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill('SIGKILL');
  rmSync(root, { recursive: true, force: true });
});

/** Runs `keel <args>` with the temporary HOME and the stand-ins first on PATH. */
function keel(args: string[], env: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, [CLI, ...args], {
    env: {
      ...process.env,
      HOME: home,
      XDG_CONFIG_HOME: '',
      KEEL_HOME: keelHome,
      PATH: `${bin}:${process.env.PATH}`,
      FAKE_CALLS: calls,
      FAKE_SYSTEMD: 'ok',
      ANTHROPIC_API_KEY: '',
      OPENAI_API_KEY: '',
      DISCORD_TOKEN: '',
      KEEL_DISCORD_OWNER_ID: '',
      ...env,
    },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { ...r, json: () => JSON.parse(r.stdout) };
}

const recorded = () => (existsSync(calls) ? readFileSync(calls, 'utf8').trim().split('\n') : []);
const unitFile = (name: string) => join(home, '.config', 'systemd', 'user', `keel-${name}.service`);

/** The words of a systemd command line (double quotes, `\\` escapes, `$$` and `%%`). */
function commandWords(line: string): string[] {
  return [...line.matchAll(/"((?:[^"\\]|\\.)*)"|(\S+)/g)].map((m) =>
    (m[1] !== undefined ? m[1].replace(/\\(.)/g, '$1') : (m[2] ?? ''))
      .replaceAll('$$', '$')
      .replaceAll('%%', '%'),
  );
}

/** One `Key=` value of a unit (the first). */
const unitValue = (text: string, key: string) =>
  new RegExp(`^${key}=(.*)$`, 'm').exec(text)?.[1] ?? '';

describe.skipIf(process.platform !== 'linux')('keel service on Linux', () => {
  it('install writes a unit that runs this node and this keel, with no secret in it, and starts it', () => {
    const r = keel(['service', 'install', '--json'], {
      ANTHROPIC_API_KEY: 'sk-ant-api03-secret-value-0123456789',
      DISCORD_TOKEN: 'MTIzNDU2Nzg5.discord-secret-token',
      KEEL_DISCORD_OWNER_ID: '123456789012345678',
    });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const out = r.json();
    expect(out).toMatchObject({
      action: 'install',
      manager: 'systemd',
      started: true,
      error: null,
    });
    expect(out.services.map((s: { name: string; state: string }) => [s.name, s.state])).toEqual([
      ['think', 'running'],
      ['discord', 'running'],
    ]);
    expect(recorded()).toEqual([
      'systemctl --user daemon-reload',
      'systemctl --user enable keel-think.service keel-discord.service',
      'systemctl --user restart keel-think.service keel-discord.service',
      'systemctl --user show keel-think.service --property=LoadState,ActiveState,SubState,MainPID,ExecMainStatus',
      'systemctl --user show keel-discord.service --property=LoadState,ActiveState,SubState,MainPID,ExecMainStatus',
      `loginctl show-user ${userInfo().username} --property=Linger --value`,
    ]);
    const unit = readFileSync(unitFile('think'), 'utf8');
    expect(commandWords(unitValue(unit, 'ExecStart'))).toEqual([
      process.execPath,
      realpathSync(CLI),
      'think',
    ]);
    expect(unit).toContain(`Environment="KEEL_HOME=${keelHome}"`);
    // The secrets in the installer's environment stay out of every unit; the notes name them.
    for (const name of ['think', 'discord']) {
      const text = readFileSync(unitFile(name), 'utf8');
      expect(text).not.toContain('sk-ant-api03');
      expect(text).not.toContain('discord-secret-token');
      expect(text).toContain(keelHome); // the control: what is passed is there
    }
    expect(out.notes.join('\n')).toMatch(/ANTHROPIC_API_KEY is set in this shell/);
    expect(out.notes.join('\n')).not.toContain('sk-ant-api03');
  });

  it('without a systemd user session: the units are written, exit 2 with the commands to start them', () => {
    const r = keel(['service', 'install', '--json'], { FAKE_SYSTEMD: 'no-bus' });
    expect(r.status).toBe(2);
    expect(existsSync(unitFile('think'))).toBe(true);
    // Discord is not configured: it is not installed by default, and the owner is told.
    expect(existsSync(unitFile('discord'))).toBe(false);
    const out = r.json();
    expect(out.started).toBe(false);
    expect(out.error.code).toBe('SERVICE_MANAGER_UNAVAILABLE');
    expect(out.error.message).toContain(
      'systemctl --user daemon-reload && systemctl --user enable --now keel-think.service',
    );
    expect(out.notes.join('\n')).toMatch(/discord is not installed/);
    expect(r.stderr).toMatch(/^error SERVICE_MANAGER_UNAVAILABLE: .*\nfix: /);
  });

  it('--dry-run prints the unit and the commands and writes nothing', () => {
    const r = keel(['service', 'install', 'think', '--dry-run']);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain(`--- would write ${unitFile('think')}`);
    expect(r.stdout).toContain('RestartPreventExitStatus=2');
    expect(r.stdout).toContain('would run: systemctl --user daemon-reload');
    expect(existsSync(unitFile('think'))).toBe(false);
    expect(recorded()).toEqual([]);
  });

  it('status shows each service with its last log lines; uninstall stops and removes them', () => {
    expect(keel(['service', 'install', 'think']).status).toBe(0);
    writeFileSync(join(keelHome, 'logs', 'think.log'), 'first\nthink run 1: gate pattern\n');
    const status = keel(['service', 'status', '--json']);
    expect(status.status).toBe(0);
    const s = status.json();
    expect(s.services[0]).toMatchObject({
      name: 'think',
      installed: true,
      up_to_date: true,
      state: 'running',
      pid: 4242,
      log_lines: ['first', 'think run 1: gate pattern'],
    });
    expect(s.services[1]).toMatchObject({
      name: 'discord',
      installed: false,
      state: 'not_installed',
    });
    expect(keel(['service', 'status']).stdout).toMatch(
      /think +running, pid 4242\n +log .*think\.log:\n +first\n +think run 1/,
    );

    const gone = keel(['service', 'uninstall', '--json']);
    expect(gone.status).toBe(0);
    expect(gone.json()).toMatchObject({ removed: [{ service: 'think' }], absent: ['discord'] });
    expect(existsSync(unitFile('think'))).toBe(false);
    expect(recorded()).toContain('systemctl --user disable --now keel-think.service');
  });

  it('an unknown service is INVALID_INPUT', () => {
    const r = keel(['service', 'install', 'web']);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/error INVALID_INPUT: no service named "web"/);
  });

  it("the unit's command runs keel think with only KEEL_HOME and PATH, logs, and stops on SIGTERM", async () => {
    expect(keel(['service', 'install', 'think']).status).toBe(0);
    const unit = readFileSync(unitFile('think'), 'utf8');
    const [command = '', ...args] = commandWords(unitValue(unit, 'ExecStart'));
    const env: Record<string, string> = {};
    for (const m of unit.matchAll(/^Environment="([A-Z_]+)=(.*)"$/gm)) {
      env[m[1] ?? ''] = (m[2] ?? '').replace(/\\(.)/g, '$1').replaceAll('%%', '%');
    }
    expect(Object.keys(env)).toEqual(['KEEL_HOME', 'PATH']);
    const log = unitValue(unit, 'StandardOutput')
      .replace(/^append:/, '')
      .replaceAll('%%', '%');
    const fd = openSync(log, 'a');
    const child = spawn(command, args, { env, stdio: ['ignore', fd, fd] });
    children.push(child);
    const deadline = Date.now() + 60_000;
    while (!/think run 1/.test(readFileSync(log, 'utf8')) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(readFileSync(log, 'utf8')).toMatch(/think run 1/);
    child.kill('SIGTERM'); // KillMode=mixed: SIGTERM to the keel process, which passes it on
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code).toBe(0);
    expect(readFileSync(log, 'utf8')).toMatch(/think: stopped/);
  });
  it('the log is rotated by size while the service writes to it; status shows its last lines', {
    timeout: 120_000,
  }, async () => {
    expect(keel(['service', 'install', 'think']).status).toBe(0);
    expect(keel(['config', 'set', 'logs.max_mb', '1']).status).toBe(0);
    expect(keel(['config', 'set', 'logs.keep', '2']).status).toBe(0);
    const unit = readFileSync(unitFile('think'), 'utf8');
    const [command = '', ...args] = commandWords(unitValue(unit, 'ExecStart'));
    const env: Record<string, string> = {};
    for (const m of unit.matchAll(/^Environment="([A-Z_]+)=(.*)"$/gm)) {
      env[m[1] ?? ''] = (m[2] ?? '').replace(/\\(.)/g, '$1').replaceAll('%%', '%');
    }
    const log = join(keelHome, 'logs', 'think.log');
    // Past 1 MB already: older runs' lines.
    const old = Array.from({ length: 60_000 }, (_, i) => `older run line ${i + 1}`).join('\n');
    writeFileSync(log, `${old}\n`);
    writeFileSync(`${log}.1`, 'the run before\n');
    expect(statSync(log).size).toBeGreaterThan(1024 * 1024);

    // Control first: `keel think --once` run by hand (its output not the log) rotates nothing.
    const byHand = keel(['think', '--once'], { KEEL_TZ: 'UTC', OLLAMA_HOST: 'http://127.0.0.1:9' });
    expect(byHand.status, byHand.stderr).toBe(0);
    expect(readFileSync(log, 'utf8').startsWith('older run line 1\n')).toBe(true);
    expect(readFileSync(`${log}.1`, 'utf8')).toBe('the run before\n');

    const fd = openSync(log, 'a');
    const child = spawn(command, args, { env, stdio: ['ignore', fd, fd] });
    children.push(child);
    const deadline = Date.now() + 60_000;
    // The service's first run.
    while (!/think run \d+:/.test(readFileSync(log, 'utf8')) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 200));
    }
    const current = readFileSync(log, 'utf8');
    expect(current).toMatch(/think run \d+:/);
    expect(current).not.toContain('older run line');
    // .1 the newest rotated (the older runs), .2 the one before, nothing past logs.keep.
    expect(readFileSync(`${log}.1`, 'utf8').trimEnd().split('\n').at(-1)).toBe(
      'older run line 60000',
    );
    expect(readFileSync(`${log}.2`, 'utf8')).toBe('the run before\n');
    expect(existsSync(`${log}.3`)).toBe(false);

    const status = keel(['service', 'status', 'think', '--json', '--lines', '40']);
    const lines: string[] = status.json().services[0].log_lines;
    expect(lines.at(-1)).toMatch(/think run \d+:/);
    // The current log holds few lines: those before them come from the end of .1.
    expect(lines).toContain('older run line 60000');
    child.kill('SIGTERM');
    expect(await new Promise<number | null>((resolve) => child.on('exit', resolve))).toBe(0);
    expect(readFileSync(log, 'utf8')).toMatch(/think: stopped/);
  });
});

describe('keel think / discord under launchd (--launchd)', () => {
  const bad = { KEEL_THINK_INTERVAL_MIN: '0' };
  it('an error with a code ends with 0 so launchd does not restart keel into it; without the flag, 2', () => {
    const launchd = keel(['think', '--launchd'], bad);
    expect(launchd.stderr).toMatch(/error CONFIG_INVALID: KEEL_THINK_INTERVAL_MIN/);
    expect(launchd.stderr).toMatch(/ending with 0, not 2, so launchd does not start keel again/);
    expect(launchd.status).toBe(0);
    expect(keel(['think'], bad).status).toBe(2); // the control
    // The Discord door without an owner: the same.
    expect(keel(['discord', '--launchd']).status).toBe(0);
    expect(keel(['discord']).status).toBe(2);
  });
});
