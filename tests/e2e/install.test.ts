/**
 * keel installed as a command: the CLI package packed as npm would publish it (`pnpm pack`: the
 * bundle and a package.json whose dependencies are the native and lazily required modules), then
 * `npm install -g --prefix <temp>` of that tarball, and the installed `keel` run from there. npm
 * fetches those dependencies from the registry (and compiles better-sqlite3), so this test needs
 * the npm registry; when it cannot be reached the test is skipped and says why.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, realpathSync, rmSync } from 'node:fs';
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

/** Node's C headers for node-gyp (better-sqlite3 compiles as it installs), found as setup does. */
function nodeHeaders(): Record<string, string> {
  const dir = [dirname(dirname(process.execPath)), '/usr'].find((d) =>
    existsSync(join(d, 'include', 'node', 'node.h')),
  );
  return dir ? { npm_config_nodedir: dir } : {};
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
      const install = spawnSync(
        'npm',
        ['install', '-g', '--prefix', prefix, '--no-audit', '--no-fund', join(temp, tarball!)],
        {
          encoding: 'utf8',
          env: { ...process.env, ...nodeHeaders() },
          timeout: 15 * 60_000,
        },
      );
      expect(install.status, `${install.stdout}\n${install.stderr}`).toBe(0);

      const bin = join(prefix, 'bin', 'keel');
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
    },
    20 * 60_000,
  );
});
