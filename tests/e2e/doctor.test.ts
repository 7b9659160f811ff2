/**
 * `keel doctor`'s live checks, as real processes against the fake Anthropic, OpenAI, Ollama and
 * Discord servers on 127.0.0.1 through the real clients: a key that works passes, a wrong one
 * fails with MODEL_AUTH and exit 1, a missing Ollama model names its `ollama pull`, a bad bot
 * token fails with DISCORD_AUTH, and `--offline` asks nothing of the network.
 */

import { mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { acquireServiceLock, loadConfig, runChecks, serviceLockPath } from '@keel/host';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { keelAsync, runCli, tempHome } from '../support/cli.js';
import { FakeAnthropic } from '../support/fake-anthropic.js';
import { FakeDiscord, user } from '../support/fake-discord.js';
import { refusedPort } from '../support/fake-hub.js';
import { startFakeOllama } from '../support/fake-ollama.js';
import { FakeOpenAI } from '../support/fake-openai.js';

interface Check {
  name: string;
  ok: boolean;
  status: 'ok' | 'warn' | 'fail' | 'skip';
  detail: string;
  code: string | null;
  fix: string | null;
  duration_ms: number;
}
interface Doctor {
  ok: boolean;
  live: boolean;
  checks: Check[];
}

let anthropic: FakeAnthropic;
let openai: FakeOpenAI;
let home: string;
let cleanup: () => void;
/** No Ollama: a port nothing listens on. */
let noOllama: string;
const closers: (() => Promise<void>)[] = [];

beforeAll(async () => {
  anthropic = await FakeAnthropic.start();
  openai = await FakeOpenAI.start();
  noOllama = `http://127.0.0.1:${await refusedPort()}`;
});
afterAll(async () => {
  await anthropic.close();
  await openai.close();
});
beforeEach(() => {
  anthropic.reset();
  openai.reset();
  ({ home, cleanup } = tempHome());
});
afterEach(async () => {
  while (closers.length) await closers.pop()!();
  cleanup();
  expect(anthropic.errors).toEqual([]);
  expect(openai.errors).toEqual([]);
});

/** `keel doctor --json` (plus `args`) with `env`; the parsed report and the exit code. */
async function doctor(env: Record<string, string>, args: string[] = []) {
  const r = await keelAsync(home, ['doctor', '--json', ...args], {
    KEEL_EMBEDDER: 'none',
    OLLAMA_HOST: noOllama,
    ...env,
  });
  const report = r.json<Doctor>();
  const check = (name: string) => {
    const c = report.checks.find((x) => x.name === name);
    if (!c) throw new Error(`no check ${name}`);
    return c;
  };
  return { status: r.status, stderr: r.stderr, report, check };
}

const anthropicEnv = (key: string, extra: Record<string, string> = {}) => ({
  ANTHROPIC_API_KEY: key,
  ANTHROPIC_BASE_URL: anthropic.baseURL,
  ...extra,
});

describe('keel doctor checks the model', () => {
  it('an Anthropic key that works passes; a wrong one fails with MODEL_AUTH and exit 1', async () => {
    anthropic.apiKey = 'sk-ant-right';
    const good = await doctor(anthropicEnv('sk-ant-right'));
    expect(good.status, good.stderr).toBe(0);
    expect(good.report.ok).toBe(true);
    expect(good.check('model')).toMatchObject({
      ok: true,
      status: 'ok',
      code: null,
      detail: expect.stringContaining('claude-sonnet-4-6'),
    });
    // One cheap request: the model lookup, nothing generated.
    expect(anthropic.requests.map((q) => `${q.method} ${q.path}`)).toEqual([
      'GET /v1/models/claude-sonnet-4-6',
    ]);
    const sent = anthropic.requests[0]!.headers;
    expect(sent['x-api-key'] ?? sent.authorization).toMatch(/^(Bearer )?sk-ant-right$/);

    const bad = await doctor(anthropicEnv('sk-ant-wrong'));
    expect(bad.status).toBe(1);
    expect(bad.report.ok).toBe(false);
    expect(bad.check('model')).toMatchObject({
      ok: false,
      status: 'fail',
      code: 'MODEL_AUTH',
      fix: expect.stringContaining('ANTHROPIC_API_KEY'),
    });

    // The text report prints the problem with its code and fix, and the model line says so.
    const text = await keelAsync(home, ['doctor'], {
      ...anthropicEnv('sk-ant-wrong'),
      KEEL_EMBEDDER: 'none',
      OLLAMA_HOST: noOllama,
    });
    expect(text.status).toBe(1);
    expect(text.stdout).toMatch(/^model .*ANTHROPIC_API_KEY is set.*FAILED: MODEL_AUTH/m);
    expect(text.stdout).toMatch(/^ {2}fail {2}model .*401/m);
    expect(text.stdout).toMatch(/^ +error MODEL_AUTH$/m);
    expect(text.stdout).toMatch(/^ +fix: Set ANTHROPIC_API_KEY/m);
  });

  it('a model the key cannot use fails with MODEL_NOT_FOUND', async () => {
    const r = await doctor(anthropicEnv('k', { KEEL_MODEL: 'claude-nonexistent' }));
    expect(r.status).toBe(1);
    expect(r.check('model')).toMatchObject({
      code: 'MODEL_NOT_FOUND',
      fix: expect.stringContaining('`keel config set anthropic.model <model>`'),
    });
  });

  it('nothing answering at the base URL fails with MODEL_UNAVAILABLE', async () => {
    const r = await doctor({ ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: noOllama });
    expect(r.status).toBe(1);
    expect(r.check('model')).toMatchObject({ status: 'fail', code: 'MODEL_UNAVAILABLE' });
  });

  it('an OpenAI-compatible server: its model list proves the key; a wrong key is MODEL_AUTH', async () => {
    openai.apiKey = 'sk-right';
    openai.models.add('gpt-test');
    const env = (key: string) => ({
      OPENAI_API_KEY: key,
      OPENAI_BASE_URL: openai.baseURL,
      KEEL_OPENAI_MODEL: 'gpt-test',
    });
    const good = await doctor(env('sk-right'));
    expect(good.status, good.stderr).toBe(0);
    expect(good.check('model')).toMatchObject({
      status: 'ok',
      detail: expect.stringContaining('gpt-test'),
    });
    expect(openai.requests.map((q) => `${q.method} ${q.path}`)).toEqual(['GET /v1/models']);
    const bad = await doctor(env('sk-wrong'));
    expect(bad.status).toBe(1);
    expect(bad.check('model')).toMatchObject({
      code: 'MODEL_AUTH',
      fix: expect.stringContaining('OPENAI_API_KEY'),
    });
    // A server that does not list the model may still serve it: a warning, not a failure.
    const unlisted = await doctor({ ...env('sk-right'), KEEL_OPENAI_MODEL: 'other-model' });
    expect(unlisted.status).toBe(0);
    expect(unlisted.check('model')).toMatchObject({ status: 'warn', code: 'MODEL_NOT_FOUND' });
  });

  it('--offline asks nothing of the network, and a wrong key then goes unseen', async () => {
    anthropic.apiKey = 'sk-ant-right';
    const r = await doctor(anthropicEnv('sk-ant-wrong'), ['--offline']);
    expect(r.status).toBe(0);
    expect(r.report.live).toBe(false);
    expect(r.check('model')).toMatchObject({
      status: 'skip',
      detail: expect.stringContaining('--offline'),
    });
    expect(anthropic.requests).toEqual([]);
    // --no-live says the same.
    expect((await doctor(anthropicEnv('sk-ant-wrong'), ['--no-live'])).status).toBe(0);
  });

  it('offline by choice: nothing to check, and doctor passes', async () => {
    const r = await doctor({ KEEL_CHAT_PROVIDER: 'offline' });
    expect(r.status).toBe(0);
    expect(r.check('model').status).toBe('skip');
    expect(r.check('gate_model').status).toBe('skip');
    expect(r.check('think_service')).toMatchObject({ status: 'warn', code: 'SERVICE_DOWN' });
  });
});

describe('keel doctor checks Ollama', () => {
  const ollamaEnv = (url: string) => ({ KEEL_CHAT_PROVIDER: 'ollama', OLLAMA_HOST: url });

  it('with the chat and gate models pulled it passes; a missing gate model names its pull', async () => {
    const full = await startFakeOllama({ models: ['llama3.1:latest', 'qwen2.5:3b'] });
    closers.push(() => full.close());
    const good = await doctor(ollamaEnv(full.url));
    expect(good.status, good.stderr).toBe(0);
    expect(good.check('model')).toMatchObject({ status: 'ok' });
    expect(good.check('gate_model')).toMatchObject({ status: 'ok' });

    const noGate = await startFakeOllama({ models: ['llama3.1:latest'] });
    closers.push(() => noGate.close());
    const r = await doctor(ollamaEnv(noGate.url));
    expect(r.status).toBe(1);
    expect(r.check('model').status).toBe('ok');
    expect(r.check('gate_model')).toMatchObject({
      status: 'fail',
      code: 'MODEL_NOT_FOUND',
      fix: 'ollama pull qwen2.5:3b',
      detail: expect.stringContaining('(ollama.gate_model)'),
    });
  });

  it('a missing chat model names its pull; Ollama not running is MODEL_UNAVAILABLE', async () => {
    const ollama = await startFakeOllama({ models: ['qwen2.5:3b'] });
    closers.push(() => ollama.close());
    const r = await doctor({ ...ollamaEnv(ollama.url), KEEL_OLLAMA_CHAT_MODEL: 'qwen2.5:7b' });
    expect(r.status).toBe(1);
    expect(r.check('model')).toMatchObject({
      code: 'MODEL_NOT_FOUND',
      fix: 'ollama pull qwen2.5:7b',
    });
    const down = await doctor(ollamaEnv(noOllama));
    expect(down.status).toBe(1);
    expect(down.check('model')).toMatchObject({
      code: 'MODEL_UNAVAILABLE',
      fix: expect.stringContaining('ollama serve'),
    });
  });

  it('Ollama for embeddings only: a missing gate model is a warning, not a failure', async () => {
    const ollama = await startFakeOllama({ models: ['nomic-embed-text:latest'] });
    closers.push(() => ollama.close());
    const r = await doctor({ KEEL_CHAT_PROVIDER: 'offline', OLLAMA_HOST: ollama.url });
    expect(r.status).toBe(0);
    expect(r.check('gate_model')).toMatchObject({ status: 'warn', fix: 'ollama pull qwen2.5:3b' });
  });
});

describe('keel doctor checks Discord', () => {
  let discord: FakeDiscord;
  beforeEach(async () => {
    discord = await FakeDiscord.start();
    discord.token = 'right-token';
  });
  afterEach(async () => {
    await discord.close();
    expect(discord.errors).toEqual([]);
  });
  const OWNER = '123456789012345678';
  const discordEnv = (token: string, owner?: string) => ({
    KEEL_CHAT_PROVIDER: 'offline',
    DISCORD_TOKEN: token,
    KEEL_DISCORD_API_URL: discord.apiUrl,
    ...(owner ? { KEEL_DISCORD_OWNER_ID: owner } : {}),
  });

  it('a token Discord takes, with an owner, passes; a bad token fails with DISCORD_AUTH', async () => {
    const good = await doctor(discordEnv('right-token', OWNER));
    expect(good.status, good.stderr).toBe(0);
    expect(good.check('discord_token')).toMatchObject({
      status: 'ok',
      detail: expect.stringContaining(discord.bot.id),
    });
    expect(good.check('discord_owner')).toMatchObject({ status: 'ok' });
    expect(good.check('discord_service')).toMatchObject({ status: 'warn', code: 'SERVICE_DOWN' });
    // One request: the application (its bot user and the settings that matter come with it).
    expect(discord.requests.map((q) => `${q.method} ${q.path}`)).toEqual([
      'GET /api/v10/applications/@me',
    ]);

    const bad = await doctor(discordEnv('wrong-token', OWNER));
    expect(bad.status).toBe(1);
    expect(bad.check('discord_token')).toMatchObject({
      status: 'fail',
      code: 'DISCORD_AUTH',
      fix: expect.stringContaining('DISCORD_TOKEN'),
    });
  });

  it('paired with no door running: doctor and the terminal say so with the fix; a running door: not', async () => {
    const userHome = join(home, 'user-home'); // no service installed in it
    mkdirSync(userHome);
    const env = { ...discordEnv('right-token', OWNER), HOME: userHome, XDG_CONFIG_HOME: '' };
    const silent = await doctor(env);
    expect(silent.status, silent.stderr).toBe(0); // a warning: nothing the owner installed fails
    expect(silent.check('discord_service')).toMatchObject({
      status: 'warn',
      code: 'SERVICE_DOWN',
      detail: expect.stringMatching(/^Discord is paired but the Discord door is not running/),
      fix: expect.stringMatching(/keel service install discord.*`keel discord` in a terminal/),
    });
    const text = await keelAsync(home, ['doctor'], {
      KEEL_EMBEDDER: 'none',
      OLLAMA_HOST: noOllama,
      ...env,
    });
    expect(text.stdout).toMatch(
      /warn +discord_service +Discord is paired but the Discord door is not running.*\n +error SERVICE_DOWN\n +fix: `keel service install discord`/,
    );
    // The terminal's first lines say it too.
    const terminal = await runCli(
      [],
      { ...process.env, KEEL_HOME: home, ANTHROPIC_API_KEY: '', OPENAI_API_KEY: '', ...env },
      '',
    );
    expect(terminal.stdout).toMatch(/note: Discord is paired but the Discord door is not running/);
    expect(terminal.stdout).toMatch(/fix: `keel service install discord`/);

    // Control: the door's lock held as the running door holds it: no warning anywhere.
    const lock = acquireServiceLock(serviceLockPath(home, 'discord'), 'discord', {
      releaseOnExit: false,
    });
    try {
      const running = await doctor(env);
      expect(running.check('discord_service')).toMatchObject({
        status: 'ok',
        detail: expect.stringContaining(`PID ${process.pid}`),
      });
      const quiet = await runCli(
        [],
        { ...process.env, KEEL_HOME: home, ANTHROPIC_API_KEY: '', OPENAI_API_KEY: '', ...env },
        '',
      );
      expect(quiet.stdout).toMatch(/data folder:/);
      expect(quiet.stdout).not.toMatch(/Discord door is not running/);
    } finally {
      lock.release();
    }
  });

  it('the Message Content intent off fails, naming where to turn it on; a required code grant warns', async () => {
    discord.application.flags = 0;
    discord.application.bot_require_code_grant = true;
    const off = await doctor(discordEnv('right-token', OWNER));
    expect(off.status).toBe(1);
    expect(off.check('discord_token')).toMatchObject({
      status: 'fail',
      code: 'DISCORD_AUTH',
      detail: expect.stringMatching(/Message Content intent is off.*Requires OAuth2 Code Grant/),
      fix: expect.stringContaining('Privileged Gateway Intents'),
    });
    // The intent on: the code grant alone is a warning, with its own fix.
    discord.application.flags = 1 << 19;
    const grant = await doctor(discordEnv('right-token', OWNER));
    expect(grant.check('discord_token')).toMatchObject({
      status: 'warn',
      detail: expect.stringContaining('the install link cannot add the bot'),
      fix: expect.stringContaining('Turn off Requires OAuth2 Code Grant'),
    });
    // Both fixed: ok (the control).
    discord.application.bot_require_code_grant = false;
    const fixed = await doctor(discordEnv('right-token', OWNER));
    expect(fixed.check('discord_token')).toMatchObject({ status: 'ok' });
  });

  it('a token without an owner fails with NOT_PAIRED, naming keel discord pair', async () => {
    const r = await doctor(discordEnv('right-token'));
    expect(r.status).toBe(1);
    expect(r.check('discord_token').status).toBe('ok');
    expect(r.check('discord_owner')).toMatchObject({
      code: 'NOT_PAIRED',
      fix: expect.stringContaining('keel discord pair'),
    });
  });

  it('a paired owner from a fake user id shape: the owner check reads the configuration', async () => {
    const owner = discord.addUser(user('owner'));
    const r = await doctor(discordEnv('right-token', owner.id));
    expect(r.check('discord_owner')).toMatchObject({ detail: expect.stringContaining(owner.id) });
  });
});

describe('every live check has a timeout', () => {
  it('a server that accepts and never answers fails the check in time, with the timeout named', async () => {
    const silent: Server = createServer(() => {}); // holds every connection, says nothing
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(silent.address() as { port: number }).port}`;
    try {
      const config = loadConfig({
        KEEL_HOME: home,
        ANTHROPIC_API_KEY: 'k',
        ANTHROPIC_BASE_URL: url,
        OLLAMA_HOST: url,
        DISCORD_TOKEN: 't',
        KEEL_DISCORD_OWNER_ID: '123456789012345678',
        KEEL_DISCORD_API_URL: `${url}/api`,
      });
      const started = Date.now();
      const results = await runChecks(config, { timeoutMs: 500 });
      expect(Date.now() - started).toBeLessThan(30_000); // in time: the server never answers
      const byName = Object.fromEntries(results.map((r) => [r.name, r]));
      expect(byName.model).toMatchObject({ status: 'fail', code: 'MODEL_TIMEOUT' });
      expect(byName.model!.detail).toContain('500 ms');
      expect(byName.discord_token).toMatchObject({ status: 'fail', code: 'DISCORD_UNAVAILABLE' });
      expect(byName.discord_token!.detail).toContain('500 ms');
      // The gate's Ollama is silent too: the pattern gate stands in (not the owner's chat model).
      expect(byName.gate_model).toMatchObject({ status: 'skip' });
      expect(byName.gate_model!.detail).toContain('500 ms');
    } finally {
      silent.close();
    }
  });
});
