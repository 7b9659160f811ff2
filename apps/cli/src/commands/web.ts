/**
 * `keel web`: runs the owner's web page (its entry point found by `appMain`: `web.mjs` beside the
 * bundled CLI, or `apps/web/dist/main.js`) as a child process (see `@keel/host`'s `runApp`) and
 * returns its exit code. It binds 127.0.0.1 only and prints the URL to open, which carries a fresh
 * token; `--open` opens it in the browser.
 *
 * @module
 */
import { runApp } from '@keel/host';
import { type Command, InvalidArgumentError } from 'commander';
import { wantsJson } from '../output.js';
import { appMain } from '../paths.js';

/** Starts the web page and resolves to its exit code. */
export function runWeb(
  options: { port?: number; open?: boolean; json?: boolean } = {},
  main = appMain('web'),
): Promise<number> {
  const json = Boolean(options.json);
  const args = [
    ...(options.port === undefined ? [] : ['--port', String(options.port)]),
    ...(options.open ? ['--open'] : []),
    ...(json ? ['--json'] : []),
  ];
  return runApp(main, args, { json });
}

function parsePort(text: string): number {
  const port = Number(text);
  if (!/^\d+$/.test(text) || port < 1 || port > 65_535) {
    throw new InvalidArgumentError('a port from 1 to 65535');
  }
  return port;
}

/** Registers `keel web`. */
export function registerWebCommand(program: Command): void {
  program
    .command('web')
    .description(
      "show keel's memory in your browser: a local page only you can open (prints its URL; see the README)",
    )
    .option('--port <n>', 'the port on 127.0.0.1 (default: any free port)', parsePort)
    .option('--open', 'open the URL in your browser')
    .action(async (opts: { port?: number; open?: boolean }, cmd: Command) => {
      process.exitCode = await runWeb({ ...opts, json: wantsJson(cmd) });
    });
}
