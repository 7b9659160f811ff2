import { describe, expect, it } from 'vitest';
import { dbOf } from '../internal.js';
import { IMPORT_ROWS_PER_STATEMENT } from '../repos/episodes.js';
import type { MemoryStore } from '../store.js';
import { count, journalRows, openTempStore } from '../test-helpers.js';
import type { ImportedTurn, ParsedImport } from './parsers.js';

const T = Date.UTC(2023, 4, 8, 13, 56);

/** `n` LoCoMo-shaped turns of one document, ids `D1:1`…, each text naming its index. */
function turns(n: number, doc = 'locomo:t'): ImportedTurn[] {
  return Array.from({ length: n }, (_, i) => ({
    sourceDoc: doc,
    sourceId: `D1:${i + 1}`,
    sessionKey: `${doc}/session_1`,
    speaker: i % 2 === 0 ? 'Caroline' : 'Melanie',
    role: 'other' as const,
    text: `turn number${i + 1} about pottery`,
    occurredAt: T + i,
  }));
}

const parsed = (list: ImportedTurn[]): ParsedImport => ({
  format: 'locomo',
  docs: [...new Set(list.map((t) => t.sourceDoc))],
  turns: list,
  skipped: [],
});

/** Ids of the conversation episodes whose indexed text matches `query`. */
const matching = (store: MemoryStore, query: string) =>
  (
    dbOf(store)
      .prepare('SELECT rowid AS id FROM episodes_fts WHERE episodes_fts MATCH ? ORDER BY rowid')
      .all(query) as { id: number }[]
  ).map((r) => r.id);

/**
 * The episode index's write counter: the leaves FTS5 has written to level 0, read from the
 * index's structure record (`%_data` row 10; layout as sqlite's `ext/fts5/fts5_index.c` describes
 * it: a 4-byte cookie, the 4-byte version-2 marker, then varints nLevel, nSegment, nWriteCounter).
 */
function leavesWritten(store: MemoryStore): number {
  const { block } = dbOf(store)
    .prepare('SELECT block FROM episodes_fts_data WHERE id = 10')
    .get() as {
    block: Buffer;
  };
  let at = block.subarray(4, 8).toString('hex') === 'ff000001' ? 8 : 4;
  const varint = () => {
    let v = 0;
    for (let n = 0; n < 9; n++) {
      const c = block[at++]!;
      v = v * 128 + (c & 0x7f);
      if (!(c & 0x80)) break;
    }
    return v;
  };
  varint(); // nLevel
  varint(); // nSegment
  return varint();
}

describe('importTurns', () => {
  it('writes every turn in order, across statements, and journals each batch', () => {
    const { store } = openTempStore();
    const list = turns(2 * IMPORT_ROWS_PER_STATEMENT + 37);
    const result = store.importTurns(parsed(list), {
      path: 'a.json',
      fileSha256: 'ab',
      batchSize: 150,
    });
    expect(result).toMatchObject({ total: list.length, added: list.length, existing: 0 });
    const rows = dbOf(store)
      .prepare('SELECT id, source_id, text, speaker FROM episodes ORDER BY id')
      .all() as { id: number; source_id: string; text: string; speaker: string }[];
    expect(rows.map((r) => r.source_id)).toEqual(list.map((t) => t.sourceId));
    expect(rows.map((r) => r.text)).toEqual(list.map((t) => t.text));
    // Each turn is indexed under its own row: its own number finds it, and only it.
    for (const i of [
      0,
      IMPORT_ROWS_PER_STATEMENT - 1,
      IMPORT_ROWS_PER_STATEMENT,
      list.length - 1,
    ]) {
      expect(matching(store, `number${i + 1}`)).toEqual([rows[i]!.id]);
    }
    expect(matching(store, 'pottery')).toHaveLength(list.length);
    expect(matching(store, 'speaker: melanie')).toHaveLength(Math.floor(list.length / 2));
    const batches = journalRows(store, 'import').map((e) => JSON.parse(e.payload));
    expect(batches.map((b) => b.count)).toEqual([150, 87]);
    expect(batches[1]).toMatchObject({ first_id: rows[150]!.id, last_id: rows.at(-1)!.id });
  });

  it('skips turns already stored and repeats inside one statement, keeping the first', () => {
    const { store } = openTempStore();
    const list = turns(10);
    store.importTurns(parsed(list.slice(0, 4)), { path: 'a.json', fileSha256: 'ab' });
    const repeat = { ...list[6]!, text: 'a later turn with the same id' };
    const second = [...list.slice(2), repeat];
    const result = store.importTurns(parsed(second), { path: 'b.json', fileSha256: 'cd' });
    expect(result).toMatchObject({ total: 9, added: 6, existing: 3 });
    expect(count(store, 'SELECT count(*) AS n FROM episodes')).toBe(10);
    expect(matching(store, 'later')).toEqual([]);
    const entry = JSON.parse(journalRows(store, 'import').at(-1)!.payload);
    expect(entry).toMatchObject({ count: 6 });
    expect(entry.last_id - entry.first_id).toBe(5);
  });

  it('indexes a statement of turns at a time, not a turn at a time', () => {
    // FTS5 writes its pending terms out at every statement that changes the index inside a
    // transaction: a statement per turn wrote 1,000 leaves for these 1,000 turns.
    const { store } = openTempStore();
    store.importTurns(parsed(turns(1000)), { path: 'a.json', fileSha256: 'ab' });
    expect(matching(store, 'pottery')).toHaveLength(1000);
    expect(leavesWritten(store)).toBeLessThan(250);
    // The control: turns recorded one by one still write a leaf each.
    const before = leavesWritten(store);
    for (let i = 0; i < 20; i++) {
      store.addEpisode({ channel: 'terminal', role: 'owner', text: `pottery class ${i}` });
    }
    expect(leavesWritten(store) - before).toBeGreaterThanOrEqual(20);
  });
});
