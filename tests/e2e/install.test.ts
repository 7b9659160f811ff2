/**
 * keel installed as a command, exactly as the README's "Installed as a command" says: the CLI
 * package packed as npm would publish it (`pnpm pack`: the bundle and a package.json whose
 * dependencies are the native and lazily required modules), then
 * `npm install -g --prefix <temp> --allow-scripts=better-sqlite3 [--nodedir=<headers>] <tarball>`,
 * with npm's settings as on a clean machine (an empty user config: no nodedir of the machine's
 * own), and the installed `keel` run from there. npm fetches those dependencies from the registry
 * (and compiles better-sqlite3), so this test needs the npm registry; when it cannot be reached the
 * test is skipped and says why. Then the failure the README guards against: a better-sqlite3 whose
 * native module was never built is keel's `DB_OPEN_FAILED`, its fix the reinstall with the headers.
 */
import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdtempSync,
  readdirSync,
  realpathSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from '../support/cli.js';

const temp = mkdtempSync(join(tmpdir(), 'keel-install-'));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

/** The registry npm uses, and whether it answers within a few seconds. */
async function registryReachable(): Promise<{ ok: boolean; why: string }> {
  const r = spawnSync('npm', ['config', 'get', 'registry'], { encoding: 'utf8' });
  const registry = (r.stdout ?? '').trim() || 'https://registry.npmjs.org/';
  try {
    const res = await fetch(new URL('better-sqlite3', registry), {
      method: 'HEAD',
      signal: AbortSignal.timeout(5000),
    });
    return { ok: res.status < 500, why: `${registry} answered ${res.status}` };
  } catch (err) {
    return { ok: false, why: `${registry} cannot be reached (${(err as Error).message})` };
  }
}

/**
 * `--nodedir=<dir>` for Node's C headers (better-sqlite3 compiles as it installs), found as setup
 * does; none when this node has no headers beside it (node-gyp downloads them then).
 */
function nodedirFlag(): string[] {
  const dir = [dirname(dirname(process.execPath)), '/usr'].find((d) =>
    existsSync(join(d, 'include', 'node', 'node.h')),
  );
  return dir ? [`--nodedir=${dir}`] : [];
}

describe('npm install -g', () => {
  it(
    'of the packed CLI gives a keel on PATH that runs: --version, doctor, remember and recall, think',
    async (ctx) => {
      const registry = await registryReachable();
      if (!registry.ok) {
        console.log(`skipped: npm install -g needs the npm registry: ${registry.why}`);
        ctx.skip();
      }
      const cli = join(ROOT, 'apps', 'cli');
      const pack = spawnSync('pnpm', ['pack', '--pack-destination', temp], {
        cwd: cli,
        encoding: 'utf8',
      });
      expect(pack.status, pack.stderr).toBe(0);
      const tarball = readdirSync(temp).find((f) => f.endsWith('.tgz'));
      expect(tarball).toBeDefined();

      const prefix = join(temp, 'prefix');
      // A clean machine's npm: no user config (this machine's may name a nodedir of its own).
      const userconfig = join(temp, 'npmrc');
      writeFileSync(userconfig, '');
      const npmEnv: NodeJS.ProcessEnv = { ...process.env, npm_config_userconfig: userconfig };
      for (const key of Object.keys(npmEnv)) {
        if (/^npm_config_(nodedir|allow_scripts)$/i.test(key)) delete npmEnv[key];
      }
      const install = spawnSync(
        'npm',
        [
          'install',
          '-g',
          '--prefix',
          prefix,
          '--allow-scripts=better-sqlite3',
          ...nodedirFlag(),
          '--no-audit',
          '--no-fund',
          join(temp, tarball!),
        ],
        { encoding: 'utf8', env: npmEnv, timeout: 15 * 60_000 },
      );
      expect(install.status, `${install.stdout}\n${install.stderr}`).toBe(0);

      const bin = join(prefix, 'bin', 'keel');
      expect(existsSync(bin), `${install.stdout}\n${install.stderr}`).toBe(true);
      expect(realpathSync(bin)).toMatch(/bundle[\\/]keel\.mjs$/);
      const home = join(temp, 'home');
      const env = {
        ...process.env,
        PATH: `${join(prefix, 'bin')}:${process.env.PATH}`,
        KEEL_HOME: home,
        ANTHROPIC_API_KEY: '',
        OPENAI_API_KEY: '',
        OLLAMA_HOST: 'http://127.0.0.1:9',
      };
      const run = (args: string[]) =>
        spawnSync('keel', args, { env, encoding: 'utf8', input: '', timeout: 60_000 });

      const version = run(['--version']);
      expect(version.status, version.stderr).toBe(0);
      expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);

      const doctor = run(['doctor', '--json', '--offline']);
      expect(doctor.status, doctor.stderr).toBe(0);
      expect(JSON.parse(doctor.stdout)).toMatchObject({ integrity: 'ok', recall_mode: 'lexical' });

      // The modules keel loads from node_modules on first use: the store, the word lists (a verb's
      // stemming), the date parser (a "yesterday" in a query).
      expect(run(['remember', 'preference/tea', 'green', 'tea']).status).toBe(0);
      const recall = run(['recall', 'what tea did I say I like yesterday', '--json']);
      expect(recall.status, recall.stderr).toBe(0);
      expect(recall.stdout).toContain('green tea');

      // The think service beside the installed keel.
      const think = run(['think', '--once', '--json']);
      expect(think.status, think.stderr).toBe(0);
      expect(JSON.parse(think.stdout)).toMatchObject({ gate: 'pattern' });

      // An installed keel whose better-sqlite3 was never built (its compile failed for want of
      // Node's headers): keel's own error, its fix the reinstall with them.
      const sqlite = join(
        prefix,
        'lib',
        'node_modules',
        '@keel',
        'cli',
        'node_modules',
        'better-sqlite3',
      );
      renameSync(join(sqlite, 'build'), join(sqlite, 'build.unbuilt'));
      const unbuilt = run(['doctor', '--json', '--offline']);
      expect(unbuilt.status).toBe(2);
      const { error } = JSON.parse(unbuilt.stdout) as { error: { code: string; fix: string } };
      expect(error.code).toBe('DB_OPEN_FAILED');
      expect(error.fix).toContain('npm install -g --nodedir=');
      expect(error.fix).toContain('--allow-scripts=better-sqlite3');
      expect(unbuilt.stderr).toMatch(/^fix: Reinstall keel with Node's C headers named/m);
    },
    20 * 60_000,
  );
});
