import { describe, expect, it } from 'vitest';
import { splitMessage } from './split.js';

describe('splitMessage', () => {
  it('keeps short text whole and splits long text on lines, fences balanced, surrogates intact', () => {
    expect(splitMessage('hello')).toEqual(['hello']);
    const text = `intro\n\n\`\`\`py\n${'x = "🙂🙂"\n'.repeat(400)}\`\`\`\nend`;
    const chunks = splitMessage(text);
    expect(chunks.length).toBeGreaterThan(2);
    for (const c of chunks) {
      expect(c.length).toBeLessThanOrEqual(2000);
      expect((c.match(/^```/gm) ?? []).length % 2).toBe(0);
      expect(c).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
    }
    expect(chunks[1]!.startsWith('```py\n')).toBe(true);
  });

  it('cuts one huge line at grapheme boundaries', () => {
    const chunks = splitMessage('👍🏽'.repeat(1500));
    expect(chunks.join('')).toBe('👍🏽'.repeat(1500));
    for (const c of chunks) expect(c.length).toBeLessThanOrEqual(2000);
  });
});
