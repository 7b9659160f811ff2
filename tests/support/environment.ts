/**
 * Runs before every test file (vitest `setupFiles`): what the tests start (the bundled CLI, the
 * services, an installed keel) runs in the environment a user's does. `pnpm exec` sets NODE_PATH to
 * pnpm's hoisted store, through which a child process would find packages keel does not depend on
 * (it once hid a bundle that could not load its date parser).
 *
 * The user is one with keel on PATH: a `keel` linked to the bundle the tests run is put first on
 * PATH, so that the hints keel prints name `keel …` as for an installed keel (from a clone they
 * name the clone's command, `apps/cli/src/invocation.ts`; tests/e2e/clone.test.ts runs without
 * it).
 *
 * @module
 */
import { mkdirSync, readlinkSync, symlinkSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';

delete process.env.NODE_PATH;

const root = fileURLToPath(new URL('../../', import.meta.url));
/** The folder holding the test run's `keel` (put first on PATH). */
export const KEEL_BIN = join(root, 'node_modules', '.keel-test-bin');
const cli = join(root, 'apps', 'cli', 'bundle', 'keel.mjs');
mkdirSync(KEEL_BIN, { recursive: true });
try {
  symlinkSync(cli, join(KEEL_BIN, 'keel'));
} catch (err) {
  // Made by another test file: it must be the same link.
  if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  if (readlinkSync(join(KEEL_BIN, 'keel')) !== cli) throw err;
}
if (!(process.env.PATH ?? '').split(delimiter).includes(KEEL_BIN)) {
  process.env.PATH = [KEEL_BIN, process.env.PATH].filter(Boolean).join(delimiter);
}
