/**
 * `keel doctor`'s view of the model's tools: `mcp_servers`, whether each MCP server in the owner's
 * `mcp.json` starts and which tools it gives (a live check: it starts them, lists, and stops them).
 *
 * @module
 */
import { KeelError } from '@keel/errors';
import { McpHub, readMcpConfig, strippedEnv } from '@keel/tools';
import { problem, skip } from './check-finding.js';
import type { CheckFinding, CheckOptions } from './checks.js';
import type { KeelConfig } from './config.js';
import { SECRET_SETTINGS } from './settings.js';
import { mcpServerLine } from './tools.js';

/**
 * `mcp_servers`: every enabled server in `mcp.json` starts and lists its tools within the check's
 * time limit. None configured: skip. A damaged file or a bad entry: fail `CONFIG_INVALID` naming
 * the file, line or server. A server that does not start: warn `MCP_UNAVAILABLE` with its last
 * words (turns go on without its tools).
 */
export async function checkMcpServers(
  config: KeelConfig,
  options: CheckOptions = {},
): Promise<CheckFinding> {
  const file = config.tools.mcpConfig;
  let mcp: ReturnType<typeof readMcpConfig>;
  try {
    mcp = readMcpConfig(file);
  } catch (err) {
    if (!KeelError.isInstance(err)) throw err;
    return problem('fail', err.code, err.message, err.fix);
  }
  const [bad] = mcp.problems;
  if (mcp.servers.length === 0) {
    if (bad) return problem('fail', bad.code, bad.message, bad.fix);
    return skip(`no MCP servers configured (${file})`);
  }
  if (options.live === false) return skip('not checked (--offline)');
  const hub = new McpHub({
    servers: mcp.servers,
    env: strippedEnv(process.env, [...SECRET_SETTINGS]),
    connectTimeoutMs: Math.max(options.timeoutMs ?? 0, 15_000),
  });
  try {
    await hub.start();
    const status = hub.status();
    const lines = status.map(mcpServerLine).join('; ');
    const down = status.filter((s) => s.state === 'down');
    if (bad) return problem('fail', bad.code, `${bad.message}; ${lines}`, bad.fix);
    if (down.length > 0) {
      return problem(
        'warn',
        'MCP_UNAVAILABLE',
        `${down.length} of ${status.length} MCP server(s) did not start: ${lines}`,
      );
    }
    return { status: 'ok', detail: lines };
  } finally {
    await hub.close();
  }
}
