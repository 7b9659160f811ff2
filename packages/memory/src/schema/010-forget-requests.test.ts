// Step 10 (forget requests): review_flags rebuilt to hold a model's request to forget, with its
// reason, on databases migrated to exactly version 10; flags written before keep their rows.

import { describe, expect, it } from 'vitest';
import { T0 } from '../test-helpers.js';
import { migrate } from './index.js';
import { columns, databaseAt, insertFact, schemaNames } from './testkit.js';

describe('step 10: forget requests', () => {
  it('adds a detail column and the forget reason; names are kept', async () => {
    const before = databaseAt(9);
    const db = databaseAt(10);
    expect(columns(db, 'review_flags')).toEqual([...columns(before, 'review_flags'), 'detail']);
    expect(schemaNames(db)).toEqual(schemaNames(before));
    const f = insertFact(db);
    db.prepare(
      `INSERT INTO review_flags (fact_id, reason, flagged_at, detail) VALUES (?, 'forget', ?, 'why')`,
    ).run(f, T0);
    expect(() =>
      db
        .prepare(`INSERT INTO review_flags (fact_id, reason, flagged_at) VALUES (?, 'bogus', ?)`)
        .run(f, T0),
    ).toThrow(/CHECK constraint/);
    // One open flag per fact and reason.
    expect(() =>
      db
        .prepare(`INSERT INTO review_flags (fact_id, reason, flagged_at) VALUES (?, 'forget', ?)`)
        .run(f, T0),
    ).toThrow(/UNIQUE/);
  });

  it('keeps every flag written before the step', async () => {
    const db = databaseAt(9);
    const f = insertFact(db);
    db.prepare(
      `INSERT INTO review_flags (fact_id, reason, flagged_at, cleared_at) VALUES (?, 'stale', ?, ?)`,
    ).run(f, T0, T0 + 1);
    db.prepare(`INSERT INTO review_flags (fact_id, reason, flagged_at) VALUES (?, 'stale', ?)`).run(
      f,
      T0 + 2,
    );
    migrate(db, T0 + 100);
    expect(
      db.prepare('SELECT fact_id, reason, flagged_at, cleared_at, detail FROM review_flags').all(),
    ).toEqual([
      { fact_id: f, reason: 'stale', flagged_at: T0, cleared_at: T0 + 1, detail: null },
      { fact_id: f, reason: 'stale', flagged_at: T0 + 2, cleared_at: null, detail: null },
    ]);
  });
});
