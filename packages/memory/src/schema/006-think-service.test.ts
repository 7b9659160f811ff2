// Step 6 (think service): the belief gate's bookkeeping columns, think runs, the curator's diary,
// interrupts and review flags, on a fresh database migrated to exactly version 6.

import { describe, expect, it } from 'vitest';
import { columns, databaseAt, expectStepAdds, insertFact } from './testkit.js';

describe('step 6: think service', () => {
  it('adds the think service tables and their indexes', async () => {
    expectStepAdds(6, [
      'think_runs',
      'think_runs_kind',
      'curator_diary',
      'interrupts',
      'interrupts_unsent',
      'review_flags',
      'review_flags_open',
      'belief_queue_uncurated',
    ]);
  });

  it('adds the belief gate’s bookkeeping to belief_queue and gives each new table its columns', async () => {
    const before = databaseAt(5);
    const db = databaseAt(6);
    const added = ['attempts', 'reason', 'reflected_at', 'curated_at'];
    expect(columns(db, 'belief_queue')).toEqual([...columns(before, 'belief_queue'), ...added]);
    expect(columns(db, 'think_runs')).toEqual([
      'id',
      'kind',
      'status',
      'started_at',
      'finished_at',
      'gate',
      'period',
      'summary',
      'error_code',
      'error',
    ]);
    expect(columns(db, 'curator_diary')).toEqual([
      'id',
      'night',
      'run_id',
      'added',
      'corroborated',
      'superseded',
      'conflicts',
      'pruned',
      'text',
      'written_at',
    ]);
    expect(columns(db, 'interrupts')).toEqual([
      'id',
      'item_key',
      'text',
      'episode_id',
      'due_at',
      'created_at',
      'sent_at',
      'attempts',
      'last_error',
    ]);
    expect(columns(db, 'review_flags')).toEqual([
      'id',
      'fact_id',
      'reason',
      'flagged_at',
      'cleared_at',
    ]);
  });

  it('keeps one open review flag per fact and reason', async () => {
    const db = databaseAt(6);
    const fact = insertFact(db);
    const flag = db.prepare(
      `INSERT INTO review_flags (fact_id, reason, flagged_at) VALUES (?, 'stale', 1)`,
    );
    flag.run(fact);
    expect(() => flag.run(fact)).toThrow(/UNIQUE/);
    db.prepare('UPDATE review_flags SET cleared_at = 2').run();
    flag.run(fact);
  });
});
