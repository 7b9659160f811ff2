import { describe, expect, it } from 'vitest';
import { dbOf } from './internal.js';
import { BELIEFS_OF_TURNS } from './recall/recall.js';
import { openTempStore } from './test-helpers.js';

/** The plan SQLite would use for `sql`, as one string. */
function plan(
  store: ReturnType<typeof openTempStore>['store'],
  sql: string,
  ...params: unknown[]
): string {
  return (
    dbOf(store)
      .prepare(`EXPLAIN QUERY PLAN ${sql}`)
      .all(...params) as { detail: string }[]
  )
    .map((r) => r.detail)
    .join(' | ');
}

describe('hot queries use their indexes (a later change cannot quietly scan a table)', () => {
  it('the active-slot lookup uses the one-active-per-slot index', async () => {
    const { store } = openTempStore();
    const p = plan(
      store,
      'SELECT * FROM active_facts WHERE scope = ? AND kind = ? AND key = ?',
      'owner',
      'note',
      'x',
    );
    expect(p).toMatch(/USING INDEX facts_one_active_per_slot|USING INDEX facts_slot/);
    expect(p).not.toMatch(/SCAN facts\b/);
  });

  it('the beliefs of recalled turns are found from the turns, never by walking the facts', () => {
    const { store } = openTempStore();
    const p = plan(store, BELIEFS_OF_TURNS, '[1,2,3]', 'owner');
    expect(p).toMatch(
      /^SCAN j VIRTUAL TABLE .*SEARCH fe USING INDEX fact_evidence_episode .*SEARCH f USING INTEGER PRIMARY KEY/,
    );
    expect(p).toMatch(/SEARCH cur USING (COVERING )?INDEX facts_one_active_per_slot/);
    expect(p).not.toMatch(/facts_status/);
  });

  it('fact recall drives from the FTS index, not a scan of facts', async () => {
    const { store } = openTempStore();
    const p = plan(
      store,
      `SELECT f.*, bm25(facts_fts) AS bm FROM facts_fts JOIN active_facts f ON f.id = facts_fts.rowid
       WHERE facts_fts MATCH ? AND f.scope = ? ORDER BY bm LIMIT ?`,
      '"tea"',
      'owner',
      10,
    );
    expect(p).toMatch(/SCAN facts_fts VIRTUAL TABLE INDEX/);
    expect(p).toMatch(/SEARCH (f|facts) USING INTEGER PRIMARY KEY/);
  });

  it('episode recall drives from the FTS index and looks episodes up by id', async () => {
    const { store } = openTempStore();
    const p = plan(
      store,
      `SELECT e.*, m.bm FROM (SELECT rowid AS id, bm25(episodes_fts) AS bm FROM episodes_fts
       WHERE episodes_fts MATCH ? ORDER BY bm LIMIT ?) m JOIN episodes e ON e.id = m.id ORDER BY m.bm`,
      '"tea"',
      10,
    );
    expect(p).toMatch(/SCAN episodes_fts VIRTUAL TABLE INDEX/);
    expect(p).toMatch(/SEARCH e USING INTEGER PRIMARY KEY/);
  });

  it('a date window probes episodes by time, then searches its matches within a rowid range', async () => {
    const { store } = openTempStore();
    expect(
      plan(
        store,
        `SELECT count(*) AS n, min(id) AS lo, max(id) AS hi FROM (
           SELECT id FROM episodes WHERE occurred_at >= ? AND occurred_at < ? LIMIT ?)`,
        1,
        2,
        2001,
      ),
    ).toMatch(/SEARCH episodes USING COVERING INDEX episodes_occurred/);
    const p = plan(
      store,
      `SELECT e.id, bm25(episodes_fts) AS bm FROM episodes_fts
       JOIN episodes e ON e.id = episodes_fts.rowid
       WHERE episodes_fts MATCH ? AND episodes_fts.rowid >= ? AND episodes_fts.rowid <= ?
         AND e.occurred_at >= ? AND e.occurred_at < ?
       ORDER BY bm LIMIT ?`,
      '"tea"',
      1,
      9,
      1,
      2,
      10,
    );
    // FTS5 takes the match and both ends of the rowid range (idxStr "M…><").
    expect(p).toMatch(/SCAN episodes_fts VIRTUAL TABLE INDEX \d+:M\d*></);
    expect(p).toMatch(/SEARCH e USING INTEGER PRIMARY KEY/);
  });

  it('the tombstone check and the provenance dedupe use their indexes', async () => {
    const { store } = openTempStore();
    expect(
      plan(
        store,
        `SELECT id FROM tombstones WHERE scope = ? AND kind = ? AND key = ? AND value_hash = ? AND lifted_at IS NULL`,
        'owner',
        'note',
        'x',
        'h',
      ),
    ).toMatch(/USING INDEX tombstones_slot/);
    expect(
      plan(
        store,
        'SELECT id FROM episodes WHERE source_doc = ? AND source_id = ?',
        'locomo:conv-26',
        'D1:3',
      ),
    ).toMatch(/USING (COVERING )?INDEX episodes_provenance/);
    // A caught-up DM has no source document: `IS ?` finds it through the same index.
    expect(
      plan(store, 'SELECT * FROM episodes WHERE source_doc IS ? AND source_id = ?', null, 'x'),
    ).toMatch(/USING (COVERING )?INDEX episodes_provenance/);
  });
});

describe('the static block read', () => {
  it('reads the strongest beliefs from the strength index, without sorting the table', async () => {
    const { store } = openTempStore();
    const p = plan(
      store,
      `SELECT * FROM active_facts WHERE scope = ? AND kind IN (SELECT value FROM json_each(?))
       ORDER BY confidence DESC, evidence_count DESC, kind, key LIMIT ? OFFSET ?`,
      'owner',
      '["profile"]',
      300,
      0,
    );
    expect(p).toMatch(/USING INDEX facts_strength/);
    expect(p).not.toMatch(/TEMP B-TREE FOR ORDER BY/);
  });
});
