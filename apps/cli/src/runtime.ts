/**
 * The local embedder's runtime: `@huggingface/transformers` (transformers.js) with the ONNX
 * runtime it runs on and sharp, about 400 MB, which a default install leaves out. `keel models
 * pull` (and `keel models runtime`) installs it with npm into one folder,
 * {@link embedderRuntimeDir} (`runtime/` in keel's package folder), and keel loads it from there
 * when an embedder first runs (`embedder-runtime.ts`, what the bundle puts in place of
 * `import('@huggingface/transformers')`).
 *
 * - {@link runtimeState}: whether it is installed, and where;
 * - {@link installEmbedderRuntime}: installs it (npm from the registry, into a new folder that
 *   replaces the old one only once npm succeeded);
 * - {@link loadEmbedderRuntime}: loads it, or throws `EMBEDDER_UNAVAILABLE` naming the fix.
 *
 * @module
 */
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type * as Transformers from '@huggingface/transformers';
import { KeelError } from '@keel/errors';
import { embedderRuntimeDir } from './paths.js';

/** The runtime's package and the version installed (the one the workspace builds against). */
export const EMBEDDER_RUNTIME = { name: '@huggingface/transformers', version: '4.3.2' } as const;

/** How long the install may take, ms (a first download is about 250 MB). */
export const RUNTIME_INSTALL_TIMEOUT_MS = 20 * 60_000;

/** Whether the runtime is installed, and where. */
export interface RuntimeState {
  /** The runtime folder. */
  path: string;
  installed: boolean;
}

/** The packages that must be there for the runtime to load. */
const REQUIRED = [EMBEDDER_RUNTIME.name, 'onnxruntime-node', 'sharp'];

/** Whether the runtime is installed in `dir` (default {@link embedderRuntimeDir}). */
export function runtimeState(dir: string = embedderRuntimeDir()): RuntimeState {
  const installed = REQUIRED.every((name) =>
    existsSync(join(dir, 'node_modules', name, 'package.json')),
  );
  return { path: dir, installed };
}

/**
 * Loads the runtime installed in `dir` (its CommonJS build, with `require`).
 *
 * @throws KeelError `EMBEDDER_UNAVAILABLE` when it is not installed there, or cannot be loaded.
 */
export function loadEmbedderRuntime(dir: string = embedderRuntimeDir()): typeof Transformers {
  const require = createRequire(join(dir, 'package.json'));
  try {
    return require(EMBEDDER_RUNTIME.name) as typeof Transformers;
  } catch (err) {
    const missing = (err as { code?: unknown }).code === 'MODULE_NOT_FOUND';
    throw new KeelError(
      'EMBEDDER_UNAVAILABLE',
      missing
        ? `the local embedder's runtime is not installed in ${dir} (keel models pull installs it)`
        : `the local embedder's runtime in ${dir} cannot be loaded: ${(err as Error).message}`,
      { cause: err, details: { runtimeDir: dir } },
    );
  }
}

/** Options for {@link installEmbedderRuntime}. */
export interface RuntimeInstallOptions {
  /** Where to install (default {@link embedderRuntimeDir}). */
  dir?: string;
  /** Install again even when it is there. */
  force?: boolean;
  /** Variables for npm over this process's environment (tests: a registry on 127.0.0.1). */
  env?: Record<string, string>;
  /** Each line npm prints, as it comes. */
  onLine?: (line: string) => void;
  /** How long npm may take, ms. Default {@link RUNTIME_INSTALL_TIMEOUT_MS}. */
  timeoutMs?: number;
}

/** What {@link installEmbedderRuntime} did. */
export interface RuntimeInstall extends RuntimeState {
  version: string;
  /** `now`: npm installed it; `already`: it was there. */
  status: 'now' | 'already';
  /** How long the install took, ms (0 when it was there). */
  install_ms: number;
}

/**
 * Installs the runtime with npm (the npm beside this node): `npm install` of
 * {@link EMBEDDER_RUNTIME} into a new folder beside `dir` (install scripts off: the packages
 * carry their prebuilt binaries), which then takes `dir`'s place. A failed install leaves `dir`
 * as it was.
 *
 * @throws KeelError `MODEL_DOWNLOAD_FAILED` when npm fails (no registry, no network, no space),
 *   with npm's last error line.
 */
export async function installEmbedderRuntime(
  options: RuntimeInstallOptions = {},
): Promise<RuntimeInstall> {
  const dir = options.dir ?? embedderRuntimeDir();
  const version = EMBEDDER_RUNTIME.version;
  if (!options.force && runtimeState(dir).installed) {
    return { path: dir, installed: true, version, status: 'already', install_ms: 0 };
  }
  const started = Date.now();
  const next = `${dir.replace(/[\\/]+$/, '')}.partial-${process.pid}`;
  rmSync(next, { recursive: true, force: true });
  mkdirSync(next, { recursive: true });
  writeFileSync(
    join(next, 'package.json'),
    `${JSON.stringify(
      {
        name: 'keel-embedder-runtime',
        private: true,
        description: "keel's local embedder runtime, installed by keel models pull",
        dependencies: { [EMBEDDER_RUNTIME.name]: version },
      },
      null,
      2,
    )}\n`,
  );
  const { x } = await import('tinyexec');
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const args = [
    'install',
    '--omit=dev',
    '--ignore-scripts',
    '--no-audit',
    '--no-fund',
    '--loglevel=error',
  ];
  const proc = x(npm, args, {
    timeout: options.timeoutMs ?? RUNTIME_INSTALL_TIMEOUT_MS,
    nodeOptions: { cwd: next, env: { ...process.env, ...options.env } },
  });
  const lines: string[] = [];
  for await (const line of proc) {
    lines.push(line);
    if (lines.length > 200) lines.shift();
    options.onLine?.(line);
  }
  const code = proc.exitCode;
  if (code !== 0 || !runtimeState(next).installed) {
    rmSync(next, { recursive: true, force: true });
    const why =
      lines.findLast((l) => /npm (error|ERR!) (code|network|request)|E[A-Z]{3,}/.test(l)) ??
      lines.findLast((l) => l.trim() !== '') ??
      `npm exited with ${code ?? 'no code'}`;
    throw new KeelError(
      'MODEL_DOWNLOAD_FAILED',
      `could not install the local embedder's runtime (${EMBEDDER_RUNTIME.name}@${version}) with npm: ${why.trim()}; nothing was changed in ${dir}`,
      { details: { runtimeDir: dir, exitCode: code ?? null } },
    );
  }
  rmSync(dir, { recursive: true, force: true });
  renameSync(next, dir);
  return { path: dir, installed: true, version, status: 'now', install_ms: Date.now() - started };
}
