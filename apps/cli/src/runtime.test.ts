// The local embedder's runtime: loaded from its folder, a clear EMBEDDER_UNAVAILABLE when it is
// not there, and a failed npm install that changes nothing.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KeelError } from '@keel/errors';
import { afterEach, describe, expect, it } from 'vitest';
import {
  EMBEDDER_RUNTIME,
  installEmbedderRuntime,
  loadEmbedderRuntime,
  runtimeState,
} from './runtime.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'keel-runtime-'));
  dirs.push(d);
  return d;
};

/** Writes a package named `name` into `dir/node_modules` whose main exports `body`. */
function fakePackage(dir: string, name: string, body = 'module.exports = {};'): void {
  const at = join(dir, 'node_modules', name);
  mkdirSync(at, { recursive: true });
  writeFileSync(join(at, 'package.json'), JSON.stringify({ name, version: '0.0.0' }));
  writeFileSync(join(at, 'index.js'), body);
}

/** A port on 127.0.0.1 that refuses connections (nothing listens there). */
async function refusedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('the local embedder runtime', () => {
  it('is loaded from its folder; a folder without it is EMBEDDER_UNAVAILABLE naming keel models pull', () => {
    const empty = tempDir();
    expect(runtimeState(empty)).toEqual({ path: empty, installed: false });
    let thrown: unknown;
    try {
      loadEmbedderRuntime(empty);
    } catch (err) {
      thrown = err;
    }
    expect(KeelError.isInstance(thrown) && thrown.code).toBe('EMBEDDER_UNAVAILABLE');
    expect((thrown as Error).message).toContain('keel models pull installs it');

    // Control: the same folder with the packages in it loads and reports installed.
    const full = tempDir();
    fakePackage(full, EMBEDDER_RUNTIME.name, "module.exports = { env: { x: 1 }, pipeline: 'p' };");
    fakePackage(full, 'onnxruntime-node');
    fakePackage(full, 'sharp');
    expect(runtimeState(full).installed).toBe(true);
    expect(loadEmbedderRuntime(full)).toMatchObject({ env: { x: 1 }, pipeline: 'p' });
  });

  it('a failed npm install is MODEL_DOWNLOAD_FAILED and leaves the folder as it was', async () => {
    const parent = tempDir();
    const dir = join(parent, 'runtime');
    mkdirSync(dir);
    writeFileSync(join(dir, 'keep.txt'), 'as it was');
    const port = await refusedPort();
    let thrown: unknown;
    try {
      await installEmbedderRuntime({
        dir,
        force: true,
        env: {
          npm_config_registry: `http://127.0.0.1:${port}/`,
          npm_config_cache: join(parent, 'npm-cache'),
          npm_config_fetch_retries: '0',
          npm_config_offline: 'false',
        },
        timeoutMs: 120_000,
      });
    } catch (err) {
      thrown = err;
    }
    expect(KeelError.isInstance(thrown) && thrown.code).toBe('MODEL_DOWNLOAD_FAILED');
    expect((thrown as Error).message).toContain('nothing was changed');
    expect(readFileSync(join(dir, 'keep.txt'), 'utf8')).toBe('as it was');
    expect(readdirSync(parent).filter((f) => f.includes('partial'))).toEqual([]);
  });

  it('installs the version the workspace builds against', () => {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
      devDependencies: Record<string, string>;
    };
    expect(pkg.devDependencies[EMBEDDER_RUNTIME.name]).toBe(EMBEDDER_RUNTIME.version);
  });
});
