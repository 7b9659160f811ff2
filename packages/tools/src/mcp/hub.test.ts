import { fileURLToPath } from 'node:url';
import type { MemoryStore } from '@keel/memory';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type McpHttpTestServer,
  startMcpHttpServer,
} from '../../../../tests/support/mcp-http-server.js';
import { DEFINITION, INSTRUCTION_TEXT } from '../../../../tests/support/mcp-tools.mjs';
import type { AnyTool, ToolContext, ToolResult } from '../contract.js';
import type { McpServerConfig } from './config.js';
import { McpHub, type McpHubOptions } from './hub.js';

const SERVER = fileURLToPath(new URL('../../../../tests/support/mcp-server.mjs', import.meta.url));

function stdioServer(name: string, extra: Partial<McpServerConfig> = {}): McpServerConfig {
  return {
    name,
    transport: 'stdio',
    command: process.execPath,
    args: [SERVER, name],
    env: {},
    disabled: false,
    ...extra,
  } as McpServerConfig;
}

function context(signal = new AbortController().signal): ToolContext {
  return {
    signal,
    store: undefined as unknown as MemoryStore,
    tz: 'UTC',
    now: Date.now,
    channel: 'cli',
  };
}

const hubs: McpHub[] = [];
const httpServers: McpHttpTestServer[] = [];
afterEach(async () => {
  await Promise.all(hubs.splice(0).map((hub) => hub.close()));
  await Promise.all(httpServers.splice(0).map((server) => server.close()));
});

async function startHub(options: McpHubOptions): Promise<McpHub> {
  const hub = new McpHub(options);
  hubs.push(hub);
  await hub.start();
  return hub;
}

function toolOf(hub: McpHub, name: string): AnyTool {
  const tool = hub.tools().find((t) => t.name === name);
  if (!tool) throw new Error(`no tool ${name} in ${hub.tools().map((t) => t.name)}`);
  return tool;
}

function call(hub: McpHub, name: string, input: Record<string, unknown>): Promise<ToolResult> {
  return toolOf(hub, name).execute(input, context());
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function pidOf(hub: McpHub, server: string): number {
  const pid = hub.status().find((s) => s.name === server)?.pid;
  if (typeof pid !== 'number') throw new Error(`${server} has no process`);
  return pid;
}

describe('McpHub over stdio', () => {
  it("offers the server's tools as <server>__<tool>, each asking first, with its own schema", async () => {
    const hub = await startHub({ servers: [stdioServer('dict')] });
    const names = hub.tools().map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['dict__lookup_word', 'dict__add']));
    expect(names.every((n) => n.startsWith('dict__'))).toBe(true);

    const lookup = toolOf(hub, 'dict__lookup_word');
    expect(lookup.origin).toBe('mcp');
    expect(lookup.effect).toBe('read');
    expect(lookup.defaultPolicy).toBe('ask');
    expect(lookup.policyNames).toEqual(['mcp:dict/lookup_word', 'mcp:dict']);
    expect(lookup.grantName).toBe('mcp:dict/lookup_word');
    expect(lookup.description).toBe(
      'From the MCP server "dict": Looks a word up in the dictionary.',
    );
    expect(lookup.inputSchema).toMatchObject({
      type: 'object',
      properties: { word: { type: 'string' } },
      required: ['word'],
    });
    expect(lookup.input.parse({ word: 'keel' })).toEqual({ word: 'keel' });
    expect(lookup.summary({ word: 'keel' })).toBe(
      'lookup_word on MCP server "dict" with {"word":"keel"}',
    );

    const add = toolOf(hub, 'dict__add');
    // No annotations: MCP takes the tool as open-world, so it may reach the network.
    expect(add.effect).toBe('network');
    expect(add.defaultPolicy).toBe('ask');

    expect(hub.status()).toEqual([
      expect.objectContaining({
        name: 'dict',
        transport: 'stdio',
        state: 'up',
        lastError: null,
        tools: expect.arrayContaining(['dict__lookup_word', 'dict__add']),
      }),
    ]);
  });

  it('calls a tool and gives its result as text', async () => {
    const hub = await startHub({ servers: [stdioServer('dict')] });
    expect(await call(hub, 'dict__lookup_word', { word: 'keel' })).toEqual({
      content: `keel: ${DEFINITION}`,
      isError: false,
      exit: 'ok',
    });
    expect(await call(hub, 'dict__add', { a: 2, b: 3 })).toEqual({
      content: '5',
      isError: false,
      exit: 'ok',
    });
    // Text that reads like an order comes back as it is: fencing it is the caller's work.
    expect((await call(hub, 'dict__read_note', {})).content).toBe(INSTRUCTION_TEXT);
    // The server's isError is kept.
    expect(await call(hub, 'dict__fail', {})).toEqual({
      content: 'the disk is full',
      isError: true,
      exit: 'error',
    });
    // An image is named with its type and size, not inlined.
    expect((await call(hub, 'dict__picture', {})).content).toBe(
      '[image image/png, 2.9 KB, not shown]',
    );
    // Structured content as JSON when no block gives text.
    expect((await call(hub, 'dict__stats', {})).content).toBe('{"count":3}');
  });

  it('follows the tool list when the server says it changed', async () => {
    const hub = await startHub({ servers: [stdioServer('dict')] });
    expect(hub.tools().map((t) => t.name)).not.toContain('dict__grown');
    expect(await call(hub, 'dict__grow', {})).toMatchObject({ content: 'added grown' });
    await expect.poll(() => hub.tools().map((t) => t.name)).toContain('dict__grown');
    expect(await call(hub, 'dict__grown', {})).toMatchObject({ content: 'grown', isError: false });
  });

  it('withholds a credential in the command line and the error doctor shows', async () => {
    const hub = await startHub({
      servers: [
        stdioServer('leaky', {
          args: [
            '-e',
            'console.error("bad key sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"); process.exit(1)',
            '--',
            '--api-key',
            'sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789',
          ],
        }),
      ],
    });
    const [leaky] = hub.status();
    expect(leaky?.target).toContain('--api-key');
    expect(leaky?.target).not.toContain('AbCdEfGhIjKlMnOp');
    expect(leaky?.lastError).toContain('bad key');
    expect(leaky?.lastError).not.toContain('AbCdEfGhIjKlMnOp');
  });

  it("starts a server with the base environment and the server's own env over it", async () => {
    const hub = await startHub({
      env: { KEEL_TEST_BASE: 'from-base', MCP_TEST_ECHO: 'base' },
      servers: [stdioServer('dict', { env: { MCP_TEST_ECHO: 'own' } })],
    });
    expect((await call(hub, 'dict__env_echo', { name: 'KEEL_TEST_BASE' })).content).toBe(
      'from-base',
    );
    expect((await call(hub, 'dict__env_echo', { name: 'MCP_TEST_ECHO' })).content).toBe('own');
    // Nothing of the test process's environment but the SDK's few safe names.
    expect((await call(hub, 'dict__env_echo', { name: 'VITEST' })).content).toBe('(unset)');
  });

  it('answers a killed server with an error result, then reconnects after the backoff', async () => {
    let clock = 1_000_000;
    const hub = await startHub({
      servers: [stdioServer('dict')],
      now: () => clock,
      backoffMs: 10_000,
    });
    const lookup = toolOf(hub, 'dict__lookup_word');
    const first = pidOf(hub, 'dict');
    process.kill(first, 'SIGKILL');
    await expect.poll(() => hub.status()[0]?.state).toBe('down');
    // Still offered while down (a call starts it again once the backoff has passed), and a fresh
    // lookup of the same tool answers the same way as the one a turn held.
    expect(hub.tools().map((t) => t.name)).toContain('dict__lookup_word');
    expect(hub.status()[0]).toMatchObject({
      state: 'down',
      tools: [],
      since: clock,
      lastError: expect.stringContaining('the server closed the connection'),
    });

    // Within the backoff: a clean error the model reads, and no new process.
    const refused = await lookup.execute({ word: 'keel' }, context());
    expect(refused).toMatchObject({ isError: true, exit: 'down' });
    expect(refused.content).toContain('MCP server "dict" is not running');
    expect(refused.content).toContain('again in 10 s');
    expect(hub.status()[0]?.pid).toBeNull();

    // After it: the call (through the tool the turn already held) starts the server again.
    clock += 10_000;
    expect(await lookup.execute({ word: 'keel' }, context())).toMatchObject({
      content: `keel: ${DEFINITION}`,
      isError: false,
    });
    const second = pidOf(hub, 'dict');
    expect(second).not.toBe(first);
    expect(hub.status()[0]).toMatchObject({ state: 'up', lastError: null });
    expect(hub.tools().map((t) => t.name)).toContain('dict__lookup_word');
  });

  it('doubles the backoff for a server that keeps dying, and refresh() reconnects', async () => {
    let clock = 0;
    const hub = await startHub({
      servers: [stdioServer('dict')],
      now: () => clock,
      backoffMs: 1000,
    });
    process.kill(pidOf(hub, 'dict'), 'SIGKILL');
    await expect.poll(() => hub.status()[0]?.state).toBe('down');
    expect(hub.status()[0]?.retryAt).toBe(1000);
    clock = 1000;
    await hub.refresh();
    expect(hub.status()[0]?.state).toBe('up');
    process.kill(pidOf(hub, 'dict'), 'SIGKILL');
    await expect.poll(() => hub.status()[0]?.state).toBe('down');
    // Second failure in a row: twice the wait from the last attempt.
    expect(hub.status()[0]?.retryAt).toBe(3000);
    clock = 2999;
    await hub.refresh();
    expect(hub.status()[0]?.state).toBe('down');
    clock = 3000;
    await hub.refresh();
    expect(hub.status()[0]?.state).toBe('up');
  });

  it('waits the backoff from when a long-running server went away, not from its start', async () => {
    let clock = 0;
    const hub = await startHub({
      servers: [stdioServer('dict')],
      now: () => clock,
      backoffMs: 5000,
    });
    const first = pidOf(hub, 'dict');
    // Up for an hour, then it dies.
    clock = 3_600_000;
    process.kill(first, 'SIGKILL');
    await expect.poll(() => hub.status()[0]?.state).toBe('down');
    expect(hub.status()[0]?.retryAt).toBe(3_605_000);
    await hub.refresh();
    expect(hub.status()[0]).toMatchObject({ state: 'down', pid: null });
    const refused = await call(hub, 'dict__lookup_word', { word: 'keel' });
    expect(refused).toMatchObject({ isError: true, exit: 'down' });
    expect(refused.content).toContain('again in 5 s');
    // Control: once the wait has passed, the next refresh starts it again.
    clock = 3_605_000;
    await hub.refresh();
    expect(hub.status()[0]?.state).toBe('up');
    expect(pidOf(hub, 'dict')).not.toBe(first);
  });

  it('answers a server that dies mid-call with an error result', async () => {
    const hub = await startHub({ servers: [stdioServer('dict')] });
    const pending = call(hub, 'dict__wait', { ms: 30_000 });
    await new Promise((resolve) => setTimeout(resolve, 200));
    process.kill(pidOf(hub, 'dict'), 'SIGKILL');
    const result = await pending;
    expect(result).toMatchObject({ isError: true, exit: 'down' });
    expect(result.content).toContain('MCP server "dict" stopped during the call of "wait"');
  });

  it('times a call out, and cancels one whose signal aborts', async () => {
    const hub = await startHub({
      servers: [stdioServer('dict')],
      callTimeoutMs: 500,
      connectTimeoutMs: 20_000,
    });
    // The Toolbox's limit comes from the tool's: a connect and a call.
    expect(toolOf(hub, 'dict__wait').timeoutMs).toBe(20_500);
    expect(await call(hub, 'dict__wait', { ms: 10 })).toMatchObject({ isError: false });
    const late = await call(hub, 'dict__wait', { ms: 5_000 });
    expect(late).toMatchObject({ isError: true, exit: 'timeout' });
    expect(late.content).toContain('did not answer the call of "wait"');

    const controller = new AbortController();
    const pending = toolOf(hub, 'dict__wait').execute({ ms: 400 }, context(controller.signal));
    setTimeout(() => controller.abort(), 50);
    expect(await pending).toMatchObject({ isError: true, exit: 'cancelled' });
    // The server is still up for the next call.
    expect(await call(hub, 'dict__add', { a: 1, b: 1 })).toMatchObject({ content: '2' });
  });

  it('keeps a server whose command does not exist down, with the reason, and the others up', async () => {
    const hub = new McpHub({
      servers: [
        stdioServer('ghost', { command: '/nonexistent/keel-no-such-server', args: [] }),
        stdioServer('dict'),
        stdioServer('off', { disabled: true }),
      ],
    });
    hubs.push(hub);
    await expect(hub.start()).resolves.toBeUndefined();
    const [ghost, dict, off] = hub.status();
    expect(ghost).toMatchObject({ name: 'ghost', state: 'down', tools: [], pid: null });
    expect(ghost?.lastError).toContain('"/nonexistent/keel-no-such-server" was not found');
    expect(ghost?.since).toEqual(expect.any(Number));
    expect(dict).toMatchObject({ name: 'dict', state: 'up' });
    expect(off).toMatchObject({ name: 'off', state: 'disabled', pid: null, since: null });
    const names = hub.tools().map((t) => t.name);
    expect(names).toContain('dict__add');
    expect(names.some((n) => n.startsWith('ghost__') || n.startsWith('off__'))).toBe(false);
  });

  it('reports a server that exits at once with what it last wrote', async () => {
    const hub = await startHub({
      servers: [
        stdioServer('broken', {
          args: ['-e', 'console.error("missing API key"); process.exit(3)'],
        }),
      ],
    });
    expect(hub.status()[0]).toMatchObject({ state: 'down' });
    expect(hub.status()[0]?.lastError).toBe(
      'the server exited before it answered (its last words: "missing API key")',
    );
  });

  it('leaves no child process after close()', async () => {
    const hub = await startHub({ servers: [stdioServer('one'), stdioServer('two')] });
    const pids = [pidOf(hub, 'one'), pidOf(hub, 'two')];
    expect(pids.map(alive)).toEqual([true, true]);
    const held = toolOf(hub, 'one__add');
    await hub.close();
    expect(pids.map(alive)).toEqual([false, false]);
    expect(hub.status().map((s) => [s.state, s.pid])).toEqual([
      ['down', null],
      ['down', null],
    ]);
    expect(hub.tools()).toEqual([]);
    // Closed: a call of a tool a turn still holds answers with an error and starts nothing.
    const after = await held.execute({ a: 1, b: 2 }, context());
    expect(after).toMatchObject({ isError: true, exit: 'down' });
    expect(after.content).toContain('keel closed its connection');
    expect(hub.status()[0]?.pid).toBeNull();
  });
});

describe('McpHub over streamable HTTP', () => {
  it("lists and calls a server's tools at its URL, with the configured headers", async () => {
    const server = await startMcpHttpServer();
    httpServers.push(server);
    const hub = await startHub({
      servers: [
        {
          name: 'web',
          transport: 'http',
          url: server.url,
          headers: { Authorization: 'Bearer test-token' },
          disabled: false,
        },
      ],
    });
    expect(hub.status()[0]).toMatchObject({ state: 'up', transport: 'http', target: server.url });
    expect(hub.tools().map((t) => t.name)).toEqual(
      expect.arrayContaining(['web__lookup_word', 'web__add']),
    );
    expect(toolOf(hub, 'web__add').effect).toBe('network');
    expect(await call(hub, 'web__add', { a: 20, b: 22 })).toMatchObject({
      content: '42',
      isError: false,
    });
    expect(server.headers.length).toBeGreaterThan(0);
    expect(server.headers.every((h) => h.authorization === 'Bearer test-token')).toBe(true);
  });

  it('keeps a server at a refused URL down without throwing', async () => {
    const server = await startMcpHttpServer();
    await server.close();
    const hub = await startHub({
      servers: [{ name: 'gone', transport: 'http', url: server.url, headers: {}, disabled: false }],
    });
    expect(hub.status()[0]).toMatchObject({ state: 'down', tools: [] });
    expect(hub.status()[0]?.lastError).toContain('ECONNREFUSED');
  });
});
