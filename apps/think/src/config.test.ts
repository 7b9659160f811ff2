import { DEFAULT_OLLAMA_HOST } from '@keel/agent';
import { KeelError } from '@keel/errors';
import { DEFAULT_GATE_MODEL } from '@keel/gate';
import { describe, expect, it } from 'vitest';
import { loadThinkConfig, machineZone, parseParentPid, parseThinkArgs } from './config.js';

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

describe('loadThinkConfig', () => {
  it('uses the documented defaults for an empty environment', () => {
    expect(loadThinkConfig({})).toEqual({
      intervalMin: 15,
      quietHours: null,
      tz: machineZone(),
      curateAt: 3,
      ollamaHost: DEFAULT_OLLAMA_HOST,
      gateModel: DEFAULT_GATE_MODEL,
    });
    expect(DEFAULT_OLLAMA_HOST).toBe('http://127.0.0.1:11434');
    expect(typeof DEFAULT_GATE_MODEL).toBe('string');
    expect(DEFAULT_GATE_MODEL.length).toBeGreaterThan(0);
  });

  it('treats empty and blank values as unset', () => {
    const blank = {
      KEEL_THINK_INTERVAL_MIN: '',
      KEEL_QUIET_HOURS: ' ',
      KEEL_TZ: '',
      KEEL_CURATE_AT: '  ',
      OLLAMA_HOST: '',
      KEEL_GATE_MODEL: ' ',
    };
    expect(loadThinkConfig(blank)).toEqual(loadThinkConfig({}));
  });

  it('reads every variable', () => {
    expect(
      loadThinkConfig({
        KEEL_THINK_INTERVAL_MIN: ' 5 ',
        KEEL_QUIET_HOURS: '23-7',
        KEEL_TZ: 'Europe/Berlin',
        KEEL_CURATE_AT: '0',
        OLLAMA_HOST: 'gpu-box:11434',
        KEEL_GATE_MODEL: 'qwen3:1.7b',
      }),
    ).toEqual({
      intervalMin: 5,
      quietHours: { start: 23, end: 7 },
      tz: 'Europe/Berlin',
      curateAt: 0,
      ollamaHost: 'http://gpu-box:11434',
      gateModel: 'qwen3:1.7b',
    });
    expect(
      loadThinkConfig({ KEEL_THINK_INTERVAL_MIN: '1440', KEEL_CURATE_AT: '23' }),
    ).toMatchObject({ intervalMin: 1440, curateAt: 23 });
    expect(loadThinkConfig({ OLLAMA_HOST: 'https://ollama.example:443' }).ollamaHost).toBe(
      'https://ollama.example:443',
    );
  });

  it.each([
    ['KEEL_THINK_INTERVAL_MIN', '0', 'from 1 to 1440'],
    ['KEEL_THINK_INTERVAL_MIN', '-5', 'from 1 to 1440'],
    ['KEEL_THINK_INTERVAL_MIN', '2.5', 'from 1 to 1440'],
    ['KEEL_THINK_INTERVAL_MIN', '15m', 'from 1 to 1440'],
    ['KEEL_THINK_INTERVAL_MIN', '1441', 'from 1 to 1440'],
    ['KEEL_CURATE_AT', '24', 'from 0 to 23'],
    ['KEEL_CURATE_AT', '3am', 'from 0 to 23'],
    ['KEEL_QUIET_HOURS', '23', 'START-END'],
    ['KEEL_QUIET_HOURS', '7-7', 'START-END'],
    ['KEEL_QUIET_HOURS', '22-25', 'START-END'],
    ['KEEL_TZ', 'Mars/Olympus', 'IANA'],
    ['OLLAMA_HOST', 'http://exa mple', 'e.g. http://127.0.0.1:11434'],
  ])('refuses %s=%s with CONFIG_INVALID naming the variable and the fix', (name, value, hint) => {
    const err = thrown(() => loadThinkConfig({ [name]: value }));
    expect(err.code).toBe('CONFIG_INVALID');
    expect(err.fix).toContain('environment variable');
    expect(err.message).toContain(name);
    expect(err.message).toContain(value.trim());
    expect(err.message).toContain(hint);
  });
});

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

describe('parseParentPid', () => {
  it('reads a positive whole number; anything else means no parent to watch', () => {
    expect(parseParentPid('4242')).toBe(4242);
    expect(parseParentPid(' 17 ')).toBe(17);
    for (const raw of [undefined, '', ' ', '0', '-3', '12a', '1.5', '99999999999999999999']) {
      expect(parseParentPid(raw)).toBeNull();
    }
  });
});
