// Step 14 (pending questions): review_flags rebuilt to hold a question on a belief (what was said,
// the turn, who asked, the answer), on databases migrated to exactly version 14; earlier flags
// keep their rows.

import { describe, expect, it } from 'vitest';
import { T0 } from '../test-helpers.js';
import { migrate } from './index.js';
import { columns, databaseAt, insertFact, schemaNames } from './testkit.js';

describe('step 14: pending questions', () => {
  it('adds episode, actor and answer columns and the question reason', async () => {
    const before = databaseAt(13);
    const db = databaseAt(14);
    expect(columns(db, 'review_flags')).toEqual([
      ...columns(before, 'review_flags'),
      'episode_id',
      'actor',
      'answer',
    ]);
    expect(schemaNames(db)).toEqual(
      new Set([...schemaNames(before), 'review_flags_open_questions']),
    );
    const f = insertFact(db);
    const ask = db.prepare(
      `INSERT INTO review_flags (fact_id, reason, flagged_at, detail, actor) VALUES (?, 'question', ?, ?, 'owner')`,
    );
    ask.run(f, T0, 'I left Acme');
    // Questions without a turn are several per belief; a question needs its text and who asked.
    ask.run(f, T0, 'I quit Acme');
    expect(() =>
      db
        .prepare(`INSERT INTO review_flags (fact_id, reason, flagged_at) VALUES (?, 'question', ?)`)
        .run(f, T0),
    ).toThrow(/CHECK constraint/);
    expect(() =>
      db.prepare(`UPDATE review_flags SET answer = 'maybe' WHERE fact_id = ?`).run(f),
    ).toThrow(/CHECK constraint/);
    // Stale and forget flags stay one open per belief.
    const stale = db.prepare(
      `INSERT INTO review_flags (fact_id, reason, flagged_at) VALUES (?, 'stale', ?)`,
    );
    stale.run(f, T0);
    expect(() => stale.run(f, T0)).toThrow(/UNIQUE/);
  });

  it('keeps every flag written before the step', async () => {
    const db = databaseAt(13);
    const f = insertFact(db);
    db.prepare(
      `INSERT INTO review_flags (fact_id, reason, flagged_at, detail) VALUES (?, 'forget', ?, 'why')`,
    ).run(f, T0);
    migrate(db, T0 + 100);
    expect(
      db
        .prepare('SELECT fact_id, reason, flagged_at, cleared_at, detail, answer FROM review_flags')
        .all(),
    ).toEqual([
      {
        fact_id: f,
        reason: 'forget',
        flagged_at: T0,
        cleared_at: null,
        detail: 'why',
        answer: null,
      },
    ]);
  });
});
