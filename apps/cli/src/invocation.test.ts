import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { asTyped, cloneRoot, fixesAsTyped, keelCommand } from './invocation.js';

const temp = mkdtempSync(join(tmpdir(), 'keel-invocation-'));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

/** A clone's shape: `<root>/pnpm-workspace.yaml` and `<root>/apps/cli/bundle/keel.mjs`. */
function clone(name: string): { root: string; script: string } {
  const root = join(temp, name);
  mkdirSync(join(root, 'apps', 'cli', 'bundle'), { recursive: true });
  writeFileSync(join(root, 'pnpm-workspace.yaml'), 'packages: []\n');
  const script = join(root, 'apps', 'cli', 'bundle', 'keel.mjs');
  writeFileSync(script, '');
  return { root, script };
}

/** A folder for PATH holding files with these names. */
function bin(name: string, files: Record<string, string | null>): string {
  const dir = join(temp, name);
  mkdirSync(dir, { recursive: true });
  for (const [file, target] of Object.entries(files)) {
    if (target) symlinkSync(target, join(dir, file));
    else writeFileSync(join(dir, file), '');
  }
  return dir;
}

const START = 'node scripts/setup.mjs && node apps/cli/bundle/keel.mjs';

describe('how the owner types keel', () => {
  const { root, script } = clone('repo');
  const pnpmBin = bin('with-pnpm', { pnpm: null });
  const empty = bin('empty', {});

  it('installed (the bundle is not in a clone): keel', () => {
    const installed = join(temp, 'prefix', 'lib', 'node_modules', '@keel', 'cli', 'bundle');
    mkdirSync(installed, { recursive: true });
    writeFileSync(join(installed, 'keel.mjs'), '');
    expect(cloneRoot(join(installed, 'keel.mjs'))).toBeNull();
    expect(keelCommand({ script: join(installed, 'keel.mjs'), env: { PATH: pnpmBin } })).toBe(
      'keel',
    );
    expect(keelCommand({ script: undefined, env: {} })).toBe('keel');
  });

  it('from a clone, by pnpm keel or pnpm start: pnpm keel', () => {
    expect(cloneRoot(script)).toBe(root);
    for (const lifecycle of ['node apps/cli/bundle/keel.mjs', START]) {
      const env = {
        PATH: empty,
        npm_lifecycle_script: lifecycle,
        npm_config_user_agent: 'pnpm/12.4.2 npm/? node/? linux x64',
      };
      expect(keelCommand({ script, env, cwd: root })).toBe('pnpm keel');
    }
  });

  it('from a clone, by npm start or npm run keel: pnpm keel when pnpm is on PATH, else npm run -s keel --', () => {
    const npm = { npm_lifecycle_script: START, npm_config_user_agent: 'npm/11.19.1 node/v20' };
    expect(keelCommand({ script, env: { ...npm, PATH: pnpmBin }, cwd: root })).toBe('pnpm keel');
    expect(keelCommand({ script, env: { ...npm, PATH: empty }, cwd: root })).toBe(
      'npm run -s keel --',
    );
    // Setup had to run pnpm through npx: the pnpm on PATH is not the one keel needs.
    mkdirSync(join(root, 'node_modules'), { recursive: true });
    writeFileSync(join(root, 'node_modules', '.keel-pnpm-via-npx'), '12.4.2\n');
    expect(keelCommand({ script, env: { ...npm, PATH: pnpmBin }, cwd: root })).toBe(
      'npm run -s keel --',
    );
    rmSync(join(root, 'node_modules'), { recursive: true });
  });

  it('from a clone, by node: that command, the path as from the current folder', () => {
    expect(keelCommand({ script, env: { PATH: pnpmBin }, cwd: root })).toBe(
      'node apps/cli/bundle/keel.mjs',
    );
    expect(keelCommand({ script, env: { PATH: pnpmBin }, cwd: join(root, 'apps') })).toBe(
      'node cli/bundle/keel.mjs',
    );
    expect(keelCommand({ script, env: { PATH: pnpmBin }, cwd: temp })).toBe(
      'node repo/apps/cli/bundle/keel.mjs',
    );
    expect(keelCommand({ script, env: { PATH: pnpmBin }, cwd: '/' })).toBe(
      `node ${script.slice(1)}`,
    );
    const spaced = clone('my repo');
    expect(keelCommand({ script: spaced.script, env: {}, cwd: '/nowhere' })).toBe(
      `node "${spaced.script}"`,
    );
  });

  it('from a clone whose bundle is the keel on PATH (linked): keel', () => {
    const linked = bin('linked', { keel: script, pnpm: null });
    const env = { PATH: linked, npm_lifecycle_script: START, npm_config_user_agent: 'npm/11' };
    expect(keelCommand({ script, env, cwd: root })).toBe('keel');
    // Another keel on PATH (an installed one) is not this one.
    const other = clone('other');
    const elsewhere = bin('elsewhere', { keel: other.script });
    expect(keelCommand({ script, env: { PATH: elsewhere }, cwd: root })).toBe(
      'node apps/cli/bundle/keel.mjs',
    );
  });
});

describe('asTyped', () => {
  it('rewrites a keel command in backticks and a usage line; keel as-is for an installed keel', () => {
    const fix = 'Did you mean `keel remember`? (`keel --help` lists every verb)';
    expect(asTyped(fix, 'keel')).toBe(fix);
    expect(asTyped(fix, 'pnpm keel')).toBe(
      'Did you mean `pnpm keel remember`? (`pnpm keel --help` lists every verb)',
    );
    expect(asTyped('Usage: keel recall [options] <query...>', 'pnpm keel')).toBe(
      'Usage: pnpm keel recall [options] <query...>',
    );
    expect(
      asTyped('Run `keel` to open the terminal; `keel doctor` checks.', 'npm run -s keel --'),
    ).toBe('Run `npm run -s keel` to open the terminal; `npm run -s keel -- doctor` checks.');
  });

  it('leaves prose that names keel or its services as it is', () => {
    for (const text of [
      'keel think is running (PID 12)',
      'keel writes nothing to its database',
      'the keel service named above',
      'a `keel-think` unit, `keel.db` and `keelhaul`',
    ]) {
      expect(asTyped(text, 'pnpm keel')).toBe(text);
    }
  });

  it('fixesAsTyped rewrites every fix field, at any depth, and nothing else', () => {
    const report = {
      reason: 'run `keel setup`',
      at: new Date(0),
      checks: [{ name: 'think', fix: 'Start it: `keel think`', detail: '`keel think`' }],
      journal: { problems: [{ fix: null }] },
    };
    expect(fixesAsTyped(report, 'pnpm keel')).toEqual({
      reason: 'run `keel setup`',
      at: new Date(0),
      checks: [{ name: 'think', fix: 'Start it: `pnpm keel think`', detail: '`keel think`' }],
      journal: { problems: [{ fix: null }] },
    });
  });
});
