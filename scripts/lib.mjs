// Shared helpers for scripts/setup.mjs and scripts/test.mjs.
// Plain Node ESM with no dependencies: these run before anything is installed.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = dirname(dirname(fileURLToPath(import.meta.url)));
export const isWindows = process.platform === 'win32';

/** Print one of our own short messages. Always stderr: stdout belongs to the keel terminal. */
export function say(prefix, message) {
  process.stderr.write(`${prefix} ${message}\n`);
}

export function readRootPackageJson() {
  return JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
}

/**
 * Run a command and resolve with { code, signal, output }; never rejects.
 * Options:
 *   stdoutToStderr: child stdout is sent to our stderr (keeps our stdout clean).
 *   capture: keep (the tail of) the combined output in `output` while still showing it.
 *   silent: capture without showing.
 *   timeoutMs: kill the child (and report `timedOut`) if it runs longer than this.
 *   onOutput: called with each chunk of the child's output as it comes (when piped).
 *   env, cwd, stdin ('inherit' | 'ignore').
 */
export function run(command, args, options = {}) {
  const {
    cwd = ROOT,
    env = process.env,
    stdin = 'inherit',
    stdoutToStderr = false,
    capture = false,
    silent = false,
    timeoutMs = 0,
    onOutput = null,
  } = options;
  const piped = capture || silent;
  const stdio = piped
    ? [stdin, 'pipe', 'pipe']
    : [stdin, stdoutToStderr ? 2 : 'inherit', 'inherit'];
  return new Promise((resolve) => {
    let output = '';
    const keep = (chunk) => {
      onOutput?.(chunk);
      output += chunk.toString();
      if (output.length > 256_000) output = output.slice(-128_000);
    };
    let child;
    try {
      child = spawn(command, args, { cwd, env, stdio, shell: isWindows });
    } catch (error) {
      resolve({ code: null, signal: null, output: '', error });
      return;
    }
    if (piped) {
      const out = stdoutToStderr ? process.stderr : process.stdout;
      child.stdout.on('data', (chunk) => {
        keep(chunk);
        if (!silent) out.write(chunk);
      });
      child.stderr.on('data', (chunk) => {
        keep(chunk);
        if (!silent) process.stderr.write(chunk);
      });
    }
    let timedOut = false;
    const timer =
      timeoutMs > 0
        ? setTimeout(() => {
            timedOut = true;
            child.kill('SIGKILL');
          }, timeoutMs)
        : null;
    child.on('error', (error) => {
      if (timer) clearTimeout(timer);
      resolve({ code: null, signal: null, output, error, timedOut });
    });
    child.on('close', (code, signal) => {
      if (timer) clearTimeout(timer);
      resolve({ code, signal, output, timedOut });
    });
  });
}

/** If a child died of Ctrl-C, stop too instead of carrying on. */
export function exitIfInterrupted(result) {
  if (result.signal === 'SIGINT' || result.code === 130) process.exit(130);
  if (result.signal === 'SIGTERM') process.exit(143);
}
