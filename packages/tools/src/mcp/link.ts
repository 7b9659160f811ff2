/**
 * keel's connection to one MCP server: connects (a child process over stdio, or streamable HTTP),
 * lists its tools, calls them, notices when the server goes away and connects again with a
 * backoff. Nothing here throws to a caller: every failure becomes state the hub reports and an
 * error result the model reads.
 *
 * @module
 */

import { withinTime } from '@keel/language';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { ToolResult } from '../contract.js';
import type { McpServerConfig } from './config.js';
import { type McpToolDefinition, type McpToolInput, mcpResultText } from './tool.js';

/** Where a server is: `up` (connected, tools listed), `down`, `connecting`, or `disabled` by the owner. */
export type McpServerState = 'up' | 'down' | 'connecting' | 'disabled';

/** The settings of every link (the hub's options with their defaults applied). */
export interface McpLinkSettings {
  /** The environment a stdio server starts with, before its own `env`. */
  env: Record<string, string>;
  /** The longest a connect (start, handshake, tool list) may take, ms. */
  connectTimeoutMs: number;
  /** The longest one tool call may take, ms. */
  callTimeoutMs: number;
  /** The wait after a failure before the next connect, ms; doubled per failure in a row. */
  backoffMs: number;
  /** The longest that wait grows to, ms. */
  maxBackoffMs: number;
  /** The longest result the model reads, characters. */
  maxResultChars: number;
  /** The clock, ms since the epoch. */
  now: () => number;
  /** keel's version, sent to servers as the client's. */
  clientVersion: string;
}

/** The last characters of a server's stderr kept for its error messages. */
const STDERR_TAIL_CHARS = 2000;

/** One server's connection. The hub owns one per configured server. */
export class McpServerLink {
  readonly config: McpServerConfig;
  state: McpServerState;
  /** What went wrong last (connect failure, exit, transport error); null since the last connect. */
  lastError: string | null = null;
  /** When `state` last changed, ms since the epoch; null before the first attempt. */
  since: number | null = null;
  /** The tools the server gave at its last listing (empty while it is not up). */
  definitions: McpToolDefinition[] = [];
  /**
   * The tools the server gave when it was last up: still offered while it is down, so a call
   * reaches the link (which starts the server again once its backoff has passed, else says it is
   * not running) instead of finding no such tool.
   */
  known: McpToolDefinition[] = [];
  readonly #settings: McpLinkSettings;
  #client: Client | undefined;
  #transport: Transport | undefined;
  #connecting: Promise<boolean> | undefined;
  /**
   * When the current wait began, ms since the epoch: the last connect attempt, or the moment the
   * server went away while up (a server that ran for an hour and died waits its backoff too).
   */
  #waitFrom: number | null = null;
  #failures = 0;
  #closed = false;
  #stderr = '';
  /** Closing connections that failed or ended; {@link close} waits for them. */
  readonly #cleanups = new Set<Promise<void>>();

  constructor(config: McpServerConfig, settings: McpLinkSettings) {
    this.config = config;
    this.#settings = settings;
    this.state = config.disabled ? 'disabled' : 'down';
  }

  /** The child process's id while a stdio server runs; null otherwise. */
  get pid(): number | null {
    return this.#transport instanceof StdioClientTransport ? this.#transport.pid : null;
  }

  /** When the next connect may start, ms since the epoch; null while up, connecting or disabled. */
  get retryAt(): number | null {
    if (this.state !== 'down' || this.#waitFrom === null || this.#closed) return null;
    const delay = Math.min(
      this.#settings.backoffMs * 2 ** Math.max(0, this.#failures - 1),
      this.#settings.maxBackoffMs,
    );
    return this.#waitFrom + delay;
  }

  /**
   * Connects unless the server is up, disabled, closed, or failed less than its backoff ago.
   * Resolves true when the server is up afterwards; never rejects.
   */
  async ensureUp(): Promise<boolean> {
    if (this.state === 'up') return true;
    if (this.state === 'disabled' || this.#closed) return false;
    if (this.#connecting) return this.#connecting;
    const retryAt = this.retryAt;
    if (retryAt !== null && this.#settings.now() < retryAt) return false;
    return this.connect();
  }

  /** Connects now (one attempt at a time), whatever the backoff. Resolves true when up. */
  connect(): Promise<boolean> {
    if (this.state === 'disabled' || this.#closed) return Promise.resolve(false);
    if (this.state === 'up') return Promise.resolve(true);
    this.#connecting ??= this.#attempt().finally(() => {
      this.#connecting = undefined;
    });
    return this.#connecting;
  }

  /**
   * Calls the server's tool `tool` with `args`: connects first when the server is down (within
   * its backoff), and never throws. A server that is not running, a call that times out, a
   * server that stops mid-call: each is an error result saying so (`exit`: `down`, `timeout`,
   * `cancelled`, `error`).
   */
  async call(tool: string, args: McpToolInput, signal: AbortSignal): Promise<ToolResult> {
    if (signal.aborted) return cancelled();
    const up = await untilAborted(this.ensureUp(), signal);
    if (signal.aborted) return cancelled();
    const client = this.#client;
    if (!up || client === undefined) return this.#notRunning();
    if (!this.definitions.some((d) => d.name === tool)) {
      return failure(
        `MCP server "${this.config.name}" no longer offers the tool "${tool}".`,
        'error',
      );
    }
    try {
      const result = await client.callTool({ name: tool, arguments: args }, undefined, {
        signal,
        timeout: this.#settings.callTimeoutMs,
      });
      this.#failures = 0;
      return mcpResultText(
        result as Parameters<typeof mcpResultText>[0],
        this.#settings.maxResultChars,
      );
    } catch (err) {
      return this.#callFailed(err, tool, client, signal);
    }
  }

  /** Ends the connection and its child process; the link never connects again. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.#connecting?.catch(() => false);
    const client = this.#client;
    this.#client = undefined;
    this.#transport = undefined;
    this.definitions = [];
    this.known = [];
    if (client) {
      this.#release(client);
      this.lastError = 'keel closed its connection';
      this.#setState('down');
    }
    await Promise.all([...this.#cleanups]);
  }

  /** One connect: start, handshake, list the tools; on any failure, down with the reason. */
  async #attempt(): Promise<boolean> {
    const now = this.#settings.now;
    this.#waitFrom = now();
    this.#setState('connecting');
    this.#stderr = '';
    let endedEarly = false;
    const transport = this.#makeTransport();
    const client = new Client(
      { name: 'keel', version: this.#settings.clientVersion },
      {
        listChanged: {
          tools: {
            onChanged: (error, tools) => {
              if (this.#client === client && error === null && tools) {
                this.definitions = tools;
                this.known = tools;
              }
            },
          },
        },
      },
    );
    client.onclose = () => {
      if (this.#client === client) this.#ended(client, 'the server closed the connection');
      else endedEarly = true;
    };
    client.onerror = (error) => {
      if (this.#client === client) this.lastError = error.message;
    };
    try {
      const limit = this.#settings.connectTimeoutMs;
      await withinTime(client.connect(transport, { timeout: limit }), limit, 'connect');
      const definitions = await listAllTools(client, limit);
      if (endedEarly) throw new Error('the server closed the connection');
      if (this.#closed) throw new Error('keel is closing');
      this.#client = client;
      this.#transport = transport;
      this.definitions = definitions;
      this.known = definitions;
      this.lastError = null;
      this.#setState('up');
      return true;
    } catch (err) {
      this.#release(client);
      this.#failures++;
      this.lastError = this.#withStderr(describeConnectError(err, this.config));
      this.#setState('down');
      return false;
    }
  }

  /** The transport the config names. */
  #makeTransport(): Transport {
    const { config } = this;
    if (config.transport === 'http') {
      return new StreamableHTTPClientTransport(new URL(config.url), {
        requestInit: { headers: config.headers },
      });
    }
    const transport = new StdioClientTransport({
      command: config.command,
      args: config.args,
      env: { ...this.#settings.env, ...config.env },
      ...(config.cwd === undefined ? {} : { cwd: config.cwd }),
      stderr: 'pipe',
    });
    transport.stderr?.on('data', (chunk: Buffer) => {
      this.#stderr = (this.#stderr + chunk.toString('utf8')).slice(-STDERR_TAIL_CHARS);
    });
    return transport;
  }

  /** The connection `client` ended while up (the process exited, the transport failed). */
  #ended(client: Client, reason: string): void {
    this.#client = undefined;
    this.#transport = undefined;
    this.definitions = [];
    this.#failures++;
    this.#waitFrom = this.#settings.now();
    this.lastError = this.#withStderr(reason);
    this.#release(client);
    if (!this.#closed) this.#setState('down');
  }

  /** The error result of a call that threw. */
  #callFailed(err: unknown, tool: string, client: Client, signal: AbortSignal): ToolResult {
    const name = this.config.name;
    if (signal.aborted) return cancelled();
    if (err instanceof McpError && err.code === ErrorCode.RequestTimeout) {
      return failure(
        `MCP server "${name}" did not answer the call of "${tool}" within ${Math.round(this.#settings.callTimeoutMs / 1000)} s.`,
        'timeout',
      );
    }
    const connectionLost =
      (err instanceof McpError && err.code === ErrorCode.ConnectionClosed) ||
      !(err instanceof McpError);
    if (connectionLost) {
      if (this.#client === client) this.#ended(client, `the connection failed: ${message(err)}`);
      return failure(
        `MCP server "${name}" stopped during the call of "${tool}": ${this.lastError ?? message(err)}`,
        'down',
      );
    }
    return failure(`MCP server "${name}" refused the call of "${tool}": ${message(err)}`, 'error');
  }

  /** The result of a call to a server that is not up. */
  #notRunning(): ToolResult {
    const retryAt = this.retryAt;
    const wait = retryAt === null ? 0 : Math.max(0, retryAt - this.#settings.now());
    const when =
      this.state === 'disabled'
        ? ' (the owner disabled it)'
        : wait > 0
          ? ` (keel tries to start it again in ${Math.ceil(wait / 1000)} s)`
          : '';
    return failure(
      `MCP server "${this.config.name}" is not running: ${this.lastError ?? 'not connected'}${when}.`,
      'down',
    );
  }

  /** Closes `client` (and so its transport and child process) in the background. */
  #release(client: Client): void {
    client.onclose = () => undefined;
    const done = client.close().catch(() => undefined);
    this.#cleanups.add(done);
    void done.finally(() => this.#cleanups.delete(done));
  }

  #setState(state: McpServerState): void {
    if (this.state !== state) this.since = this.#settings.now();
    this.state = state;
  }

  /** `reason`, with the server's last stderr line when it wrote one. */
  #withStderr(reason: string): string {
    const last = this.#stderr.trim().split('\n').at(-1)?.trim();
    return last ? `${reason} (its last words: "${last.slice(0, 300)}")` : reason;
  }
}

/** Every tool the server lists, page after page. */
async function listAllTools(client: Client, timeout: number): Promise<McpToolDefinition[]> {
  const out: McpToolDefinition[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 100; page++) {
    const result = await client.listTools(cursor === undefined ? {} : { cursor }, { timeout });
    out.push(...result.tools);
    cursor = result.nextCursor;
    if (cursor === undefined) break;
  }
  return out;
}

/** What a failed connect says, in the owner's terms. */
function describeConnectError(err: unknown, config: McpServerConfig): string {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  if (config.transport === 'stdio' && code === 'ENOENT') {
    return `the command "${config.command}" was not found (is it installed and on PATH?)`;
  }
  if (config.transport === 'stdio' && code === 'EACCES') {
    return `the command "${config.command}" cannot be run (permission denied)`;
  }
  if (err instanceof McpError && err.code === ErrorCode.ConnectionClosed) {
    return config.transport === 'stdio'
      ? 'the server exited before it answered'
      : 'the server closed the connection before it answered';
  }
  return message(err);
}

/** `promise`'s value, or false as soon as `signal` aborts. */
function untilAborted(promise: Promise<boolean>, signal: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    const onAbort = () => resolve(false);
    signal.addEventListener('abort', onAbort, { once: true });
    void promise.then((value) => {
      signal.removeEventListener('abort', onAbort);
      resolve(value);
    });
  });
}

/** An error's message, with its cause's code or message (`fetch failed (ECONNREFUSED)`). */
function message(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const cause = err.cause as { code?: unknown; message?: unknown } | undefined;
  const why = typeof cause?.code === 'string' ? cause.code : cause?.message;
  return typeof why === 'string' && why !== '' && !err.message.includes(why)
    ? `${err.message} (${why})`
    : err.message;
}

function failure(content: string, exit: string): ToolResult {
  return { content, isError: true, exit };
}

function cancelled(): ToolResult {
  return failure('The call was cancelled.', 'cancelled');
}
