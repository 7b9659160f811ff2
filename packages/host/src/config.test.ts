import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { DEFAULT_ANTHROPIC_BASE_URL, DEFAULT_ANTHROPIC_MODEL } from '@keel/agent';
import { KeelError } from '@keel/errors';
import { DEFAULT_GATE_MODEL } from '@keel/gate';
import { DEFAULT_HF_ENDPOINT, DEFAULT_OLLAMA_HOST } from '@keel/memory';
import { describe, expect, it } from 'vitest';
import {
  DEFAULTS,
  discordDoor,
  loadConfig,
  machineZone,
  normalizeOllamaHost,
  SECRET_SETTINGS,
  SETTING_NAMES,
} from './config.js';

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

/** A good value for every variable (what `reads every variable` sets). */
const GOOD = {
  KEEL_HOME: '/srv/keel',
  KEEL_CHAT_PROVIDER: 'Ollama',
  ANTHROPIC_API_KEY: 'sk-ant-test',
  ANTHROPIC_BASE_URL: 'http://127.0.0.1:9999',
  KEEL_MODEL: 'claude-test',
  OPENAI_API_KEY: 'sk-proj-test',
  OPENAI_BASE_URL: 'http://127.0.0.1:1234/v1',
  KEEL_OPENAI_MODEL: 'meta-llama/llama-3.1-8b-instruct:free',
  KEEL_OPENAI_MAX_TOKENS_PARAM: 'MAX_COMPLETION_TOKENS',
  OLLAMA_HOST: 'gpu-box:11434',
  KEEL_OLLAMA_CHAT_MODEL: 'qwen3:8b',
  KEEL_MAX_TOKENS: '4096',
  KEEL_CONTEXT_TOKENS: '100000',
  KEEL_STALL_TIMEOUT_MS: '1500',
  KEEL_EMBEDDER: 'MINILM',
  KEEL_OLLAMA_EMBED_MODEL: 'mxbai-embed-large',
  KEEL_HF_ENDPOINT: 'https://hf-mirror.example',
  DISCORD_TOKEN: 'bot.token.value',
  KEEL_DISCORD_OWNER_ID: '123456789012345678',
  KEEL_DISCORD_API_URL: 'http://127.0.0.1:8888/api',
  KEEL_DISCORD_GRACE_MS: '500',
  KEEL_GATE_MODEL: 'qwen3:1.7b',
  KEEL_THINK_INTERVAL_MIN: ' 5 ',
  KEEL_QUIET_HOURS: '23-7',
  KEEL_TZ: 'Europe/Berlin',
  KEEL_CURATE_AT: '0',
  KEEL_LOG_MAX_MB: '25',
  KEEL_LOG_KEEP: '5',
  KEEL_TOOLS: 'Shell, read_file,read_file',
  KEEL_TOOL_POLICIES: 'shell=deny, fetch_url=ALLOW,mcp:files/read=allow',
  KEEL_WORKSPACE: 'work',
  KEEL_TOOL_ROOTS: '/srv/notes:~/code',
  KEEL_SHELL_TIMEOUT_S: '30',
  KEEL_FETCH_PRIVATE: 'yes',
  KEEL_APPROVAL_TIMEOUT_S: '45',
  KEEL_MCP_CONFIG: '/etc/keel/mcp.json',
  KEEL_PARENT_PID: '4242',
};

describe('loadConfig', () => {
  it('uses the documented defaults for an empty environment', () => {
    expect(loadConfig({})).toEqual({
      home: join(homedir(), '.keel'),
      paths: {
        db: join(homedir(), '.keel', 'keel.db'),
        models: join(homedir(), '.keel', 'models'),
      },
      chat: {
        provider: null,
        anthropicApiKey: null,
        anthropicBaseUrl: DEFAULT_ANTHROPIC_BASE_URL,
        model: DEFAULT_ANTHROPIC_MODEL,
        openaiApiKey: null,
        openaiBaseUrl: 'https://api.openai.com/v1',
        openaiModel: 'gpt-4o-mini',
        openaiMaxTokensParam: null,
        ollamaHost: DEFAULT_OLLAMA_HOST,
        ollamaModel: 'llama3.1',
        maxTokens: null,
        contextTokens: null,
        stallTimeoutMs: 30_000,
      },
      embedder: {
        choice: 'auto',
        ollamaHost: DEFAULT_OLLAMA_HOST,
        ollamaModel: 'nomic-embed-text',
        hfEndpoint: DEFAULT_HF_ENDPOINT,
      },
      discord: { token: null, ownerId: null, apiUrl: null, graceMs: 15_000 },
      think: {
        intervalMin: 15,
        quietHours: null,
        tz: machineZone(),
        curateAt: 3,
        ollamaHost: DEFAULT_OLLAMA_HOST,
        gateModel: DEFAULT_GATE_MODEL,
      },
      logs: { maxBytes: 10 * 1024 * 1024, keep: 3 },
      tools: {
        enabled: ['shell', 'read_file', 'write_file', 'list_files', 'fetch_url', 'remind'],
        policies: {},
        workspace: join(homedir(), '.keel', 'workspace'),
        roots: [join(homedir(), '.keel', 'workspace')],
        shellTimeoutMs: 60_000,
        fetchPrivate: false,
        approvalTimeoutMs: 120_000,
        mcpConfig: join(homedir(), '.keel', 'mcp.json'),
      },
      process: { parentPid: null },
    });
    expect(DEFAULT_OLLAMA_HOST).toBe('http://127.0.0.1:11434');
    expect(DEFAULTS.home).toBe('~/.keel');
    expect(DEFAULT_GATE_MODEL.length).toBeGreaterThan(0);
  });

  it('treats empty and blank values as unset', () => {
    const blank = Object.fromEntries(SETTING_NAMES.map((name, i) => [name, i % 2 ? '' : '  ']));
    expect(loadConfig(blank)).toEqual(loadConfig({}));
  });

  it('reads every variable, and a set variable beats its default', () => {
    const c = loadConfig(GOOD);
    expect(c).toEqual({
      home: '/srv/keel',
      paths: { db: '/srv/keel/keel.db', models: '/srv/keel/models' },
      chat: {
        provider: 'ollama',
        anthropicApiKey: 'sk-ant-test',
        anthropicBaseUrl: 'http://127.0.0.1:9999',
        model: 'claude-test',
        openaiApiKey: 'sk-proj-test',
        openaiBaseUrl: 'http://127.0.0.1:1234/v1',
        openaiModel: 'meta-llama/llama-3.1-8b-instruct:free',
        openaiMaxTokensParam: 'max_completion_tokens',
        ollamaHost: 'http://gpu-box:11434',
        ollamaModel: 'qwen3:8b',
        maxTokens: 4096,
        contextTokens: 100_000,
        stallTimeoutMs: 1500,
      },
      embedder: {
        choice: 'minilm',
        ollamaHost: 'http://gpu-box:11434',
        ollamaModel: 'mxbai-embed-large',
        hfEndpoint: 'https://hf-mirror.example',
      },
      discord: {
        token: 'bot.token.value',
        ownerId: '123456789012345678',
        apiUrl: 'http://127.0.0.1:8888/api',
        graceMs: 500,
      },
      think: {
        intervalMin: 5,
        quietHours: { start: 23, end: 7 },
        tz: 'Europe/Berlin',
        curateAt: 0,
        ollamaHost: 'http://gpu-box:11434',
        gateModel: 'qwen3:1.7b',
      },
      logs: { maxBytes: 25 * 1024 * 1024, keep: 5 },
      tools: {
        enabled: ['shell', 'read_file'],
        policies: { shell: 'deny', fetch_url: 'allow', 'mcp:files/read': 'allow' },
        workspace: '/srv/keel/work',
        roots: ['/srv/keel/work', '/srv/notes', join(homedir(), 'code')],
        shellTimeoutMs: 30_000,
        fetchPrivate: true,
        approvalTimeoutMs: 45_000,
        mcpConfig: '/etc/keel/mcp.json',
      },
      process: { parentPid: 4242 },
    });
    expect(
      loadConfig({ KEEL_THINK_INTERVAL_MIN: '1440', KEEL_CURATE_AT: '23' }).think,
    ).toMatchObject({ intervalMin: 1440, curateAt: 23 });
    // every group sees the one OLLAMA_HOST
    expect(loadConfig({ OLLAMA_HOST: 'https://ollama.example:443' }).think.ollamaHost).toBe(
      'https://ollama.example:443',
    );
  });

  it('resolves KEEL_HOME: ~ is the home folder, a relative path is made absolute', () => {
    expect(loadConfig({ KEEL_HOME: '~' }).home).toBe(homedir());
    expect(loadConfig({ KEEL_HOME: '~/keel-data' }).home).toBe(join(homedir(), 'keel-data'));
    expect(loadConfig({ KEEL_HOME: 'rel/keel' }).home).toBe(resolve('rel/keel'));
    // a ~ that is not the first character is an ordinary name
    expect(loadConfig({ KEEL_HOME: '/x/~keel' }).home).toBe('/x/~keel');
  });

  it('normalises OLLAMA_HOST once: a scheme in any case, host:port gets http://', () => {
    expect(normalizeOllamaHost('127.0.0.1:11434')).toBe('http://127.0.0.1:11434');
    expect(normalizeOllamaHost('HTTP://Box:1')).toBe('http://Box:1');
    expect(normalizeOllamaHost('Https://box')).toBe('https://box');
    expect(normalizeOllamaHost('localhost')).toBe('http://localhost');
    expect(normalizeOllamaHost('http://exa mple')).toBeNull();
    expect(normalizeOllamaHost('http://')).toBeNull();
    const c = loadConfig({ OLLAMA_HOST: 'HTTP://gpu:11434' });
    expect([c.chat.ollamaHost, c.embedder.ollamaHost, c.think.ollamaHost]).toEqual(
      Array(3).fill('http://gpu:11434'),
    );
  });

  it('takes settings from the config file beneath the environment', () => {
    const file = { KEEL_TZ: 'Asia/Tokyo', KEEL_CURATE_AT: '4', KEEL_MODEL: 'from-file' };
    const c = loadConfig({ KEEL_CURATE_AT: '5', KEEL_MODEL: ' ' }, { file });
    expect(c.think).toMatchObject({ tz: 'Asia/Tokyo', curateAt: 5 });
    expect(c.chat.model).toBe('from-file'); // a blank variable does not hide the file's value
    const err = thrown(() => loadConfig({}, { file: { KEEL_TZ: 'Nowhere/Else' } }));
    expect(err.code).toBe('CONFIG_INVALID');
    expect(err.message).toContain('KEEL_TZ "Nowhere/Else" (in the config file)');
  });

  // One bad value per variable; `hint` is part of the expected form the message gives.
  it.each([
    ['KEEL_HOME', '/home/x\u0007keel', 'folder path'],
    ['KEEL_CHAT_PROVIDER', 'claude', 'anthropic, openai, ollama or offline'],
    ['ANTHROPIC_API_KEY', 'sk-ant one', 'the API key in one piece'],
    ['ANTHROPIC_BASE_URL', 'api.anthropic.com', 'http(s) address'],
    ['KEEL_MODEL', 'claude sonnet', 'model name without spaces'],
    ['OPENAI_API_KEY', 'sk-proj one', 'the API key in one piece'],
    ['OPENAI_BASE_URL', 'localhost:1234/v1', 'http(s) address'],
    ['KEEL_OPENAI_MODEL', 'gpt 4o', 'model name without spaces'],
    ['KEEL_OPENAI_MAX_TOKENS_PARAM', 'max_output_tokens', 'max_tokens or max_completion_tokens'],
    ['OLLAMA_HOST', 'http://exa mple', 'e.g. http://127.0.0.1:11434'],
    ['KEEL_OLLAMA_CHAT_MODEL', 'llama 3', 'model name without spaces'],
    ['KEEL_MAX_TOKENS', '8k', 'from 64 to 128000'],
    ['KEEL_MAX_TOKENS', '0', 'from 64 to 128000'],
    ['KEEL_MAX_TOKENS', '200000', 'from 64 to 128000'],
    ['KEEL_CONTEXT_TOKENS', '200k', 'from 4096 to 2000000'],
    ['KEEL_CONTEXT_TOKENS', '1024', 'from 4096 to 2000000'],
    ['KEEL_STALL_TIMEOUT_MS', '30s', 'from 1000 to 600000'],
    ['KEEL_STALL_TIMEOUT_MS', '0', 'from 1000 to 600000'],
    ['KEEL_EMBEDDER', 'bert', 'auto, minilm, ollama, none'],
    ['KEEL_OLLAMA_EMBED_MODEL', 'nomic embed', 'model name without spaces'],
    ['KEEL_HF_ENDPOINT', 'ftp://mirror.example', 'http(s) address'],
    ['DISCORD_TOKEN', 'abc def', 'the bot token in one piece'],
    ['KEEL_DISCORD_OWNER_ID', '@owner', 'Discord user id'],
    ['KEEL_DISCORD_API_URL', 'discord.com/api', 'http(s) address'],
    ['KEEL_DISCORD_GRACE_MS', '15s', 'from 0 to 3600000'],
    ['KEEL_GATE_MODEL', 'qwen 2.5', 'model name without spaces'],
    ['KEEL_THINK_INTERVAL_MIN', '0', 'from 1 to 1440'],
    ['KEEL_THINK_INTERVAL_MIN', '-5', 'from 1 to 1440'],
    ['KEEL_THINK_INTERVAL_MIN', '2.5', 'from 1 to 1440'],
    ['KEEL_THINK_INTERVAL_MIN', '15m', 'from 1 to 1440'],
    ['KEEL_THINK_INTERVAL_MIN', '1441', 'from 1 to 1440'],
    ['KEEL_QUIET_HOURS', '23', 'START-END'],
    ['KEEL_QUIET_HOURS', '7-7', 'START-END'],
    ['KEEL_QUIET_HOURS', '22-25', 'START-END'],
    ['KEEL_TZ', 'Mars/Olympus', 'IANA'],
    ['KEEL_CURATE_AT', '24', 'from 0 to 23'],
    ['KEEL_CURATE_AT', '3am', 'from 0 to 23'],
    ['KEEL_LOG_MAX_MB', '10MB', 'from 1 to 1024'],
    ['KEEL_LOG_MAX_MB', '0', 'from 1 to 1024'],
    ['KEEL_LOG_KEEP', '0', 'from 1 to 20'],
    ['KEEL_LOG_KEEP', '21', 'from 1 to 20'],
    ['KEEL_TOOLS', 'shell,browser', 'built-in tools separated by commas'],
    ['KEEL_TOOL_POLICIES', 'shell=maybe', 'name=allow|ask|deny'],
    ['KEEL_TOOL_POLICIES', 'shell', 'name=allow|ask|deny'],
    ['KEEL_WORKSPACE', '/srv/\u0007work', 'folder path'],
    ['KEEL_TOOL_ROOTS', ':', 'separated by colons'],
    ['KEEL_SHELL_TIMEOUT_S', '0', 'from 1 to 3600'],
    ['KEEL_FETCH_PRIVATE', 'true', 'yes or no'],
    ['KEEL_APPROVAL_TIMEOUT_S', '2', 'from 5 to 3600'],
    ['KEEL_MCP_CONFIG', 'a\u0000b', 'file path'],
    ['KEEL_PARENT_PID', 'keel', 'process id'],
  ])(
    'refuses %s=%j with CONFIG_INVALID naming the variable, the value and the form',
    (name, value, hint) => {
      // Control: the good value of the same variable loads.
      expect(() => loadConfig({ [name]: GOOD[name as keyof typeof GOOD] })).not.toThrow();
      const err = thrown(() => loadConfig({ ...GOOD, [name]: value }));
      expect(err.code).toBe('CONFIG_INVALID');
      expect(err.fix).toContain('environment variable');
      expect(err.message).toContain(name);
      expect(err.message).toContain(hint);
      if (SECRET_SETTINGS.has(name as never)) {
        // a secret is never printed, only its length
        expect(err.message).not.toContain(value);
        expect(err.message).toContain(`(${value.length} characters, not shown)`);
      } else {
        expect(err.message).toContain(`"${value.trim()}"`);
      }
    },
  );

  it('has a bad-value case above for every variable it reads', () => {
    // Kept in step with the table: a new variable needs a row there.
    expect(SETTING_NAMES).toHaveLength(37);
    expect(new Set(SETTING_NAMES)).toEqual(new Set(Object.keys(GOOD)));
  });

  it('refuses KEEL_MAX_TOKENS above a quarter of KEEL_CONTEXT_TOKENS, naming both', () => {
    expect(
      loadConfig({ KEEL_MAX_TOKENS: '8000', KEEL_CONTEXT_TOKENS: '32000' }).chat,
    ).toMatchObject({ maxTokens: 8000, contextTokens: 32_000 });
    const err = thrown(() => loadConfig({ KEEL_MAX_TOKENS: '8001', KEEL_CONTEXT_TOKENS: '32000' }));
    expect(err.code).toBe('CONFIG_INVALID');
    expect(err.message).toContain('KEEL_MAX_TOKENS "8001"');
    expect(err.message).toContain('KEEL_CONTEXT_TOKENS "32000"');
    expect(err.details).toEqual({ variables: ['KEEL_MAX_TOKENS', 'KEEL_CONTEXT_TOKENS'] });
  });

  it('names every bad variable at once', () => {
    const err = thrown(() => loadConfig({ KEEL_TZ: 'Mars/Olympus', KEEL_CURATE_AT: '99' }));
    expect(err.message).toContain('KEEL_TZ "Mars/Olympus"');
    expect(err.message).toContain('KEEL_CURATE_AT "99"');
    expect(err.details).toEqual({ variables: ['KEEL_TZ', 'KEEL_CURATE_AT'] });
  });

  it('ignores variables it does not know', () => {
    expect(loadConfig({ KEEL_SOMETHING_ELSE: 'x', PATH: '/bin' })).toEqual(loadConfig({}));
  });
});

describe('discordDoor', () => {
  it('fails closed without an owner id or a token, with CONFIG_INVALID naming the variable', () => {
    const noOwner = thrown(() => discordDoor(loadConfig({ DISCORD_TOKEN: 't' })));
    expect(noOwner.code).toBe('CONFIG_INVALID');
    expect(noOwner.message).toContain('KEEL_DISCORD_OWNER_ID is not set');
    expect(noOwner.message).toContain('fail closed');
    const noToken = thrown(() =>
      discordDoor(loadConfig({ KEEL_DISCORD_OWNER_ID: '123456789012345678' })),
    );
    expect(noToken.code).toBe('CONFIG_INVALID');
    expect(noToken.message).toContain('DISCORD_TOKEN is not set');
    // Control: with both it has what the door needs.
    expect(
      discordDoor(loadConfig({ DISCORD_TOKEN: 't', KEEL_DISCORD_OWNER_ID: '123456789012345678' })),
    ).toEqual({ token: 't', ownerId: '123456789012345678', graceMs: 15_000 });
  });
});
