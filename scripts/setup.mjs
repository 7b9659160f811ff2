// Sets up whatever is missing so that keel can run: the pinned pnpm, the dependencies, the build.
// Plain Node ESM with no dependencies (it runs before anything is installed).
//
//   node scripts/setup.mjs [--verbose]    (what `npm start` runs before opening the terminal;
//                                          KEEL_SETUP_VERBOSE=1 npm start is the same as --verbose)
//   import { setup, runPnpm } from './setup.mjs'   (what scripts/test.mjs does)
//
// `npm start` builds the bundle alone (apps/cli/scripts/bundle.mjs: esbuild from the sources, the
// keel that runs); `npm test` builds everything (turbo run build: tsc for every package, then the
// bundle). It says one line for each step it takes and nothing when there is nothing to do; while
// a step runs, a live line says how long it has taken and what pnpm is doing (progress.mjs: one
// line rewritten in place on a terminal, a plain line every 20 s otherwise). The output of pnpm,
// turbo and esbuild is shown when a step fails, or as it comes with --verbose (no live line then).
//
// Everything it prints, and everything its child processes print, goes to stderr:
// stdout of `npm start` belongs to the keel terminal.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { delimiter, dirname, isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { exitIfInterrupted, isWindows, ROOT, readRootPackageJson, run, say } from './lib.mjs';
import { startProgress } from './progress.mjs';

const PREFIX = 'keel setup:';
const log = (message) => say(PREFIX, message);

export const STAMP_FILE = join(ROOT, 'node_modules', '.keel-install-stamp');

/** A setup step failed; `message` says why and `hint` what to do. */
export class SetupError extends Error {
  constructor(step, message, hint) {
    super(message);
    this.name = 'SetupError';
    this.step = step;
    this.hint = hint;
  }
  /** The one line we print for it. */
  get line() {
    return this.hint ? `${this.message} — ${this.hint}` : this.message;
  }
}

/**
 * How pnpm is invoked. Filled in by setup(): `pnpm` on PATH, an absolute path to a
 * freshly installed global pnpm, or `npx --yes pnpm@<version>` as the last resort.
 */
export const pnpm = { command: 'pnpm', args: [], label: 'pnpm' };

/**
 * Run pnpm (as setup() resolved it) with these arguments; see lib.mjs run() for options.
 * The environment defaults to pnpmEnv(): pnpm 12 may install on its own before `pnpm exec`
 * when it finds node_modules stale, and that install needs the Node headers too.
 */
export function runPnpm(args, options = {}) {
  return run(pnpm.command, [...pnpm.args, ...args], { env: pnpmEnv(), ...options });
}

/** The pnpm version wanted by the root package.json `packageManager` field, e.g. "12.4.2". */
export function wantedPnpmVersion() {
  const field = readRootPackageJson().packageManager ?? '';
  const match = /^pnpm@(\d+\.\d+\.\d+[^+\s]*)/.exec(field);
  if (!match) {
    throw new SetupError(
      'pnpm',
      `package.json "packageManager" is "${field}", expected "pnpm@<version>"`,
      'restore the packageManager field in the root package.json',
    );
  }
  return match[1];
}

async function versionOf(command, args, timeoutMs = 30_000) {
  const result = await run(command, [...args, '--version'], {
    silent: true,
    stdin: 'ignore',
    timeoutMs,
  });
  if (result.code !== 0) return null;
  const lines = result.output.trim().split(/\r?\n/).reverse();
  return lines.find((line) => /^\d+\.\d+\.\d+/.test(line.trim()))?.trim() ?? null;
}

function lastErrorLine(output) {
  const lines = output
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter(Boolean);
  return (
    lines.find((line) => /npm (error|ERR!) code /.test(line)) ??
    lines.find((line) => /E[A-Z]{3,}/.test(line)) ??
    lines.at(-1) ??
    'no output'
  );
}

/** pnpm in npm's global bin directory, which may not be on PATH (null if npm cannot tell). */
async function globalPnpmPath() {
  const prefix = await run('npm', ['prefix', '-g'], {
    silent: true,
    stdin: 'ignore',
    timeoutMs: 30_000,
  });
  const dir = prefix.output.trim().split(/\r?\n/).at(-1);
  if (prefix.code !== 0 || !dir) return null;
  return isWindows ? join(dir, 'pnpm.cmd') : join(dir, 'bin', 'pnpm');
}

function use(command, args, label) {
  Object.assign(pnpm, { command, args, label });
}

/** Set when a run had to fall back to npx, so that later runs try it first. */
const NPX_MEMO = join(ROOT, 'node_modules', '.keel-pnpm-via-npx');

function rememberNpx(wanted) {
  const viaNpx = pnpm.command === 'npx';
  try {
    if (viaNpx && existsSync(dirname(NPX_MEMO))) writeFileSync(NPX_MEMO, `${wanted}\n`);
    if (!viaNpx) rmSync(NPX_MEMO, { force: true });
  } catch {
    // Only a speed-up for the next run.
  }
}

async function resolvePnpm(verbose) {
  const wanted = wantedPnpmVersion();
  const npxArgs = ['--yes', `pnpm@${wanted}`];
  const found = await versionOf('pnpm', []);
  if (found === wanted) {
    use('pnpm', [], 'pnpm');
    if (verbose) log(`pnpm ${wanted}`);
    return;
  }

  // Earlier runs could not install pnpm globally and used npx: go straight there.
  let memo = null;
  try {
    memo = readFileSync(NPX_MEMO, 'utf8').trim();
  } catch {}
  if (memo === wanted && (await versionOf('npx', npxArgs, 5 * 60_000)) === wanted) {
    use('npx', npxArgs, `npx pnpm@${wanted}`);
    if (verbose) log(`pnpm ${wanted} (through npx: npm install -g is not permitted here)`);
    return;
  }

  // Installed globally by an earlier run, but npm's global bin directory is not on PATH.
  let bin = await globalPnpmPath();
  if (bin && (await versionOf(bin, [])) === wanted) {
    use(bin, [], bin);
    if (verbose) log(`pnpm ${wanted} (${bin}: npm's global bin directory is not on PATH)`);
    return;
  }

  log(
    `${found ? `pnpm is ${found}` : 'pnpm not found'}; installing pnpm@${wanted} (npm install -g)`,
  );
  const install = await withProgress({ label: 'installing pnpm', phases: null }, (onOutput) =>
    run('npm', ['install', '-g', `pnpm@${wanted}`], {
      silent: true,
      stdin: 'ignore',
      timeoutMs: 5 * 60_000,
      onOutput,
    }),
  );
  exitIfInterrupted(install);
  if (install.code === 0) {
    if ((await versionOf('pnpm', [])) === wanted) {
      use('pnpm', [], 'pnpm');
      return;
    }
    bin ??= await globalPnpmPath();
    if (bin && (await versionOf(bin, [])) === wanted) {
      use(bin, [], bin);
      log(`using ${bin} (npm's global bin directory is not on PATH)`);
      return;
    }
    log(`pnpm@${wanted} was installed globally but cannot be run; trying npx`);
  } else {
    const why = install.timedOut ? 'timed out after 5 minutes' : lastErrorLine(install.output);
    log(`npm install -g failed (${why}); using npx pnpm@${wanted}`);
  }

  // The first npx call downloads pnpm, so give it time.
  if ((await versionOf('npx', npxArgs, 5 * 60_000)) === wanted) {
    use('npx', npxArgs, `npx pnpm@${wanted}`);
    return;
  }
  throw new SetupError(
    'pnpm',
    `could not get pnpm@${wanted} (npm install -g and npx both failed)`,
    `check that the npm registry is reachable, then install it yourself: npm install -g pnpm@${wanted}`,
  );
}

/** Directory holding Node's C headers (include/node/node.h) for node-gyp, if any. */
function nodeHeadersDir() {
  const candidates = [dirname(dirname(process.execPath)), '/usr'];
  return candidates.find((dir) => existsSync(join(dir, 'include', 'node', 'node.h'))) ?? null;
}

/** The environment for pnpm: ours plus npm_config_nodedir when it is unset and headers exist. */
export function pnpmEnv() {
  const env = { ...process.env };
  const hasNodedir = Object.keys(env).some((key) => key.toLowerCase() === 'npm_config_nodedir');
  // better-sqlite3 compiles with node-gyp, which would otherwise download the headers;
  // pnpm 12 does not read nodedir from .npmrc, so pass it through the environment.
  const headers = hasNodedir ? null : nodeHeadersDir();
  if (headers) env.npm_config_nodedir = headers;
  // turbo runs each task through the `pnpm` it finds on PATH: make that the one we use.
  if (isAbsolute(pnpm.command)) {
    const key = Object.keys(env).find((name) => name.toUpperCase() === 'PATH') ?? 'PATH';
    env[key] = [dirname(pnpm.command), env[key]].filter(Boolean).join(delimiter);
  }
  return env;
}

function sha256(file) {
  return createHash('sha256').update(readFileSync(file)).digest('hex');
}

function readStamp() {
  try {
    return readFileSync(STAMP_FILE, 'utf8').trim();
  } catch {
    return null;
  }
}

/** Why `pnpm install` is needed, or null when node_modules matches the lockfile. */
export function installReason() {
  const lockfile = join(ROOT, 'pnpm-lock.yaml');
  if (!existsSync(lockfile)) {
    throw new SetupError(
      'install',
      'pnpm-lock.yaml is missing',
      'restore it (git checkout pnpm-lock.yaml) or create it with `pnpm install`',
    );
  }
  if (!existsSync(join(ROOT, 'node_modules', '.modules.yaml'))) return 'node_modules is missing';
  const stamp = readStamp();
  if (stamp === null) return 'no record of a completed install';
  if (stamp !== sha256(lockfile)) return 'pnpm-lock.yaml changed since the last install';
  return null;
}

/** Turn pnpm install's output into "reason — what to do". */
export function explainInstallFailure(output, code) {
  const text = output;
  const has = (re) => re.test(text);
  if (
    has(
      /ERR_PNPM_OUTDATED_LOCKFILE|ERR_PNPM_LOCKFILE_CONFIG_MISMATCH|Cannot install with "frozen-lockfile"/i,
    )
  ) {
    return [
      'pnpm-lock.yaml does not match the package.json files',
      'run `pnpm install` to update the lockfile (and commit it), then rerun',
    ];
  }
  if (has(/ERR_PNPM_UNSUPPORTED_ENGINE|Unsupported engine/i)) {
    return [
      `a package does not support Node ${process.version}`,
      'use Node 20 or 22 (see "engines" in package.json), then rerun',
    ];
  }
  if (has(/ENOSPC/)) return ['the disk is full', 'free some space, then rerun'];
  if (
    has(
      /ENOTFOUND|EAI_AGAIN|ETIMEDOUT|ECONNREFUSED|ECONNRESET|ERR_PNPM_META_FETCH_FAIL|ERR_PNPM_FETCH_|ERR_SOCKET_TIMEOUT|getaddrinfo|Failed to fetch|error sending request|Connection refused|tunnel error|dns error|self.signed certificate|UNABLE_TO_GET_ISSUER/i,
    )
  ) {
    return [
      'could not download packages from the npm registry',
      'check the network connection or proxy settings (HTTPS_PROXY), then rerun',
    ];
  }
  if (has(/gyp ERR!|better-sqlite3.*(Failed|Exit status [1-9]|ELIFECYCLE)/i)) {
    const headers = nodeHeadersDir();
    return [
      'better-sqlite3 failed to compile its native module',
      `install a C++ toolchain and python3 (Debian/Ubuntu: apt-get install build-essential python3${
        headers ? '' : ' libnode-dev'
      }), then rerun`,
    ];
  }
  if (has(/EACCES|EPERM/)) {
    return [
      'permission denied while writing node_modules or the pnpm store',
      `make ${ROOT} and your home directory writable by you, then rerun`,
    ];
  }
  return [
    `pnpm install --frozen-lockfile failed (exit code ${code})`,
    'see the pnpm output above, fix the cause, then rerun',
  ];
}

/** The last `lines` lines of a step's output, for the message that says it failed. */
function tail(output, lines = 40) {
  return output.split(/\r?\n/).slice(-lines).join('\n');
}

/**
 * Runs `step(onOutput)` with the live step line (progress.mjs) on stderr: rewritten in place on a
 * terminal, a plain line every 20 s otherwise; `onOutput` is given the step's output as it comes,
 * from which the line names what pnpm is doing (`phases: null` for a step whose output does not
 * tell).
 */
async function withProgress(progress, step) {
  const live = startProgress({ prefix: PREFIX, ...progress });
  try {
    return await step((chunk) => live.feed(chunk));
  } finally {
    live.stop();
  }
}

/**
 * Runs a step's command: silent (its output kept for a failure) with the live step line
 * `progress` ({ label, phases }), or shown as it comes with `verbose`.
 */
function runStep(command, args, verbose, options = {}, progress = null) {
  const go = (onOutput) =>
    run(command, args, {
      capture: verbose,
      silent: !verbose,
      stdoutToStderr: true,
      stdin: 'ignore',
      ...options,
      ...(onOutput ? { onOutput } : {}),
    });
  return verbose || !progress ? go(null) : withProgress(progress, go);
}

async function installDependencies(verbose) {
  const reason = installReason();
  if (!reason) {
    if (verbose) log('dependencies up to date');
    return;
  }
  const started = Date.now();
  log(`installing dependencies (${reason}; the first time takes a few minutes)`);
  rmSync(STAMP_FILE, { force: true });
  const env = pnpmEnv();
  // Shown as it comes with --verbose: keep the colours of a terminal.
  if (verbose && process.stderr.isTTY && env.FORCE_COLOR === undefined) env.FORCE_COLOR = '1';
  const result = await runStep(
    pnpm.command,
    [...pnpm.args, 'install', '--frozen-lockfile'],
    verbose,
    { env },
    { label: 'installing dependencies' },
  );
  exitIfInterrupted(result);
  if (result.code !== 0) {
    if (!verbose) process.stderr.write(`${tail(result.output)}\n`);
    const [message, hint] = result.error
      ? [
          `could not run ${pnpm.label}: ${result.error.message}`,
          'check the pnpm install, then rerun',
        ]
      : explainInstallFailure(result.output, result.code);
    throw new SetupError('install', message, hint);
  }
  writeFileSync(STAMP_FILE, `${sha256(join(ROOT, 'pnpm-lock.yaml'))}\n`);
  log(`dependencies installed (${seconds(started)})`);
}

/** Seconds since `started`, e.g. `41.2s`. */
function seconds(started) {
  return `${((Date.now() - started) / 1000).toFixed(1)}s`;
}

/** The bundle `npm start` runs (apps/cli/bundle), rebuilt when a source changed. */
async function bundle(verbose) {
  const script = join(ROOT, 'apps', 'cli', 'scripts', 'bundle.mjs');
  const started = Date.now();
  const result = await runStep(
    process.execPath,
    [script, '--if-stale', '--verbose'],
    verbose,
    { cwd: join(ROOT, 'apps', 'cli') },
    { label: 'building keel', phases: null },
  );
  exitIfInterrupted(result);
  if (result.code !== 0) {
    if (!verbose) process.stderr.write(`${tail(result.output)}\n`);
    throw new SetupError(
      'build',
      `the build failed (esbuild exited with ${result.code ?? result.signal ?? result.error?.code})`,
      'fix the errors shown above, then rerun',
    );
  }
  if (!verbose && result.output.trim()) log(`built keel (${seconds(started)})`);
}

/** Every package (turbo run build: tsc, then the bundle), what the tests use. */
async function buildAll(verbose) {
  const started = Date.now();
  log('building (turbo run build)');
  const args = ['exec', 'turbo', 'run', 'build', ...(verbose ? [] : ['--output-logs=errors-only'])];
  const result = await runStep(
    pnpm.command,
    [...pnpm.args, ...args],
    verbose,
    { env: pnpmEnv() },
    { label: 'building', phases: null },
  );
  exitIfInterrupted(result);
  if (result.code !== 0) {
    if (!verbose) process.stderr.write(`${tail(result.output, 80)}\n`);
    throw new SetupError(
      'build',
      `the build failed (turbo run build exited with ${result.code ?? result.signal ?? result.error?.code})`,
      'fix the errors shown above, then rerun',
    );
  }
  if (verbose) log(`built (${seconds(started)})`);
}

/**
 * Make sure pnpm, the dependencies and the build are in place: the bundle alone
 * (`build: 'bundle'`, what `npm start` needs) or every package (`build: 'all'`, what the tests
 * need). Throws SetupError when a step fails. With continueOnBuildFailure, a failed build does
 * not throw; it is returned as `buildError` (the tests run from sources and can still run).
 */
export async function setup({
  verbose = false,
  build = 'all',
  continueOnBuildFailure = false,
} = {}) {
  const started = Date.now();
  await resolvePnpm(verbose);
  await installDependencies(verbose);
  rememberNpx(wantedPnpmVersion());
  let buildError = null;
  try {
    if (build === 'bundle') await bundle(verbose);
    else await buildAll(verbose);
  } catch (error) {
    if (!(continueOnBuildFailure && error instanceof SetupError)) throw error;
    buildError = error;
    log(error.line);
  }
  if (verbose && !buildError) log(`ready (${seconds(started)})`);
  return { pnpm: { ...pnpm }, buildError };
}

const invokedDirectly =
  process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url);

if (invokedDirectly) {
  const verbose =
    process.argv.includes('--verbose') ||
    // biome-ignore lint/suspicious/noUndeclaredEnvVars: read by this script, not by a turbo task
    process.env.KEEL_SETUP_VERBOSE === '1';
  setup({ verbose, build: 'bundle' }).catch((error) => {
    if (error instanceof SetupError) log(error.line);
    else log(`unexpected error: ${error?.stack ?? error}`);
    process.exit(1);
  });
}
