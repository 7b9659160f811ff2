/**
 * What keel writes to a terminal: text the owner said, keel remembered or a model answered may
 * hold control characters (an ESC sequence that recolours, moves the cursor, retitles the window
 * or rewrites the line; a BEL; a carriage return that overwrites what was printed). keel keeps the
 * owner's words as they were said (an episode is stored as received, made well-formed) but never
 * emits a C0 or C1 control other than line feed and tab to a terminal: each door writes its text
 * through {@link terminalText}, which shows every other control as a visible character instead.
 * The bidirectional embeddings, overrides and isolates are controls too: a terminal that honours
 * them shows the text around them reordered ("Trojan Source"), so the owner would read something
 * other than what is stored; they are shown as their code point. JSON never carries one of these
 * raw either ({@link escapeJsonControls}).
 *
 * @module
 */

/** A carriage return before a line feed: a line end, kept as the line feed alone. */
const CRLF = /\r\n/g;
/** C0 controls other than tab and line feed, DEL, and C1 controls (U+0080–U+009F). */
const TERMINAL_CONTROL = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F]/g;
/**
 * The bidirectional formatting controls that reorder what follows them: the embeddings and
 * overrides LRE, RLE, PDF, LRO, RLO (U+202A–U+202E) and the isolates LRI, RLI, FSI, PDI
 * (U+2066–U+2069).
 */
const BIDI_CONTROL = /[\u202A-\u202E\u2066-\u2069]/g;
/** DEL, C1 and bidi controls: the controls `JSON.stringify` leaves raw. */
const JSON_RAW_CONTROL = /[\u007F-\u009F\u202A-\u202E\u2066-\u2069]/g;

/**
 * `text` safe to write to a terminal: a CRLF line end becomes a line feed; every other C0 control
 * (ESC, BEL, CR, NUL, backspace …) becomes its Unicode control picture (ESC → "␛", so
 * "\u001b[31m" prints as "␛[31m"), DEL becomes "␡", and a C1 control (CSI U+009B …) becomes
 * U+FFFD. A bidi control ({@link BIDI_CONTROL}, which has no control picture) becomes its code
 * point in angle brackets: RLO (U+202E) prints as "<U+202E>", and the text after it in the order
 * it is stored. Line feed and tab are kept; nothing else changes.
 */
export function terminalText(text: string): string {
  return text
    .replace(CRLF, '\n')
    .replace(TERMINAL_CONTROL, (c) => {
      const code = c.charCodeAt(0);
      if (code < 0x20) return String.fromCharCode(0x2400 + code);
      return code === 0x7f ? '\u2421' : '\uFFFD';
    })
    .replace(BIDI_CONTROL, (c) => `<U+${c.charCodeAt(0).toString(16).toUpperCase()}>`);
}

/**
 * JSON text with DEL, C1 and bidi controls written as `\u007f`…`\u009f`, `\u202e`… escapes
 * (`JSON.stringify` escapes C0 controls but leaves those raw; a terminal may act on U+009B as on
 * ESC [, and shows the text after U+202E reordered). The value is unchanged: they can only stand
 * inside JSON strings.
 */
export function escapeJsonControls(json: string): string {
  return json.replace(
    JSON_RAW_CONTROL,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
