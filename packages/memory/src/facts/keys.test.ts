// Slot keys in every script: NFKC, full case folding, marks kept; timestamps and junk refused.
import { KeelError } from '@keel/errors';
import { describe, expect, it } from 'vitest';
import { foldKey, KEY_MAX_CHARS, normalizeKey, parseSlot } from './keys.js';

describe('normalizeKey folds case fully, in every script', () => {
  it.each([
    // German sharp s: full folding, not lower-casing.
    ['Straße', 'strasse'],
    ['STRASSE', 'strasse'],
    ['straẞe', 'strasse'],
    // Greek: every sigma is one letter, final or not.
    ['ΟΔΟΣ', 'οδοσ'],
    ['οδος', 'οδοσ'],
    ['Οδοσ', 'οδοσ'],
    // Turkish I, locale-independent: I → i, İ → i + U+0307, ı stays ı.
    ['I', 'i'],
    ['İstanbul', 'i\u0307stanbul'],
    ['ISTANBUL', 'istanbul'],
    ['kırmızı', 'kırmızı'],
    ['KIRMIZI', 'kirmizi'],
    // Compatibility forms: full-width letters, ligatures, the Kelvin sign.
    ['ＫＥＥＬ', 'keel'],
    ['ﬁle', 'file'],
    ['\u212A', 'k'],
    // Decomposed and composed accents are one key.
    ['Cafe\u0301', 'café'],
    ['CAFÉ', 'café'],
    // Iota subscript folds to iota.
    ['ᾼ', 'αι'],
  ])('%j → %j', (key, folded) => {
    expect(normalizeKey(key)).toBe(folded);
  });

  it('the dotted and dotless I stay apart (the Turkic folding is not used)', () => {
    expect(normalizeKey('İstanbul')).not.toBe(normalizeKey('istanbul'));
    expect(normalizeKey('kır')).not.toBe(normalizeKey('kir'));
    expect(normalizeKey('INDIA')).toBe(normalizeKey('india'));
    expect(foldKey('İ')).toBe('i\u0307');
  });

  it.each([
    ['मेरी_बहन_दिल्ली', 'मेरी_बहन_दिल्ली'],
    ['मेरी बहन दिल्ली', 'मेरी_बहन_दिल्ली'],
    ['আমার_বোন_ঢাকায়', 'আমার_বোন_ঢাকায়'],
    ['มีแมวชื่อส้ม', 'มีแมวชื่อส้ม'],
    ['コーヒーが好き', 'コーヒーが好き'],
    ['我喜欢喝绿茶', '我喜欢喝绿茶'],
    ['أختي_تعيش', 'أختي_تعيش'],
    ['אחותי_גרה', 'אחותי_גרה'],
    ['내_여동생은', '내_여동생은'],
    ['Em_gái_tôi', 'em_gái_tôi'],
    ['Моя_Сестра', 'моя_сестра'],
    ['hermana', 'hermana'],
    // Invisible characters never make two keys: ZWNJ inside a Persian word, a soft hyphen.
    ['می\u200Cخواهم', 'میخواهم'],
    ['den\u00ADtist', 'dentist'],
  ])('keeps letters and marks of any script: %j', (key, expected) => {
    expect(normalizeKey(key)).toBe(expected);
  });

  it.each([
    '',
    '   ',
    '\u0301abc',
    '_lead',
    'a b!',
    '🎉',
    'x'.repeat(KEY_MAX_CHARS + 1),
    'न'.repeat(KEY_MAX_CHARS + 1),
    '1736154000000',
    'note_1736154000',
    // Ten digits in a row in another script are a timestamp too.
    '१७३६१५४०००',
    '٢٠٢٥٠١٠١١٢',
  ])('refuses %j', (bad) => {
    expect(() => normalizeKey(bad)).toThrow(KeelError);
  });

  it('keeps a key of exactly the longest length, counted in characters', () => {
    expect(normalizeKey('न'.repeat(KEY_MAX_CHARS))).toHaveLength(KEY_MAX_CHARS);
    expect(normalizeKey('𝒶'.repeat(KEY_MAX_CHARS))).toBe('a'.repeat(KEY_MAX_CHARS));
  });

  it('parseSlot folds the key the same way', () => {
    expect(parseSlot('relationship/Straße')).toEqual(parseSlot('relationship/STRASSE'));
    expect(parseSlot('relationship/मेरी बहन').key).toBe('मेरी_बहन');
  });
});
