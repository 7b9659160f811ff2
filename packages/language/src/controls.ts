/**
 * Controls shown, not obeyed: text the owner said, keel remembered or a model answered may hold
 * control characters (an ESC sequence that recolours or rewrites a terminal line, a BEL, a carriage
 * return that overwrites what was shown) and the bidirectional embeddings, overrides and isolates
 * (U+202A–U+202E, U+2066–U+2069), which make a terminal or a chat client show the text around them
 * reordered ("Trojan Source"): the owner would read something other than what is stored. keel
 * stores the words as they were said, and screens them where they are shown: every front door
 * writes what it shows through {@link showControls} (the terminal as `terminalText` of `@keel/host`,
 * Discord as `discordText` of `@keel/outbound`), which turns each of these into a visible
 * character. Letters of every script, right-to-left ones included, and the marks LRM and RLM pass
 * unchanged.
 *
 * @module
 */

/** A carriage return before a line feed: a line end, kept as the line feed alone. */
const CRLF = /\r\n/g;
/** C0 controls other than tab and line feed, DEL, and C1 controls (U+0080–U+009F). */
const CONTROL = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F]/g;
/**
 * The bidirectional formatting controls that reorder what follows them: the embeddings and
 * overrides LRE, RLE, PDF, LRO, RLO (U+202A–U+202E) and the isolates LRI, RLI, FSI, PDI
 * (U+2066–U+2069).
 */
const BIDI_CONTROL = /[\u202A-\u202E\u2066-\u2069]/g;

/**
 * Every character {@link showControls} replaces: C0 controls but tab and line feed, DEL, C1
 * controls, and the bidi embeddings, overrides and isolates. For a check that none is left.
 */
export const SHOWN_CONTROLS = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u202A-\u202E\u2066-\u2069]/;

/**
 * `text` with every control shown as a visible character: a CRLF line end becomes a line feed;
 * every other C0 control (ESC, BEL, CR, NUL, backspace …) becomes its Unicode control picture
 * (ESC → "␛", so "\u001b[31m" shows as "␛[31m"), DEL becomes "␡", and a C1 control (CSI U+009B …)
 * becomes U+FFFD. A bidi control (which has no control picture) becomes its code point in angle
 * brackets: RLO (U+202E) shows as "<U+202E>", and the text after it in the order it is stored.
 * Line feed and tab are kept; nothing else changes (Hebrew and Arabic letters, LRM and RLM, emoji
 * and their joiners included). Applied twice, it changes nothing more.
 */
export function showControls(text: string): string {
  return text
    .replace(CRLF, '\n')
    .replace(CONTROL, (c) => {
      const code = c.charCodeAt(0);
      if (code < 0x20) return String.fromCharCode(0x2400 + code);
      return code === 0x7f ? '\u2421' : '\uFFFD';
    })
    .replace(BIDI_CONTROL, (c) => `<U+${c.charCodeAt(0).toString(16).toUpperCase()}>`);
}
