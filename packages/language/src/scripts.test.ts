// Words in every script: unspaced scripts cut into words by Intl.Segmenter, Hangul one syllable a
// token, Hebrew and Arabic written one way and their prefixed words' bare forms.

import { describe, expect, it } from 'vitest';
import {
  bareForms,
  normalizeSemitic,
  prefixForms,
  spaceUnspaced,
  stemForms,
  withPrefixForms,
} from './scripts.js';

const words = (text: string) => spaceUnspaced(text).trim().split(/\s+/);

describe('spaceUnspaced', () => {
  it('cuts Thai, Lao, Khmer, Burmese, Japanese and Chinese sentences into their words', () => {
    expect(words('เมื่อวานไปกินข้าวซอยที่เชียงใหม่อร่อยมาก')).toContain('เชียงใหม่');
    expect(words('ຂ້ອຍເຮັດວຽກຢູ່ວຽງຈັນ')).toContain('ວຽງຈັນ');
    expect(words('ខ្ញុំរស់នៅភ្នំពេញ')).toContain('ភ្នំពេញ');
    expect(words('ကျွန်မ မန္တလေးမှာ အလုပ်လုပ်တယ်')).toContain('မန္တလေး');
    expect(words('我喜欢喝绿茶')).toEqual(['我', '喜欢', '喝', '绿茶']);
    expect(words('昨日東京タワーに行きました')).toContain('東京タワー');
    // A word alone is cut as it is inside its sentence: both sides of search agree.
    expect(words('เชียงใหม่')).toEqual(['เชียงใหม่']);
    expect(words('绿茶')).toEqual(['绿茶']);
  });

  it('spaces Hangul syllables; leaves spaced scripts and punctuation between words alone', () => {
    expect(words('서울에')).toEqual(['서', '울', '에']);
    expect(spaceUnspaced('coffee at 8, café')).toBe('coffee at 8, café');
    expect(spaceUnspaced('גר בחיפה')).toBe('גר בחיפה');
    // CJK punctuation between words is not a word.
    expect(words('绿茶。咖啡')).toEqual(['绿茶', '咖啡']);
  });
});

describe('normalizeSemitic', () => {
  it('drops Hebrew points and Arabic harakat and tatweel; writes Arabic letter variants one way', () => {
    expect(normalizeSemitic('בַּחֵיפָה')).toBe('בחיפה');
    expect(normalizeSemitic('وَالْقَهْوَةُ')).toBe('والقهوه');
    expect(normalizeSemitic('قهـــوة')).toBe('قهوه');
    expect(normalizeSemitic('أستمارة')).toBe(normalizeSemitic('استمارة'));
    expect(normalizeSemitic('إلى')).toBe('الي');
    // Control: other scripts are untouched.
    expect(normalizeSemitic('café ไป')).toBe('café ไป');
  });
});

describe('prefixForms', () => {
  it('takes each Hebrew prefix letter off, and two that grammar writes together', () => {
    for (const p of ['ו', 'ה', 'ב', 'ל', 'מ', 'ש', 'כ']) {
      expect(prefixForms(`${p}חיפה`), p).toEqual(['חיפה']);
    }
    expect(prefixForms('ובתל')).toEqual(['בתל', 'תל']);
    expect(prefixForms('כשאנחנו')).toEqual(['שאנחנו', 'אנחנו']);
    // "בשבת" is ב + שבת: "בש" is no prefix, so "בת" (a daughter) is not one of its forms.
    expect(prefixForms('בשבת')).toEqual(['שבת']);
    // At least two letters stay: "בת" keeps its ב.
    expect(prefixForms('בת')).toEqual([]);
    // A word that begins with no prefix letter has no other form.
    expect(prefixForms('חיפה')).toEqual([]);
  });

  it('takes light10 Arabic prefixes off: the article after و ب ك ف, لل, and و', () => {
    expect(prefixForms('والقهوه')).toEqual(['قهوه']);
    expect(prefixForms('بالقطار')).toEqual(['قطار']);
    expect(prefixForms('فالكتاب')).toEqual(['كتاب']);
    expect(prefixForms('كالبيت')).toEqual(['بيت']);
    expect(prefixForms('القهوه')).toEqual(['قهوه']);
    expect(prefixForms('للبيت')).toEqual(['بيت']);
    expect(prefixForms('وقهوه')).toEqual(['قهوه']);
    // و of a three-letter word is its own letter ("وقت", time), kept.
    expect(prefixForms('وقت')).toEqual([]);
    expect(prefixForms('قهوه')).toEqual([]);
  });

  it('gives nothing for other scripts or mixed words', () => {
    expect(prefixForms('bakery')).toEqual([]);
    expect(prefixForms('הcafé')).toEqual([]);
    expect(prefixForms('')).toEqual([]);
  });
});

describe('withPrefixForms', () => {
  it('writes each prefixed Hebrew/Arabic word followed by its bare forms', () => {
    expect(withPrefixForms('גר בחיפה, ועובד')).toBe('גר בחיפה חיפה, ועובד עובד');
    expect(withPrefixForms('سافرت بالقطار')).toBe('سافرت بالقطار قطار');
    expect(withPrefixForms('in Haifa')).toBe('in Haifa');
  });
});

describe('stemForms: Russian, Ukrainian and Greek words in a case of their own', () => {
  it('finds one stem for the forms of a word, and none for other scripts', () => {
    expect(stemForms('Сбербанке')).toEqual(stemForms('Сбербанка'));
    expect(stemForms('Сбербанке')).toEqual(['сбербанк']);
    expect(stemForms('Житомирі')).toEqual(['житомир']);
    expect(stemForms('каву')).toEqual(stemForms('кава'));
    expect(stemForms('Θεσσαλονίκη')).toEqual(stemForms('θεσσαλονικη'));
    // controls: other scripts and a word already bare have none
    expect(stemForms('Sberbank')).toEqual([]);
    expect(stemForms('חיפה')).toEqual([]);
    expect(stemForms('сбербанк')).toEqual([]);
  });

  it('the index holds the stem beside the word; a Hebrew word keeps its prefix forms', () => {
    expect(withPrefixForms('работаю в Сбербанке')).toContain('Сбербанке сбербанк');
    expect(withPrefixForms('גר בחיפה')).toBe('גר בחיפה חיפה');
    expect(bareForms('בחיפה')).toEqual(['חיפה']);
  });
});
