// Step 8 (reflected state): belief_queue rebuilt with a `reflected` state, on databases migrated to
// exactly version 8; rows consumed before the step become `reflected`, the rest keep their state.

import { describe, expect, it } from 'vitest';
import { T0 } from '../test-helpers.js';
import { migrate } from './index.js';
import { columns, databaseAt, insertEpisode, schemaNames } from './testkit.js';

describe('step 8: reflected state', () => {
  it('keeps belief_queue’s columns and names, and accepts the new state', async () => {
    const before = databaseAt(7);
    const db = databaseAt(8);
    expect(columns(db, 'belief_queue')).toEqual(columns(before, 'belief_queue'));
    expect(schemaNames(db)).toEqual(schemaNames(before));
    const e = insertEpisode(db);
    db.prepare(
      `INSERT INTO belief_queue (episode_id, queued_at, state) VALUES (?, ?, 'reflected')`,
    ).run(e, T0);
    expect(() =>
      db
        .prepare(`INSERT INTO belief_queue (episode_id, queued_at, state) VALUES (?, ?, 'bogus')`)
        .run(insertEpisode(db), T0),
    ).toThrow(/CHECK constraint/);
    expect(() =>
      db.prepare(`INSERT INTO belief_queue (episode_id, queued_at) VALUES (?, ?)`).run(e, T0),
    ).toThrow(/UNIQUE/);
  });

  it('moves consumed believed rows to reflected and keeps every other row as it was', async () => {
    const db = databaseAt(7);
    const rows: [string, number | null, number | null][] = [
      ['believed', T0 + 1, null], // reflected by a tick
      ['believed', null, T0 + 2], // consumed by the curator
      ['believed', null, null], // still waiting
      ['dismissed', null, null],
      ['undecided', null, null],
      ['new', null, null],
    ];
    const insert = db.prepare(
      `INSERT INTO belief_queue (episode_id, queued_at, state, gate, attempts, reason, reflected_at, curated_at)
       VALUES (?, ?, ?, 'pattern', 1, 'why', ?, ?)`,
    );
    for (const [state, reflected, curated] of rows) {
      insert.run(insertEpisode(db), T0, state, reflected, curated);
    }
    migrate(db, T0 + 100);
    const after = db
      .prepare(
        'SELECT state, gate, attempts, reason, reflected_at, curated_at FROM belief_queue ORDER BY id',
      )
      .all();
    expect(after).toEqual([
      {
        state: 'reflected',
        gate: 'pattern',
        attempts: 1,
        reason: 'why',
        reflected_at: T0 + 1,
        curated_at: null,
      },
      {
        state: 'reflected',
        gate: 'pattern',
        attempts: 1,
        reason: 'why',
        reflected_at: T0 + 2,
        curated_at: T0 + 2,
      },
      {
        state: 'believed',
        gate: 'pattern',
        attempts: 1,
        reason: 'why',
        reflected_at: null,
        curated_at: null,
      },
      {
        state: 'dismissed',
        gate: 'pattern',
        attempts: 1,
        reason: 'why',
        reflected_at: null,
        curated_at: null,
      },
      {
        state: 'undecided',
        gate: 'pattern',
        attempts: 1,
        reason: 'why',
        reflected_at: null,
        curated_at: null,
      },
      {
        state: 'new',
        gate: 'pattern',
        attempts: 1,
        reason: 'why',
        reflected_at: null,
        curated_at: null,
      },
    ]);
    expect(db.pragma('foreign_key_check')).toEqual([]);
  });
});
