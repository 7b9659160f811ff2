// What the owner is told of a stop follows the error: damaged pages are "damaged", a journal that
// does not match its anchor is said as that, each with its code, message and fix.
import { ERROR_FIXES, KeelError } from '@keel/errors';
import { describe, expect, it } from 'vitest';
import { stopNotice, stopState } from './stop-state.js';

const journal = new KeelError(
  'JOURNAL_BROKEN',
  'the journal does not end where keel last wrote it (it ends at entry 6, the anchor records entry 9); keel writes nothing to it',
);

describe('stopState', () => {
  it('says a broken journal as the journal not matching its anchor, never as damage', () => {
    const s = stopState(journal)!;
    expect(s.error).toBe(journal);
    expect(s.what).toBe(
      "keel's journal does not match its anchor (keel.db.anchor): entries were written outside keel or cut off",
    );
    expect(s.said).toBe(`${s.what} (JOURNAL_BROKEN: ${journal.message})`);
    expect(s.fix).toBe(ERROR_FIXES.JOURNAL_BROKEN);
    expect(s.said).not.toContain('damaged');
  });

  it("keeps the damage wording for damaged pages: DB_CORRUPT and SQLite's own corruption errors (control)", () => {
    const corrupt = new KeelError('DB_CORRUPT', '/home/k/keel.db is damaged (page 7)');
    expect(stopState(corrupt)).toEqual({
      error: corrupt,
      what: "keel's database is damaged",
      said: "keel's database is damaged (DB_CORRUPT: /home/k/keel.db is damaged (page 7))",
      fix: ERROR_FIXES.DB_CORRUPT,
    });
    const sqlite = Object.assign(new Error('database disk image is malformed'), {
      code: 'SQLITE_CORRUPT',
    });
    expect(stopState(sqlite)).toMatchObject({
      what: "keel's database is damaged",
      error: { code: 'DB_CORRUPT' },
    });
  });

  it("carries an error's own fix; another KeelError is said plainly; a bug is no stop state", () => {
    const own = new KeelError('JOURNAL_BROKEN', 'cut', { fix: 'Restore last night’s backup.' });
    expect(stopState(own)?.fix).toBe('Restore last night’s backup.');
    const replaced = new KeelError(
      'INVALID_STATE',
      'keel.db was replaced since this process opened it',
    );
    expect(stopState(replaced)?.said).toBe(
      'keel cannot use its database (INVALID_STATE: keel.db was replaced since this process opened it)',
    );
    expect(stopState(new Error('boom'))).toBeNull();
  });
});

describe('stopNotice', () => {
  it('is what is wrong with its code, what the door does meanwhile, then the fix on its own line', () => {
    expect(stopNotice(journal, 'I store nothing meanwhile.')).toBe(
      `keel's journal does not match its anchor (keel.db.anchor): entries were written outside keel or cut off (JOURNAL_BROKEN: ${journal.message}). I store nothing meanwhile.\nfix: ${ERROR_FIXES.JOURNAL_BROKEN}`,
    );
    expect(stopNotice(new Error('boom'), 'x')).toBeNull();
  });
});
