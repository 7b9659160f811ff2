// An MCP server over stdio for keel's tests: `node mcp-server.mjs [name]` serves the tools of
// mcp-tools.mjs. It writes its pid to the file named by MCP_TEST_PID_FILE when that is set, and
// the value of MCP_TEST_ECHO (from the environment keel gave it) through the `env_echo` tool.
import { writeFileSync } from 'node:fs';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';
import { testMcpServer } from './mcp-tools.mjs';

const server = testMcpServer(process.argv[2] ?? 'keel-test');
server.registerTool(
  'env_echo',
  { description: 'Returns an environment variable.', inputSchema: { name: z.string() } },
  async ({ name }) => ({ content: [{ type: 'text', text: process.env[name] ?? '(unset)' }] }),
);
if (process.env.MCP_TEST_PID_FILE)
  writeFileSync(process.env.MCP_TEST_PID_FILE, String(process.pid));
process.stderr.write(`mcp test server ${process.pid} ready\n`);
await server.connect(new StdioServerTransport());
