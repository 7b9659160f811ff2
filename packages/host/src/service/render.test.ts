// The service files keel installs, rendered into a temporary folder and checked: the systemd unit
// by `systemd-analyze verify --user` where it runs and by its keys everywhere; the launchd agent as
// well-formed XML (fast-xml-parser's validator) holding the keys launchd requires.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { KeelError } from '@keel/errors';
import { XMLValidator } from 'fast-xml-parser';
import { parse as parsePlist } from 'plist';
import { afterAll, describe, expect, it } from 'vitest';
import { EXIT } from '../report.js';
import {
  LAUNCHD_FLAG,
  NO_RESTART_EXIT,
  packageManagerPathEntry,
  type RenderInput,
  renderService,
  SERVICE_NAMES,
  serviceDir,
  servicePath,
} from './render.js';

const root = mkdtempSync(join(tmpdir(), 'keel-render-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A node reachable through a path with a space, `%` and `$` (what a unit file must escape). */
const oddDir = join(root, 'node 20%v$x');
mkdirSync(oddDir);
const oddNode = join(oddDir, 'node');
symlinkSync(process.execPath, oddNode);

const input = (over: Partial<RenderInput> = {}): RenderInput => ({
  platform: 'linux',
  service: 'think',
  nodePath: '/home/ada/.nvm/versions/node/v20.20.2/bin/node',
  keelPath: '/home/ada/keel/apps/cli/dist/main.js',
  home: '/home/ada',
  keelHome: '/home/ada/.keel',
  path: '/home/ada/.nvm/versions/node/v20.20.2/bin:/usr/bin:/bin',
  ...over,
});

/** A systemd unit as section → key → values (a key may repeat). */
function unitKeys(text: string): Map<string, Map<string, string[]>> {
  const sections = new Map<string, Map<string, string[]>>();
  let current: Map<string, string[]> | undefined;
  for (const line of text.split('\n')) {
    if (!line.trim() || line.startsWith('#')) continue;
    const section = /^\[(.+)\]$/.exec(line);
    if (section?.[1]) {
      current = new Map();
      sections.set(section[1], current);
      continue;
    }
    const i = line.indexOf('=');
    if (!current || i < 0) throw new Error(`not a unit line: ${line}`);
    const key = line.slice(0, i);
    current.set(key, [...(current.get(key) ?? []), line.slice(i + 1)]);
  }
  return sections;
}

describe('the systemd user unit', () => {
  it('runs keel with the absolute node and keel paths, KEEL_HOME, PATH and a log file', () => {
    const unit = renderService(input());
    expect(unit.fileName).toBe('keel-think.service');
    expect(unit.unit).toBe('keel-think.service');
    expect(unit.logPath).toBe('/home/ada/.keel/logs/think.log');
    const service = unitKeys(unit.content).get('Service')!;
    expect(service.get('ExecStart')).toEqual([
      '/home/ada/.nvm/versions/node/v20.20.2/bin/node /home/ada/keel/apps/cli/dist/main.js think',
    ]);
    expect(service.get('Environment')).toEqual([
      '"KEEL_HOME=/home/ada/.keel"',
      '"PATH=/home/ada/.nvm/versions/node/v20.20.2/bin:/usr/bin:/bin"',
    ]);
    expect(service.get('StandardOutput')).toEqual(['append:/home/ada/.keel/logs/think.log']);
    expect(service.get('StandardError')).toEqual(['append:/home/ada/.keel/logs/think.log']);
    expect(service.has('EnvironmentFile')).toBe(false);
    expect(unit.content).not.toContain('/usr/bin/env');
    expect(unitKeys(unit.content).get('Install')?.get('WantedBy')).toEqual(['default.target']);
  });

  it('restarts on failure but not on exit 2, an error with a code (a bad configuration)', () => {
    expect(NO_RESTART_EXIT).toBe(EXIT.error);
    for (const name of SERVICE_NAMES) {
      const service = unitKeys(renderService(input({ service: name })).content).get('Service')!;
      expect(service.get('Restart')).toEqual(['on-failure']);
      expect(service.get('RestartPreventExitStatus')).toEqual([String(EXIT.error)]);
      // SIGTERM to keel only: it passes it on to the service it started.
      expect(service.get('KillMode')).toEqual(['mixed']);
    }
  });

  it('the Discord door waits its grace period when stopped; think runs at a lower priority', () => {
    const discord = unitKeys(
      renderService(input({ service: 'discord', stopTimeoutSec: 75 })).content,
    ).get('Service')!;
    expect(discord.get('ExecStart')?.[0]).toMatch(/ discord$/);
    expect(discord.get('TimeoutStopSec')).toEqual(['75']);
    expect(discord.has('Nice')).toBe(false);
    const think = unitKeys(renderService(input()).content).get('Service')!;
    expect(think.get('Nice')).toEqual(['10']);
  });

  it('escapes what systemd would read as a specifier, a variable or a quote', () => {
    const unit = renderService(
      input({ nodePath: '/opt/n 1%/node', keelPath: '/k$HOME/"main".js', keelHome: '/d/100%' }),
    );
    const service = unitKeys(unit.content).get('Service')!;
    expect(service.get('ExecStart')).toEqual(['"/opt/n 1%%/node" "/k$$HOME/\\"main\\".js" think']);
    expect(service.get('Environment')?.[0]).toBe('"KEEL_HOME=/d/100%%"');
    expect(service.get('StandardOutput')).toEqual(['append:/d/100%%/logs/think.log']);
  });

  const analyze = spawnSync('systemd-analyze', ['--version']).status === 0;
  it.skipIf(!analyze)(
    'passes `systemd-analyze verify --user` (skipped where systemd-analyze is not installed)',
    () => {
      const dir = join(root, 'units');
      const runtime = join(root, 'runtime');
      mkdirSync(dir);
      mkdirSync(runtime, { mode: 0o700 });
      const verify = (file: string) =>
        spawnSync('systemd-analyze', ['verify', '--user', file], {
          encoding: 'utf8',
          // verify --user needs a runtime folder; a container has no user session to lend one.
          env: { ...process.env, XDG_RUNTIME_DIR: runtime },
        });
      for (const name of SERVICE_NAMES) {
        const unit = renderService(
          input({ service: name, nodePath: oddNode, keelHome: join(root, 'keel home%') }),
        );
        const file = join(dir, unit.fileName);
        writeFileSync(file, unit.content);
        const r = verify(file);
        expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: '' });
      }
      // The controls: verify does report an unknown key and a node that is not there.
      const bogus = join(dir, 'keel-bogus.service');
      writeFileSync(
        bogus,
        renderService(input({ nodePath: oddNode })).content.replace(
          'Type=simple',
          'Type=simple\nRestartPreventExitCode=2',
        ),
      );
      expect(verify(bogus).stderr).toMatch(/Unknown key/);
      const missing = join(dir, 'keel-missing.service');
      writeFileSync(missing, renderService(input({ nodePath: join(root, 'no-node') })).content);
      const r = verify(missing);
      expect(r.status).not.toBe(0);
      expect(r.stderr).toMatch(/not executable|No such file/);
    },
  );
});

describe('the launchd agent', () => {
  const agent = (over: Partial<RenderInput> = {}) =>
    renderService(
      input({
        platform: 'darwin',
        nodePath: '/Users/ada/.nvm/versions/node/v20.20.2/bin/node',
        keelPath: '/Users/ada/keel/apps/cli/dist/main.js',
        home: '/Users/ada',
        keelHome: '/Users/ada/.keel',
        path: '/Users/ada/.nvm/versions/node/v20.20.2/bin:/usr/bin:/bin',
        ...over,
      }),
    );

  it('is well-formed XML with the keys launchd requires', () => {
    for (const name of SERVICE_NAMES) {
      const plist = agent({ service: name });
      expect(plist.fileName).toBe(`dev.keel.${name}.plist`);
      expect(XMLValidator.validate(plist.content)).toBe(true);
      expect(plist.content).toContain(
        '<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">',
      );
      const doc = parsePlist(plist.content) as Record<string, unknown>;
      expect(doc.Label).toBe(`dev.keel.${name}`);
      expect(doc.ProgramArguments).toEqual([
        '/Users/ada/.nvm/versions/node/v20.20.2/bin/node',
        '/Users/ada/keel/apps/cli/dist/main.js',
        name,
        LAUNCHD_FLAG,
      ]);
      expect(doc.EnvironmentVariables).toEqual({
        KEEL_HOME: '/Users/ada/.keel',
        PATH: '/Users/ada/.nvm/versions/node/v20.20.2/bin:/usr/bin:/bin',
      });
      expect(doc.StandardOutPath).toBe(`/Users/ada/.keel/logs/${name}.log`);
      expect(doc.StandardErrorPath).toBe(`/Users/ada/.keel/logs/${name}.log`);
      expect(doc.RunAtLoad).toBe(true);
      // Restarted after a failure; keel ends an error restarting cannot fix with 0 (LAUNCHD_FLAG).
      expect(doc.KeepAlive).toEqual({ SuccessfulExit: false });
      expect(doc.Umask).toBe(0o077);
    }
  });

  it('escapes XML in paths, and the validator does reject a broken document', () => {
    const plist = agent({ keelHome: '/Users/ada/a&b <c> "d"' });
    expect(XMLValidator.validate(plist.content)).toBe(true);
    const doc = parsePlist(plist.content) as { EnvironmentVariables: { KEEL_HOME: string } };
    expect(doc.EnvironmentVariables.KEEL_HOME).toBe('/Users/ada/a&b <c> "d"');
    // The control: the same document with a tag left open is not XML.
    expect(XMLValidator.validate(plist.content.replace('</dict>\n</plist>', '</plist>'))).not.toBe(
      true,
    );
  });
});

describe('rendering', () => {
  it('is pure: the same inputs give the same bytes', () => {
    expect(renderService(input()).content).toBe(renderService(input()).content);
    expect(renderService(input({ platform: 'darwin' })).content).toBe(
      renderService(input({ platform: 'darwin' })).content,
    );
  });

  it('refuses a relative path and a path with a line break (INVALID_INPUT)', () => {
    const code = (over: Partial<RenderInput>) => {
      try {
        renderService(input(over));
      } catch (err) {
        return KeelError.isInstance(err) ? err.code : 'other';
      }
      return 'rendered';
    };
    expect(code({})).toBe('rendered');
    expect(code({ nodePath: 'node' })).toBe('INVALID_INPUT');
    expect(code({ keelHome: '/home/ada/.keel\nExecStartPre=/bin/rm' })).toBe('INVALID_INPUT');
  });

  it('PATH: node first, then absolute entries without package-manager shims or repeats', () => {
    expect(
      servicePath(
        '/home/ada/.nvm/versions/node/v20/bin/node',
        '/home/ada/keel/node_modules/.bin:.:/usr/bin:/home/ada/.nvm/versions/node/v20/bin:/bin:/usr/bin',
      ),
    ).toBe('/home/ada/.nvm/versions/node/v20/bin:/usr/bin:/bin');
    expect(servicePath('/usr/bin/node', undefined)).toBe('/usr/bin');
  });

  it("PATH: what npm start and pnpm run put before the owner's PATH is left out", () => {
    const shell = '/home/ada/.local/bin:/usr/local/bin:/usr/bin:/bin';
    // As npm 11 builds it (@npmcli/run-script's setPATH), for a clone in ~/src/keel.
    const npm = [
      '/home/ada/src/keel/node_modules/.bin',
      '/home/ada/src/node_modules/.bin',
      '/home/ada/node_modules/.bin',
      '/home/node_modules/.bin',
      '/node_modules/.bin',
      '/home/ada/.nvm/versions/node/v20.20.2/lib/node_modules/npm/node_modules/@npmcli/run-script/lib/node-gyp-bin',
      shell,
    ].join(':');
    // As pnpm builds it for a workspace package, with its own node-gyp-bin.
    const pnpm = [
      '/home/ada/src/keel/apps/cli/node_modules/.bin',
      '/home/ada/src/keel/node_modules/.bin',
      '/home/ada/.local/share/pnpm/.tools/pnpm/12.4.2/node_modules/pnpm/dist/node-gyp-bin',
      shell,
    ].join(':');
    const node = '/home/ada/.nvm/versions/node/v20.20.2/bin/node';
    const want = `/home/ada/.nvm/versions/node/v20.20.2/bin:${shell}`;
    expect(servicePath(node, npm)).toBe(want);
    expect(servicePath(node, pnpm)).toBe(want);
    // A folder merely named like a tool is the owner's: only the two shapes are left out.
    expect(servicePath(node, '/opt/node_modules.bin:/opt/node-gyp-bin-old:/opt/.bin')).toBe(
      '/home/ada/.nvm/versions/node/v20.20.2/bin:/opt/node_modules.bin:/opt/node-gyp-bin-old:/opt/.bin',
    );
    // Node's own folder stays first even where it is one of those shapes.
    expect(servicePath('/x/node_modules/.bin/node', npm).split(':')[0]).toBe(
      '/x/node_modules/.bin',
    );
  });

  const npmWorks = spawnSync('npm', ['--version']).status === 0;
  it.skipIf(!npmWorks)(
    'PATH: captured from a real `npm start`, the unit and the agent carry none of its build tools',
    () => {
      const project = join(root, 'npm-project');
      mkdirSync(project, { recursive: true });
      writeFileSync(
        join(project, 'package.json'),
        JSON.stringify({
          name: 'path-probe',
          version: '1.0.0',
          scripts: { start: 'node -e "process.stdout.write(process.env.PATH)"' },
        }),
      );
      const run = spawnSync('npm', ['start', '--silent'], { cwd: project, encoding: 'utf8' });
      expect(run.status, run.stderr).toBe(0);
      const captured = run.stdout.trim();
      const outer = (process.env.PATH ?? '').split(':');
      // npm really added them (else this test would prove nothing).
      expect(captured).toContain(join(project, 'node_modules', '.bin'));
      expect(captured).toMatch(/\/node-gyp-bin(:|$)/);
      const path = servicePath(process.execPath, captured);
      const entries = path.split(':');
      expect(entries[0]).toBe(dirname(process.execPath));
      expect(entries.filter((e) => /node_modules\/\.bin|node-gyp-bin/.test(e))).toEqual([]);
      // What npm was started with is all there, in its order: npm only put folders before it.
      const kept = outer.filter((e) => e.startsWith('/') && !packageManagerPathEntry(e));
      expect(entries).toEqual([...new Set([dirname(process.execPath), ...kept])]);
      const unit = renderService(input({ nodePath: process.execPath, path }));
      const env = unitKeys(unit.content).get('Service')!.get('Environment')!;
      expect(env[1]).toBe(`"PATH=${path}"`);
      expect(unit.content).not.toMatch(/node_modules\/\.bin|node-gyp-bin/);
      const agent = renderService(input({ platform: 'darwin', nodePath: process.execPath, path }));
      const plist = parsePlist(agent.content) as { EnvironmentVariables: { PATH: string } };
      expect(plist.EnvironmentVariables.PATH).toBe(path);
      expect(agent.content).not.toMatch(/node_modules\/\.bin|node-gyp-bin/);
    },
  );

  it("the manager's folder: XDG_CONFIG_HOME when it is absolute, else ~/.config", () => {
    expect(serviceDir('linux', '/home/ada')).toBe('/home/ada/.config/systemd/user');
    expect(serviceDir('linux', '/home/ada', '/cfg')).toBe('/cfg/systemd/user');
    expect(serviceDir('linux', '/home/ada', 'relative')).toBe('/home/ada/.config/systemd/user');
    expect(serviceDir('darwin', '/Users/ada')).toBe('/Users/ada/Library/LaunchAgents');
  });
});
