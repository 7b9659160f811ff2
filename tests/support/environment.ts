/**
 * Runs before every test file (vitest `setupFiles`): what the tests start (the bundled CLI, the
 * services, an installed keel) runs in the environment a user's does. `pnpm exec` sets NODE_PATH to
 * pnpm's hoisted store, through which a child process would find packages keel does not depend on
 * (it once hid a bundle that could not load its date parser).
 *
 * @module
 */
delete process.env.NODE_PATH;
