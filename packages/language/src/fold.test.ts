import { describe, expect, it } from 'vitest';
import { contentWords, foldText, mentions, supportsValue } from './fold.js';

describe('foldText', () => {
  it('ignores case, accents, punctuation and Unicode form', () => {
    expect(foldText('São Paulo!')).toBe('sao paulo');
    expect(foldText('SAO-PAULO')).toBe('sao paulo');
    expect(foldText('Sa\u0303o Paulo')).toBe('sao paulo');
    expect(foldText('Straße')).toBe('strasse');
    expect(foldText('Ελλάδα')).toBe('ελλαδα');
    expect(foldText('  ...  ')).toBe('');
  });

  it('keeps the marks that are part of a word outside Latin, Greek and Cyrillic', () => {
    expect(foldText('हिन्दी')).toBe('हिन्दी');
    expect(foldText('東京')).toBe('東京');
  });
});

describe('contentWords', () => {
  it('drops stopwords of the languages keel reads, keeps what the text is about', () => {
    expect(contentWords('my sister lives in São Paulo')).toEqual([
      'sister',
      'lives',
      'sao',
      'paulo',
    ]);
    expect(contentWords('mi hermana vive en Oporto')).toEqual(['hermana', 'vive', 'oporto']);
    expect(contentWords('the the')).toEqual(['the']);
  });
});

describe('mentions', () => {
  it('finds a value as whole folded words, in order', () => {
    expect(mentions('I moved to Porto, Portugal last year', 'porto')).toBe(true);
    expect(mentions('we went to Sao Paulo', 'São Paulo')).toBe(true);
    expect(mentions('lunch at Portobello', 'Porto')).toBe(false);
    expect(mentions('Paulo from São', 'São Paulo')).toBe(false);
    expect(mentions('anything', '!!')).toBe(false);
  });

  it('reads a case ending and an attached Hebrew or Arabic prefix as the same word', () => {
    expect(mentions('С 2022 года я работаю в Яндексе', 'Яндекс')).toBe(true);
    expect(mentions('אני גר בחיפה', 'חיפה')).toBe(true);
    expect(mentions('سافرت بالقطار أمس', 'قطار')).toBe(true);
    // controls: another word that merely begins or ends with the same letters is not a mention
    expect(mentions('אני גר בתל אביב', 'חיפה')).toBe(false);
    expect(mentions('Яндексмаркет открылся', 'Яндекс')).toBe(false);
    expect(mentions('سافرت إلى قطر', 'قطار')).toBe(false);
  });
});

describe('supportsValue', () => {
  it('finds a value the turn says in other words, and refuses one it does not', () => {
    expect(supportsValue("I'm allergic to peanuts", 'peanut allergy')).toBe(true);
    expect(supportsValue('hello', 'peanut allergy')).toBe(false);
  });

  it('needs at least half the value’s content words, folded and stemmed', () => {
    expect(supportsValue('I work at ACME as an engineer', 'works at Acme')).toBe(true);
    expect(supportsValue('Mi hermana vive en São Paulo', 'hermana en Sao Paulo')).toBe(true);
    expect(supportsValue('my sister lives in Porto', 'owner lives in Lisbon')).toBe(false);
    expect(supportsValue('my sister lives in Porto', 'sister lives in Porto')).toBe(true);
  });

  it('matches whole words, never a word inside another', () => {
    expect(supportsValue('we ate at Portobello Road', 'Porto')).toBe(false);
    expect(supportsValue('we flew to Porto', 'Porto')).toBe(true);
    expect(supportsValue('anything', '...')).toBe(false);
  });

  it('a day keel wrote as YYYY-MM-DD is not a word the turn must hold; the other words are', () => {
    expect(supportsValue('started at Initech on the 3rd of March', 'Initech (2025-03-03)')).toBe(
      true,
    );
    expect(supportsValue('started on the 3rd of March', 'Initech (2025-03-03)')).toBe(false);
  });
});
