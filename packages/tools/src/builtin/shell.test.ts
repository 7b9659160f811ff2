import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MemoryStore } from '@keel/memory';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ToolContext } from '../contract.js';
import { shellTool } from './shell.js';
import { isCredentialName, strippedEnv } from './shell-env.js';

function context(signal = new AbortController().signal): ToolContext {
  // The shell tool never touches memory.
  return { signal, store: {} as MemoryStore, tz: 'UTC', now: () => Date.now(), channel: 'cli' };
}

interface ShellBody {
  exitCode: number | null;
  signal: string | null;
  stopped: string | null;
  durationMs: number;
  stdout: string;
  stdoutCutBytes: number;
  stderr: string;
  stderrCutBytes: number;
}

let dir: string;
let workdir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'keel-shell-'));
  workdir = join(dir, 'workspace');
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const baseEnv = { PATH: process.env.PATH ?? '/usr/bin:/bin' };

describe('shell', () => {
  it('runs in the workdir it creates: `echo hi > out.txt` writes the file there', async () => {
    const tool = shellTool({ workdir, env: baseEnv });
    const result = await tool.execute({ command: 'echo hi > out.txt' }, context());
    expect(result.isError).toBe(false);
    expect(result.exit).toBe('0');
    expect(await readFile(join(workdir, 'out.txt'), 'utf8')).toBe('hi\n');
    expect(tool.exactKey?.({ command: 'echo hi > out.txt' })).toBe('echo hi > out.txt');
    expect(tool.summary({ command: 'ls' })).toBe(`run \`ls\` in ${workdir}`);
    expect(tool.effect).toBe('run');
  });

  it('shows the workdir under ~ in the summary when the home folder is given', () => {
    const tool = shellTool({
      workdir: '/home/ann/.keel/workspace',
      env: baseEnv,
      home: '/home/ann',
    });
    expect(tool.summary({ command: 'echo hi > out.txt' })).toBe(
      'run `echo hi > out.txt` in ~/.keel/workspace',
    );
  });

  it('reports the exit code and stderr of a failing command (control: a succeeding one is 0)', async () => {
    const tool = shellTool({ workdir, env: baseEnv });
    const failed = await tool.execute({ command: 'echo oops >&2; exit 3' }, context());
    const body = JSON.parse(failed.content) as ShellBody;
    expect(failed.isError).toBe(true);
    expect(failed.exit).toBe('3');
    expect(body.exitCode).toBe(3);
    expect(body.stderr).toBe('oops\n');
    const ok = await tool.execute({ command: 'true' }, context());
    expect(ok.exit).toBe('0');
    expect(ok.isError).toBe(false);
  });

  it('stops a command past its time limit, and the child it started too', async () => {
    const tool = shellTool({ workdir, env: baseEnv, timeoutMs: 300, killGraceMs: 200 });
    const started = Date.now();
    // The shell starts a `sleep` child, writes its pid, and waits on it.
    const result = await tool.execute(
      { command: 'sleep 30 & echo $! > child.pid; wait' },
      context(),
    );
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(result.exit).toBe('timeout');
    expect(result.isError).toBe(true);
    expect((JSON.parse(result.content) as ShellBody).stopped).toBe('timeout');
    const childPid = Number((await readFile(join(workdir, 'child.pid'), 'utf8')).trim());
    expect(childPid).toBeGreaterThan(0);
    expect(alive(childPid)).toBe(false);
    expect(alive(process.pid)).toBe(true);
  });

  it('stops a command when the call is cancelled', async () => {
    const tool = shellTool({ workdir, env: baseEnv, killGraceMs: 200 });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    const started = Date.now();
    const result = await tool.execute({ command: 'sleep 30' }, context(controller.signal));
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(result.exit).toBe('cancelled');
  });

  it('hides secrets from the command while a plain variable passes', async () => {
    const env = {
      ...baseEnv,
      PLAIN_SETTING: 'visible',
      ANTHROPIC_API_KEY: 'sk-ant-secret',
      KEEL_DISCORD_BOT: 'listed-secret',
      GITHUB_TOKEN: 'ghp-secret',
      PGPASSWORD: 'pw-secret',
    };
    const tool = shellTool({ workdir, env, secretNames: ['KEEL_DISCORD_BOT'] });
    const result = await tool.execute({ command: 'env' }, context());
    const out = (JSON.parse(result.content) as ShellBody).stdout;
    expect(out).toContain('PLAIN_SETTING=visible');
    for (const hidden of ['ANTHROPIC_API_KEY', 'KEEL_DISCORD_BOT', 'GITHUB_TOKEN', 'PGPASSWORD']) {
      expect(out).not.toContain(hidden);
    }
    expect(out).not.toContain('secret');
  });

  it('keeps the tail of a large output and says how much was cut', async () => {
    const tool = shellTool({ workdir, env: baseEnv, maxOutputBytes: 1024 });
    const result = await tool.execute({ command: 'seq 1 20000' }, context());
    const body = JSON.parse(result.content) as ShellBody;
    expect(body.stdout.endsWith('19999\n20000\n')).toBe(true);
    expect(body.stdout).not.toContain('\n1\n2\n3\n');
    expect(Buffer.byteLength(body.stdout)).toBeLessThanOrEqual(1024);
    expect(body.stdoutCutBytes).toBeGreaterThan(100_000);
    // Control: a small output is kept whole and nothing is cut.
    const small = JSON.parse(
      (await tool.execute({ command: 'seq 1 3' }, context())).content,
    ) as ShellBody;
    expect(small.stdout).toBe('1\n2\n3\n');
    expect(small.stdoutCutBytes).toBe(0);
  });

  it('returns promptly when a command leaves a background process behind', async () => {
    const tool = shellTool({ workdir, env: baseEnv, timeoutMs: 10_000 });
    const started = Date.now();
    const result = await tool.execute({ command: 'sleep 30 & echo started' }, context());
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(result.exit).toBe('0');
    expect(existsSync(workdir)).toBe(true);
  });

  it('ends when the shell exits, though a process that left its group holds the pipes', async () => {
    const tool = shellTool({ workdir, env: baseEnv, timeoutMs: 1_500, killGraceMs: 200 });
    const started = Date.now();
    const result = await tool.execute(
      { command: 'setsid sleep 7 & echo $! > daemon.pid; sleep 0.5; echo started' },
      context(),
    );
    expect(Date.now() - started).toBeLessThan(4_000);
    const body = JSON.parse(result.content) as ShellBody;
    expect(result).toMatchObject({ isError: false, exit: '0' });
    expect(body).toMatchObject({ exitCode: 0, stopped: null, stdout: 'started\n' });
    // What left the group is not stopped (as documented): it still runs, and the test ends it.
    const daemonPid = Number((await readFile(join(workdir, 'daemon.pid'), 'utf8')).trim());
    expect(daemonPid).toBeGreaterThan(0);
    expect(alive(daemonPid)).toBe(true);
    process.kill(daemonPid, 'SIGKILL');
    // Control: a command that itself runs past the limit is still stopped as a timeout.
    const late = await tool.execute({ command: 'sleep 7; echo late' }, context());
    expect(late).toMatchObject({ isError: true, exit: 'timeout' });
    expect((JSON.parse(late.content) as ShellBody).stdout).toBe('');
  });

  it('declares the longest a call may run: the limit, the kill grace and the drain', () => {
    const tool = shellTool({
      workdir,
      env: baseEnv,
      timeoutMs: 1_000,
      killGraceMs: 300,
      outputDrainMs: 50,
    });
    expect(tool.timeoutMs).toBe(1_350);
    expect(shellTool({ workdir, env: baseEnv }).timeoutMs).toBe(60_000 + 2_000 + 200);
  });
});

describe('shell start failures', () => {
  it('says the command could not be started when the shell is missing (control: /bin/sh starts)', async () => {
    const missing = shellTool({ workdir, env: baseEnv, shell: join(dir, 'no-such-shell') });
    const result = await missing.execute({ command: 'true' }, context());
    expect(result).toMatchObject({ isError: true, exit: 'error' });
    expect(result.content).toContain('could not be started');
    const present = shellTool({ workdir, env: baseEnv, shell: '/bin/sh' });
    expect((await present.execute({ command: 'true' }, context())).exit).toBe('0');
  });
});

describe('credential names', () => {
  it('are recognised by pattern, while ordinary names are not', () => {
    for (const name of [
      'GITHUB_TOKEN',
      'OPENAI_API_KEY',
      'AWS_SECRET_ACCESS_KEY',
      'PGPASSWORD',
      'token',
    ]) {
      expect(isCredentialName(name)).toBe(true);
    }
    for (const name of ['PATH', 'HOME', 'TOKENIZER_PATH', 'KEYBOARD', 'LANG']) {
      expect(isCredentialName(name)).toBe(false);
    }
    expect(strippedEnv({ PATH: '/bin', X_TOKEN: 't', LISTED: 'l' }, ['LISTED'])).toEqual({
      PATH: '/bin',
    });
  });
});

/** Whether a process runs (a zombie waiting for its parent to reap it has ended). */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/^\d+ \(.*\) [ZX]/.test(stat);
  } catch {
    return false;
  }
}
