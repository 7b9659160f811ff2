import { describe, expect, it } from 'vitest';
import { foldedWords, foldWithOffsets, holdsWord, mentionFinder, wordStems } from './mention.js';

describe('mentionFinder', () => {
  it('finds an accented mention by its unaccented spelling and cuts out only it', () => {
    const f = mentionFinder('Sao Paulo')!;
    expect(f.replace('My sister moved to São Paulo, sadly.', '[purged]')).toBe(
      'My sister moved to [purged], sadly.',
    );
    expect(f.replace('SÃO-PAULO!', 'X')).toBe('X!');
    // control: a text about somewhere else is left exactly as it was
    expect(f.test('My sister moved to Porto.')).toBe(false);
    expect(f.replace('Paulo lives in Sao Tome', 'X')).toBe('Paulo lives in Sao Tome');
  });

  it('matches whole words, allowing a short inflected ending on a longer word', () => {
    const porto = mentionFinder('Porto')!;
    expect(porto.test('Porto, Portugal')).toBe(true);
    expect(porto.test('a Portos wine bar')).toBe(true);
    // controls: other words that begin the same way are not mentions
    expect(porto.test('Portobello Road')).toBe(false);
    expect(porto.test('Portugal and Port wine')).toBe(false);
    expect(mentionFinder('Kowalski')!.replace('the Kowalskis partied', 'X')).toBe('the X partied');
    expect(mentionFinder('Королёв')!.test('когда в королеве дадут воду?')).toBe(true);
    // a short word takes no ending: "Ann" is not in "Anna"
    expect(mentionFinder('Ann')!.test('Anna called')).toBe(false);
    expect(mentionFinder('Ann')!.test("Ann's bike")).toBe(true);
  });

  it('keeps decomposed accents, other scripts and text without spaces intact around a cut', () => {
    const decomposed = 'Zoe\u0308 sits here';
    expect(mentionFinder('Zoë')!.replace(decomposed, 'X')).toBe('X sits here');
    expect(mentionFinder('אבישי')!.replace('אבישי שוב ביטל', 'X')).toBe('X שוב ביטל');
    expect(mentionFinder('東京')!.replace('東京に住んでいます', 'X')).toBe('Xに住んでいます');
    expect(mentionFinder('ΟΔΟΣ')!.test('η οδος')).toBe(true);
  });

  it('finds a name with an apostrophe spelled with or without it', () => {
    const f = mentionFinder("O'Neill")!;
    expect(f.replace('book dr oneill again', 'X')).toBe('book dr X again');
    expect(f.replace('Dr. O’Neill said so', 'X')).toBe('Dr. X said so');
    // control: another name that ends the same way
    expect(f.test('Neill is a friend')).toBe(false);
  });

  it('gives an excerpt around the first mention and null without one', () => {
    const f = mentionFinder('Tomás')!;
    const text = `${'a '.repeat(60)}tomas has my pump ${'b '.repeat(60)}`;
    const excerpt = f.excerpt(text, 10)!;
    expect(excerpt).toContain('tomas has');
    expect(excerpt.startsWith('…')).toBe(true);
    expect(f.excerpt('nothing here')).toBeNull();
  });

  it('is null for a value with no word', () => {
    expect(mentionFinder(' ?! ')).toBeNull();
    expect(mentionFinder('x')).not.toBeNull();
  });
});

describe('folded words', () => {
  it('fold as foldText does, with offsets back into the original', () => {
    const f = foldWithOffsets('Straße, São!');
    expect(f.folded).toBe('strasse sao');
    expect(f.start[f.folded.indexOf('sao')]).toBe('Straße, '.length);
    expect(foldedWords('sister_in_porto')).toEqual(['sister', 'in', 'porto']);
  });

  it('holdsWord and wordStems agree on inflected endings', () => {
    expect(holdsWord(['kowalskis'], 'kowalski')).toBe(true);
    expect(holdsWord(['portobello'], 'porto')).toBe(false);
    expect(holdsWord(['portugal'], 'porto')).toBe(false);
    expect(wordStems('kowalskis')).toContain('kowalski');
    expect(wordStems('anna')).toEqual(['anna']);
    expect(holdsWord(['גר', 'בחיפה'], 'חיפה')).toBe(true);
    expect(wordStems('בחיפה')).toContain('חיפה');
    expect(holdsWord(['גר', 'בחיפה'], 'היפה')).toBe(false);
  });
});
