/**
 * The tools a door's turns offer the model, built once from the configuration: the memory tools,
 * the built-ins the owner enabled (`tools.enabled`: shell, the file tools, fetch_url, remind) with
 * the workspace, roots and limits of `config.tools`, and every MCP server of the owner's
 * `mcp.json` (`tools.mcp_config`), under the owner's policies (`tools.policies` over each
 * server's `policy` in `mcp.json`). Every turn gets a fresh {@link Toolbox} of what is offered now
 * ({@link KeelTools.toolbox}): a server that came back (or went away) is seen at the next turn.
 *
 * The shell and every MCP server run with this process's environment stripped of keel's own
 * secrets ({@link SECRET_SETTINGS}) and of every variable named like a credential.
 *
 * @module
 */
import { homedir } from 'node:os';
import type { KeelError } from '@keel/errors';
import { withinTime } from '@keel/language';
import {
  type AnyTool,
  fetchUrlTool,
  fileTools,
  McpHub,
  type McpServerStatus,
  mcpServerPolicies,
  memoryTools,
  type Policy,
  readMcpConfig,
  remindTool,
  shellTool,
  strippedEnv,
  Toolbox,
} from '@keel/tools';
import type { KeelConfig, RawSettings } from './config.js';
import { SECRET_SETTINGS } from './settings.js';

/** How long a turn waits for MCP servers that are starting again before it goes on without them, ms. */
export const MCP_TURN_WAIT_MS = 1_500;

/** Options for {@link openTools}. */
export interface OpenToolsOptions {
  /** The environment the shell and MCP servers start from (stripped of secrets). Default `process.env`. */
  env?: RawSettings;
  /** Connect the owner's MCP servers. Default true. */
  mcp?: boolean;
  /** How long a turn waits for servers starting again, ms. Default {@link MCP_TURN_WAIT_MS}. */
  turnWaitMs?: number;
  /** The clock, ms (tests). Default `Date.now`. */
  now?: () => number;
  /**
   * Resolve only once every server is up or has failed (`keel tools`, `keel doctor`). Default
   * false: a door opens at once and its first turn waits for them.
   */
  waitForServers?: boolean;
}

/** A door's tools. */
export interface KeelTools {
  /** The Toolbox for one turn: the built-ins and the MCP tools offered now, under the policies. */
  toolbox: () => Promise<Toolbox>;
  /** The owner's MCP servers (null when none are configured or `mcp` is off). */
  hub: McpHub | null;
  /** What was wrong in `mcp.json` (each entry left out, with the server and field named). */
  problems: KeelError[];
  /** The policies in force, by tool, `mcp:<server>` or `mcp:<server>/<tool>`. */
  policies: ReadonlyMap<string, Policy>;
  /** Ends every MCP connection and child process. */
  close: () => Promise<void>;
}

/** The built-in tools the owner enabled, made from `config.tools`. */
export function builtinTools(config: KeelConfig, env: RawSettings): AnyTool[] {
  const t = config.tools;
  const home = homedir();
  const on = new Set(t.enabled);
  const out: AnyTool[] = [];
  if (on.has('shell')) {
    out.push(
      shellTool({
        workdir: t.workspace,
        env,
        secretNames: [...SECRET_SETTINGS],
        timeoutMs: t.shellTimeoutMs,
        home,
      }),
    );
  }
  // keel's own data folder and MCP server list are never reached, whatever the roots hold.
  const files = fileTools({ roots: t.roots, home, guarded: [config.home, t.mcpConfig] });
  out.push(...files.filter((tool) => on.has(tool.name as never)));
  if (on.has('fetch_url')) out.push(fetchUrlTool({ allowPrivate: t.fetchPrivate }));
  if (on.has('remind')) out.push(remindTool());
  return out;
}

/**
 * Builds a door's tools and starts the owner's MCP servers (each within its time limit; one that
 * fails is down, with why, and never stops the door).
 *
 * @throws KeelError `CONFIG_INVALID` when `mcp.json` is not JSON or has no `mcpServers` object
 *   (naming the file and line); `FILE_UNREADABLE` when it cannot be read.
 */
export async function openTools(
  config: KeelConfig,
  options: OpenToolsOptions = {},
): Promise<KeelTools> {
  const env = strippedEnv(options.env ?? process.env, [...SECRET_SETTINGS]);
  const mcp = options.mcp === false ? null : readMcpConfig(config.tools.mcpConfig);
  const policies = new Map<string, Policy>(
    Object.entries({ ...(mcp ? mcpServerPolicies(mcp) : {}), ...config.tools.policies }),
  );
  const servers = mcp?.servers ?? [];
  const hub =
    servers.length > 0
      ? new McpHub({ servers, env, ...(options.now ? { now: options.now } : {}) })
      : null;
  // The servers start in the background: the door opens at once, and the first turn waits for
  // them (each within its own time limit); later turns wait briefly for one starting again.
  const started = hub?.start() ?? null;
  if (options.waitForServers) await started;
  const fixed = [...memoryTools(), ...builtinTools(config, env)];
  const wait = options.turnWaitMs ?? MCP_TURN_WAIT_MS;
  let first = true;
  return {
    hub,
    problems: mcp?.problems ?? [],
    policies,
    toolbox: async () => {
      if (hub && first) await started;
      else if (hub) await withinTime(hub.refresh(), wait, 'refresh').catch(() => {});
      first = false;
      return new Toolbox({ tools: [...fixed, ...(hub?.tools() ?? [])], policies });
    },
    close: async () => {
      await hub?.close();
    },
  };
}

/** One server as `keel doctor` and `keel tools` say it. */
export function mcpServerLine(s: McpServerStatus): string {
  if (s.state === 'up') return `${s.name}: up (${s.tools.length} tools: ${s.tools.join(', ')})`;
  if (s.state === 'disabled') return `${s.name}: disabled in mcp.json`;
  return `${s.name}: ${s.state}${s.lastError ? ` (${s.lastError})` : ''}`;
}
