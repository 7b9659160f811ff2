#!/usr/bin/env node
/**
 * keel's memory as an MCP server over stdio, as a process (`keel mcp`, which an MCP client such
 * as Claude Desktop, Claude Code or Cursor starts). Settings come from `@keel/host`'s `readConfig`
 * (the environment over `$KEEL_HOME/config.toml`); the embedder is chosen as for the terminal
 * (lexical recall when it cannot run).
 *
 * stdout is the protocol's channel: nothing else is ever written to it. Log lines and an error
 * that stops the server (its code and fix) go to stderr (with `--json`, which `keel mcp --json`
 * passes and a client never does, such an error is printed on stdout as one JSON line too). Many servers may run on one KEEL_HOME
 * at once (one per client), beside `keel think` and the doors: each is a writer like any other.
 * While it runs it is announced in `$KEEL_HOME/run/` (`keel doctor` lists it with its client).
 *
 * It stops when the client closes stdin, on SIGTERM, SIGINT or SIGHUP, or when the `keel` CLI
 * that started it is gone. Exit codes: 0 stopped, 2 an error with a code (configuration, a
 * database that cannot be opened), 1 anything else.
 *
 * @module
 */
import { readFileSync } from 'node:fs';
import {
  announceServer,
  EXIT,
  openKeel,
  readConfig,
  reportError,
  stopWhenParentGone,
  terminalText,
} from '@keel/host';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createMemoryServer } from './memory-server.js';

/** The server's one writer of log lines: stderr, never stdout. */
const log = (line: string) =>
  process.stderr.write(terminalText(`${new Date().toISOString()} ${line}\n`));

/** keel's version: the `package.json` one folder up (the CLI's, beside the bundle). */
function version(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
      version?: unknown;
    };
    return typeof pkg.version === 'string' ? pkg.version : '0.0.0';
  } catch {
    return '0.0.0';
  }
}

async function main(): Promise<number> {
  const config = readConfig(process.env);
  stopWhenParentGone(config.process.parentPid, { name: 'mcp', log });
  const keel = await openKeel(config, {
    checkIntegrity: 'cached',
    onEmbedderError: 'lexical',
    warmRecall: true,
  });
  let unannounce = announceServer(config.home, 'mcp');
  const server = createMemoryServer({
    store: keel.store,
    tz: config.think.tz,
    version: version(),
    log,
    onClient: (client) => {
      unannounce = announceServer(config.home, 'mcp', { client });
      log(`mcp: serving ${client}`);
    },
  });
  log(
    `mcp: keel's memory on stdio; recall: ${keel.embedder.name ? `hybrid (${keel.embedder.name})` : `lexical (${keel.embedder.reason})`}`,
  );
  const closed = new Promise<void>((resolve) => {
    server.server.onclose = () => resolve();
    for (const sig of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
      process.on(sig, () => {
        log(`mcp: ${sig}: stopping`);
        resolve();
      });
    }
    // The client closing stdin ends the session.
    process.stdin.on('end', () => resolve());
  });
  try {
    await server.connect(new StdioServerTransport());
    await closed;
  } finally {
    unannounce();
    await server.close().catch(() => {});
    keel.close();
  }
  log('mcp: stopped');
  return EXIT.ok;
}

// `--json` (given by `keel mcp --json`, never by a client) prints an error that stops the server
// before the protocol starts as one JSON line on stdout too; a client's stdout carries only the
// protocol.
const json = process.argv.slice(2).includes('--json');
main().then(
  (code) => process.exit(code),
  (err) => process.exit(reportError(err, json)),
);
