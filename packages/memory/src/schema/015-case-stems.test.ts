// Step 15 (case stems): the full-text indexes filled again through the current `keel_fold`, so a
// store indexed before finds a Russian, Ukrainian or Greek word in another case (and a Greek word
// without its accents) as a new store does; English and Hebrew are found as before, and the
// indexes still hold exactly the active facts and conversation turns.

import { foldWords, withPrefixForms } from '@keel/language';
import { describe, expect, it } from 'vitest';
import { registerFunctions } from '../db.js';
import { T0 } from '../test-helpers.js';
import { migrate } from './index.js';
import { databaseAt, ftsFound, insertEpisode, insertFact } from './testkit.js';

const found = ftsFound;

/** The fold of steps 12-14: Hebrew and Arabic bare forms beside their words, no stems. */
function previousFold(text: string): string {
  return foldWords(text).replace(/(?:(?=\p{L})[\p{Script=Hebrew}\p{Script=Arabic}])+/gu, (word) =>
    withPrefixForms(word),
  );
}

describe('step 15: case stems', () => {
  it('re-indexes a store written without stems: every case found, the rest as before', () => {
    const db = databaseAt(14);
    db.function('keel_fold', { deterministic: true }, (t: unknown) =>
      typeof t === 'string' ? previousFold(t) : '',
    );
    const bank = insertEpisode(db, { text: 'Я работаю в Сбербанке в Новосибирске' });
    const city = insertFact(db, { key: 'home', value: 'Живу в Житомирі' });
    const greek = insertEpisode(db, { text: 'μένω στη Θεσσαλονίκη' });
    const haifa = insertEpisode(db, { text: 'אני גר בחיפה' });
    const english = insertEpisode(db, { text: 'Running to the bakery in Lisbon' });
    insertFact(db, { key: 'old', value: 'Сбербанк', status: 'superseded' });
    // Before: only the case as written.
    expect(found(db, 'episodes_fts', 'Сбербанк')).toEqual([]);
    expect(found(db, 'facts_fts', 'Житомир')).toEqual([]);
    expect(found(db, 'episodes_fts', 'θεσσαλονικη')).toEqual([]);

    registerFunctions(db);
    expect(migrate(db, T0 + 15, 15)).toEqual([15]);

    expect(found(db, 'episodes_fts', 'Сбербанк')).toEqual([bank]);
    expect(found(db, 'episodes_fts', 'Новосибирск')).toEqual([bank]);
    expect(found(db, 'facts_fts', 'Житомир')).toEqual([city]);
    expect(found(db, 'episodes_fts', 'θεσσαλονικη')).toEqual([greek]);
    expect(found(db, 'episodes_fts', 'Θεσσαλονίκη')).toEqual([greek]);
    // controls: as before
    expect(found(db, 'episodes_fts', 'חיפה')).toEqual([haifa]);
    expect(found(db, 'episodes_fts', 'runs')).toEqual([english]);
    expect(found(db, 'episodes_fts', 'Москва')).toEqual([]);
    // Exactly the active facts and the conversation turns, as the triggers keep them.
    expect(db.prepare('SELECT count(*) AS n FROM facts_fts').get()).toEqual({ n: 1 });
    expect(db.prepare('SELECT count(*) AS n FROM episodes_fts').get()).toEqual({ n: 4 });
    for (const t of ['facts_fts', 'episodes_fts']) {
      db.prepare(`INSERT INTO ${t} (${t}, rank) VALUES ('integrity-check', 0)`).run();
    }
  });

  it('keeps the triggers: rows written after it are indexed with their stems', () => {
    const db = databaseAt(15);
    const bank = insertEpisode(db, { text: 'работаю в Сбербанке' });
    const fact = insertFact(db, { key: 'city', value: 'Αθήνας' });
    expect(found(db, 'episodes_fts', 'Сбербанк')).toEqual([bank]);
    expect(found(db, 'facts_fts', 'Αθήνα')).toEqual([fact]);
    db.prepare(`UPDATE facts SET status = 'superseded' WHERE id = ?`).run(fact);
    expect(found(db, 'facts_fts', 'Αθήνα')).toEqual([]);
  });
});
