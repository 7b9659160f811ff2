/**
 * Every MCP server the owner configured, as keel tools: {@link McpHub} connects each enabled
 * server, offers the tools of those that are up as `<server>__<tool>`, reconnects a server that
 * went away (with a backoff) and says which servers are up and which tools they gave.
 *
 * @module
 */
import { redactSecrets } from '@keel/language';
import type { AnyTool } from '../contract.js';
import type { McpServerConfig } from './config.js';
import { type McpLinkSettings, McpServerLink, type McpServerState } from './link.js';
import { mcpTool, mcpToolName } from './tool.js';

/** What the hub is given. Times are in ms. */
export interface McpHubOptions {
  /** The owner's servers ({@link readMcpConfig}); disabled ones are listed, never started. */
  servers: readonly McpServerConfig[];
  /**
   * The environment every stdio server starts with before its own `env` (the host passes its
   * environment without keel's secrets). The SDK adds `HOME`, `LOGNAME`, `PATH`, `SHELL`, `TERM`
   * and `USER` from keel's own environment when they are not set here. Default: none.
   */
  env?: Record<string, string>;
  /** The longest a server's start, handshake and tool listing may take. Default 30 s (an `npx` download). */
  connectTimeoutMs?: number;
  /**
   * The longest one tool call may take. Default 120 s. A tool's `timeoutMs` is this plus
   * `connectTimeoutMs` (a call of a server that went down starts it again first), so the Toolbox,
   * which adds its grace, never cuts a call before the server's own limits do.
   */
  callTimeoutMs?: number;
  /**
   * The wait after a server failed or went away before keel starts it again, doubled per failure
   * in a row up to `maxBackoffMs`, so a server that keeps dying is not started in a loop. Default 5 s.
   */
  backoffMs?: number;
  /** The longest that wait grows to. Default 5 min. */
  maxBackoffMs?: number;
  /** The longest result the model reads, in characters; the rest is cut with a note. Default 50,000. */
  maxResultChars?: number;
  /** The clock, ms since the epoch (injected in tests). Default `Date.now`. */
  now?: () => number;
  /** keel's version, sent as the client's. Default `0.1.0`. */
  clientVersion?: string;
}

/** One server as `keel doctor` shows it. */
export interface McpServerStatus {
  name: string;
  transport: 'stdio' | 'http';
  /**
   * The command line or the URL's origin and path (headers, query and environment never shown; a
   * credential in an argument is withheld).
   */
  target: string;
  state: McpServerState;
  /** The keel names of the tools it gave (empty while not up). */
  tools: string[];
  /**
   * What went wrong last (with the server's last stderr line, credentials withheld); null when
   * nothing has since the last connect.
   */
  lastError: string | null;
  /** When it entered `state`, ms since the epoch; null before the first attempt. */
  since: number | null;
  /** When keel may start it again, ms since the epoch; null unless down. */
  retryAt: number | null;
  /** The child process's id while a stdio server runs. */
  pid: number | null;
}

/**
 * The owner's MCP servers as keel tools. A server that fails never breaks a turn: a failed
 * connect, a crash or a timeout is state in {@link status} and an error result the model reads;
 * no method throws.
 *
 * @example
 * const hub = new McpHub({ servers: readMcpConfig(path).servers, env });
 * await hub.start();
 * // each turn:
 * await hub.refresh();
 * const tools = hub.tools();
 * // on shutdown:
 * await hub.close();
 */
export class McpHub {
  readonly #links: McpServerLink[];
  /** The keel name given to each `<server>\0<tool>`, kept for the hub's life. */
  readonly #names = new Map<string, string>();
  readonly #taken = new Set<string>();
  /** Each tool's `timeoutMs`: a connect and a call. */
  readonly #toolTimeoutMs: number;

  constructor(options: McpHubOptions) {
    const settings: McpLinkSettings = {
      env: options.env ?? {},
      connectTimeoutMs: options.connectTimeoutMs ?? 30_000,
      callTimeoutMs: options.callTimeoutMs ?? 120_000,
      backoffMs: options.backoffMs ?? 5_000,
      maxBackoffMs: options.maxBackoffMs ?? 300_000,
      maxResultChars: options.maxResultChars ?? 50_000,
      now: options.now ?? Date.now,
      clientVersion: options.clientVersion ?? '0.1.0',
    };
    this.#toolTimeoutMs = settings.connectTimeoutMs + settings.callTimeoutMs;
    this.#links = options.servers.map((server) => new McpServerLink(server, settings));
  }

  /** Connects every enabled server at once; resolves when each is up or has failed. */
  async start(): Promise<void> {
    await Promise.all(this.#links.map((link) => link.connect()));
  }

  /**
   * Connects every enabled server that is down and whose backoff has passed (a turn's host calls
   * it before {@link tools}); resolves when each attempt ended.
   */
  async refresh(): Promise<void> {
    await Promise.all(this.#links.map((link) => link.ensureUp()));
  }

  /**
   * The tools of every enabled server that has been up, in the owner's order of servers: a server
   * that went down keeps offering the tools it last gave, and a call of one starts it again once
   * its backoff has passed (else it says the server is not running and when keel tries again).
   */
  tools(): AnyTool[] {
    const out: AnyTool[] = [];
    for (const link of this.#links) {
      if (link.state === 'disabled') continue;
      const caller = {
        server: link.config.name,
        transport: link.config.transport,
        timeoutMs: this.#toolTimeoutMs,
        call: link.call.bind(link),
      };
      for (const definition of link.state === 'up' ? link.definitions : link.known) {
        out.push(mcpTool(definition, this.#nameOf(link.config.name, definition.name), caller));
      }
    }
    return out;
  }

  /** Every configured server: up or down, the tools it gave, the last error and since when. */
  status(): McpServerStatus[] {
    return this.#links.map((link) => ({
      name: link.config.name,
      transport: link.config.transport,
      target: redactSecrets(target(link.config)),
      state: link.state,
      tools:
        link.state === 'up'
          ? link.definitions.map((d) => this.#nameOf(link.config.name, d.name))
          : [],
      lastError: link.lastError === null ? null : redactSecrets(link.lastError),
      since: link.since,
      retryAt: link.retryAt,
      pid: link.pid,
    }));
  }

  /** Ends every connection and child process; the hub connects nothing afterwards. */
  async close(): Promise<void> {
    await Promise.all(this.#links.map((link) => link.close()));
  }

  /** The keel name of `server`'s tool `tool`, the same for the hub's life. */
  #nameOf(server: string, tool: string): string {
    const key = `${server}\0${tool}`;
    let name = this.#names.get(key);
    if (name === undefined) {
      name = mcpToolName(server, tool, this.#taken);
      this.#names.set(key, name);
      this.#taken.add(name);
    }
    return name;
  }
}

/** What a server is, in one line without secrets. */
function target(config: McpServerConfig): string {
  if (config.transport === 'stdio') return [config.command, ...config.args].join(' ');
  try {
    const url = new URL(config.url);
    return `${url.origin}${url.pathname}`;
  } catch {
    return config.url;
  }
}
