import { describe, expect, it } from 'vitest';
import { parseWebArgs } from './args.js';

describe('keel web arguments', () => {
  it('reads --port N, --port=N, --open and --json; the port defaults to any free one', () => {
    expect(parseWebArgs([])).toEqual({ port: 0, open: false, json: false });
    expect(parseWebArgs(['--port', '8123', '--open'])).toEqual({
      port: 8123,
      open: true,
      json: false,
    });
    expect(parseWebArgs(['--port=8124', '--json'])).toEqual({
      port: 8124,
      open: false,
      json: true,
    });
  });

  it('refuses a port that is not one, and an unknown argument, with a fix', () => {
    for (const bad of [
      ['--port'],
      ['--port', 'x'],
      ['--port', '70000'],
      ['--port=-1'],
      ['--host'],
    ]) {
      expect(() => parseWebArgs(bad), bad.join(' ')).toThrow(
        expect.objectContaining({ code: 'INVALID_INPUT', fix: expect.any(String) }),
      );
    }
  });
});
