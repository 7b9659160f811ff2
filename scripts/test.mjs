// `npm test`: set up, lint, type-check, run every test, and end with one summary line:
//   N passed, N failed[, N skipped]
// Extra arguments (`npm test -- <args>`) go to vitest. KEEL_TEST_SKIP_LINT=1 skips the
// lint and type checks. Exits non-zero if any step failed; every step runs regardless,
// so one run shows everything that is wrong.
// Plain Node ESM with no dependencies (it runs before anything is installed).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { exitIfInterrupted, ROOT, run, say } from './lib.mjs';
import { runPnpm, SetupError, setup } from './setup.mjs';

const PREFIX = 'keel test:';
const log = (message) => say(PREFIX, message);

export const RESULTS_FILE = join(ROOT, '.test-results', 'vitest.json');

const count = (value) => (Number.isFinite(value) ? value : 0);

/** The summary line for a vitest JSON report (null: there is none, vitest crashed). */
export function summarize(report) {
  if (!report || typeof report !== 'object') return { line: '0 passed, 1 failed', failed: 1 };
  const passed = count(report.numPassedTests);
  const failed = count(report.numFailedTests);
  const skipped = count(report.numPendingTests) + count(report.numTodoTests);
  const line = `${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ''}`;
  return { line, failed };
}

/** The parsed vitest JSON report, or null when it is missing or unreadable. */
export function readReport(file = RESULTS_FILE) {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return null;
  }
}

async function step(name, args, failures) {
  const result = await runPnpm(args);
  exitIfInterrupted(result);
  if (result.code !== 0) {
    failures.push(name);
    log(`${name} failed`);
  }
}

/**
 * The local embedder's runtime, which the tests of the embedder run on: installed by the built
 * keel (`keel models runtime`, as an owner's `keel models pull` does) into apps/cli/runtime from
 * the npm registry the first time, then kept. Without it those tests fail and say why.
 */
async function embedderRuntime() {
  const home = mkdtempSync(join(tmpdir(), 'keel-test-runtime-'));
  try {
    const result = await run(
      process.execPath,
      [join(ROOT, 'apps', 'cli', 'bundle', 'keel.mjs'), 'models', 'runtime', '--json'],
      { silent: true, stdin: 'ignore', env: { ...process.env, KEEL_HOME: home } },
    );
    exitIfInterrupted(result);
    if (result.code !== 0) {
      log(
        `the local embedder's runtime could not be installed, so the tests of the local embedder will fail: ${
          result.output.split(/\r?\n/).find((line) => line.startsWith('error ')) ??
          result.output.trim().split(/\r?\n/).at(-1)
        }`,
      );
    } else if (result.output.includes('"status": "now"')) {
      log("installed the local embedder's runtime (apps/cli/runtime) for the embedder tests");
    }
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

async function main(extraArgs) {
  const failures = [];

  try {
    const { buildError } = await setup({ continueOnBuildFailure: true });
    if (buildError) failures.push('build');
  } catch (error) {
    say('keel setup:', error instanceof SetupError ? error.line : `unexpected error: ${error}`);
    log('setup failed, no tests were run');
    console.log(summarize(null).line);
    return 1;
  }

  // biome-ignore lint/suspicious/noUndeclaredEnvVars: read by this script, not by a turbo task
  if (process.env.KEEL_TEST_SKIP_LINT === '1') {
    log('skipping lint and type checks (KEEL_TEST_SKIP_LINT=1)');
  } else {
    log('lint and format check (biome check .)');
    await step('lint (biome check)', ['exec', 'biome', 'check', '.'], failures);
    log('type check (turbo run typecheck, tsc -p tsconfig.json)');
    await step('typecheck (turbo run typecheck)', ['exec', 'turbo', 'run', 'typecheck'], failures);
    await step(
      'typecheck (tsc -p tsconfig.json)',
      ['exec', 'tsc', '-p', 'tsconfig.json'],
      failures,
    );
  }

  await embedderRuntime();

  // A stale report must not stand in for a run that crashed before writing one.
  rmSync(RESULTS_FILE, { force: true });
  log('tests (vitest run)');
  const vitest = await runPnpm([
    'exec',
    'vitest',
    'run',
    '--reporter=default',
    '--reporter=json',
    `--outputFile.json=${RESULTS_FILE}`,
    ...extraArgs,
  ]);
  exitIfInterrupted(vitest);
  const report = readReport();
  let { line, failed } = summarize(report);
  if (report && vitest.code !== 0 && failed === 0) {
    // A test file that failed to load (or no test files) fails the run: count it in the line.
    const suites = Math.max(1, count(report.numFailedTestSuites));
    ({ line, failed } = summarize({ ...report, numFailedTests: suites }));
  }
  if (!report) {
    failures.push('vitest');
    log(`vitest wrote no report (exit code ${vitest.code ?? vitest.signal}): counted as 1 failure`);
  } else if (vitest.code !== 0) {
    failures.push('vitest');
    if (failed === 0) {
      const suites = count(report.numFailedTestSuites);
      log(
        `vitest exited with code ${vitest.code ?? vitest.signal} although no test failed` +
          (suites > 0
            ? ` (${suites} test file(s) failed to load or run: see above)`
            : ' (an unhandled error or no test files: see above)'),
      );
    }
  } else if (failed > 0) {
    failures.push('vitest');
  }

  if (failures.length > 0) log(`FAILED: ${failures.join(', ')}`);
  // The last line of output, on stdout.
  console.log(line);
  return failures.length > 0 ? 1 : 0;
}

const invokedDirectly =
  process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url);

if (invokedDirectly) {
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (error) => {
      log(`unexpected error: ${error?.stack ?? error}`);
      console.log(summarize(null).line);
      process.exitCode = 1;
    },
  );
}
