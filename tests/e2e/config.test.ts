/**
 * `$KEEL_HOME/config.toml` end to end: the `keel config` verbs through the built CLI, a damaged file
 * stopping a verb and mended with `keel config`, and the services (`keel think`, `keel discord`)
 * running on the file alone, with no variable set (the real discord.js and Anthropic clients
 * against fake servers on 127.0.0.1).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { chmodSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CLI, keel, tempHome } from '../support/cli.js';
import { FakeAnthropic } from '../support/fake-anthropic.js';
import { FakeDiscord, user } from '../support/fake-discord.js';

let home: string;
let cleanup: () => void;
let file: string;
const children: ChildProcess[] = [];
beforeEach(() => {
  ({ home, cleanup } = tempHome());
  file = join(home, 'config.toml');
});
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill('SIGKILL');
  cleanup();
});

/** Every variable keel reads, blank (unset): the file alone configures the process. */
const BLANK = Object.fromEntries(
  [
    'KEEL_CHAT_PROVIDER',
    'KEEL_MAX_TOKENS',
    'KEEL_CONTEXT_TOKENS',
    'KEEL_STALL_TIMEOUT_MS',
    'ANTHROPIC_API_KEY',
    'ANTHROPIC_BASE_URL',
    'KEEL_MODEL',
    'OPENAI_API_KEY',
    'OPENAI_BASE_URL',
    'KEEL_OPENAI_MODEL',
    'KEEL_OPENAI_MAX_TOKENS_PARAM',
    'OLLAMA_HOST',
    'KEEL_OLLAMA_CHAT_MODEL',
    'KEEL_OLLAMA_EMBED_MODEL',
    'KEEL_GATE_MODEL',
    'KEEL_EMBEDDER',
    'KEEL_HF_ENDPOINT',
    'DISCORD_TOKEN',
    'KEEL_DISCORD_OWNER_ID',
    'KEEL_DISCORD_API_URL',
    'KEEL_DISCORD_GRACE_MS',
    'KEEL_TZ',
    'KEEL_QUIET_HOURS',
    'KEEL_THINK_INTERVAL_MIN',
    'KEEL_CURATE_AT',
  ].map((name) => [name, '']),
);

/** Runs `keel config <args>` with every variable blank but `env`. */
const config = (args: string[], env: Record<string, string> = {}, input?: string) =>
  keel(home, ['config', ...args], input, { ...BLANK, ...env });

interface SettingJson {
  key: string | null;
  variable: string;
  value: string | number | null;
  source: 'env' | 'file' | 'default';
  overrides_file: boolean;
  secret: boolean;
  masked: boolean;
  problem: string | null;
}
interface ListJson {
  home: string;
  file: { path: string; exists: boolean; mode: string | null; problems: unknown[] };
  settings: SettingJson[];
}

/** Every key of every object in `value`, recursively. */
function keysOf(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(keysOf);
  if (value && typeof value === 'object') {
    return Object.entries(value).flatMap(([k, v]) => [k, ...keysOf(v)]);
  }
  return [];
}

const KEY = 'sk-ant-api03-abcdefghijklmnop-f3c9';

describe('keel config', () => {
  it('set, get, list and unset: the file is written 0600, each value says where it comes from, secrets are masked', () => {
    // No file yet: every value is a default.
    const empty = config(['list', '--json']);
    expect(empty.status).toBe(0);
    expect(empty.json<ListJson>().file).toMatchObject({ path: file, exists: false, mode: null });
    expect(empty.json<ListJson>().settings.every((s) => s.source !== 'file')).toBe(true);

    expect(config(['set', 'time_zone', 'Europe/Berlin']).stdout).toBe(
      `time_zone = Europe/Berlin (in ${file})\n`,
    );
    expect(config(['set', 'KEEL_CURATE_AT', '4']).status).toBe(0); // a variable names its key
    const set = config(['set', 'anthropic.api_key', '-', '--json'], {}, `${KEY}\n`); // from stdin
    expect(set.status).toBe(0);
    expect(set.json()).toEqual({
      key: 'anthropic.api_key',
      variable: 'ANTHROPIC_API_KEY',
      value: 'sk-a…f3c9',
      file,
      overridden_by_env: false,
    });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, 'utf8')).toContain(`[anthropic]\napi_key = "${KEY}"`);
    expect(readFileSync(file, 'utf8')).toContain('[think]\nnight_hour = 4');

    const list = config(['list', '--json'], { KEEL_TZ: 'Asia/Tokyo', OLLAMA_HOST: 'gpu:11434' });
    expect(list.status).toBe(0);
    const body = list.json<ListJson>();
    expect(keysOf(body).every((k) => /^[a-z0-9_]+$/.test(k))).toBe(true); // snake_case
    expect(body.file).toEqual({ path: file, exists: true, mode: '0600', problems: [] });
    const by = (key: string) => body.settings.find((s) => (s.key ?? s.variable) === key);
    expect(by('time_zone')).toMatchObject({
      variable: 'KEEL_TZ',
      value: 'Asia/Tokyo',
      source: 'env',
      overrides_file: true,
    });
    expect(by('think.night_hour')).toMatchObject({ value: 4, source: 'file' });
    expect(by('ollama.host')).toMatchObject({ value: 'gpu:11434', source: 'env' });
    expect(by('think.interval_min')).toMatchObject({ value: 15, source: 'default' });
    expect(by('anthropic.api_key')).toMatchObject({
      value: 'sk-a…f3c9',
      source: 'file',
      secret: true,
      masked: true,
    });
    expect(list.stdout).not.toContain(KEY);
    const human = config(['list']);
    expect(human.stdout).toMatch(/^time_zone +Europe\/Berlin +file$/m);
    expect(human.stdout).toMatch(/^anthropic\.api_key +sk-a…f3c9 +file$/m);
    expect(human.stdout).toMatch(/^think\.interval_min +15 +default$/m);
    expect(human.stdout).not.toContain(KEY);
    // Shown in full only when asked.
    expect(config(['list', '--show-secrets']).stdout).toContain(KEY);
    expect(config(['get', 'anthropic.api_key']).stdout).toBe('sk-a…f3c9\n');
    expect(config(['get', 'anthropic.api_key', '--show-secrets']).stdout).toBe(`${KEY}\n`);
    expect(config(['get', 'time_zone']).stdout).toBe('Europe/Berlin\n');
    expect(config(['get', 'time_zone', '--json'], { KEEL_TZ: 'UTC' }).json()).toMatchObject({
      key: 'time_zone',
      value: 'UTC',
      source: 'env',
      overrides_file: true,
    });
    const unsetValue = config(['get', 'quiet_hours']);
    expect(unsetValue).toMatchObject({ status: 0, stdout: '' });
    expect(unsetValue.stderr).toContain('quiet_hours is not set (default: none)');

    const unset = config(['unset', 'think.night_hour']);
    expect(unset.stdout).toBe(`removed think.night_hour from ${file}; now 3 (default)\n`);
    expect(readFileSync(file, 'utf8')).not.toContain('night_hour');
    expect(config(['unset', 'think.night_hour']).stdout).toBe(
      `think.night_hour was not set in ${file}\n`,
    );
  });

  it('an unknown key or a bad value is CONFIG_INVALID with the valid keys or form, and the file stays as it was', () => {
    expect(config(['set', 'think.interval_min', '30']).status).toBe(0);
    const before = readFileSync(file);
    const unknown = config(['set', 'think.night_hours', '4']);
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toContain(
      'error CONFIG_INVALID: think.night_hours is not a setting keel knows; did you mean think.night_hour?',
    );
    expect(unknown.stderr).toContain('The keys: model.provider, model.max_tokens');
    expect(unknown.stderr).toContain('think.night_hour');
    const bad = config(['set', 'quiet_hours', '25-7', '--json']);
    expect(bad.status).toBe(2);
    expect(bad.json<{ error: { code: string; message: string; fix: string } }>().error).toEqual({
      code: 'CONFIG_INVALID',
      message:
        'quiet_hours "25-7" must be two different times of day as START-END, e.g. 23-7, 11pm-7am or 22:30-06:15',
      fix: "Give quiet_hours a value of that form (the README's Configuration describes each setting); nothing was written.",
      details: { key: 'quiet_hours', variables: ['KEEL_QUIET_HOURS'] },
    });
    const secret = config(['set', 'discord.token', 'abc def']);
    expect(secret.status).toBe(2);
    expect(secret.stderr).not.toContain('abc def');
    const home_ = config(['set', 'KEEL_HOME', '/elsewhere']);
    expect(home_.status).toBe(2);
    expect(home_.stderr).toContain('KEEL_HOME is set in the environment only');
    expect(readFileSync(file).equals(before)).toBe(true);
    // Control: a good value changes it.
    expect(config(['set', 'quiet_hours', '23-7']).status).toBe(0);
    expect(readFileSync(file, 'utf8')).toContain('quiet_hours = "23-7"');
  });

  it('quiet_hours takes the common clock forms and keeps one stored form', () => {
    for (const [given, stored] of [
      ['11 PM – 7 AM', '23-7'],
      ['23:00-07:00', '23-7'],
      ['22:30-06:15', '22:30-06:15'],
      ['10:30pm-6am', '22:30-06:00'],
    ] as const) {
      const set = config(['set', 'quiet_hours', given]);
      expect(set.status, set.stderr).toBe(0);
      expect(readFileSync(file, 'utf8')).toContain(`quiet_hours = "${stored}"`);
      expect(config(['get', 'quiet_hours']).stdout.trim()).toBe(stored);
    }
    // A form it cannot read is refused; the file keeps the last value.
    const noon = config(['set', 'quiet_hours', 'noon-ish']);
    expect(noon.status).toBe(2);
    expect(noon.stderr).toContain('quiet_hours "noon-ish" must be two different times of day');
    expect(readFileSync(file, 'utf8')).toContain('quiet_hours = "22:30-06:00"');
  });

  it('a damaged file stops every verb, naming the file, line and key; keel config still shows and mends it', () => {
    writeFileSync(file, '[think]\ninterval_min = 30\nnight_hours = 4\n', { mode: 0o600 });
    const stopped = keel(home, ['recall', 'tea'], undefined, BLANK);
    expect(stopped.status).toBe(2);
    expect(stopped.stderr).toContain(
      `error CONFIG_INVALID: think.night_hours (in ${file}, line 3) is not a setting keel knows; did you mean think.night_hour?`,
    );
    expect(stopped.stderr).toContain(
      `fix: Correct line 3 of ${file}, or remove the key with \`keel config unset think.night_hours\`.`,
    );
    const list = config(['list']);
    expect(list.status).toBe(1);
    expect(list.stdout).toContain(
      'problem: think.night_hours (line 3) is not a setting keel knows',
    );
    expect(config(['unset', 'think.night_hours']).status).toBe(0);
    expect(keel(home, ['recall', 'tea'], undefined, BLANK).status).toBe(0);

    // Not TOML at all: the line and column.
    writeFileSync(file, 'time_zone = "UTC"\nquiet_hours = 23-7\n');
    const broken = keel(home, ['doctor', '--json'], undefined, BLANK);
    expect(broken.status).toBe(2);
    expect(broken.stderr).toContain(`error CONFIG_INVALID: ${file} is not valid TOML at line 2`);
    expect(broken.json<{ error: { details: unknown } }>().error.details).toMatchObject({
      file,
      line: 2,
    });

    // Readable by others while it holds a key: refused with chmod as the fix.
    writeFileSync(file, `[anthropic]\napi_key = "${KEY}"\n`);
    chmodSync(file, 0o644);
    const open = keel(home, ['recall', 'tea'], undefined, BLANK);
    expect(open.status).toBe(2);
    expect(open.stderr).toContain('other users can read it (mode 0644)');
    expect(open.stderr).toContain(`fix: Run chmod 600 ${file}`);
    expect(open.stderr).not.toContain(KEY);
    chmodSync(file, 0o600);
    expect(keel(home, ['recall', 'tea'], undefined, BLANK).status).toBe(0);
  });
});

/** Starts `keel <args>` with every variable blank: only the config file configures it. */
function start(args: string[]) {
  const child = spawn(process.execPath, [CLI, ...args], {
    env: { ...process.env, KEEL_HOME: home, ...BLANK },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  const out = { stdout: '', stderr: '' };
  child.stdout?.on('data', (d) => {
    out.stdout += d;
  });
  child.stderr?.on('data', (d) => {
    out.stderr += d;
  });
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  return { child, out, exited };
}

/** Waits until `check` holds, or fails with `what`. */
async function until(check: () => boolean, what: string, ms = 30_000) {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('config.toml is enough for every process', () => {
  it('keel think reads its schedule and zone from the file, and a bad file stops it (exit 2)', async () => {
    for (const [key, value] of [
      ['think.interval_min', '7'],
      ['think.night_hour', '4'],
      ['time_zone', 'Asia/Tokyo'],
      ['quiet_hours', '22-6'],
      ['ollama.host', 'http://127.0.0.1:9'],
      ['model.provider', 'offline'],
    ]) {
      expect(config(['set', key as string, value as string]).status).toBe(0);
    }
    const think = start(['think']);
    await until(
      () => think.out.stderr.includes('think: every'),
      `the think service to start\n${think.out.stderr}`,
    );
    expect(think.out.stderr).toContain(
      'think: every 7 min; curator at 4:00 Asia/Tokyo; quiet hours 22-6',
    );
    think.child.kill('SIGTERM');
    expect(await think.exited).toBe(0);

    writeFileSync(file, 'quiet_hours = "25-7"\n', { mode: 0o600 });
    const bad = start(['think', '--once']);
    expect(await bad.exited).toBe(2);
    expect(bad.out.stderr).toContain(
      `error CONFIG_INVALID: quiet_hours "25-7" (in ${file}, line 1) must be two different times of day`,
    );
  });

  it('keel discord takes its token, owner, API and model key from the file and answers a DM', async () => {
    const anthropic = await FakeAnthropic.start();
    // The key in the file can use the model in the file (the fake refuses others, as the API does).
    anthropic.models = ['claude-from-file'];
    const discord = await FakeDiscord.start();
    try {
      const owner = discord.addUser(user('owner'));
      const settings: [string, string][] = [
        ['discord.token', 'test-token'],
        ['discord.owner_id', owner.id],
        ['discord.api_url', discord.apiUrl],
        ['anthropic.api_key', 'test-key-from-the-file'],
        ['anthropic.base_url', anthropic.baseURL],
        ['anthropic.model', 'claude-from-file'],
        ['embedder.provider', 'none'],
      ];
      for (const [key, value] of settings) expect(config(['set', key, value]).status).toBe(0);
      const door = start(['discord']);
      await until(() => discord.identifies === 1, `the door to connect\n${door.out.stderr}`);
      expect(door.out.stderr).toContain('discord: model: anthropic claude-from-file');
      const dm = discord.dmChannel(owner.id);
      anthropic.reply('Hello from the file.');
      discord.sendMessage(owner, dm, 'hello');
      await discord.waitFor(() => discord.posted(dm).length === 1, 20_000, 'the reply');
      expect(discord.posted(dm).map((m) => m.content)).toEqual(['Hello from the file.']);
      expect(anthropic.requests[0]?.headers.authorization).toBe('Bearer test-key-from-the-file');
      door.child.kill('SIGTERM');
      expect(await door.exited).toBe(0);
      expect(anthropic.errors).toEqual([]);
      expect(discord.errors).toEqual([]);
    } finally {
      await discord.close();
      await anthropic.close();
    }
  });
});
