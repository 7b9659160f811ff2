import { KeelError } from '@keel/errors';
import { describe, expect, it } from 'vitest';
import { EXIT, exitCodeFor, INTERNAL_FIX, reportError, toErrorReport } from './report.js';

/** Streams that record what is written. */
function streams() {
  const out = { stdout: '', stderr: '' };
  return {
    out,
    streams: {
      stdout: { write: (t: string) => (out.stdout += t) },
      stderr: { write: (t: string) => (out.stderr += t) },
    },
  };
}

describe('reportError', () => {
  it('prints a KeelError as its code, message and fix on stderr, and exits 2', () => {
    const { out, streams: s } = streams();
    const err = new KeelError('CONFIG_INVALID', 'KEEL_TZ "Mars/Olympus" is not a time zone name');
    expect(reportError(err, false, s)).toBe(EXIT.error);
    expect(out.stderr).toBe(
      `error CONFIG_INVALID: KEEL_TZ "Mars/Olympus" is not a time zone name\nfix: ${err.fix}\n`,
    );
    expect(out.stdout).toBe('');
  });

  it('with --json also prints one JSON line {"error": {code, message, fix}} on stdout', () => {
    const { out, streams: s } = streams();
    const err = new KeelError('THINK_RUNNING', 'keel think is already running (PID 7)', {
      details: { pid: 7, startedAt: Date.parse('2026-12-01T22:30:00.000Z') },
    });
    expect(reportError(err, true, s)).toBe(2);
    expect(out.stderr).toContain('error THINK_RUNNING: keel think is already running (PID 7)');
    expect(out.stdout.endsWith('\n')).toBe(true);
    expect(out.stdout.trim().split('\n')).toHaveLength(1);
    expect(JSON.parse(out.stdout)).toEqual({
      error: {
        code: 'THINK_RUNNING',
        message: 'keel think is already running (PID 7)',
        fix: err.fix,
        // The one JSON contract: snake_case keys, instants as ISO text.
        details: { pid: 7, started_at: '2026-12-01T22:30:00.000Z' },
      },
    });
  });

  it('reports SQLite damage as DB_CORRUPT (exit 2)', () => {
    // What better-sqlite3 throws for a damaged page: an Error with SQLite's code.
    const sqliteErr = Object.assign(new Error('database disk image is malformed'), {
      code: 'SQLITE_CORRUPT',
    });
    const { out, streams: s } = streams();
    expect(reportError(sqliteErr, true, s)).toBe(2);
    expect(out.stderr).toMatch(/^error DB_CORRUPT: the database is damaged/);
    expect(JSON.parse(out.stdout).error.code).toBe('DB_CORRUPT');
  });

  it('reports anything else as INTERNAL with its stack, and exits 1', () => {
    const { out, streams: s } = streams();
    const err = new TypeError('x is undefined');
    expect(reportError(err, true, s)).toBe(EXIT.failed);
    expect(out.stderr).toContain(`error INTERNAL: x is undefined\nfix: ${INTERNAL_FIX}\n`);
    expect(out.stderr).toContain('TypeError: x is undefined\n    at ');
    expect(JSON.parse(out.stdout)).toEqual({
      error: { code: 'INTERNAL', message: 'x is undefined', fix: INTERNAL_FIX },
    });
    expect(toErrorReport('plain string').message).toBe('plain string');
  });

  it('one exit-code rule: 2 for an error with a code, 1 for anything else', () => {
    expect(exitCodeFor(new KeelError('INVALID_INPUT', 'x'))).toBe(2);
    expect(exitCodeFor(Object.assign(new Error('x'), { code: 'SQLITE_NOTADB' }))).toBe(2);
    expect(exitCodeFor(new Error('x'))).toBe(1);
    expect(EXIT).toEqual({ ok: 0, failed: 1, error: 2 });
  });
});
