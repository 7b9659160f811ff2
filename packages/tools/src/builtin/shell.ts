/**
 * The `shell` tool: runs one command line through `/bin/sh -c` in the owner's workspace folder,
 * with a time limit, the tail of its output and an environment without keel's secrets.
 *
 * @module
 */
import type { ChildProcess } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import { x } from 'tinyexec';
import { z } from 'zod';
import type { Tool, ToolResult } from '../contract.js';
import { formatBytes, KIB, TailBuffer } from './bytes.js';
import { definedOnly, displayPath } from './paths.js';
import { strippedEnv } from './shell-env.js';

/** What `shell` needs from the host. */
export interface ShellToolOptions {
  /** The folder commands run in (the host passes `$KEEL_HOME/workspace`); created when missing. */
  workdir: string;
  /** The base environment of every command (the host passes its own); secrets are stripped from it. */
  env: Readonly<Record<string, string | undefined>>;
  /**
   * Variable names removed from `env` whatever they look like: keel's secret settings
   * (`ANTHROPIC_API_KEY`, `OPENAI_API_KEY`, `DISCORD_TOKEN`, …). Names that look like a credential
   * are removed as well ({@link CREDENTIAL_NAME}).
   */
  secretNames?: readonly string[];
  /** Time limit of one command, in milliseconds. Default {@link SHELL_DEFAULTS}.timeoutMs. */
  timeoutMs?: number;
  /** Bytes kept of each of stdout and stderr (the tail). Default {@link SHELL_DEFAULTS}.maxOutputBytes. */
  maxOutputBytes?: number;
  /**
   * Milliseconds between SIGTERM and SIGKILL when a command is stopped (time limit, cancel).
   * Default {@link SHELL_DEFAULTS}.killGraceMs.
   */
  killGraceMs?: number;
  /**
   * Milliseconds the output pipes are still read after the shell exits, for what it wrote last;
   * then they are closed, even when a process that left the group still holds them.
   * Default {@link SHELL_DEFAULTS}.outputDrainMs.
   */
  outputDrainMs?: number;
  /** The shell, run as `<shell> -c <command>`. Default `/bin/sh`. */
  shell?: string;
  /** The owner's home folder, only to show paths as `~/…` in summaries. */
  home?: string;
}

/** The defaults of {@link ShellToolOptions}. */
export const SHELL_DEFAULTS = {
  /** 60 s. */
  timeoutMs: 60_000,
  /** 64 KiB of each of stdout and stderr. */
  maxOutputBytes: 64 * KIB,
  /** 2 s. */
  killGraceMs: 2_000,
  /** 200 ms. */
  outputDrainMs: 200,
  shell: '/bin/sh',
} as const;

const shellInput = z.object({
  command: z
    .string()
    .min(1)
    .describe('The command line, run by /bin/sh -c in the workspace folder.'),
});

/** The input of `shell`. */
export type ShellInput = z.infer<typeof shellInput>;

/** What one run ended with. */
interface RunOutcome {
  exitCode: number | null;
  signal: string | null;
  /** Why keel stopped it, if it did. */
  stopped: 'timeout' | 'cancelled' | null;
  durationMs: number;
  stdout: TailBuffer;
  stderr: TailBuffer;
}

/**
 * Makes the `shell` tool (effect `run`, asks by default). Every command runs in its own process
 * group. The call ends when the shell itself exits (its exit code): whatever it left running in
 * its group is then killed (SIGKILL), its output pipes are read for
 * {@link ShellToolOptions.outputDrainMs} more and closed. When the time limit passes or the call
 * is cancelled, the whole group is stopped (SIGTERM, then SIGKILL after the grace).
 *
 * What is stopped: the shell and every process still in its group — background jobs (`cmd &`),
 * `nohup cmd &`, a double fork. What is not: a process that left the group (`setsid cmd`, or one
 * that made its own group or session, as a daemon does) keeps running after the call; it no
 * longer holds the call open, since the pipes are closed after the drain.
 *
 * The tool's `timeoutMs` (the longest one call may run) is the time limit plus the kill grace and
 * the drain.
 *
 * The result is JSON: `exitCode`, `signal`, `stopped` (`timeout`/`cancelled`/null), `durationMs`,
 * `stdout` and `stderr` (their tails) with `stdoutCutBytes`/`stderrCutBytes`; `exit` is the exit
 * code, `timeout` or `cancelled`.
 */
export function shellTool(options: ShellToolOptions): Tool<ShellInput> {
  const settings = { ...SHELL_DEFAULTS, ...definedOnly(options) };
  const env = strippedEnv(options.env, options.secretNames ?? []);
  const where = displayPath(options.workdir, options.home);
  return {
    name: 'shell',
    description:
      `Runs a command line with ${settings.shell} -c in the owner's workspace folder (${where}). ` +
      `Stopped after ${settings.timeoutMs / 1000} s; the last ${formatBytes(settings.maxOutputBytes)} of stdout and of stderr are returned with the exit code.`,
    input: shellInput,
    effect: 'run',
    origin: 'builtin',
    timeoutMs: settings.timeoutMs + settings.killGraceMs + settings.outputDrainMs,
    exactKey: (input) => input.command,
    summary: (input) => `run \`${input.command}\` in ${where}`,
    async execute(input, context) {
      if (context.signal.aborted)
        return { content: 'Cancelled before it ran.', isError: true, exit: 'cancelled' };
      try {
        await mkdir(options.workdir, { recursive: true });
      } catch (error) {
        return failure(
          `The workspace folder ${options.workdir} cannot be created: ${messageOf(error)}`,
        );
      }
      let outcome: RunOutcome;
      try {
        outcome = await run(
          input.command,
          { ...settings, workdir: options.workdir, env },
          context.signal,
        );
      } catch (error) {
        return failure(`The command could not be started: ${messageOf(error)}`);
      }
      return report(outcome);
    },
  };
}

/**
 * Starts the command in its own process group and waits for the shell to exit, then kills what is
 * left in the group and drains the pipes ({@link drainPipes}).
 */
async function run(
  command: string,
  settings: Required<Omit<ShellToolOptions, 'secretNames' | 'home' | 'env'>> & {
    env: Record<string, string>;
  },
  signal: AbortSignal,
): Promise<RunOutcome> {
  const started = performance.now();
  const stdout = new TailBuffer(settings.maxOutputBytes);
  const stderr = new TailBuffer(settings.maxOutputBytes);
  // tinyexec spawns; keel reads the pipes itself (keeping only the tails) and stops the whole group,
  // which tinyexec's own timeout/signal (the child alone) would not.
  const proc = x(settings.shell, ['-c', command], {
    nodeOptions: {
      cwd: settings.workdir,
      env: settings.env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
    inheritEnv: false,
    nodePath: false,
    throwOnError: false,
  });
  const child = proc.process;
  if (!child) throw new Error('no process was started');
  child.stdout?.on('data', (chunk: Buffer) => stdout.push(chunk));
  child.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk));

  let stopped: RunOutcome['stopped'] = null;
  const stop = (why: 'timeout' | 'cancelled') => {
    if (stopped) return;
    stopped = why;
    killGroup(child, 'SIGTERM');
    setTimeout(() => killGroup(child, 'SIGKILL'), settings.killGraceMs).unref();
  };
  const timer = setTimeout(() => stop('timeout'), settings.timeoutMs);
  const onAbort = () => stop('cancelled');
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
    const [exitCode, exitSignal] = await new Promise<[number | null, string | null]>(
      (resolve, reject) => {
        child.once('error', reject);
        child.once('exit', (code, sig) => {
          // The shell exited: stop what it left behind in its group.
          killGroup(child, 'SIGKILL');
          resolve([code, sig]);
        });
      },
    );
    await drainPipes(child, closed, settings.outputDrainMs);
    return {
      exitCode,
      signal: exitSignal,
      stopped,
      durationMs: Math.round(performance.now() - started),
      stdout,
      stderr,
    };
  } finally {
    clearTimeout(timer);
    signal.removeEventListener('abort', onAbort);
  }
}

/**
 * Waits for the child's pipes to close (`closed`), at most `drainMs`, then closes them: a process
 * that left the group (setsid) may hold them open for as long as it runs.
 */
async function drainPipes(child: ChildProcess, closed: Promise<void>, drainMs: number) {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    closed,
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, drainMs);
    }),
  ]);
  clearTimeout(timer);
  child.stdout?.destroy();
  child.stderr?.destroy();
}

/** Signals the child's whole process group (it leads one: `detached`); a gone group is fine. */
function killGroup(child: ChildProcess, sig: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, sig);
  } catch {
    // ESRCH: the group has already ended.
  }
}

/** The result the model reads. */
function report(outcome: RunOutcome): ToolResult {
  const exit =
    outcome.stopped ??
    (outcome.exitCode === null ? `signal ${outcome.signal}` : String(outcome.exitCode));
  const body = {
    exitCode: outcome.exitCode,
    signal: outcome.signal,
    stopped: outcome.stopped,
    durationMs: outcome.durationMs,
    stdout: outcome.stdout.text(),
    stdoutCutBytes: outcome.stdout.cut,
    stderr: outcome.stderr.text(),
    stderrCutBytes: outcome.stderr.cut,
  };
  return {
    content: JSON.stringify(body, null, 2),
    isError: outcome.stopped !== null || outcome.exitCode !== 0,
    exit,
  };
}

function failure(message: string): ToolResult {
  return { content: message, isError: true, exit: 'error' };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
