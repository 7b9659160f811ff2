// Step 2 (full-text search): the FTS5 indexes and the triggers that keep them in step with facts
// and episodes, on a fresh database migrated to exactly version 2.

import type Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { databaseAt, expectStepAdds, insertEpisode, insertFact } from './testkit.js';

/** The rowids `table` (an FTS5 table) matches for `query`, in order. */
const matches = (db: Database.Database, table: string, query: string): number[] =>
  (
    db.prepare(`SELECT rowid FROM ${table} WHERE ${table} MATCH ? ORDER BY rowid`).all(query) as {
      rowid: number;
    }[]
  ).map((r) => r.rowid);

describe('step 2: full-text search', () => {
  it('adds the facts and episodes FTS5 indexes and their triggers', async () => {
    expectStepAdds(2, [
      'facts_fts',
      'episodes_fts',
      'facts_fts_insert',
      'facts_fts_update',
      'episodes_fts_insert',
      'episodes_fts_update',
    ]);
  });

  it('indexes exactly the active facts, by kind, key and value, following status and value changes', async () => {
    const db = databaseAt(2);
    const active = insertFact(db, {
      kind: 'preference',
      key: 'coffee_order',
      value: 'oat flat white',
    });
    const pending = insertFact(db, { key: 'other', value: 'oat porridge', status: 'pending' });
    expect(matches(db, 'facts_fts', 'oat')).toEqual([active]);
    expect(matches(db, 'facts_fts', 'key:preference')).toEqual([active]);
    // Stemmed (porter): "whites" finds "white".
    expect(matches(db, 'facts_fts', 'whites')).toEqual([active]);

    db.prepare(`UPDATE facts SET status = 'active' WHERE id = ?`).run(pending);
    expect(matches(db, 'facts_fts', 'oat')).toEqual([active, pending]);
    db.prepare(`UPDATE facts SET value = 'black espresso' WHERE id = ?`).run(active);
    expect(matches(db, 'facts_fts', 'oat')).toEqual([pending]);
    expect(matches(db, 'facts_fts', 'espresso')).toEqual([active]);
    db.prepare(`UPDATE facts SET status = 'superseded' WHERE id = ?`).run(active);
    expect(matches(db, 'facts_fts', 'espresso')).toEqual([]);
  });

  it('indexes conversation episodes by text and speaker, not keel’s own records, and re-indexes a redaction', async () => {
    const db = databaseAt(2);
    const said = insertEpisode(db, { text: 'Café in Lisbon', speaker: 'Ann' });
    insertEpisode(db, { kind: 'command', text: 'lisbon command' });
    insertEpisode(db, { kind: 'mechanism', text: 'lisbon mechanism' });
    expect(matches(db, 'episodes_fts', 'lisbon')).toEqual([said]);
    expect(matches(db, 'episodes_fts', 'cafe')).toEqual([said]); // diacritics removed
    expect(matches(db, 'episodes_fts', 'speaker:ann')).toEqual([said]);

    db.prepare(`UPDATE episodes SET text = '[purged]', redacted_at = 1 WHERE id = ?`).run(said);
    expect(matches(db, 'episodes_fts', 'lisbon')).toEqual([]);
    expect(matches(db, 'episodes_fts', 'purged')).toEqual([said]);
  });
});
