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
import { showControls } from '@keel/language';

/** DEL, C1 and bidi controls: the controls `JSON.stringify` leaves raw. */
const JSON_RAW_CONTROL = /[\u007F-\u009F\u202A-\u202E\u2066-\u2069]/g;

/**
 * `text` safe to write to a terminal: `showControls` of `@keel/language`, the one screen every
 * door shows text through (Discord's `discordText` too). A CRLF line end becomes a line feed;
 * every other C0 control (ESC, BEL, CR, NUL, backspace …) becomes its Unicode control picture
 * (ESC → "␛", so "\u001b[31m" prints as "␛[31m"), DEL becomes "␡", and a C1 control (CSI U+009B …)
 * becomes U+FFFD. A bidi control (which has no control picture) becomes its code point in angle
 * brackets: RLO (U+202E) prints as "<U+202E>", and the text after it in the order it is stored.
 * Line feed and tab are kept; nothing else changes.
 */
export function terminalText(text: string): string {
  return showControls(text);
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
