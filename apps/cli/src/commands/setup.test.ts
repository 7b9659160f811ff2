// Whether keel's first start runs `keel setup`: only with no config file and no database (keel
// never ran here) and a person at the terminal (stdin and stdout), without --json and without
// KEEL_SKIP_SETUP asking to skip.
import { describe, expect, it } from 'vitest';
import { type FirstStartFacts, offersFirstSetup, skipRequested } from './setup.js';

/** A first start at a terminal: setup is offered. */
const atTerminal: FirstStartFacts = {
  configExists: false,
  databaseExists: false,
  stdinTTY: true,
  stdoutTTY: true,
  json: false,
  skip: undefined,
};

describe('offersFirstSetup', () => {
  it('offers setup on a first start at a terminal (the control for each case below)', () => {
    expect(offersFirstSetup(atTerminal)).toBe(true);
  });

  it.each([
    ['a config file exists', { configExists: true }],
    ['keel ran here before (its database exists)', { databaseExists: true }],
    ['stdin is piped', { stdinTTY: false }],
    ['stdout is piped', { stdoutTTY: false }],
    ['--json was given', { json: true }],
    ['KEEL_SKIP_SETUP=1', { skip: '1' }],
    ['KEEL_SKIP_SETUP=true', { skip: 'true' }],
    ['KEEL_SKIP_SETUP=YES', { skip: 'YES' }],
  ] as const)('does not when %s', (_why, change) => {
    expect(offersFirstSetup({ ...atTerminal, ...change })).toBe(false);
  });

  it('KEEL_SKIP_SETUP asks to skip only with 1, true or yes', () => {
    expect(['1', 'true', 'Yes', ' yes '].map(skipRequested)).toEqual([true, true, true, true]);
    expect(['', '0', 'false', 'no', undefined].map(skipRequested)).toEqual([
      false,
      false,
      false,
      false,
      false,
    ]);
  });
});
