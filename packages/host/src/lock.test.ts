import { type ChildProcess, spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { KeelError } from '@keel/errors';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  acquireServiceLock,
  acquireThinkLock,
  lockPath,
  parseLockInfo,
  readLockHolder,
  STALE_MS,
  serviceLockPath,
} from './lock.js';
import { pidAlive } from './process.js';

const LOCK_TS = fileURLToPath(new URL('./lock.ts', import.meta.url));

let home: string;
let path: string;
let logs: string[];
const children: ChildProcess[] = [];

beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'keel-host-lock-'));
  path = lockPath(home);
  logs = [];
});
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill('SIGKILL');
  rmSync(home, { recursive: true, force: true });
});

const log = (line: string) => logs.push(line);

/** A real process that takes the lock through `acquireThinkLock` and holds it until killed. */
async function holder(file: string): Promise<ChildProcess> {
  const script = `
    import { acquireThinkLock } from ${JSON.stringify(LOCK_TS)};
    acquireThinkLock(${JSON.stringify(file)});
    process.stdout.write('locked\\n');
    setInterval(() => {}, 1000);
  `;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let err = '';
  child.stderr?.on('data', (d) => {
    err += d;
  });
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on('data', (d) => String(d).includes('locked') && resolve());
    child.on('exit', (code) => reject(new Error(`holder exited ${code}: ${err}`)));
  });
  return child;
}

/** The PID of a process that has exited. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
  const pid = child.pid!;
  await new Promise((resolve) => child.on('exit', resolve));
  return pid;
}

function thrown(fn: () => unknown): KeelError {
  try {
    fn();
  } catch (err) {
    if (KeelError.isInstance(err)) return err;
    throw err;
  }
  throw new Error('expected a KeelError');
}

describe('the think lock', () => {
  it('creates the lock file with this PID and start time, and release deletes it', () => {
    const lock = acquireThinkLock(path, { log, now: () => 1_700_000_000_000 });
    expect(existsSync(path)).toBe(true);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(parseLockInfo(readFileSync(path, 'utf8'))).toEqual({
      pid: process.pid,
      startedAt: 1_700_000_000_000,
    });
    expect(existsSync(`${path}.lock`)).toBe(true); // proper-lockfile's directory
    expect(lock.release()).toBe(true);
    expect(existsSync(path)).toBe(false);
    expect(existsSync(`${path}.lock`)).toBe(false);
    expect(lock.release()).toBe(false); // idempotent
    expect(logs).toEqual([]);
  });

  it('refuses a second lock while a live process holds it, naming the PID; free again once it is gone', async () => {
    const child = await holder(path);
    expect(parseLockInfo(readFileSync(path, 'utf8'))?.pid).toBe(child.pid);
    expect(pidAlive(child.pid!)).toBe(true);

    const err = thrown(() => acquireThinkLock(path, { log }));
    expect(err.code).toBe('THINK_RUNNING');
    expect(err.message).toContain(`PID ${child.pid}`);
    expect(err.fix).toContain('think.lock');
    expect(err.details).toMatchObject({ pid: child.pid });
    // the holder's lock is untouched
    expect(parseLockInfo(readFileSync(path, 'utf8'))?.pid).toBe(child.pid);

    // Positive control: once the holder dies, the same call succeeds (reclaiming its lock).
    child.kill('SIGKILL');
    await new Promise((resolve) => child.on('exit', resolve));
    // SIGKILL left both the record and a directory that still looks fresh to proper-lockfile:
    // the record's dead PID reclaims it at once, not after the stale timeout.
    expect(existsSync(`${path}.lock`)).toBe(true);
    const started = Date.now();
    const lock = acquireThinkLock(path, { log });
    expect(Date.now() - started).toBeLessThan(STALE_MS / 2);
    expect(lock.info.pid).toBe(process.pid);
    expect(logs.join('\n')).toContain(`holder PID ${child.pid} is no longer running`);
    lock.release();
  });

  it('reclaims a lock left by a dead PID, and says so', async () => {
    const pid = await deadPid();
    expect(pidAlive(pid)).toBe(false);
    writeFileSync(path, JSON.stringify({ pid, startedAt: Date.now() }));
    const lock = acquireThinkLock(path, { log });
    expect(parseLockInfo(readFileSync(path, 'utf8'))?.pid).toBe(process.pid);
    expect(logs).toHaveLength(1);
    expect(logs[0]).toContain(`reclaiming ${path}`);
    expect(logs[0]).toContain(`PID ${pid}`);
    lock.release();
  });

  it('reclaims a garbage lock file once it is not fresh', () => {
    writeFileSync(path, 'not a lock');
    const later = statSync(path).mtimeMs + 60_000;
    const lock = acquireThinkLock(path, { log, now: () => later });
    expect(parseLockInfo(readFileSync(path, 'utf8'))?.pid).toBe(process.pid);
    expect(logs.join('\n')).toContain('it is not a lock file');
    lock.release();
  });

  it('waits briefly on a fresh empty lock file (one being written), then reclaims it', () => {
    writeFileSync(path, '');
    const started = Date.now();
    const lock = acquireThinkLock(path, { log });
    expect(Date.now() - started).toBeGreaterThanOrEqual(400);
    expect(lock.info.pid).toBe(process.pid);
    expect(logs.join('\n')).toContain('it is not a lock file');
    lock.release();
  });

  it('refuses to take a lock this process already holds', () => {
    const lock = acquireThinkLock(path, { log });
    expect(thrown(() => acquireThinkLock(path, { log })).code).toBe('THINK_RUNNING');
    lock.release();
    // Positive control: released, it can be taken again.
    acquireThinkLock(path, { log }).release();
  });

  it('reclaims a lock naming this PID that this process does not hold (a restart reusing the PID)', () => {
    writeFileSync(path, JSON.stringify({ pid: process.pid, startedAt: Date.now() }));
    const lock = acquireThinkLock(path, { log });
    expect(lock.info.startedAt).not.toBe(1);
    expect(logs.join('\n')).toContain('the PID is now this process');
    lock.release();
  });

  it('release leaves alone a lock that is no longer ours', () => {
    const lock = acquireThinkLock(path, { log });
    const other = JSON.stringify({ pid: 999_999, startedAt: 5 });
    writeFileSync(path, other); // someone reclaimed it
    expect(lock.release()).toBe(false);
    expect(readFileSync(path, 'utf8')).toBe(other);
  });

  it('reclaims a lock taken before the machine last started, though its PID is alive again', () => {
    const booted = Date.now() - 3_600_000;
    writeFileSync(path, JSON.stringify({ pid: 4242, startedAt: booted - 86_400_000 }));
    const lock = acquireThinkLock(path, { log, isAlive: () => true, bootedAt: () => booted });
    expect(lock.info.pid).toBe(process.pid);
    expect(logs.join('\n')).toMatch(/taken before the machine last started/);
    lock.release();
    // Control: the same live PID holding a lock taken since the boot is respected.
    writeFileSync(path, JSON.stringify({ pid: 4242, startedAt: booted + 60_000 * 5 }));
    expect(
      thrown(() => acquireThinkLock(path, { log, isAlive: () => true, bootedAt: () => booted }))
        .code,
    ).toBe('THINK_RUNNING');
  });

  it('uses the live-process check it is given', () => {
    writeFileSync(path, JSON.stringify({ pid: 4242, startedAt: Date.now() }));
    expect(
      thrown(() => acquireThinkLock(path, { log, isAlive: (p) => p === 4242 })).message,
    ).toContain('PID 4242');
    const lock = acquireThinkLock(path, { log, isAlive: () => false });
    expect(lock.info.pid).toBe(process.pid);
    lock.release();
  });

  it('gives a held directory half a second for its record, then reclaims it', () => {
    mkdirSync(`${path}.lock`); // taken (fresh), but its holder never wrote the record
    const started = Date.now();
    const lock = acquireThinkLock(path, { log });
    expect(Date.now() - started).toBeGreaterThanOrEqual(400);
    expect(Date.now() - started).toBeLessThan(STALE_MS);
    expect(logs.join('\n')).toContain('its holder never wrote');
    expect(parseLockInfo(readFileSync(path, 'utf8'))?.pid).toBe(process.pid);
    lock.release();
  });

  it('respects a live holder whose directory is fresh, naming its PID', () => {
    mkdirSync(`${path}.lock`);
    writeFileSync(path, JSON.stringify({ pid: 4242, startedAt: Date.now() }));
    const err = thrown(() => acquireThinkLock(path, { log, isAlive: () => true }));
    expect(err.code).toBe('THINK_RUNNING');
    expect(err.message).toContain('PID 4242');
    expect(existsSync(`${path}.lock`)).toBe(true); // the holder's directory is left alone
  });
});

describe('readLockHolder', () => {
  it('reads who holds the lock and whether it still runs', async () => {
    expect(readLockHolder(home)).toBeNull();
    const lock = acquireThinkLock(path, { now: () => 1_800_000_000_000 });
    expect(readLockHolder(home)).toEqual({
      pid: process.pid,
      startedAt: 1_800_000_000_000,
      alive: true,
    });
    lock.release();
    expect(readLockHolder(home)).toBeNull();

    const pid = await deadPid();
    writeFileSync(path, JSON.stringify({ pid, startedAt: Date.now() }));
    expect(readLockHolder(home)).toMatchObject({ pid, alive: false });
    // a record from before the machine last started is not a running service
    writeFileSync(path, JSON.stringify({ pid: process.pid, startedAt: 1 }));
    expect(readLockHolder(home)).toMatchObject({ pid: process.pid, alive: false });
    writeFileSync(path, 'not a lock');
    expect(readLockHolder(home)).toBeNull();
  });
});

describe('the Discord door lock', () => {
  it('one keel discord per KEEL_HOME: a second is SERVICE_RUNNING, beside the think lock', () => {
    const think = acquireThinkLock(lockPath(home), { log, releaseOnExit: false });
    const discordPath = serviceLockPath(home, 'discord');
    expect(discordPath).toBe(join(home, 'discord.lock'));
    const first = acquireServiceLock(discordPath, 'discord', { log, releaseOnExit: false });
    try {
      expect(readLockHolder(home, pidAlive, 'discord')).toMatchObject({
        pid: process.pid,
        alive: true,
      });
      let err: unknown;
      try {
        acquireServiceLock(discordPath, 'discord', { pid: process.pid + 1, log });
      } catch (e) {
        err = e;
      }
      expect(KeelError.isInstance(err) && err.code).toBe('SERVICE_RUNNING');
      expect((err as Error).message).toContain(
        `keel discord is already running (PID ${process.pid}`,
      );
    } finally {
      first.release();
      think.release();
    }
    expect(existsSync(discordPath)).toBe(false);
    expect(readLockHolder(home, pidAlive, 'discord')).toBeNull();
  });
});
