// The one screen every door shows text through: controls and bidi overrides made visible,
// letters of every script untouched.
import { describe, expect, it } from 'vitest';
import { SHOWN_CONTROLS, showControls } from './controls.js';

describe('showControls', () => {
  it('shows C0, DEL, C1 and the bidi embeddings, overrides and isolates; keeps line feed and tab', () => {
    const said = 'a\u0000b\u0007c\rd\r\ne\u007ff\u009bg\u202Ah\u202Ei\u2066j\u2069k\n\tl';
    const shown = showControls(said);
    expect(shown).toBe('a␀b␇c␍d\ne␡f\ufffdg<U+202A>h<U+202E>i<U+2066>j<U+2069>k\n\tl');
    expect(shown).not.toMatch(SHOWN_CONTROLS);
    expect(showControls(shown)).toBe(shown);
  });

  it('leaves right-to-left letters, marks and joiners unchanged (control)', () => {
    const text = 'שלום, مرحبا \u200F\u200E\u061C 👨‍👩‍👧 café';
    expect(showControls(text)).toBe(text);
    expect(text).not.toMatch(SHOWN_CONTROLS);
  });
});
