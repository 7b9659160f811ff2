#!/usr/bin/env node
/**
 * The owner's web page as a process (`keel web [--port N] [--open] [--json]`). Settings come from
 * `@keel/host`'s `readConfig` (the environment over `$KEEL_HOME/config.toml`). It binds
 * 127.0.0.1 only (`--port`, default a free port), makes a fresh start token, and prints the URL
 * that carries it (`--json`: one line `{"url": …}`); `--open` opens it in the owner's browser
 * with the platform's opener. While it runs, `keel doctor` lists it (`announceServer`: the
 * address, never the token). SIGTERM, SIGINT or SIGHUP stops it; so does the end of the `keel`
 * CLI that started it. Exit codes are `@keel/host`'s `EXIT`; an error is printed with its code
 * and fix (`--json`: one `{"error": …}` line).
 *
 * @module
 */
import { readConfig, reportError, stopWhenParentGone, terminalText } from '@keel/host';
import { parseWebArgs } from './args.js';
import { startWeb } from './server.js';

/** The process's one writer of log lines. */
const log = (line: string) =>
  process.stderr.write(terminalText(`${new Date().toISOString()} ${line}\n`));

async function main(argv: string[]): Promise<number> {
  const json = argv.includes('--json');
  let stop: () => Promise<void>;
  try {
    const args = parseWebArgs(argv);
    const config = readConfig(process.env);
    stopWhenParentGone(config.process.parentPid, { name: 'web', log });
    const web = await startWeb(config, { port: args.port, open: args.open, log });
    process.stdout.write(
      args.json
        ? `${JSON.stringify({ url: web.url })}\n`
        : `keel web: open ${web.url}\n(the link works for this run only; only this machine can reach it)\n`,
    );
    stop = web.stop;
  } catch (err) {
    return reportError(err, json);
  }
  await new Promise<void>((resolve) => {
    for (const sig of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
      process.on(sig, () => {
        log(`web: ${sig}: stopping`);
        resolve();
      });
    }
  });
  await stop();
  log('web: stopped');
  return 0;
}

/** Exits once stdout has been flushed (a pipe may be asynchronous). */
function exit(code: number): void {
  process.stdout.write('', () => process.exit(code));
}

const argv = process.argv.slice(2);
main(argv).then(exit, (err) => exit(reportError(err, argv.includes('--json'))));
