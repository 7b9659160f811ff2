/**
 * `keel mcp`: serves keel's memory to another agent (Claude Desktop, Claude Code, Cursor, any MCP
 * client) as an MCP server over stdio: the client starts `keel mcp` and talks to it on its stdin
 * and stdout. Its entry point (found by `appMain`: `mcp.mjs` beside the bundled CLI, or
 * `apps/mcp/dist/main.js`) runs as a child process with the same stdin, stdout and stderr
 * (`@keel/host`'s `runApp` inherits them untouched); this process writes nothing to stdout.
 *
 * Not to be confused with `keel tools`, where keel is an MCP *client* of the owner's servers.
 *
 * @module
 */
import { runApp } from '@keel/host';
import type { Command } from 'commander';
import { wantsJson } from '../output.js';
import { appMain } from '../paths.js';

/**
 * Runs the MCP server until its client closes stdin (or a signal stops it) and resolves to its
 * exit code; with `json`, an error before the protocol starts is printed as one JSON line too.
 */
export function runMcpServer(
  main = appMain('mcp'),
  options: { json?: boolean } = {},
): Promise<number> {
  const json = Boolean(options.json);
  return runApp(main, json ? ['--json'] : [], { json });
}

/** Registers `keel mcp`. */
export function registerMcpServerCommand(program: Command): void {
  program
    .command('mcp')
    .description(
      "serve keel's memory to other agents over MCP on stdio (Claude Desktop, Claude Code, Cursor; see the README)",
    )
    .action(async (_opts: unknown, cmd: Command) => {
      process.exitCode = await runMcpServer(appMain('mcp'), { json: wantsJson(cmd) });
    });
}
