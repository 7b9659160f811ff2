// Step 4 (owner session): sessions, turns, messages, the belief queue and the strongest-beliefs
// index, on a fresh database migrated to exactly version 4.

import { describe, expect, it } from 'vitest';
import { columns, databaseAt, expectStepAdds, insertEpisode } from './testkit.js';

describe('step 4: owner session', () => {
  it('adds the session tables, the belief queue and their indexes', async () => {
    expectStepAdds(4, [
      'sessions',
      'turns',
      'turns_session',
      'messages',
      'messages_session',
      'belief_queue',
      'belief_queue_state',
      'facts_strength',
    ]);
  });

  it('gives each table its columns', async () => {
    const db = databaseAt(4);
    expect(columns(db, 'sessions')).toEqual([
      'id',
      'name',
      'created_at',
      'updated_at',
      'anchor',
      'anchor_through',
      'anchor_updated_at',
    ]);
    expect(columns(db, 'turns')).toEqual([
      'id',
      'session_id',
      'channel',
      'status',
      'input',
      'error_code',
      'error',
      'provider',
      'model',
      'facts_used',
      'started_at',
      'finished_at',
    ]);
    expect(columns(db, 'messages')).toEqual([
      'id',
      'session_id',
      'turn_id',
      'role',
      'content',
      'tokens',
      'created_at',
    ]);
    expect(columns(db, 'belief_queue')).toEqual([
      'id',
      'episode_id',
      'state',
      'gate',
      'queued_at',
      'decided_at',
    ]);
  });

  it('queues an owner turn once, in state new', async () => {
    const db = databaseAt(4);
    const episode = insertEpisode(db);
    const queue = db.prepare('INSERT INTO belief_queue (episode_id, queued_at) VALUES (?, 1)');
    queue.run(episode);
    expect(() => queue.run(episode)).toThrow(/UNIQUE/);
    expect(db.prepare('SELECT state FROM belief_queue').get()).toEqual({ state: 'new' });
    expect(() => db.prepare(`UPDATE belief_queue SET state = 'maybe'`).run()).toThrow(/CHECK/);
  });
});
