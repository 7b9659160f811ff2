import { describe, expect, it } from 'vitest';
import { memoryCounts } from './status.js';

describe('memoryCounts', () => {
  it('says each count with its noun in the singular or plural as the number takes it', () => {
    expect(memoryCounts({ active: 1, pending: 0, episodes: 1 })).toBe(
      '1 belief, 0 pending, 1 episode',
    );
    expect(memoryCounts({ active: 0, pending: 2, episodes: 12 })).toBe(
      '0 beliefs, 2 pending, 12 episodes',
    );
  });
});
