// The purge ledger through real files: a purge appends the value's hashes (never the value) beside
// the database; a copy of the store made before the purge (a backup) gives up every mention once
// the ledger is applied to it — beliefs, episodes, the full-text index, the journal's payloads —
// while a control in the same places survives; and a value known only by hashes is found again in
// any spelling a mention allows.

import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { backupDatabase } from '../backup.js';
import { anchorRestored } from '../journal/anchor.js';
import { PURGED } from '../redaction.js';
import { MemoryStore } from '../store.js';
import { count, openTempStore, slot, turn } from '../test-helpers.js';
import { PURGE_LEDGER_FILE, parsePurgeLedger } from './ledger.js';

const VALUE = 'Begoña Ibarrola';
const CONTROL = 'Lucía Montserrat';

/** The value and the control, each in a turn, keel's reply, a belief and a belief's key. */
function seed(store: MemoryStore) {
  const ids: Record<string, number> = {};
  for (const [name, said] of [
    ['value', VALUE],
    ['control', CONTROL],
  ] as const) {
    const ep = turn(store, `my friend ${said.toUpperCase()} moved to Bilbao last spring`);
    store.addEpisode({
      kind: 'conversation',
      channel: 'terminal',
      role: 'keel',
      text: `Noted: ${said} lives in Bilbao now.`,
    });
    ids[name] = store.remember({
      kind: 'relationship',
      key: name === 'value' ? 'friend' : 'colleague',
      value: said,
      source: 'owner_stated',
      episodeId: ep,
    }).fact!.id;
    store.remember({
      kind: 'note',
      key: `${said}_birthday`,
      value: 'in late May',
      source: 'owner_stated',
      episodeId: ep,
    });
  }
  return ids;
}

/** Rows of the places purge walks that still hold `word` (LIKE, and the full-text indexes). */
function holding(store: MemoryStore, word: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [table, column] of [
    ['facts', 'value'],
    ['facts', 'key'],
    ['episodes', 'text'],
    ['journal', 'payload'],
  ]) {
    out[`${table}.${column}`] = count(
      store,
      `SELECT count(*) AS n FROM ${table} WHERE ${column} LIKE ?`,
      `%${word}%`,
    );
  }
  for (const fts of ['facts_fts', 'episodes_fts']) {
    out[fts] = count(store, `SELECT count(*) AS n FROM ${fts} WHERE ${fts} MATCH ?`, word);
  }
  return out;
}

const nothing = (store: MemoryStore, word: string) =>
  Object.fromEntries(Object.keys(holding(store, word)).map((k) => [k, 0]));

function ledgerOf(dir: string) {
  return parsePurgeLedger(readFileSync(join(dir, PURGE_LEDGER_FILE), 'utf8'));
}

describe('the purge ledger', () => {
  it('a purge appends the hashes of the value beside the database, never the value', () => {
    const { store, dir } = openTempStore();
    seed(store);
    expect(existsSync(join(dir, PURGE_LEDGER_FILE))).toBe(false);
    store.purgeMentions('begona ibarrola', { actor: 'owner' });
    // A purge that finds nothing here is recorded too: a backup may still hold it.
    store.purgeMentions('Zubiarrain', { actor: 'owner' });
    const text = readFileSync(join(dir, PURGE_LEDGER_FILE), 'utf8');
    expect(text).not.toMatch(/begon|ibarrola|zubiarrain/i);
    const { entries, unreadable } = ledgerOf(dir);
    expect(unreadable).toBe(0);
    expect(entries).toHaveLength(2);
    expect(entries[0]!.content[0]).toHaveLength(2); // two content words, hashed
  });

  it('a copy made before the purge gives up every mention once the ledger is applied; the control stays', async () => {
    const { store, dir, path } = openTempStore();
    const ids = seed(store);
    const backup = join(dir, 'before.db');
    await backupDatabase(path, backup);
    const forgotten = store.forget(ids.value!, { purge: true });
    expect(forgotten.purged).toBe(true);
    store.purgeMentions(VALUE, { actor: 'owner' });
    expect(holding(store, 'ibarrola')).toEqual(nothing(store, 'ibarrola'));

    anchorRestored(backup, Date.now()); // a copy is written under the anchor it carries
    const copy = MemoryStore.open(backup, { purgeLedger: null });
    try {
      // The copy holds it before (the test is not vacuous), in every place checked.
      for (const [place, n] of Object.entries(holding(copy, 'ibarrola'))) {
        expect(n, place).toBeGreaterThan(0);
      }
      const controlBefore = holding(copy, 'montserrat');
      const { entries } = ledgerOf(dir);
      expect(entries).toHaveLength(2); // the forget --purge and the purge by mention
      let reached = 0;
      for (const e of entries) {
        const r = copy.purgeContent(e.content, e.value_hash, { actor: 'owner' });
        reached += r.receipt?.total ?? 0;
      }
      expect(reached).toBeGreaterThan(0);
      expect(holding(copy, 'ibarrola')).toEqual(nothing(copy, 'ibarrola'));
      expect(holding(copy, 'begona')).toEqual(nothing(copy, 'begona'));
      for (const spelling of [VALUE, 'BEGOÑA', 'Ibarrola']) {
        expect(copy.findMentions(spelling).total, spelling).toBe(0);
      }
      expect(copy.fact(ids.value!)).toMatchObject({ status: 'retracted', value: PURGED });
      // The control is where it was, and still believed.
      expect(holding(copy, 'montserrat')).toEqual(controlBefore);
      expect(copy.current(slot('relationship', 'colleague'))?.value).toBe(CONTROL);
      // The purged content is tombstoned in the copy: only the owner's word brings it back.
      const again = copy.remember({
        kind: 'relationship',
        key: 'friend',
        value: VALUE,
        source: 'observed',
      });
      expect(again.fact?.status === 'active' && again.fact.value === VALUE).toBe(false);
      expect(copy.verify().ok).toBe(true);
    } finally {
      copy.close();
    }
    // The copy's own purges are not the ledger's: nothing was appended.
    expect(ledgerOf(dir).entries).toHaveLength(2);
  });

  it('finds a value known by hashes in any spelling a mention allows, with its stopwords', () => {
    const { store, dir } = openTempStore();
    turn(store, 'I worked at the BANK OF AMERICA for years');
    turn(store, "two banks: Bank-of-America's branch and Crédit Agricole");
    turn(store, 'the bank told me america is far'); // both words, not the value: kept
    const ledger = join(dir, 'other.jsonl');
    const other = MemoryStore.open(join(dir, 'other.db'), { purgeLedger: ledger });
    other.purgeMentions('Bank of America', { actor: 'owner' });
    other.close();
    const [entry] = parsePurgeLedger(readFileSync(ledger, 'utf8')).entries;
    expect(store.purgedPhrases(entry!.content)).toEqual(['bank of america']);
    const { receipt } = store.purgeContent(entry!.content, entry!.value_hash, { actor: 'owner' });
    expect(receipt?.reached.episodes?.count).toBe(2);
    expect(
      count(store, `SELECT count(*) AS n FROM episodes WHERE text LIKE '%america is far%'`),
    ).toBe(1);
    expect(store.findMentions('Bank of America').total).toBe(0);
    // Control: a value the store never held finds nothing and changes nothing.
    expect(store.purgeContent([['0'.repeat(32)]], '0'.repeat(64), { actor: 'owner' })).toEqual({
      phrases: [],
      receipt: null,
    });
  });

  it('a copy made after the owner said a purged value again keeps it; a copy made before the purge gives it up', async () => {
    const { store, dir, path } = openTempStore();
    const ids = seed(store);
    const before = join(dir, 'before.db');
    await backupDatabase(path, before);
    store.forget(ids.value!, { purge: true });
    store.forget(ids.control!, { purge: true });
    // The owner says the value again (their word is the one way back); the control stays purged.
    const said = turn(store, `my friend is ${VALUE} after all`);
    const again = store.remember({
      kind: 'relationship',
      key: 'friend',
      value: VALUE,
      source: 'owner_stated',
      episodeId: said,
    });
    expect(again.fact).toMatchObject({ status: 'active', value: VALUE });
    const after = join(dir, 'after.db');
    await backupDatabase(path, after);
    const { entries } = ledgerOf(dir);
    expect(entries).toHaveLength(2);
    const apply = (file: string) => {
      anchorRestored(file, Date.now());
      const copy = MemoryStore.open(file, { purgeLedger: null });
      const skipped = entries.filter((e) => copy.saidAgainSince(e)).length;
      for (const e of entries) {
        if (!copy.saidAgainSince(e)) copy.purgeContent(e.content, e.value_hash, { actor: 'owner' });
      }
      return { copy, skipped };
    };
    const later = apply(after);
    try {
      expect(later.skipped).toBe(1); // the value's purge, not the control's
      expect(later.copy.current(slot('relationship', 'friend'))?.value).toBe(VALUE);
      expect(later.copy.findMentions(VALUE).total).toBeGreaterThan(0);
      expect(later.copy.findMentions(CONTROL).total).toBe(0);
    } finally {
      later.copy.close();
    }
    const earlier = apply(before);
    try {
      expect(earlier.skipped).toBe(0); // that copy never heard it again
      expect(earlier.copy.findMentions(VALUE).total).toBe(0);
      expect(earlier.copy.findMentions(CONTROL).total).toBe(0);
    } finally {
      earlier.copy.close();
    }
  });
});
