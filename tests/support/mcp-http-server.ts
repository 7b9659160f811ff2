// An MCP server over streamable HTTP on 127.0.0.1 for keel's tests, serving the tools of
// mcp-tools.mjs (stateless, no session id: a new server and transport per request, as the SDK's
// example does).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { testMcpServer } from './mcp-tools.mjs';

/** A running test server: its endpoint URL, the headers of every request, and `close`. */
export interface McpHttpTestServer {
  url: string;
  /** The request headers each request came with (lower-case names). */
  headers: Record<string, string | string[] | undefined>[];
  close: () => Promise<void>;
}

/** Starts the streamable-HTTP test server on a free port of 127.0.0.1, at `/mcp`. */
export async function startMcpHttpServer(): Promise<McpHttpTestServer> {
  const headers: McpHttpTestServer['headers'] = [];
  const http: Server = createServer((req, res) => {
    headers.push(req.headers);
    if (req.url !== '/mcp' || req.method !== 'POST') {
      res.writeHead(405, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          jsonrpc: '2.0',
          error: { code: -32000, message: 'Method not allowed.' },
          id: null,
        }),
      );
      return;
    }
    const server = testMcpServer('keel-http-test');
    const transport = new StreamableHTTPServerTransport({});
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    void server
      .connect(transport)
      .then(() => transport.handleRequest(req, res))
      .catch(() => {
        if (!res.headersSent) res.writeHead(500).end();
      });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    headers,
    close: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}
