// Step 9 (validity): a fact's interval never ends before it starts, on databases migrated to
// exactly version 9; rows written before the step with such an interval are mended.

import { describe, expect, it } from 'vitest';
import { T0 } from '../test-helpers.js';
import { migrate } from './index.js';
import { databaseAt, expectStepAdds, insertFact } from './testkit.js';

describe('step 9: validity', () => {
  it('adds the two validity triggers', async () => {
    expectStepAdds(9, ['facts_validity_insert', 'facts_validity_update']);
  });

  it('refuses an interval that ends before it starts; one that ends where it starts is fine', async () => {
    const db = databaseAt(9);
    const id = insertFact(db);
    db.prepare('UPDATE facts SET valid_from = ? WHERE id = ?').run(T0, id);
    expect(() => db.prepare('UPDATE facts SET valid_to = ? WHERE id = ?').run(T0 - 1, id)).toThrow(
      /valid_to >= valid_from/,
    );
    db.prepare('UPDATE facts SET valid_to = ? WHERE id = ?').run(T0, id); // control
    expect(() =>
      db
        .prepare(
          `INSERT INTO facts (scope, kind, key, value, value_hash, status, source, confidence,
             created_at, updated_at, last_seen_at, valid_from, valid_to)
           VALUES ('owner', 'note', 'k2', 'v', 'h', 'superseded', 'owner_stated', 1, ?, ?, ?, ?, ?)`,
        )
        .run(T0, T0, T0, T0, T0 - 1),
    ).toThrow(/valid_to >= valid_from/);
  });

  it('mends rows written before the step with an interval ending before it starts', async () => {
    const db = databaseAt(8);
    const bad = insertFact(db, { key: 'bad', status: 'superseded' });
    const good = insertFact(db, { key: 'good', status: 'superseded' });
    db.prepare('UPDATE facts SET valid_from = ?, valid_to = ? WHERE id = ?').run(T0, T0 - 5, bad);
    db.prepare('UPDATE facts SET valid_from = ?, valid_to = ? WHERE id = ?').run(T0, T0 + 5, good);
    migrate(db, T0 + 100);
    const rows = db.prepare('SELECT id, valid_from, valid_to FROM facts ORDER BY id').all();
    expect(rows).toEqual([
      { id: bad, valid_from: T0, valid_to: T0 },
      { id: good, valid_from: T0, valid_to: T0 + 5 },
    ]);
  });
});
