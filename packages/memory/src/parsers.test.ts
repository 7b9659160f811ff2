// The FTS5 query built from user text, the slot and id parsers, and the gate's ceiling.

import { KeelError } from '@keel/errors';
import { queryTerms } from '@keel/language';
import { describe, expect, it } from 'vitest';
import { confidenceCeiling } from './facts/evidence-gate.js';
import { normalizeKey, parseFactId, parseSlot } from './facts/keys.js';
import { ftsMatch, ftsMatchAll } from './recall/fts-query.js';

describe('ftsMatch', () => {
  it('drops stopwords and punctuation, keeps words in order, deduplicated', async () => {
    expect(queryTerms('What is the name of my DENTIST? my dentist!')).toEqual(['name', 'dentist']);
    expect(queryTerms('multi-agent AND (orchestration)')).toEqual([
      'multi',
      'agent',
      'orchestration',
    ]);
    // All stopwords: kept rather than searching for nothing.
    expect(queryTerms('and or')).toEqual(['and', 'or']);
  });

  it('returns [] (and no match) for emoji, symbols and punctuation', async () => {
    for (const q of ['🍣🍵', '👍🏽', '?!', '***', '^', '"', '', '   ', '()', '\u0000']) {
      expect(queryTerms(q), JSON.stringify(q)).toEqual([]);
      expect(ftsMatch(queryTerms(q))).toBeNull();
    }
  });

  it('quotes every term so FTS5 operators are plain text', async () => {
    expect(ftsMatch(['near', 'not'])).toBe('"near" OR "not"');
    expect(ftsMatch(['a"b'])).toBe('"a""b"');
    // A Chinese word is one token (Intl.Segmenter's words); a Korean one, a phrase of syllables.
    expect(ftsMatch(['绿茶'])).toBe('"绿茶"');
    expect(ftsMatch(['서울'])).toBe('"서 울"');
    // A Hebrew or Arabic word with a prefix also searches its bare form.
    expect(ftsMatch(['בחיפה'])).toBe('"בחיפה" OR "חיפה"');
    expect(ftsMatch(['بالقطار'])).toBe('"بالقطار" OR "قطار"');
    expect(ftsMatch([])).toBeNull();
    expect(ftsMatch(queryTerms('"oolong" NEAR(honey*)'))).toBe('"oolong" OR "near" OR "honey"');
  });

  it('ftsMatchAll asks for every term, any of its phrases', async () => {
    expect(ftsMatchAll(['oolong', 'honey'])).toBe('("oolong") AND ("honey")');
    expect(ftsMatchAll(['גר', 'בחיפה'])).toBe('("גר") AND ("בחיפה" OR "חיפה")');
    expect(ftsMatchAll(['a"b'])).toBe('("a""b")');
    expect(ftsMatchAll([])).toBeNull();
  });
});

describe('keys, slots, ids and the gate ceiling', () => {
  it('normalizeKey makes a slug and refuses junk and timestamps', async () => {
    expect(normalizeKey('  Favourite Band ')).toBe('favourite_band');
    expect(normalizeKey('home/city')).toBe('home_city');
    for (const bad of ['', '   ', 'a b!', '1736154000000', 'x'.repeat(121), '_lead']) {
      expect(() => normalizeKey(bad), JSON.stringify(bad)).toThrow(KeelError);
    }
  });

  it('parseSlot and parseFactId', async () => {
    expect(parseSlot('Preference/Coffee Order')).toEqual({
      scope: 'owner',
      kind: 'preference',
      key: 'coffee_order',
    });
    expect(parseSlot('learned/tone', 'agent').scope).toBe('agent');
    expect(() => parseSlot('coffee')).toThrow(KeelError);
    expect(() => parseSlot('hobby/chess')).toThrow(/unknown kind/);
    expect(parseFactId('f42')).toBe(42);
    expect(parseFactId(' 7 ')).toBe(7);
    expect(parseFactId(9)).toBe(9);
    expect(() => parseFactId('e42')).toThrow(KeelError);
  });

  it('confidenceCeiling: 0.70 + 0.05 per independent repeat, at most 0.95; owner 1.0', async () => {
    expect([1, 2, 3, 4, 5, 6, 7, 50].map((n) => confidenceCeiling('observed', n))).toEqual([
      0.7, 0.75, 0.8, 0.85, 0.9, 0.95, 0.95, 0.95,
    ]);
    expect(confidenceCeiling('inferred', 1)).toBe(0.7);
    expect(confidenceCeiling('system', 3)).toBe(0.8);
    expect(confidenceCeiling('owner_stated', 1)).toBe(1);
    expect(confidenceCeiling('owner_confirmed', 1)).toBe(1);
  });
});
