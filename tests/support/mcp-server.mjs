// An MCP server over stdio for keel's tests: `node mcp-server.mjs [name]` serves the tools of
// mcp-tools.mjs, plus `env_echo` (a variable of the environment keel gave it) and `grow` (adds a
// tool at run time). It appends its pid and a newline to the file named by MCP_TEST_PID_FILE when
// that is set, so the file lists every process started with it, the newest last.
import { appendFileSync } from 'node:fs';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';
import { testMcpServer } from './mcp-tools.mjs';

const server = testMcpServer(process.argv[2] ?? 'keel-test');
server.registerTool(
  'env_echo',
  { description: 'Returns an environment variable.', inputSchema: { name: z.string() } },
  async ({ name }) => ({ content: [{ type: 'text', text: process.env[name] ?? '(unset)' }] }),
);
server.registerTool(
  'grow',
  { description: 'Adds the tool `grown` (the server tells the client its list changed).' },
  async () => {
    server.registerTool('grown', { description: 'Added at run time.' }, async () => ({
      content: [{ type: 'text', text: 'grown' }],
    }));
    return { content: [{ type: 'text', text: 'added grown' }] };
  },
);
if (process.env.MCP_TEST_PID_FILE)
  appendFileSync(process.env.MCP_TEST_PID_FILE, `${process.pid}\n`);
process.stderr.write(`mcp test server ${process.pid} ready\n`);
await server.connect(new StdioServerTransport());
