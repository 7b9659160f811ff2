import { KeelError } from '@keel/errors';
import { describe, expect, it } from 'vitest';
import { parseThinkArgs } from './args.js';

/** The KeelError `fn` throws (fails the test when it does not throw one). */
function thrown(fn: () => unknown): KeelError {
  try {
    fn();
  } catch (err) {
    if (KeelError.isInstance(err)) return err;
    throw err;
  }
  throw new Error('expected a KeelError');
}

describe('parseThinkArgs', () => {
  it('reads --once, --curate and --json', () => {
    expect(parseThinkArgs([])).toEqual({ once: false, curate: false, json: false });
    expect(parseThinkArgs(['--json'])).toEqual({ once: false, curate: false, json: true });
    expect(parseThinkArgs(['--once', '--curate', '--json'])).toEqual({
      once: true,
      curate: true,
      json: true,
    });
  });

  it('refuses --curate without --once and unknown arguments', () => {
    const curate = thrown(() => parseThinkArgs(['--curate']));
    expect(curate.code).toBe('INVALID_INPUT');
    expect(curate.message).toContain('--once');
    const unknown = thrown(() => parseThinkArgs(['--onse']));
    expect(unknown.code).toBe('INVALID_INPUT');
    expect(unknown.message).toContain('"--onse"');
  });
});
