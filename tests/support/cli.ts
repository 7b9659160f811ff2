/**
 * Helpers for end-to-end tests: run the built `keel` command as a real OS process against a
 * KEEL_HOME in a fresh temporary folder.
 */
import { type SpawnSyncReturns, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root. */
export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** The bundled CLI, what users run (npm test builds it before it runs the tests). */
export const CLI = join(ROOT, 'apps/cli/bundle/keel.mjs');
/** Real public conversation data copied into the repository (see its README). */
export const FIXTURES = join(ROOT, 'tests/fixtures/data');

if (!existsSync(CLI)) {
  throw new Error(`${CLI} is missing: run the build first (npm test does it)`);
}

/** A fresh KEEL_HOME; call `cleanup` when done. */
export function tempHome(): { home: string; cleanup: () => void } {
  const home = mkdtempSync(join(tmpdir(), 'keel-e2e-'));
  return { home, cleanup: () => rmSync(home, { recursive: true, force: true }) };
}

/** The result of one CLI run. */
export interface CliRun {
  status: number | null;
  stdout: string;
  stderr: string;
  /** stdout parsed as JSON (when --json was given). */
  json: <T = Record<string, unknown>>() => T;
}

function wrap(r: SpawnSyncReturns<string>): CliRun {
  return {
    status: r.status,
    stdout: r.stdout,
    stderr: r.stderr,
    json: <T>() => JSON.parse(r.stdout) as T,
  };
}

/** Runs `keel <args>` synchronously (`env`: variables set over the test's environment). */
export function keel(
  home: string,
  args: string[],
  input?: string,
  env: Record<string, string> = {},
): CliRun {
  return wrap(
    spawnSync(process.execPath, [CLI, ...args], {
      env: { ...process.env, KEEL_HOME: home, ANTHROPIC_API_KEY: '', OPENAI_API_KEY: '', ...env },
      encoding: 'utf8',
      input: input ?? '',
      timeout: 120_000,
    }),
  );
}

/**
 * Runs `keel <args>` without blocking this process's event loop (for fakes that answer from this
 * process), with `env` over the same environment as {@link keel}.
 */
export function keelAsync(
  home: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<CliRun> {
  return runCli(args, {
    ...process.env,
    KEEL_HOME: home,
    ANTHROPIC_API_KEY: '',
    OPENAI_API_KEY: '',
    ...env,
  });
}

/**
 * Runs the bundled CLI with `args` in exactly the environment `env`, `input` on its stdin, without
 * blocking this process's event loop; resolves once it exits.
 */
export function runCli(args: string[], env: NodeJS.ProcessEnv, input = ''): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.on('error', reject);
    child.on('close', (status) =>
      resolve({ status, stdout, stderr, json: <T>() => JSON.parse(stdout) as T }),
    );
    child.stdin.end(input);
  });
}

/** Starts `keel <args>` as a child process (for kill tests). */
export function keelSpawn(home: string, args: string[]) {
  return spawn(process.execPath, [CLI, ...args], {
    env: { ...process.env, KEEL_HOME: home, ANTHROPIC_API_KEY: '', OPENAI_API_KEY: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}
