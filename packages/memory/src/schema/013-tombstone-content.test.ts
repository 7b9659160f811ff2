// Step 13 (tombstone content): tombstones rebuilt to record their value's folded content and to
// bind content alone across a scope, on databases migrated to exactly version 13; tombstones
// written before keep their rows.

import { describe, expect, it } from 'vitest';
import { T0 } from '../test-helpers.js';
import { migrate } from './index.js';
import { columns, databaseAt, insertFact, schemaNames } from './testkit.js';

const insert = (
  db: ReturnType<typeof databaseAt>,
  row: { kind: string | null; key: string | null; content: string | null },
) =>
  db
    .prepare(
      `INSERT INTO tombstones (scope, kind, key, value_hash, reason, created_at, content)
       VALUES ('owner', ?, ?, 'h', 'purged', ?, ?)`,
    )
    .run(row.kind, row.key, T0, row.content);

describe('step 13: tombstone content', () => {
  it('adds a content column and lets content alone bind a scope; names are kept', () => {
    const before = databaseAt(12);
    const db = databaseAt(13);
    expect(columns(db, 'tombstones')).toEqual([...columns(before, 'tombstones'), 'content']);
    expect([...schemaNames(db)].filter((n) => !schemaNames(before).has(n))).toEqual([
      'tombstones_content',
    ]);
    // A content tombstone with no slot is accepted …
    expect(() => insert(db, { kind: null, key: null, content: '[["a1"]]' })).not.toThrow();
    // … a tombstone with neither a slot nor content is not, nor half a slot, nor content that is
    // not JSON.
    expect(() => insert(db, { kind: null, key: null, content: null })).toThrow(/CHECK/);
    expect(() => insert(db, { kind: 'note', key: null, content: '[["a1"]]' })).toThrow(/CHECK/);
    expect(() => insert(db, { kind: 'note', key: 'k', content: 'not json' })).toThrow(/CHECK/);
    // control: a slot tombstone without content, as before the step
    expect(() => insert(db, { kind: 'note', key: 'k', content: null })).not.toThrow();
  });

  it('keeps every tombstone written before the step', () => {
    const db = databaseAt(12);
    const f = insertFact(db, { status: 'retracted' });
    db.prepare(
      `INSERT INTO tombstones (scope, kind, key, value_hash, reason, fact_id, created_at, lifted_at)
       VALUES ('owner', 'note', 'k', 'h1', 'forgotten', ?, ?, ?)`,
    ).run(f, T0, T0 + 1);
    db.prepare(
      `INSERT INTO tombstones (scope, kind, key, value_hash, reason, fact_id, created_at)
       VALUES ('owner', 'note', 'k', 'h2', 'pruned', ?, ?)`,
    ).run(f, T0 + 2);
    migrate(db, T0 + 100);
    expect(
      db
        .prepare(
          'SELECT id, kind, key, value_hash, reason, fact_id, created_at, lifted_at, content FROM tombstones ORDER BY id',
        )
        .all(),
    ).toEqual([
      {
        id: 1,
        kind: 'note',
        key: 'k',
        value_hash: 'h1',
        reason: 'forgotten',
        fact_id: f,
        created_at: T0,
        lifted_at: T0 + 1,
        content: null,
      },
      {
        id: 2,
        kind: 'note',
        key: 'k',
        value_hash: 'h2',
        reason: 'pruned',
        fact_id: f,
        created_at: T0 + 2,
        lifted_at: null,
        content: null,
      },
    ]);
  });
});
