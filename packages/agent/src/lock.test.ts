// The turn lock across real processes: a holder killed mid-turn leaves a lock that the next turn
// reclaims at once (not after the 30 s staleness), and a live holder still blocks.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { KeelError } from '@keel/errors';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  acquireTurnLock,
  readTurnLockHolder,
  type TurnLockHolder,
  turnHolderPath,
  turnUnderWay,
} from './lock.js';

const HOLDER = fileURLToPath(
  new URL('../../../tests/support/turn-lock-holder.ts', import.meta.url),
);

let dir: string;
let path: string;
const children: ChildProcess[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'keel-turn-lock-'));
  path = join(dir, 'keel.db');
});
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

/** Starts a process that takes the lock; resolves once it holds it. */
async function holder(): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', HOLDER, path], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let err = '';
  child.stderr?.on('data', (d: Buffer) => {
    err += d.toString();
  });
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on('data', (d: Buffer) => {
      if (d.toString().includes('locked')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`holder exited ${code}: ${err}`)));
  });
  return child;
}

async function kill(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

describe('acquireTurnLock', () => {
  it('reclaims at once the lock of a process killed while holding it', async () => {
    const child = await holder();
    expect(readTurnLockHolder(path)?.pid).toBe(child.pid);
    await kill(child);
    // The dead holder's lock directory and record are still there.
    expect(existsSync(`${path}.turn.lock`)).toBe(true);
    const waits: Array<TurnLockHolder | null> = [];
    const started = Date.now();
    const release = await acquireTurnLock(path, { waitMs: 10_000, onWait: (h) => waits.push(h) });
    const took = Date.now() - started;
    expect(took).toBeLessThan(2_000); // not the 30 s staleness
    expect(waits).toEqual([]);
    expect(readTurnLockHolder(path)?.pid).toBe(process.pid);
    await release();
    expect(existsSync(turnHolderPath(path))).toBe(false);
    expect(existsSync(`${path}.turn.lock`)).toBe(false);
  });

  it("control: a dead holder's record does not free a lock directory another process took since", async () => {
    const child = await holder();
    await kill(child);
    // A process that keeps no record (as keel restore does) takes the abandoned directory over.
    const old = statSync(`${path}.turn.lock`).ino;
    rmSync(`${path}.turn.lock`, { recursive: true });
    mkdirSync(join(dir, 'spacer')); // takes the freed inode, if the file system reuses it
    mkdirSync(`${path}.turn.lock`);
    expect(statSync(`${path}.turn.lock`).ino).not.toBe(old);
    expect(readTurnLockHolder(path)).toMatchObject({ pid: child.pid, lockIno: old });
    const error = await acquireTurnLock(path, { waitMs: 500 }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(KeelError.isInstance(error) && error.code).toBe('SESSION_BUSY');
    expect(existsSync(`${path}.turn.lock`)).toBe(true);
  });

  it('a live holder still blocks: the waiter is told who holds it, then SESSION_BUSY', async () => {
    const child = await holder();
    const waits: Array<TurnLockHolder | null> = [];
    const error = await acquireTurnLock(path, {
      waitMs: 800,
      noticeAfterMs: 200,
      onWait: (h) => waits.push(h),
    }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(KeelError.isInstance(error) && error.code).toBe('SESSION_BUSY');
    expect(waits.map((h) => h?.pid)).toEqual([child.pid]);
    // Once the holder is gone, the same call takes it.
    await kill(child);
    const release = await acquireTurnLock(path, { waitMs: 10_000 });
    await release();
  });

  it('waits for a holder in this process and takes the lock when it is released', async () => {
    const first = await acquireTurnLock(path);
    const waits: Array<TurnLockHolder | null> = [];
    let taken = false;
    const second = acquireTurnLock(path, {
      noticeAfterMs: 100,
      onWait: (h) => waits.push(h),
    }).then((release) => {
      taken = true;
      return release;
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    // Not told of a wait shorter than noticeAfterMs.
    expect(waits).toEqual([]);
    // Told once the wait passes noticeAfterMs; still waiting.
    await expect.poll(() => waits.length).toBe(1);
    expect(taken).toBe(false);
    expect(waits.map((h) => h?.pid)).toEqual([process.pid]);
    await first();
    const release = await second;
    expect(taken).toBe(true);
    await release();
  });
});

describe('turnUnderWay', () => {
  it('a live holder holds a turn; the same lock after its holder was killed holds none', async () => {
    expect(turnUnderWay(path)).toBe(false);
    const child = await holder();
    expect(turnUnderWay(path)).toBe(true);
    await kill(child);
    expect(existsSync(`${path}.turn.lock`)).toBe(true); // not stale yet: only the record tells
    expect(turnUnderWay(path)).toBe(false);
  });
});
