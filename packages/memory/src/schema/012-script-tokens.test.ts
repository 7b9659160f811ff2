// Step 12 (script tokens): the full-text indexes are made again with a tokenizer that keeps marks
// inside words and filled again through the current `keel_fold`, so a store indexed by the fold of
// steps 2-11 finds Thai, Khmer, Chinese, Hebrew and Arabic words as a new store does; English is
// found as before, and the indexes still hold exactly the active facts and conversation turns.

import type Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { registerFunctions } from '../db.js';
import { T0 } from '../test-helpers.js';
import { migrate } from './index.js';
import { databaseAt, ftsFound, insertEpisode, insertFact } from './testkit.js';

/** The fold the triggers called before this step: NFKC, controls blanked, CJK one per token. */
function previousFold(text: string): string {
  return text
    .normalize('NFKC')
    .replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/g, ' ')
    .replace(/[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/gu, ' $& ');
}

const found = ftsFound;

/** A store at step 11 whose rows were indexed by {@link previousFold}. */
function storeOfPreviousFold(): Database.Database {
  const db = databaseAt(11);
  db.function('keel_fold', { deterministic: true }, (t: unknown) =>
    typeof t === 'string' ? previousFold(t) : '',
  );
  return db;
}

describe('step 12: script tokens', () => {
  it('re-indexes a store written by the previous fold: every script found, English as before', async () => {
    const db = storeOfPreviousFold();
    const thai = insertEpisode(db, { text: 'จำไว้ว่าลูกสาวฉันชื่อมะลิ' });
    const lao = insertEpisode(db, { text: 'ມື້ວານນີ້ຂ້ອຍໄປຫຼວງພະບາງກັບໝູ່' });
    const dentist = insertEpisode(db, { text: 'พรุ่งนี้ต้องไปหาหมอฟันตอนบ่ายสามโมง' });
    const khmer = insertEpisode(db, { text: 'ខ្ញុំរស់នៅភ្នំពេញ' });
    const haifa = insertEpisode(db, { text: 'אני גר בחיפה', speaker: 'Noa' });
    const coffee = insertFact(db, { key: 'coffee', value: 'والقهوة العربية مع الهيل' });
    const tea = insertFact(db, { key: 'tea', value: '我喜欢喝绿茶' });
    const english = insertEpisode(db, { text: 'Running to the bakery in Lisbon' });
    insertEpisode(db, { kind: 'command', text: 'เชียงใหม่ command' });
    insertFact(db, { key: 'old', value: 'قهوة تركية', status: 'superseded' });
    // Before: the previous fold's tokens (Thai and Lao cut at their vowel signs, no bare forms).
    expect(found(db, 'episodes_fts', 'มะลิ')).toEqual([]);
    expect(found(db, 'episodes_fts', 'ຫຼວງພະບາງ')).toEqual([]);
    expect(found(db, 'episodes_fts', 'חיפה')).toEqual([]);
    expect(found(db, 'facts_fts', 'قهوة')).toEqual([]);
    expect(found(db, 'episodes_fts', 'lisbon')).toEqual([english]);

    // The step runs with the fold of this code (registered on every connection).
    registerFunctions(db);
    expect(migrate(db, T0 + 12, 12)).toEqual([12]);

    expect(found(db, 'episodes_fts', 'มะลิ')).toEqual([thai]);
    expect(found(db, 'episodes_fts', 'ຫຼວງພະບາງ')).toEqual([lao]);
    expect(found(db, 'episodes_fts', 'หมอฟัน')).toEqual([dentist]);
    expect(found(db, 'episodes_fts', 'ភ្នំពេញ')).toEqual([khmer]);
    expect(found(db, 'episodes_fts', 'חיפה')).toEqual([haifa]);
    expect(found(db, 'facts_fts', 'قهوة')).toEqual([coffee]);
    expect(found(db, 'facts_fts', '绿茶')).toEqual([tea]);
    expect(found(db, 'episodes_fts', 'lisbon')).toEqual([english]);
    expect(found(db, 'episodes_fts', 'runs')).toEqual([english]); // still stemmed (porter)
    expect(found(db, 'episodes_fts', 'noa')).toEqual([haifa]); // the speaker column too
    // Exactly the active facts and the conversation turns, as the triggers keep them.
    expect(db.prepare('SELECT count(*) AS n FROM facts_fts').get()).toEqual({ n: 2 });
    expect(db.prepare('SELECT count(*) AS n FROM episodes_fts').get()).toEqual({ n: 6 });
    for (const t of ['facts_fts', 'episodes_fts']) {
      db.prepare(`INSERT INTO ${t} (${t}, rank) VALUES ('integrity-check', 0)`).run();
    }
  });

  it('keeps the triggers: rows written after it are indexed and follow status changes', async () => {
    const db = databaseAt(12);
    const lao = insertEpisode(db, { text: 'ມື້ວານນີ້ຂ້ອຍໄປຫຼວງພະບາງກັບໝູ່' });
    insertEpisode(db, { text: 'ຂ້ອຍມັກກິນເຝີ' });
    const fact = insertFact(db, { key: 'city', value: 'سافرت بالقطار إلى الإسكندرية' });
    expect(found(db, 'episodes_fts', 'ຫຼວງພະບາງ')).toEqual([lao]);
    expect(found(db, 'facts_fts', 'قطار')).toEqual([fact]);
    db.prepare(`UPDATE facts SET status = 'superseded' WHERE id = ?`).run(fact);
    expect(found(db, 'facts_fts', 'قطار')).toEqual([]);
    expect(db.prepare(`SELECT sql FROM sqlite_master WHERE name = 'episodes_fts'`).get()).toEqual({
      sql: expect.stringContaining(`categories ''L* N* Co M*''`),
    });
  });
});
