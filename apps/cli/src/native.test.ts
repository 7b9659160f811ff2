import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KeelError } from '@keel/errors';
import { afterAll, describe, expect, it } from 'vitest';
import {
  isNativeModuleFailure,
  nativeModuleError,
  nativeModuleFix,
  reportNativeError,
} from './native.js';

const temp = mkdtempSync(join(tmpdir(), 'keel-native-'));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

const unbuilt = new Error(
  'Could not locate the bindings file. Tried:\n → /x/node_modules/better-sqlite3/build/better_sqlite3.node',
);
const missing = Object.assign(
  new Error("Cannot find package 'better-sqlite3' imported from /x/bundle/chunk-A.mjs"),
  { code: 'ERR_MODULE_NOT_FOUND' },
);
const otherNode = new Error(
  "The module '/x/node_modules/better-sqlite3/build/Release/better_sqlite3.node' was compiled against a different Node.js version using NODE_MODULE_VERSION 127. This version of Node.js requires NODE_MODULE_VERSION 115.",
);

describe('a better-sqlite3 that cannot load', () => {
  it('is recognised unbuilt, missing or built for another Node, directly or as a cause', () => {
    for (const err of [unbuilt, missing, otherNode]) expect(isNativeModuleFailure(err)).toBe(true);
    const wrapped = new KeelError('DB_OPEN_FAILED', `cannot open /h/keel.db: ${unbuilt.message}`, {
      cause: unbuilt,
    });
    expect(isNativeModuleFailure(wrapped)).toBe(true);
    expect(isNativeModuleFailure(new Error("Cannot find package 'chrono-node'"))).toBe(false);
    expect(isNativeModuleFailure(new KeelError('DB_OPEN_FAILED', 'EACCES: /h/keel.db'))).toBe(
      false,
    );
  });

  it('installed: DB_OPEN_FAILED whose fix is the reinstall with the headers named', () => {
    const e = nativeModuleError(
      new KeelError('DB_OPEN_FAILED', `cannot open /h/keel.db: ${unbuilt.message}`, {
        cause: unbuilt,
      }),
      '/usr/lib/node_modules/@keel/cli/bundle/keel.mjs',
    );
    expect(e?.code).toBe('DB_OPEN_FAILED');
    expect(e?.message).toContain('cannot load its native module');
    expect(e?.message).toContain('(Could not locate the bindings file.)');
    expect(e?.fix).toMatch(
      /`npm install -g --nodedir=\S+ --allow-scripts=better-sqlite3 \.\/keel-cli-<version>\.tgz`/,
    );
    expect(nativeModuleFix(null, null)).toContain('apt-get install libnode-dev');
    expect(nativeModuleError(new Error('disk full'))).toBeNull();
  });

  it('from a clone: setup again', () => {
    const root = join(temp, 'repo');
    mkdirSync(join(root, 'apps', 'cli', 'bundle'), { recursive: true });
    writeFileSync(join(root, 'pnpm-workspace.yaml'), '');
    writeFileSync(join(root, 'apps', 'cli', 'bundle', 'keel.mjs'), '');
    const e = nativeModuleError(missing, join(root, 'apps', 'cli', 'bundle', 'keel.mjs'));
    expect(e?.fix).toContain(`\`rm -rf node_modules && npm start\` from ${root}`);
  });

  it('is printed without @keel/host, as its reporter would (exit code 2)', () => {
    const out: string[] = [];
    const err: string[] = [];
    const e = nativeModuleError(missing)!;
    const code = reportNativeError(e, true, {
      stdout: { write: (s: string) => out.push(s) },
      stderr: { write: (s: string) => err.push(s) },
    });
    expect(code).toBe(2);
    expect(err.join('')).toBe(`error DB_OPEN_FAILED: ${e.message}\nfix: ${e.fix}\n`);
    expect(JSON.parse(out.join(''))).toEqual({
      error: { code: 'DB_OPEN_FAILED', message: e.message, fix: e.fix },
    });
  });
});
