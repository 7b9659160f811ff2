// What keel posts to Discord shows control characters and bidi overrides, never sends them raw;
// right-to-left text itself passes unchanged.
import { SHOWN_CONTROLS } from '@keel/language';
import { describe, expect, it } from 'vitest';
import { discordMessages, discordText } from './text.js';

describe('discordText', () => {
  it('shows each control and bidi override visibly, in the order the text is stored', () => {
    const said =
      'pay \u202Ebob ot 100\u202C, a bell\u0007, \u001b[2Jclear, \u2067x\u2069, csi\u009b';
    const shown = discordText(said);
    expect(shown).toBe(
      'pay <U+202E>bob ot 100<U+202C>, a bell␇, ␛[2Jclear, <U+2067>x<U+2069>, csi\ufffd',
    );
    expect(shown).not.toMatch(SHOWN_CONTROLS);
    expect(discordText(shown)).toBe(shown); // an edit may send it again
  });

  it('keeps Hebrew, Arabic, marks, emoji and line breaks as they are (control)', () => {
    const plain = 'שלום עולם ومرحبا بالعالم \u200Fok\u200E\n\tcafé 東京 👩‍💻';
    expect(discordText(plain)).toBe(plain);
  });
});

describe('discordMessages', () => {
  it('screens before it cuts: no message carries a raw control, and none runs past the limit', () => {
    const text = `${'\u202E'.repeat(400)}\n${'שלום '.repeat(300)}`;
    const messages = discordMessages(text, 1000);
    expect(messages.length).toBeGreaterThan(1);
    for (const m of messages) {
      expect(m.length).toBeLessThanOrEqual(1000);
      expect(m).not.toMatch(SHOWN_CONTROLS);
    }
    expect(messages.join('\n')).toContain('<U+202E>'.repeat(10));
    // Control: the Hebrew arrives whole, unchanged.
    expect(messages.join(' ').replace(/\s+/g, ' ')).toContain('שלום '.repeat(100).trim());
  });
});
