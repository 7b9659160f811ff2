// Step 17 (reminders): the reminders table and its index of pending reminders, on a fresh
// database migrated to exactly version 17; its checks refuse an empty text, an unknown status or
// writer, and keep a valid row.

import { describe, expect, it } from 'vitest';
import { T0 } from '../test-helpers.js';
import { columns, databaseAt, insertEpisode, schemaNames } from './testkit.js';

describe('step 17: reminders', () => {
  it('adds the reminders table with its columns and the pending index', () => {
    const before = databaseAt(16);
    const db = databaseAt(17);
    expect(schemaNames(db)).toEqual(
      new Set([...schemaNames(before), 'reminders', 'reminders_pending']),
    );
    expect(columns(db, 'reminders')).toEqual([
      'id',
      'text',
      'due_at',
      'phrase',
      'created_at',
      'episode_id',
      'channel',
      'created_by',
      'status',
      'sent_at',
      'cancelled_at',
      'attempts',
      'last_error',
    ]);
  });

  it('keeps a well-formed reminder and refuses an empty text, an unknown status or writer', () => {
    const db = databaseAt(17);
    const ep = insertEpisode(db, { text: 'remind me at five to call the bank' });
    const insert = db.prepare(
      `INSERT INTO reminders (text, due_at, phrase, created_at, episode_id, channel, created_by, status)
         VALUES (?, ?, 'at five', ?, ?, 'terminal', ?, ?)`,
    );
    insert.run('call the bank', T0 + 1000, T0, ep, 'owner', 'pending');
    expect(db.prepare('SELECT text, status, attempts FROM reminders').all()).toEqual([
      { text: 'call the bank', status: 'pending', attempts: 0 },
    ]);
    expect(() => insert.run('', T0, T0, ep, 'owner', 'pending')).toThrow(/CHECK constraint/);
    expect(() => insert.run('x', T0, T0, ep, 'owner', 'late')).toThrow(/CHECK constraint/);
    expect(() => insert.run('x', T0, T0, ep, 'someone', 'pending')).toThrow(/CHECK constraint/);
  });
});
