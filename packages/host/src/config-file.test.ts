import {
  chmodSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KeelError } from '@keel/errors';
import { parse } from 'smol-toml';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  CONFIG_KEYS,
  type ConfigKey,
  DEFAULTS,
  loadConfig,
  SETTING_NAMES,
  type SettingName,
  settingInfo,
} from './config.js';
import {
  type ConfigChanges,
  configPath,
  describeConfig,
  inspectConfigFile,
  maskSecret,
  readConfig,
  readConfigFile,
  setConfigValues,
} from './config-file.js';

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

/** A good value for every setting the file can hold, by variable. */
const GOOD: Partial<Record<SettingName, string>> = {
  KEEL_CHAT_PROVIDER: 'ollama',
  KEEL_MAX_TOKENS: '4096',
  KEEL_CONTEXT_TOKENS: '100000',
  KEEL_STALL_TIMEOUT_MS: '1500',
  ANTHROPIC_API_KEY: 'sk-ant-api03-test-0000f3c9',
  ANTHROPIC_BASE_URL: 'http://127.0.0.1:9999',
  KEEL_MODEL: 'claude-test',
  OPENAI_API_KEY: 'sk-proj-test-1234',
  OPENAI_BASE_URL: 'http://127.0.0.1:1234/v1',
  KEEL_OPENAI_MODEL: 'meta-llama/llama-3.1-8b-instruct:free',
  KEEL_OPENAI_MAX_TOKENS_PARAM: 'max_completion_tokens',
  OLLAMA_HOST: 'http://gpu-box:11434',
  KEEL_OLLAMA_CHAT_MODEL: 'qwen3:8b',
  KEEL_OLLAMA_EMBED_MODEL: 'mxbai-embed-large',
  KEEL_GATE_MODEL: 'qwen3:1.7b',
  KEEL_EMBEDDER: 'minilm',
  KEEL_HF_ENDPOINT: 'https://hf-mirror.example',
  DISCORD_TOKEN: 'bot.token.value',
  KEEL_DISCORD_OWNER_ID: '123456789012345678',
  KEEL_DISCORD_API_URL: 'http://127.0.0.1:8888/api',
  KEEL_DISCORD_GRACE_MS: '500',
  KEEL_TZ: 'Europe/Berlin',
  KEEL_QUIET_HOURS: '23-7',
  KEEL_THINK_INTERVAL_MIN: '5',
  KEEL_CURATE_AT: '0',
  KEEL_LOG_MAX_MB: '25',
  KEEL_LOG_KEEP: '5',
  KEEL_TOOLS: 'shell,read_file',
  KEEL_TOOL_POLICIES: 'shell=deny,mcp:files=allow',
  KEEL_WORKSPACE: '~/keel-work',
  KEEL_TOOL_ROOTS: '~/notes:/srv/code',
  KEEL_SHELL_TIMEOUT_S: '30',
  KEEL_FETCH_PRIVATE: 'yes',
  KEEL_APPROVAL_TIMEOUT_S: '45',
  KEEL_MCP_CONFIG: '~/mcp.json',
};

let home: string;
let path: string;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'keel-config-'));
  path = configPath(home);
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

/** Writes `text` as the config file with `mode`. */
function writeFile(text: string, mode = 0o600): void {
  writeFileSync(path, text, { mode });
  chmodSync(path, mode);
}

describe('the settings and their keys', () => {
  it('every setting but KEEL_HOME and the internal one has a distinct key; every field of DEFAULTS has a setting', () => {
    const keys = SETTING_NAMES.map((n) => settingInfo(n).key);
    expect(keys.filter((k) => k === null)).toHaveLength(2);
    expect(settingInfo('KEEL_HOME').key).toBeNull();
    expect(settingInfo('KEEL_PARENT_PID')).toMatchObject({ key: null, internal: true });
    expect(new Set(CONFIG_KEYS).size).toBe(CONFIG_KEYS.length);
    expect(CONFIG_KEYS).toHaveLength(SETTING_NAMES.length - 2);
    const fields = SETTING_NAMES.map((n) => settingInfo(n).setting);
    expect(new Set(fields).size).toBe(fields.length);
    expect(new Set(fields)).toEqual(new Set(Object.keys(DEFAULTS)));
    // The GOOD table above covers every key the file may hold.
    expect(new Set(Object.keys(GOOD))).toEqual(
      new Set(SETTING_NAMES.filter((n) => settingInfo(n).key !== null)),
    );
  });
});

describe('setConfigValues and readConfigFile', () => {
  it('round trip: what is set is read back, by key and by variable, and loads as the same variables would', () => {
    const changes: Record<string, string | number> = {};
    for (const [name, value] of Object.entries(GOOD) as [SettingName, string][]) {
      const key = settingInfo(name).key as ConfigKey;
      changes[key] = settingInfo(name).toml === 'integer' ? Number(value) : value;
    }
    setConfigValues(home, changes as ConfigChanges);
    const file = readConfigFile(home);
    expect(file.values).toEqual(changes);
    expect(file.settings).toEqual(GOOD);
    expect(file.problems).toEqual([]);
    // The file is plain TOML with sections: what smol-toml reads back.
    const text = readFileSync(path, 'utf8');
    expect(text).toContain('[think]\ninterval_min = 5\nnight_hour = 0\n');
    expect(text).toContain('time_zone = "Europe/Berlin"');
    expect(parse(text)).toMatchObject({ discord: { owner_id: '123456789012345678' } });
    // Every setting means the same in the file as in its variable.
    const env = { KEEL_HOME: home };
    expect(readConfig(env)).toEqual(loadConfig({ ...GOOD, ...env }));
    // Control: an empty folder reads as no settings at all.
    rmSync(path);
    expect(readConfig(env)).toEqual(loadConfig(env));
  });

  it('writes mode 0600 atomically (no temporary file left), and mends a file others could read', () => {
    setConfigValues(home, { time_zone: 'Europe/Berlin' });
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readdirSync(home)).toEqual(['config.toml']);
    chmodSync(path, 0o644);
    setConfigValues(home, { 'anthropic.api_key': 'sk-ant-api03-secret' });
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readdirSync(home)).toEqual(['config.toml']);
  });

  it('keeps the other values, removes with null (and the section it empties), and leaves an unchanged file alone', () => {
    setConfigValues(home, { 'think.night_hour': 4, 'think.interval_min': 30, quiet_hours: '22-6' });
    setConfigValues(home, { 'think.interval_min': null });
    expect(readConfigFile(home).values).toEqual({ 'think.night_hour': 4, quiet_hours: '22-6' });
    setConfigValues(home, { 'think.night_hour': null });
    expect(readFileSync(path, 'utf8')).not.toContain('[think]');
    const before = statSync(path).mtimeMs;
    const text = readFileSync(path, 'utf8');
    setConfigValues(home, { 'think.night_hour': null, quiet_hours: '22-6' });
    expect(readFileSync(path, 'utf8')).toBe(text);
    expect(statSync(path).mtimeMs).toBe(before);
  });

  it('normalises what the schema normalises, and writes whole numbers as numbers', () => {
    setConfigValues(home, {
      'model.provider': 'Ollama',
      'ollama.host': 'gpu:11434',
      'think.night_hour': ' 5 ',
    });
    expect(readConfigFile(home).values).toEqual({
      'model.provider': 'ollama',
      'ollama.host': 'http://gpu:11434',
      'think.night_hour': 5,
    });
  });

  it('refuses a bad value, an unknown key or an environment-only one with CONFIG_INVALID, and leaves the file as it was', () => {
    setConfigValues(home, { 'think.interval_min': 15 });
    const text = readFileSync(path, 'utf8');
    const bad = thrown(() => setConfigValues(home, { 'think.interval_min': 0 }));
    expect(bad.code).toBe('CONFIG_INVALID');
    expect(bad.message).toBe(
      'think.interval_min "0" must be a whole number from 1 to 1440, e.g. 15',
    );
    expect(bad.fix).toContain('nothing was written');
    const secret = thrown(() => setConfigValues(home, { 'discord.token': 'abc def' }));
    expect(secret.message).toContain('discord.token (7 characters, not shown) must be');
    expect(secret.message).not.toContain('abc def');
    const unknown = thrown(() =>
      setConfigValues(home, { 'think.night_hours': 4 } as unknown as ConfigChanges),
    );
    expect(unknown.code).toBe('CONFIG_INVALID');
    expect(unknown.message).toContain('think.night_hours is not a setting keel knows');
    expect(unknown.message).toContain('did you mean think.night_hour?');
    expect(unknown.message).toContain(CONFIG_KEYS.join(', '));
    const variable = thrown(() =>
      setConfigValues(home, { KEEL_TZ: 'Europe/Berlin' } as unknown as ConfigChanges),
    );
    expect(variable.message).toBe(
      'KEEL_TZ is an environment variable; in the config file it is time_zone',
    );
    const envOnly = thrown(() =>
      setConfigValues(home, { KEEL_HOME: '/x' } as unknown as ConfigChanges),
    );
    expect(envOnly.message).toContain('KEEL_HOME is set in the environment only');
    const budget = thrown(() =>
      setConfigValues(home, { 'model.max_tokens': 8001, 'model.context_tokens': 32_000 }),
    );
    expect(budget.message).toContain('at most a quarter of model.context_tokens "32000"');
    expect(readFileSync(path, 'utf8')).toBe(text);
    // Control: the good values are written.
    setConfigValues(home, { 'model.max_tokens': 8000, 'model.context_tokens': 32_000 });
    expect(readConfigFile(home).values).toMatchObject({ 'model.max_tokens': 8000 });
  });

  it('an unknown key already in the file can be removed (a typo mended)', () => {
    writeFile('[think]\nnight_hours = 4\n');
    expect(inspectConfigFile(home).problems).toHaveLength(1);
    setConfigValues(home, { 'think.night_hours': null } as unknown as ConfigChanges);
    expect(inspectConfigFile(home).problems).toEqual([]);
  });

  it('refuses to rewrite a file that is not TOML', () => {
    writeFile('time_zone = "Europe/Berlin\n');
    const err = thrown(() => setConfigValues(home, { quiet_hours: '23-7' }));
    expect(err.code).toBe('CONFIG_INVALID');
    expect(readFileSync(path, 'utf8')).toBe('time_zone = "Europe/Berlin\n');
  });
});

describe('readConfig: the environment over the file', () => {
  it('a variable wins over the file; a blank variable does not hide it', () => {
    setConfigValues(home, { time_zone: 'Europe/Berlin', 'think.night_hour': 4 });
    expect(readConfig({ KEEL_HOME: home }).think).toMatchObject({
      tz: 'Europe/Berlin',
      curateAt: 4,
    });
    expect(
      readConfig({ KEEL_HOME: home, KEEL_TZ: 'Asia/Tokyo', KEEL_CURATE_AT: ' ' }).think,
    ).toMatchObject({ tz: 'Asia/Tokyo', curateAt: 4 });
  });

  it('a bad variable is named as before even when the file is good', () => {
    setConfigValues(home, { time_zone: 'Europe/Berlin' });
    const err = thrown(() => readConfig({ KEEL_HOME: home, KEEL_TZ: 'Mars/Olympus' }));
    expect(err.message).toBe(
      'KEEL_TZ "Mars/Olympus" is not a time zone name (use an IANA name such as Europe/Berlin)',
    );
    expect(err.fix).toContain('Fix the environment variable named above');
  });
});

describe('a damaged or invalid file is CONFIG_INVALID naming the file, line and key, never a fallback', () => {
  it('not TOML: the line, the column and what is wrong', () => {
    writeFile('time_zone = "Europe/Berlin"\n\n[think]\nnight_hour = = 3\n');
    const err = thrown(() => readConfig({ KEEL_HOME: home }));
    expect(err.code).toBe('CONFIG_INVALID');
    expect(err.message).toContain(`${path} is not valid TOML at line 4`);
    expect(err.message).toContain('`night_hour = = 3`');
    expect(err.details).toMatchObject({ file: path, line: 4 });
    expect(err.fix).toContain(`Correct line 4 of ${path}`);
  });

  it('a bad value: its key, the file and line, the form, and the fix naming the line', () => {
    writeFile('# mine\nquiet_hours = "23-7"\ntime_zone = "Mars/Olympus"\n');
    const err = thrown(() => readConfig({ KEEL_HOME: home }));
    expect(err.message).toBe(
      `time_zone "Mars/Olympus" (in ${path}, line 3) is not a time zone name (use an IANA name such as Europe/Berlin)`,
    );
    expect(err.fix).toContain(`Correct line 3 of ${path}`);
    expect(err.fix).toContain('keel config set time_zone');
    expect(err.details).toEqual({ variables: ['KEEL_TZ'], file: path });
    // The variable wins, so the file's bad value is not in force: it loads.
    expect(readConfig({ KEEL_HOME: home, KEEL_TZ: 'UTC' }).think.tz).toBe('UTC');
  });

  it('a secret with a bad value is named by its length only', () => {
    writeFile('[anthropic]\napi_key = "sk-ant one"\n');
    const err = thrown(() => readConfig({ KEEL_HOME: home }));
    expect(err.message).toContain(
      `anthropic.api_key (10 characters, not shown) (in ${path}, line 2)`,
    );
    expect(err.message).not.toContain('sk-ant one');
  });

  it('an unknown key, a variable written as a key, and a value of the wrong type: each with its line', () => {
    writeFile(
      [
        'ANTHROPIC_API_KEY = "sk-ant-x"',
        '[think]',
        'interval_min = 5',
        'night_hours = 4',
        '[discord]',
        'owner_id = 123456789012345678',
        'grace_ms = "soon"',
        '[think.extra]',
        'x = 1',
      ].join('\n'),
    );
    const err = thrown(() => readConfig({ KEEL_HOME: home }));
    expect(err.code).toBe('CONFIG_INVALID');
    expect(err.message).toContain(
      `ANTHROPIC_API_KEY (in ${path}, line 1) is an environment variable; in this file it is anthropic.api_key`,
    );
    expect(err.message).toContain(
      `think.night_hours (in ${path}, line 4) is not a setting keel knows; did you mean think.night_hour?`,
    );
    expect(err.message).toContain(
      `discord.owner_id (in ${path}, line 6) must be a Discord user id, 15 to 21 digits (Developer Mode, then Copy User ID), written in quotes: owner_id = "123456789012345678"`,
    );
    expect(err.message).toContain(`think.extra.x (in ${path}, line 9) is not a setting keel knows`);
    expect(err.details).toMatchObject({
      keys: ['ANTHROPIC_API_KEY', 'think.night_hours', 'discord.owner_id', 'think.extra.x'],
    });
    expect(err.fix).toContain(`Correct line 1 of ${path}`);
    // "soon" is text where a number is wanted: the schema names it, once the keys are mended.
    writeFile('[discord]\ngrace_ms = "soon"\n');
    expect(thrown(() => readConfig({ KEEL_HOME: home })).message).toBe(
      `discord.grace_ms "soon" (in ${path}, line 2) must be a whole number of milliseconds from 0 to 3600000, e.g. 15000`,
    );
    // Control: the same keys, written right, load.
    writeFile(
      '[think]\ninterval_min = 5\nnight_hour = 4\n[discord]\nowner_id = "123456789012345678"\ngrace_ms = "500"\n',
    );
    expect(readConfig({ KEEL_HOME: home }).discord).toMatchObject({
      ownerId: '123456789012345678',
      graceMs: 500,
    });
  });

  it('finds the line of dotted, quoted and inline keys', () => {
    writeFile(
      [
        '# comment',
        'think.night_hour = 99',
        '"time_zone" = "UTC"',
        'model = { provider = "claude" }',
      ].join('\n'),
    );
    const err = thrown(() => readConfig({ KEEL_HOME: home }));
    expect(err.message).toContain(`think.night_hour "99" (in ${path}, line 2)`);
    expect(err.message).toContain(`model.provider "claude" (in ${path}, line 4)`);
  });
});

describe('the file mode: only its owner may read a secret or change the file', () => {
  it.each([
    ['0644', true, 'other users can read it (mode 0644)'],
    ['0640', true, 'other users can read it (mode 0640)'],
    ['0664', false, 'other users can change it (mode 0664)'],
    ['0602', false, 'other users can change it (mode 0602)'],
  ])('mode %s (a secret in it: %s) is refused', (octal, withSecret, message) => {
    const mode = Number.parseInt(octal, 8);
    writeFile(withSecret ? '[anthropic]\napi_key = "sk-ant-x"\n' : 'time_zone = "UTC"\n', mode);
    const err = thrown(() => readConfig({ KEEL_HOME: home }));
    expect(err.code).toBe('CONFIG_INVALID');
    expect(err.message).toContain(message);
    expect(err.fix).toBe(`Run chmod 600 ${path} (only you should read or change it).`);
    // Control: mode 0600 loads.
    chmodSync(path, 0o600);
    expect(() => readConfig({ KEEL_HOME: home })).not.toThrow();
  });

  it('a file others can read but that holds no secret loads', () => {
    writeFile('time_zone = "UTC"\n', 0o644);
    expect(readConfig({ KEEL_HOME: home }).think.tz).toBe('UTC');
  });
});

describe('describeConfig and maskSecret', () => {
  it('says where each value comes from: env, file or default, and when the env hides the file', () => {
    setConfigValues(home, { time_zone: 'Europe/Berlin', 'think.night_hour': 4 });
    const d = describeConfig({ KEEL_HOME: home, KEEL_CURATE_AT: '5', OLLAMA_HOST: 'box:1' });
    const by = (key: string) => d.settings.find((s) => (s.key ?? s.variable) === key);
    expect(by('time_zone')).toMatchObject({ value: 'Europe/Berlin', source: 'file' });
    expect(by('think.night_hour')).toMatchObject({
      value: '5',
      source: 'env',
      overridesFile: true,
    });
    expect(by('ollama.host')).toMatchObject({
      value: 'box:1',
      source: 'env',
      overridesFile: false,
    });
    expect(by('think.interval_min')).toMatchObject({ value: 15, source: 'default' });
    expect(by('anthropic.api_key')).toMatchObject({ value: null, secret: true });
    expect(by('KEEL_HOME')).toMatchObject({ value: home, source: 'env' });
    expect(d.settings.some((s) => s.variable === 'KEEL_PARENT_PID')).toBe(false);
    // A bad value is shown with its problem, not refused.
    const bad = describeConfig({ KEEL_HOME: home, KEEL_TZ: 'Mars/Olympus' });
    expect(bad.settings.find((s) => s.key === 'time_zone')?.problem).toContain('IANA');
  });

  it('masks a secret to its first and last four characters, or entirely when short', () => {
    expect(maskSecret('sk-ant-api03-abcdefghijkl-f3c9')).toBe('sk-a…f3c9');
    expect(maskSecret('short-token')).toBe('****');
  });
});
