import { describe, expect, it } from 'vitest';
import { count } from './count.js';

describe('count', () => {
  it('says one thing in the singular and every other number in the plural', () => {
    expect(count(1, 'belief')).toBe('1 belief');
    expect(count(0, 'belief')).toBe('0 beliefs');
    expect(count(2, 'belief')).toBe('2 beliefs');
    expect(count(11, 'episode')).toBe('11 episodes');
    expect(count(21, 'episode')).toBe('21 episodes');
  });

  it('takes a plural that is not the noun plus "s"', () => {
    expect(count(1, 'entry', 'entries')).toBe('1 entry');
    expect(count(4, 'entry', 'entries')).toBe('4 entries');
  });
});
