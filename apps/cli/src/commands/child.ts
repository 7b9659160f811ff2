/**
 * Running an app as a child process: the CLI starts `keel discord` and `keel think` this way
 * (nothing imports an app). The child gets this process's environment plus `KEEL_PARENT_PID`
 * (this process's PID: the app stops gracefully once this process is gone, even after SIGKILL);
 * SIGTERM, SIGINT and SIGHUP are forwarded to it.
 *
 * @module
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';

/** The signals passed on to the child. */
export const FORWARDED_SIGNALS = ['SIGTERM', 'SIGINT', 'SIGHUP'] as const;

/**
 * Runs `node <main> ...args` with inherited stdio and resolves to its exit code: the child's code,
 * 1 when it ended by a signal or could not start, 2 when `main` is missing (not built).
 */
export function runApp(main: string, args: string[] = []): Promise<number> {
  if (!existsSync(main)) {
    process.stderr.write(
      `error FILE_UNREADABLE: ${main} is missing; build first (pnpm exec turbo run build)\n`,
    );
    return Promise.resolve(2);
  }
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [main, ...args], {
      env: { ...process.env, KEEL_PARENT_PID: String(process.pid) },
      stdio: 'inherit',
    });
    const handlers = FORWARDED_SIGNALS.map((s) => [s, () => child.kill(s)] as const);
    const detach = () => {
      for (const [s, h] of handlers) process.off(s, h);
    };
    for (const [s, h] of handlers) process.on(s, h);
    child.on('exit', (code, signal) => {
      detach();
      resolve(code ?? (signal ? 1 : 0));
    });
    child.on('error', (err) => {
      detach();
      process.stderr.write(`error: could not start ${main}: ${err.message}\n`);
      resolve(1);
    });
  });
}
