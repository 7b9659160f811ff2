import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  PARENT_CHECK_MS,
  parseParentPid,
  pidAlive,
  runApp,
  stopWhenParentGone,
  watchParent,
} from './process.js';

describe('watchParent', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('calls onGone once when the parent PID changes (re-parented), and not before', () => {
    vi.useFakeTimers();
    let ppid = 4242;
    let gone = 0;
    const stop = watchParent({
      parentPid: 4242,
      onGone: () => gone++,
      ppid: () => ppid,
      alive: () => true,
    });
    vi.advanceTimersByTime(PARENT_CHECK_MS * 5);
    expect(gone).toBe(0);
    ppid = 1; // the parent died; init (or a subreaper) adopted this process
    vi.advanceTimersByTime(PARENT_CHECK_MS);
    expect(gone).toBe(1);
    vi.advanceTimersByTime(PARENT_CHECK_MS * 5);
    expect(gone).toBe(1); // once, then the watch has ended
    expect(vi.getTimerCount()).toBe(0);
    stop();
  });

  it('calls onGone when the parent PID is no longer alive, and at once when already gone', () => {
    vi.useFakeTimers();
    let alive = true;
    let gone = 0;
    watchParent({
      parentPid: 7,
      onGone: () => gone++,
      ppid: () => 7,
      alive: () => alive,
      intervalMs: 100,
    });
    vi.advanceTimersByTime(300);
    expect(gone).toBe(0);
    alive = false;
    vi.advanceTimersByTime(100);
    expect(gone).toBe(1);

    let early = 0;
    watchParent({ parentPid: 7, onGone: () => early++, ppid: () => 1, alive: () => true });
    expect(early).toBe(1);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('stops watching when asked, and defaults to this process (its parent is alive)', () => {
    vi.useFakeTimers();
    let gone = 0;
    const stop = watchParent({ parentPid: process.ppid, onGone: () => gone++ });
    vi.advanceTimersByTime(PARENT_CHECK_MS * 3);
    expect(gone).toBe(0);
    stop();
    expect(vi.getTimerCount()).toBe(0);
    expect(pidAlive(process.pid)).toBe(true);
  });

  it('pidAlive is false for a PID that has exited', async () => {
    const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
    await new Promise((resolve) => child.on('exit', resolve));
    // reaped by this process (the exit event), so the PID is free
    expect(pidAlive(child.pid!)).toBe(false);
  });
});

describe('parseParentPid', () => {
  it('reads a positive whole number; anything else means no parent to watch', () => {
    expect(parseParentPid('4242')).toBe(4242);
    expect(parseParentPid(' 17 ')).toBe(17);
    for (const raw of [undefined, '', ' ', '0', '-3', '12a', '1.5', '99999999999999999999']) {
      expect(parseParentPid(raw)).toBeNull();
    }
  });
});

describe('stopWhenParentGone', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('watches nothing without a parent PID, and the parent of this process while it lives', () => {
    vi.useFakeTimers();
    const logs: string[] = [];
    stopWhenParentGone(null, { name: 'think', log: (l) => logs.push(l) })();
    expect(vi.getTimerCount()).toBe(0);
    const stop = stopWhenParentGone(process.ppid, { name: 'think', log: (l) => logs.push(l) });
    expect(vi.getTimerCount()).toBe(1);
    vi.advanceTimersByTime(PARENT_CHECK_MS * 3);
    expect(logs).toEqual([]);
    stop();
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe('runApp', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  /** A script that writes what it saw to `out` and exits with `code`. */
  function app(code: number): { main: string; out: string } {
    const dir = mkdtempSync(join(tmpdir(), 'keel-host-app-'));
    dirs.push(dir);
    const main = join(dir, 'main.mjs');
    const out = join(dir, 'out.json');
    writeFileSync(
      main,
      `import { writeFileSync } from 'node:fs';
       writeFileSync(${JSON.stringify(out)}, JSON.stringify({ parent: process.env.KEEL_PARENT_PID, ppid: process.ppid, args: process.argv.slice(2), extra: process.env.EXTRA }));
       process.exit(${code});`,
    );
    return { main, out };
  }

  it('runs the app with KEEL_PARENT_PID set to this process and resolves to its exit code', async () => {
    const ok = app(0);
    expect(await runApp(ok.main, ['--once'], { env: { ...process.env, EXTRA: 'x' } })).toBe(0);
    expect(JSON.parse(readFileSync(ok.out, 'utf8'))).toEqual({
      parent: String(process.pid),
      ppid: process.pid,
      args: ['--once'],
      extra: 'x',
    });
    expect(await runApp(app(3).main)).toBe(3);
  });

  it('reports a missing entry point as FILE_UNREADABLE and exits 2', async () => {
    const writes: string[] = [];
    const write = process.stderr.write;
    process.stderr.write = ((chunk: string) => writes.push(String(chunk))) as never;
    try {
      expect(await runApp('/nonexistent/keel/main.js')).toBe(2);
    } finally {
      process.stderr.write = write;
    }
    expect(writes.join('')).toContain(
      'error FILE_UNREADABLE: /nonexistent/keel/main.js is missing',
    );
  });
});
