/**
 * keel run from a clone, as the README tells the owner to: `pnpm keel <verb>` from the repository
 * root (or `npm run -s keel -- <verb>`). `--json` prints JSON alone on stdout (pnpm 12 writes its
 * `$ node …` line to stderr; npm's banner goes to stdout unless `-s`), and the hints keel prints
 * name the command the owner typed, not a `keel` a clone does not have (`invocation.ts`). Run
 * without the `keel` the other tests put on PATH (tests/support/environment.ts).
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CLI, ROOT, tempHome } from '../support/cli.js';
import { KEEL_BIN } from '../support/environment.js';

let home: string;
let cleanup: () => void;
beforeEach(() => {
  ({ home, cleanup } = tempHome());
});
afterEach(() => cleanup());

/** PATH without the tests' `keel`: a clone has none. */
const PATH = (process.env.PATH ?? '').split(delimiter).filter((d) => d !== KEEL_BIN);
const hasPnpm = PATH.some((d) => existsSync(join(d, 'pnpm')));

/** Runs `command args` from the repository root as the owner would, in a fresh KEEL_HOME. */
function fromClone(command: string, args: string[]) {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PATH: PATH.join(delimiter),
    KEEL_HOME: home,
    ANTHROPIC_API_KEY: '',
    OPENAI_API_KEY: '',
    OLLAMA_HOST: 'http://127.0.0.1:9',
  };
  // Not the test runner's own package-manager script.
  for (const key of Object.keys(env)) if (/^npm_/i.test(key)) delete env[key];
  return spawnSync(command, args, {
    cwd: ROOT,
    env,
    encoding: 'utf8',
    input: '',
    timeout: 120_000,
  });
}

describe('keel from a clone', () => {
  it.skipIf(!hasPnpm)('pnpm keel doctor --json prints JSON alone; its fixes say pnpm keel', () => {
    const r = fromClone('pnpm', ['keel', 'doctor', '--json', '--offline']);
    expect(r.stderr).toContain('$ node apps/cli/bundle/keel.mjs doctor'); // pnpm's line: stderr
    const report = JSON.parse(r.stdout) as { checks: { name: string; fix: string | null }[] };
    const think = report.checks.find((c) => c.name === 'think_service');
    expect(think?.fix).toContain('`pnpm keel think`');
    expect(r.stdout).not.toMatch(/`keel /);
  });

  it.skipIf(!hasPnpm)(
    'an error from pnpm keel: JSON alone on stdout, its fix names pnpm keel',
    () => {
      const r = fromClone('pnpm', ['keel', 'remembr', 'x', '--json']);
      expect(r.status).toBe(2);
      expect(JSON.parse(r.stdout)).toEqual({
        error: {
          code: 'INVALID_INPUT',
          message: 'unknown verb "remembr"',
          fix: 'Did you mean `pnpm keel remember`? (`pnpm keel --help` lists every verb)',
        },
      });
      expect(r.stderr).toContain('fix: Did you mean `pnpm keel remember`?');
      const usage = fromClone('pnpm', ['keel', 'recall']);
      expect(usage.stderr).toContain('fix: Usage: pnpm keel recall [options] <query...>');
      const help = fromClone('pnpm', ['keel', '--help']);
      expect(help.stdout).toMatch(/^Usage: pnpm keel \[options\] \[command\]/);
    },
  );

  it('npm run -s keel -- doctor --json prints JSON alone (without -s npm puts its banner on stdout)', () => {
    const r = fromClone('npm', ['run', '-s', 'keel', '--', 'doctor', '--json', '--offline']);
    const report = JSON.parse(r.stdout) as { checks: { name: string; fix: string | null }[] };
    const fix = report.checks.find((c) => c.name === 'think_service')?.fix;
    expect(fix).toContain(hasPnpm ? '`pnpm keel think`' : '`npm run -s keel -- think`');
    const loud = fromClone('npm', ['run', 'keel', '--', 'doctor', '--json', '--offline']);
    expect(() => JSON.parse(loud.stdout)).toThrow();
  });

  it('node apps/cli/bundle/keel.mjs: the hints name that command', () => {
    const r = fromClone(process.execPath, [CLI.slice(ROOT.length), 'recall']);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('fix: Usage: node apps/cli/bundle/keel.mjs recall [options]');
  });

  it('with keel on PATH (the tests, an installed or linked keel) the hints say keel', () => {
    const r = spawnSync(process.execPath, [CLI, 'recall'], {
      env: { ...process.env, KEEL_HOME: home },
      encoding: 'utf8',
      input: '',
    });
    expect(r.stderr).toContain('fix: Usage: keel recall [options]');
  });
});
