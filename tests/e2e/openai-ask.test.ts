/**
 * `keel ask` with the OpenAI-compatible provider, as real OS processes talking to a fake
 * OpenAI-compatible server on 127.0.0.1 through the real `openai` client; and that the client is
 * loaded only when that provider answers a turn (a module-resolve hook logs what is loaded).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { MemoryStore } from '@keel/memory';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CLI, tempHome } from '../support/cli.js';
import { FakeOpenAI } from '../support/fake-openai.js';

let fake: FakeOpenAI;
let home: string;
let cleanup: () => void;

beforeAll(async () => {
  fake = await FakeOpenAI.start();
});
afterAll(async () => {
  await fake.close();
});
beforeEach(() => {
  fake.reset();
  ({ home, cleanup } = tempHome());
});
afterEach(() => {
  cleanup();
  expect(fake.errors).toEqual([]);
});

function env(extra: Record<string, string>) {
  return {
    ...process.env,
    KEEL_HOME: home,
    ANTHROPIC_API_KEY: '',
    OPENAI_API_KEY: '',
    KEEL_CHAT_PROVIDER: 'openai',
    OPENAI_BASE_URL: fake.baseURL,
    KEEL_OPENAI_MODEL: 'gpt-test',
    ...extra,
  };
}

/** Runs `keel <args>` without blocking this process's event loop (the fake answers from it). */
function run(
  args: string[],
  extra: Record<string, string> = {},
  nodeArgs: string[] = [],
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...nodeArgs, CLI, ...args], { env: env(extra) });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.on('exit', (status) => resolve({ status, stdout, stderr }));
  });
}

async function ask(message: string, extra: Record<string, string> = {}) {
  const r = await run(['ask', message, '--json'], extra);
  return { ...r, json: () => JSON.parse(r.stdout) };
}

describe('keel ask with KEEL_CHAT_PROVIDER=openai', () => {
  it('answers through a local OpenAI-compatible server that needs no key', async () => {
    fake.reply('Hello from an OpenAI-compatible server.');
    const r = await ask('hello');
    expect(r.status, r.stderr).toBe(0);
    expect(r.json()).toMatchObject({
      reply: 'Hello from an OpenAI-compatible server.',
      provider: 'openai',
      model: 'gpt-test',
      facts_used: [],
    });
    const [sent] = fake.completions;
    expect(sent?.headers).not.toHaveProperty('authorization');
    expect(sent?.body).toMatchObject({
      model: 'gpt-test',
      stream: true,
      max_tokens: expect.any(Number),
    });
    expect(sent?.body.messages[0].role).toBe('system');
    // The turn's recall block and the owner's words, joined into one user message.
    expect(sent?.body.messages.at(-1)).toEqual({
      role: 'user',
      content: expect.stringMatching(/^Recalled for this message[\s\S]*\n\nhello$/),
    });
    expect(sent?.body.tools.map((t: { function: { name: string } }) => t.function.name)).toContain(
      'recall',
    );
  });

  it('runs a memory tool round trip: the recall call, its result as a tool message, the answer', async () => {
    const store = MemoryStore.open(join(home, 'keel.db'));
    const tea = store.remember({
      kind: 'preference',
      key: 'tea',
      value: 'black tea, no sugar',
      source: 'owner_stated',
    }).fact!;
    store.close();
    fake.reply('', {
      toolCalls: [{ id: 'call_tea', name: 'recall', arguments: { query: 'tea' } }],
    });
    fake.reply('Black tea, no sugar.');
    const r = await ask('what tea do I drink?', {
      KEEL_OPENAI_MAX_TOKENS_PARAM: 'max_completion_tokens',
    });
    expect(r.status, r.stderr).toBe(0);
    expect(r.json()).toMatchObject({ reply: 'Black tea, no sugar.', provider: 'openai' });
    expect(r.json().facts_used).toContain(tea.id);
    expect(fake.completions).toHaveLength(2);
    const second = fake.completions[1]?.body;
    expect(second).toHaveProperty('max_completion_tokens');
    expect(second).not.toHaveProperty('max_tokens');
    const toolMessage = second.messages.find((m: { role: string }) => m.role === 'tool');
    expect(toolMessage.tool_call_id).toBe('call_tea');
    expect(toolMessage.content).toContain('black tea, no sugar');
  });

  it('is chosen by OPENAI_API_KEY alone, which it sends as a bearer token', async () => {
    fake.reply('Chosen by the key.');
    const r = await ask('hello', { KEEL_CHAT_PROVIDER: '', OPENAI_API_KEY: 'sk-test-key' });
    expect(r.status, r.stderr).toBe(0);
    expect(r.json()).toMatchObject({ reply: 'Chosen by the key.', provider: 'openai' });
    expect(fake.completions[0]?.headers.authorization).toBe('Bearer sk-test-key');
  });

  it('a rejected key is MODEL_AUTH after one request', async () => {
    fake.push({ kind: 'http_error', status: 401, message: 'Incorrect API key provided: sk-bad.' });
    const r = await ask('hello', { OPENAI_API_KEY: 'sk-bad' });
    expect(r.status).not.toBe(0);
    expect(r.json().error).toMatchObject({
      code: 'MODEL_AUTH',
      message: expect.stringContaining('Incorrect API key'),
      fix: expect.stringContaining('OPENAI_API_KEY'),
    });
    expect(fake.completions).toHaveLength(1);
  });

  it('a bad OPENAI_BASE_URL is CONFIG_INVALID naming it', async () => {
    const r = await ask('hello', { OPENAI_BASE_URL: 'localhost:1234/v1' });
    expect(r.status).toBe(2);
    expect(r.json().error).toMatchObject({
      code: 'CONFIG_INVALID',
      message: expect.stringContaining('OPENAI_BASE_URL "localhost:1234/v1"'),
    });
    expect(fake.requests).toHaveLength(0);
  });
});

describe('the openai client is loaded only when its provider answers', () => {
  let hooks: string;
  let log: string;

  beforeAll(() => {
    hooks = mkdtempSync(join(tmpdir(), 'keel-hooks-'));
    log = join(hooks, 'loaded.log');
    writeFileSync(
      join(hooks, 'hooks.mjs'),
      `import { appendFileSync } from 'node:fs';
let log;
export function initialize(data) { log = data.log; }
export async function load(url, context, next) {
  const result = await next(url, context);
  appendFileSync(log, url + '\\n');
  return result;
}
`,
    );
    writeFileSync(
      join(hooks, 'register.mjs'),
      `import { register } from 'node:module';
register(${JSON.stringify(pathToFileURL(join(hooks, 'hooks.mjs')).href)}, { data: { log: ${JSON.stringify(log)} } });
`,
    );
  });
  afterAll(() => {
    rmSync(hooks, { recursive: true, force: true });
  });

  /**
   * The modules of the `openai` client a `keel <args>` run loaded: its files in node_modules, or
   * the bundle's chunks that hold it (the client sends its `OpenAI-Organization` header).
   */
  async function loaded(args: string[], extra: Record<string, string>) {
    writeFileSync(log, '');
    const r = await run(args, extra, ['--import', pathToFileURL(join(hooks, 'register.mjs')).href]);
    const modules = readFileSync(log, 'utf8')
      .split('\n')
      .filter((url) => url.startsWith('file:'))
      .filter(
        (url) =>
          url.includes('/node_modules/openai/') ||
          readFileSync(fileURLToPath(url), 'utf8').includes('OpenAI-Organization'),
      );
    return { ...r, modules };
  }

  it('not by keel --help, nor by a turn of another provider; by a turn of its own', async () => {
    const help = await loaded(['--help'], {});
    expect(help.status, help.stderr).toBe(0);
    expect(help.modules).toEqual([]);

    const offline = await loaded(['ask', 'hello', '--json'], {
      KEEL_CHAT_PROVIDER: 'offline',
    });
    expect(offline.status, offline.stderr).toBe(0);
    expect(offline.modules).toEqual([]);

    fake.reply('loaded now');
    const own = await loaded(['ask', 'hello', '--json'], {});
    expect(own.status, own.stderr).toBe(0);
    expect(JSON.parse(own.stdout).reply).toBe('loaded now');
    expect(own.modules.length).toBeGreaterThan(0);
  });
});
