// No control character but line feed and tab reaches a terminal; JSON carries none raw.
import { KeelError } from '@keel/errors';
import { describe, expect, it } from 'vitest';
import { formatJson } from './json.js';
import { reportError } from './report.js';
import { escapeJsonControls, terminalText } from './terminal-text.js';

/** C0 but tab and line feed, DEL, C1, and the bidi embeddings, overrides and isolates. */
const RAW_CONTROL = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u202A-\u202E\u2066-\u2069]/;

describe('terminalText', () => {
  it('shows every control but line feed and tab as a visible character', () => {
    const said =
      'red \u001b[31mtext\u001b[0m, a bell\u0007, \u001b]0;title\u0007, back\rover, csi\u009b2J, del\u007f';
    const shown = terminalText(said);
    expect(shown).not.toMatch(RAW_CONTROL);
    expect(shown).toBe('red ␛[31mtext␛[0m, a bell␇, ␛]0;title␇, back␍over, csi\ufffd2J, del␡');
  });

  it('shows each bidi embedding, override and isolate as its code point, in stored order', () => {
    // "Trojan Source": RLO makes a terminal show "pay 001 to bob" as "pay bob ot 100"; an isolate
    // (RLI … PDI) hides a reordering the same way.
    const said = 'pay \u202Ebob ot 100\u202C and \u2067x\u2069 \u202A\u202B\u202D\u2066\u2068';
    const shown = terminalText(said);
    expect(shown).not.toMatch(RAW_CONTROL);
    expect(shown).toBe(
      'pay <U+202E>bob ot 100<U+202C> and <U+2067>x<U+2069> <U+202A><U+202B><U+202D><U+2066><U+2068>',
    );
  });

  it('keeps line feeds, tabs and every other character as they are (control)', () => {
    // Right-to-left text itself, and the marks LRM/RLM, are not reordering controls: kept.
    const rtl = 'שלום, مرحبا \u200Fok\u200E';
    expect(terminalText(rtl)).toBe(rtl);
    const plain = 'line one\n\tline two: café, 東京, 🍵 — “quoted”';
    expect(terminalText(plain)).toBe(plain);
    expect(terminalText('windows line\r\nnext')).toBe('windows line\nnext');
  });
});

describe('JSON output', () => {
  it('escapes DEL and C1 controls, which JSON.stringify leaves raw; the value is unchanged', () => {
    const value = { reply: 'csi \u009b2J and esc \u001b[31m and del \u007f and rlo \u202e' };
    expect(JSON.stringify(value)).toMatch(RAW_CONTROL);
    const printed = formatJson(value);
    expect(printed).not.toMatch(RAW_CONTROL);
    expect(printed).toContain('\\u009b2J');
    expect(printed).toContain('rlo \\u202e');
    expect(JSON.parse(printed)).toEqual(value);
    // Control: JSON without them is printed as JSON.stringify prints it.
    expect(escapeJsonControls(JSON.stringify({ a: 'café 🍵' }))).toBe('{"a":"café 🍵"}');
  });

  it('an error quoting stored text reaches neither stream with a raw control', () => {
    const out = { stdout: '', stderr: '' };
    const streams = {
      stdout: { write: (t: string) => (out.stdout += t) },
      stderr: { write: (t: string) => (out.stderr += t) },
    };
    const err = new KeelError('NOT_FOUND', 'no belief "\u001b[2Jgone\u009b"');
    reportError(err, true, streams);
    expect(out.stderr).toContain('error NOT_FOUND: no belief "␛[2Jgone\ufffd"');
    expect(out.stderr).not.toMatch(RAW_CONTROL);
    expect(out.stdout).not.toMatch(RAW_CONTROL);
    expect(JSON.parse(out.stdout).error.message).toBe(err.message);
  });
});
