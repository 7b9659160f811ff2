// The services' logs rotated by size, copytruncate-style, against real files written through a
// descriptor opened with O_APPEND, the way systemd (`append:`) and launchd (`StandardOutPath`)
// hand a service its log.
import {
  closeSync,
  existsSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { keepLogRotated, rotatedLogPath, rotateLog, writesTo } from './log.js';
import { lastLogLines } from './status.js';

let dir: string;
let log: string;
const fds: number[] = [];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'keel-log-'));
  log = join(dir, 'think.log');
});
afterEach(() => {
  for (const fd of fds.splice(0)) closeSync(fd);
  rmSync(dir, { recursive: true, force: true });
});

/** The log opened as a service manager opens it: write-only, append, create. */
function managerFd(path = log): number {
  const fd = openSync(path, 'a', 0o600);
  fds.push(fd);
  return fd;
}

/** Writes `count` numbered lines of generation `gen` through `fd`; their bytes. */
function writeLines(fd: number, gen: string, count: number): number {
  let bytes = 0;
  for (let i = 1; i <= count; i++) {
    bytes += writeSync(fd, `${gen} line ${String(i).padStart(3, '0')} ${'x'.repeat(40)}\n`);
  }
  return bytes;
}

const rotation = { maxBytes: 2048, keep: 3 };

describe('rotateLog', () => {
  it('copies a log past its size to .1 and cuts it; the next line lands at its start', () => {
    const fd = managerFd();
    const before = writeLines(fd, 'gen1', 60);
    expect(before).toBeGreaterThan(rotation.maxBytes);
    expect(rotateLog(log, rotation)).toBe(true);
    expect(statSync(log).size).toBe(0);
    const first = readFileSync(rotatedLogPath(log, 1), 'utf8');
    expect(first.length).toBe(before);
    expect(first.split('\n').at(-2)).toMatch(/^gen1 line 060 /);
    expect(statSync(rotatedLogPath(log, 1)).mode & 0o777).toBe(0o600);
    // The manager's descriptor writes on at the new end: no hole of NUL bytes before it.
    const after = writeLines(fd, 'gen2', 2);
    const text = readFileSync(log, 'utf8');
    expect(text.length).toBe(after);
    expect(text.startsWith('gen2 line 001 ')).toBe(true);
  });

  it('keeps `keep` rotated files, .1 the newest, and deletes the oldest', () => {
    const fd = managerFd();
    for (const gen of ['gen1', 'gen2', 'gen3', 'gen4', 'gen5']) {
      writeLines(fd, gen, 60);
      expect(rotateLog(log, rotation)).toBe(true);
    }
    writeLines(fd, 'gen6', 3);
    const firstOf = (path: string) => readFileSync(path, 'utf8').slice(0, 4);
    expect(firstOf(log)).toBe('gen6');
    expect(firstOf(rotatedLogPath(log, 1))).toBe('gen5');
    expect(firstOf(rotatedLogPath(log, 2))).toBe('gen4');
    expect(firstOf(rotatedLogPath(log, 3))).toBe('gen3');
    expect(existsSync(rotatedLogPath(log, 4))).toBe(false);
    // The last lines: the newest log's, after the end of .1 when it holds fewer.
    expect(lastLogLines(log, 5).map((l) => l.slice(0, 13))).toEqual([
      'gen5 line 059',
      'gen5 line 060',
      'gen6 line 001',
      'gen6 line 002',
      'gen6 line 003',
    ]);
    expect(lastLogLines(log, 2).map((l) => l.slice(0, 13))).toEqual([
      'gen6 line 002',
      'gen6 line 003',
    ]);
  });

  it('leaves a log under its size, and a missing one, alone (the control)', () => {
    const fd = managerFd();
    const bytes = writeLines(fd, 'gen1', 10);
    expect(bytes).toBeLessThan(rotation.maxBytes);
    expect(rotateLog(log, rotation)).toBe(false);
    expect(statSync(log).size).toBe(bytes);
    expect(existsSync(rotatedLogPath(log, 1))).toBe(false);
    expect(rotateLog(join(dir, 'none.log'), rotation)).toBe(false);
    expect(existsSync(rotatedLogPath(join(dir, 'none.log'), 1))).toBe(false);
  });
});

describe('writesTo', () => {
  it('is true for a descriptor open on the log, false for another file', () => {
    const fd = managerFd();
    const other = managerFd(join(dir, 'other.log'));
    expect(writesTo(log, [other])).toBe(false);
    expect(writesTo(log, [other, fd])).toBe(true);
    expect(writesTo(join(dir, 'missing.log'), [fd])).toBe(false);
  });
});

describe('keepLogRotated', () => {
  it('rotates at once and then on its interval while this process writes to the log', async () => {
    const fd = managerFd();
    writeLines(fd, 'gen1', 60);
    const stop = keepLogRotated(log, { ...rotation, intervalMs: 20, writesHere: () => true });
    try {
      expect(readFileSync(rotatedLogPath(log, 1), 'utf8').slice(0, 4)).toBe('gen1');
      writeLines(fd, 'gen2', 60);
      await vi.waitFor(
        () => expect(readFileSync(rotatedLogPath(log, 1), 'utf8').slice(0, 4)).toBe('gen2'),
        { timeout: 5000, interval: 10 },
      );
      expect(readFileSync(rotatedLogPath(log, 2), 'utf8').slice(0, 4)).toBe('gen1');
    } finally {
      stop();
    }
  });

  it('rotates nothing for a process that does not write to the log', () => {
    writeFileSync(log, 'old line\n'.repeat(1000));
    const stop = keepLogRotated(log, { ...rotation, intervalMs: 20 }); // this test's stdout is not it
    stop();
    expect(existsSync(rotatedLogPath(log, 1))).toBe(false);
    // Control: the same log, told this process writes there, is rotated.
    keepLogRotated(log, { ...rotation, writesHere: () => true })();
    expect(existsSync(rotatedLogPath(log, 1))).toBe(true);
  });
});
