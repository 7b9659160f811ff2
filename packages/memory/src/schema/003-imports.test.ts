// Step 3 (imports): the table of import runs, on a fresh database migrated to exactly version 3.

import { describe, expect, it } from 'vitest';
import { columns, databaseAt, expectStepAdds } from './testkit.js';

describe('step 3: imports', () => {
  it('adds the imports table', async () => {
    expectStepAdds(3, ['imports']);
  });

  it('records a run: its file, format and hash, when it started and finished, and turns added', async () => {
    const db = databaseAt(3);
    expect(columns(db, 'imports')).toEqual([
      'id',
      'path',
      'format',
      'file_sha256',
      'started_at',
      'finished_at',
      'turns_total',
      'turns_added',
    ]);
    db.prepare(
      `INSERT INTO imports (path, format, file_sha256, started_at, turns_total)
       VALUES ('a.json', 'locomo', 'sha', 1, 10)`,
    ).run();
    expect(db.prepare('SELECT finished_at, turns_added FROM imports').get()).toEqual({
      finished_at: null,
      turns_added: 0,
    });
  });
});
