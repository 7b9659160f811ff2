import { describe, expect, it } from 'vitest';
import { captureExplicit } from './capture.js';

describe('captureExplicit', () => {
  it.each([
    [
      'remember that my dentist is Dr. Ortiz on Elm Street',
      'relationship',
      'dentist',
      'Dr. Ortiz on Elm Street',
    ],
    [
      'Remember that my dentist is Dr. Ortiz on Elm Street.',
      'relationship',
      'dentist',
      'Dr. Ortiz on Elm Street',
    ],
    [
      'please remember: my favourite band is The Lanterns',
      'preference',
      'favourite_band',
      'The Lanterns',
    ],
    ['remember that my favorite band is Paper Owls', 'preference', 'favourite_band', 'Paper Owls'],
    ['remember that I love sushi', 'preference', 'sushi', 'I love sushi'],
    [
      "remember that I can't stand sushi anymore",
      'preference',
      'sushi',
      "I can't stand sushi anymore",
    ],
    [
      "note that I'm allergic to peanuts",
      'constraint',
      'allergy_peanuts',
      'I am allergic to peanuts',
    ],
    ['note that my phone number is 555 0100', 'profile', 'phone_number', '555 0100'],
    // relations are the pattern gate's vocabulary, modifiers included
    ['remember that my step-dad is Tom', 'relationship', 'step_dad', 'Tom'],
    ['remember that my piano teacher is Mrs Kim', 'relationship', 'piano_teacher', 'Mrs Kim'],
    ['remember that I live in Porto', 'profile', 'home', 'Porto'],
    ['From now on, answer in French.', 'setting', 'answer_french', 'Answer in French'],
    ['call me Sam', 'profile', 'preferred_name', 'Sam'],
    [
      'remember that the boiler service is due in March',
      'note',
      'boiler_service_due',
      'The boiler service is due in March',
    ],
  ])('%s → %s/%s', (text, kind, key, value) => {
    expect(captureExplicit(text)).toMatchObject({ kind, key, value });
  });

  it('the same statement twice yields the same slot (no timestamp keys)', () => {
    const a = captureExplicit('remember that my dentist is Dr. Ortiz');
    const b = captureExplicit('REMEMBER THAT MY DENTIST IS Dr. Ortiz!');
    expect(a).not.toBeNull();
    expect([b?.kind, b?.key]).toEqual([a?.kind, a?.key]);
    expect(a!.key).not.toMatch(/\d{6,}/);
  });

  it.each([
    'I had lunch with Ana today',
    'do you remember what I said?',
    'I noted the price',
    'remember that',
    'remember that 🎉🎉',
    '',
  ])('does not capture %j', (text) => {
    expect(captureExplicit(text)).toBeNull();
  });

  it('handles CJK statements', () => {
    expect(captureExplicit('note that 我喜欢喝绿茶')).toMatchObject({
      kind: 'note',
      value: '我喜欢喝绿茶',
    });
  });
});
