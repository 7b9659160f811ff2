/**
 * Starts the web page: opens keel (`keel.ts`), makes the start token, serves the app on
 * 127.0.0.1 only, announces the server to `keel doctor` (its address, never the token), and opens
 * the browser when asked.
 *
 * @module
 */
import { spawn } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { KeelError } from '@keel/errors';
import { announceServer, type KeelConfig } from '@keel/host';
import { webApp } from './app.js';
import { newToken, type WebSession } from './auth.js';
import { openWebKeel } from './keel.js';

/** The only address the page binds. */
export const LOOPBACK = '127.0.0.1';

/** A running web page. */
export interface RunningWeb {
  /** The URL with the start token: what the owner opens. */
  url: string;
  port: number;
  /** Stops serving and closes the store. */
  stop(): Promise<void>;
}

/** Options of {@link startWeb}. */
export interface StartWebOptions {
  /** The port (0: any free one). */
  port: number;
  /** Open the URL in the owner's browser. */
  open?: boolean;
  log?: (line: string) => void;
}

/**
 * Starts the page (see the module's description).
 *
 * @throws KeelError `INVALID_INPUT` when the port is taken or cannot be bound.
 */
export async function startWeb(config: KeelConfig, options: StartWebOptions): Promise<RunningWeb> {
  const log = options.log ?? (() => {});
  const keel = await openWebKeel(config);
  for (const p of keel.problems) log(`web: ${p}`);
  const token = newToken();
  const sessions = new Map<string, WebSession>();
  let app: ReturnType<typeof webApp> | null = null;
  let server: ReturnType<typeof serve>;
  const port = await new Promise<number>((resolve, reject) => {
    server = serve(
      {
        fetch: (req, env) =>
          app ? app.fetch(req, env) : new Response('starting', { status: 503 }),
        hostname: LOOPBACK,
        port: options.port,
      },
      (info: AddressInfo) => resolve(info.port),
    );
    server.once('error', (err: NodeJS.ErrnoException) => {
      keel.close();
      reject(
        new KeelError(
          'INVALID_INPUT',
          `cannot listen on ${LOOPBACK}:${options.port}: ${err.code ?? err.message}`,
          {
            fix: 'Choose another port with --port N, or leave it out for any free port.',
          },
        ),
      );
    });
  });
  app = webApp({ keel, token, port, sessions });
  const base = `http://${LOOPBACK}:${port}/`;
  const url = `${base}?token=${token}`;
  // keel doctor lists the running page by its address; the token is never recorded.
  const unannounce = announceServer(config.home, 'web', { url: base });
  if (options.open) openBrowser(url, log);
  log(`web: serving ${base} (the owner's browser only)`);
  return {
    url,
    port,
    stop: () =>
      new Promise<void>((resolve) => {
        unannounce();
        server.close(() => {
          keel.close();
          resolve();
        });
        // Keep-alive connections of an open browser tab would hold the close.
        (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
      }),
  };
}

/** Opens `url` in the owner's browser with the platform's opener; a failure is logged. */
function openBrowser(url: string, log: (line: string) => void): void {
  const [cmd, args] =
    process.platform === 'darwin'
      ? ['open', [url]]
      : process.platform === 'win32'
        ? ['cmd', ['/c', 'start', '""', url]]
        : ['xdg-open', [url]];
  try {
    const child = spawn(cmd as string, args as string[], { stdio: 'ignore', detached: true });
    child.on('error', (err) =>
      log(`web: could not open a browser (${err.message}); open the URL yourself`),
    );
    child.unref();
  } catch (err) {
    log(`web: could not open a browser (${(err as Error).message}); open the URL yourself`);
  }
}
