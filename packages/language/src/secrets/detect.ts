/**
 * The secret scan: finds every credential a text states, by what the sentence is about as well as
 * by the value's shape.
 *
 * A sentence states a secret when its subject is a credential noun ("password", "PIN",
 * "contraseña", "mot de passe", "Passwort", "senha", "密码" … see `vocabulary.ts`) joined to a
 * value: "my wifi password is sunshine", "PIN: 4821", "api_key = …", "the password for the bank
 * is …", "remember that my PIN's 4821", "la contraseña del wifi es …", "sunshine is my wifi
 * password", "I changed my password to …". The value need not look random ("sunshine" is caught);
 * what matters is that the sentence gives it as the credential. A sentence that only talks about a
 * credential is not a secret: "I changed my password yesterday", "the password manager I use is
 * 1Password", "my PIN pad is broken", "my password is too short".
 *
 * Beside the sentences, shapes are secrets wherever they stand (`shapes.ts`): issuers' tokens,
 * private key blocks, credentials in URLs, Luhn-valid card numbers, US SSNs, UK NI numbers.
 *
 * Cost: one pass of a few regexes over the text, then a bounded look (a few hundred characters)
 * around each credential noun; a noun inside a secret already found is not looked at again. So the
 * scan is linear in the text's length, a megabyte message included.
 *
 * @module
 */
import { SECRET_PLACEHOLDER, type SecretFinding, type SecretKind } from './kinds.js';
import { checkedNumbers } from './numbers.js';
import { recoveryPhrases } from './phrases.js';
import { shapeFindings } from './shapes.js';
import {
  answeredCredential,
  commandPasswords,
  deliveredCodes,
  pairedCredentials,
  pairedKeyHalves,
  securityAnswers,
} from './structure.js';
import {
  type Attachment,
  BARE_QUALIFIER,
  BLOCKING_MODIFIERS,
  COMPLEMENT_BEFORE,
  COMPLEMENT_BEFORE_LOANWORD,
  COMPLEMENT_CONTAINERS,
  DESCRIBERS,
  KEY_HEADS,
  LATIN_ASIDE,
  LATIN_JOIN,
  LATIN_QUALIFIER,
  LATIN_SKIP,
  OTHER_JOIN,
  OTHER_QUALIFIER,
  OTHER_VALUE_TAIL,
  PASSPHRASE_OPENERS,
  REVERSE_DETERMINERS,
  REVERSE_GENERAL,
  REVERSE_JOIN,
  REVERSE_NON_VALUES,
  SET_JOIN,
  SET_VERB_BEFORE,
  TERM_GROUPS,
  type TermGroup,
  USER_BEFORE,
  VALUE_STOPS,
} from './vocabulary.js';

const LETTER = '[\\p{L}\\p{N}\\p{M}]';
const NOT_BEFORE = `(?<!${LETTER})`;
const NOT_AFTER = `(?!${LETTER})`;

/** A regex source for one term: " ?" an optional separator, " " a separator, "'" an optional apostrophe. */
function termSource(term: string): string {
  return term.replace(/ \?/g, '[\\s_-]*').replace(/ /g, '[\\s_-]+').replace(/'/g, "['’]?");
}

interface Scanner {
  /** Finds candidate nouns (global). */
  find: RegExp;
  /** What a text of ASCII characters must hold for `find` to match in it; null: not known. */
  anchors: Anchors | null;
  /** The groups of each noun seen, by the noun as written (a small cache: nouns repeat). */
  seen: Map<string, TermGroup[]>;
  /** The groups this scanner finds, each with a regex telling whether a found noun is one of its terms. */
  groups: { group: TermGroup; is: RegExp }[];
  attach: Attachment;
}

function scanner(groups: readonly TermGroup[], attach: Attachment, exactCase: boolean): Scanner {
  const flags = exactCase ? 'u' : 'iu';
  const all = groups
    .flatMap((g) => g.terms.map(termSource))
    .sort((a, b) => b.length - a.length)
    .join('|');
  // A compound's head is found first; its first part is read back from it ({@link compoundStart}).
  const find =
    attach === 'bare'
      ? `(?:${all})`
      : attach === 'compound'
        ? `(?:${all})${NOT_AFTER}`
        : `${NOT_BEFORE}(?:${all})${NOT_AFTER}`;
  return {
    find: new RegExp(find, `g${flags}`),
    anchors: exactCase ? null : anchorsOf(groups.flatMap((g) => g.terms)),
    seen: new Map(),
    groups: groups.map((group) => {
      const alts = group.terms.map(termSource).join('|');
      return {
        group,
        is: new RegExp(attach === 'compound' ? `(?:${alts})$` : `^(?:${alts})$`, flags),
      };
    }),
    attach,
  };
}

/**
 * The end of the group or class that opens at `at` (`(` or `[`), escapes and classes inside read
 * as such.
 */
function closing(source: string, at: number): number {
  const close = source[at] === '(' ? ')' : ']';
  let depth = 0;
  for (let i = at; i < source.length; i++) {
    const c = source[i]!;
    if (c === '\\') i++;
    else if (close === ')' && c === '[' && i > at) i = closing(source, i);
    else if (c === source[at]) depth++;
    else if (c === close && --depth === 0) return i;
  }
  return source.length;
}

/** The index of the last character of a quantifier at `at` (`?`, `*`, `+`, `{…}`), else `at - 1`. */
function quantifierEnd(source: string, at: number): number {
  const q = source[at];
  if (q === '{') return source.indexOf('}', at);
  return q === '?' || q === '*' || q === '+' ? at : at - 1;
}

/**
 * The longest run of letters and digits every match of vocabulary term `term` (a regex source,
 * before {@link termSource}) contains: read at the top level only (groups, classes, escapes,
 * spaces, apostrophes and other punctuation end a run; a character made optional by a quantifier
 * is left out). Null when the term is an alternation at its top level or has no such run.
 */
export function requiredRun(term: string): string | null {
  const runs: string[] = [];
  let run = '';
  const cut = () => {
    if (run) runs.push(run);
    run = '';
  };
  for (let i = 0; i < term.length; i++) {
    const c = term[i]!;
    if (c === '|') return null;
    if (c === '\\') {
      cut();
      i++;
      if ((term[i] === 'p' || term[i] === 'P') && term[i + 1] === '{') i = term.indexOf('}', i);
      i = quantifierEnd(term, i + 1);
    } else if (c === '(' || c === '[') {
      cut();
      i = quantifierEnd(term, closing(term, i) + 1);
    } else if (!/[\p{L}\p{N}]/u.test(c)) {
      cut();
    } else if (term[i + 1] === '?' || term[i + 1] === '*' || term[i + 1] === '{') {
      cut();
      i = quantifierEnd(term, i + 1);
    } else {
      run += c;
      if (term[i + 1] === '+') {
        cut();
        i++;
      }
    }
  }
  cut();
  return runs.reduce<string | null>((a, b) => (a === null || b.length > a.length ? b : a), null);
}

/** Runs of letters (two or more) indexed by their first two character codes (ASCII text). */
interface Anchors {
  /** 1 where some anchor starts with these two codes (`first * 128 + second`). */
  starts: Uint8Array;
  byStart: Map<number, string[]>;
}

/**
 * What a text of ASCII characters must hold (lower-cased) for one of `terms` (matched
 * case-insensitively) to match in it: each term's {@link requiredRun}, case-folded to ASCII; a term
 * whose run holds a character no ASCII character matches is left out (it cannot match such a
 * text). Null when some term has no run of two or more characters (the scanner always runs).
 */
function anchorsOf(terms: readonly string[]): Anchors | null {
  const anchors = new Set<string>();
  for (const term of terms) {
    const run = requiredRun(term);
    if (run === null) return null;
    let ascii = '';
    for (const c of run) {
      const lower = c.toLowerCase();
      if (lower.length === 1 && lower.charCodeAt(0) < 128) ascii += lower;
      else {
        // A character some ASCII letter matches case-insensitively (the Kelvin sign and "k").
        const x = ASCII_LETTERS.find((a) => new RegExp(`^${c}$`, 'iu').test(a));
        if (x === undefined) {
          ascii = '';
          break;
        }
        ascii += x;
      }
    }
    if (ascii === '') continue; // cannot match an ASCII text
    if (ascii.length < 2) return null;
    anchors.add(ascii);
  }
  const starts = new Uint8Array(128 * 128);
  const byStart = new Map<number, string[]>();
  for (const a of anchors) {
    const k = a.charCodeAt(0) * 128 + a.charCodeAt(1);
    starts[k] = 1;
    byStart.set(k, [...(byStart.get(k) ?? []), a]);
  }
  return { starts, byStart };
}
const ASCII_LETTERS = [...'abcdefghijklmnopqrstuvwxyz0123456789'];
const ASCII_ONLY = /^[\x00-\x7f]*$/;

/** Whether lower-cased ASCII `text` holds one of `anchors`. */
function holdsAnchor(text: string, anchors: Anchors): boolean {
  for (let i = 0; i + 1 < text.length; i++) {
    const k = text.charCodeAt(i) * 128 + text.charCodeAt(i + 1);
    if (anchors.starts[k] === 1 && anchors.byStart.get(k)!.some((a) => text.startsWith(a, i)))
      return true;
  }
  return false;
}

const SCANNERS: readonly Scanner[] = (() => {
  const pick = (attach: Attachment, exact: boolean) =>
    TERM_GROUPS.filter((g) => (g.attach ?? 'word') === attach && !!g.exactCase === exact);
  return [
    scanner(pick('word', false), 'word', false),
    scanner(pick('word', true), 'word', true),
    scanner(pick('compound', false), 'compound', false),
    scanner(pick('bare', false), 'bare', false),
  ].filter((s) => s.groups.length > 0);
})();

/** A credential noun found in a text. */
interface Hit {
  group: TermGroup;
  attach: Attachment;
  start: number;
  end: number;
  /** The noun as written, lower-cased. */
  noun: string;
}

const COMPOUND_PART = /[\p{L}\p{M}]/u;

/**
 * Where the compound word whose head starts at `head` begins ("Bank" of "Bankpasswort", "WLAN-" of
 * "WLAN-Passwort"), reading back at most 40 letters and one hyphen; -1 when a digit is glued to it.
 */
function compoundStart(text: string, head: number): number {
  let p = head;
  if (p > 0 && text[p - 1] === '-') p--;
  const stop = Math.max(0, p - 40);
  while (p > stop && COMPOUND_PART.test(text[p - 1]!)) p--;
  if (p > 0 && /[\p{N}]/u.test(text[p - 1]!)) return -1;
  if (p === head - 1 && text[p] === '-') return head; // a lone hyphen before the head
  return p;
}

/**
 * The credential nouns in `text`, in order of position. A text of ASCII characters is read by a
 * scanner only when it holds one of the scanner's anchors (`prefilter`, default true; the same
 * nouns either way, measured in `detect.test.ts`): most texts name no credential, and the scanners'
 * long alternations cost about 25 µs a short text.
 */
function hitsIn(text: string, prefilter = true): Hit[] {
  const lists: Hit[][] = [];
  const ascii = prefilter && ASCII_ONLY.test(text);
  let lower: string | undefined;
  for (const s of SCANNERS) {
    if (ascii && s.anchors) {
      lower ??= text.toLowerCase();
      if (!holdsAnchor(lower, s.anchors)) continue;
    }
    const hits: Hit[] = [];
    s.find.lastIndex = 0;
    for (const m of text.matchAll(s.find)) {
      const start = s.attach === 'compound' ? compoundStart(text, m.index) : m.index;
      if (start < 0) continue;
      const end = m.index + m[0].length;
      const found = start === m.index ? m[0] : text.slice(start, end);
      let groups = s.seen.get(found);
      if (!groups) {
        groups = s.groups.filter((g) => g.is.test(found)).map((g) => g.group);
        if (s.seen.size > 2000) s.seen.clear();
        s.seen.set(found, groups);
      }
      const noun = found.toLowerCase();
      for (const group of groups) hits.push({ group, attach: s.attach, start, end, noun });
    }
    if (hits.length > 0) lists.push(hits);
  }
  if (lists.length <= 1) return lists[0] ?? [];
  // Each list is in order of position: merge them (stable, so a noun's groups keep their order).
  const out: Hit[] = [];
  const at = lists.map(() => 0);
  for (;;) {
    let best = -1;
    for (let i = 0; i < lists.length; i++) {
      const h = lists[i]![at[i]!];
      if (!h) continue;
      const b = best < 0 ? undefined : lists[best]![at[best]!]!;
      if (!b || h.start < b.start || (h.start === b.start && h.end > b.end)) best = i;
    }
    if (best < 0) return out;
    out.push(lists[best]![at[best]!]!);
    at[best]!++;
  }
}

/**
 * The credential nouns `text` holds (where, and of which kind), with or without the ASCII
 * prefilter: for the test that shows the prefilter changes nothing.
 */
export function nounsIn(
  text: string,
  prefilter = true,
): { start: number; end: number; noun: string; kind: SecretKind }[] {
  return hitsIn(text, prefilter).map((h) => ({
    start: h.start,
    end: h.end,
    noun: h.noun,
    kind: h.group.kind,
  }));
}

// ---------------------------------------------------------------------------------------------
// The joining words

const JOIN_HEAD_LAST = new RegExp(
  `(?:${LATIN_ASIDE}|${LATIN_QUALIFIER})?(?:${LATIN_JOIN})${LATIN_SKIP}`,
  'iuy',
);
const JOIN_HEAD_FIRST = new RegExp(
  `(?:${LATIN_QUALIFIER}|${BARE_QUALIFIER})?(?:${LATIN_JOIN})${LATIN_SKIP}`,
  'iuy',
);
const JOIN_OTHER = new RegExp(`${OTHER_QUALIFIER}(?:${OTHER_JOIN})`, 'iuy');
const SPACE = /[^\S\n]+/y;
const SET_JOIN_RE = new RegExp(SET_JOIN, 'iuy');

type Via = 'sym' | 'verb' | 'poss' | 'none' | 'set' | 'other';

// ---------------------------------------------------------------------------------------------
// Values

const OPEN_TO_CLOSE: Record<string, string> = {
  '"': '"',
  "'": "'",
  '`': '`',
  '“': '”',
  '‘': '’',
  '«': '»',
  '„': '“',
  '「': '」',
  '『': '』',
};
const TOKEN = /[^\s]{1,512}/y;
const NEXT_TOKEN = /[^\S\n]+([^\s]{1,256})/y;
const TRAILING = /[.,;:)\]}"'»”’」』]+$/u;
const CLAUSE_END = /[,.;:]$/;
const DIGITS_4_12 = new RegExp(`\\d(?:[ -]?\\d){3,11}${NOT_AFTER}`, 'uy');
const DIGITS_3_12 = new RegExp(`\\d(?:[ -]?\\d){2,11}${NOT_AFTER}`, 'uy');
/**
 * A code of 4 to 10 capitals and digits mixed as a machine mixes them ("R7KQ2", "58B30#", "4B27":
 * letters and digits alternate at least twice), a "#" or "*" after it as typed on a keypad; a
 * word and a number ("SUMMER20", "PH20") is a discount code, not one.
 */
const CODE_OF_CAPITALS = new RegExp(
  `(?=[A-Z\\d]*(?:[A-Z]\\d+[A-Z]|\\d[A-Z]+\\d))[A-Z\\d]{4,10}[#*]?${NOT_AFTER}`,
  'uy',
);
const DIGITS_3_4 = new RegExp(`\\d{3,4}${NOT_AFTER}`, 'uy');
const CARD_DIGITS = new RegExp(`\\d(?:[ -]?\\d){11,18}${NOT_AFTER}`, 'uy');
const UNITS = new Set([
  'lines',
  'pages',
  'steps',
  'km',
  'miles',
  'meters',
  'metres',
  'feet',
  'euros',
  'dollars',
  'pounds',
  'people',
  'times',
  'minutes',
  'hours',
  'days',
  'weeks',
  'months',
  'years',
  'items',
  'rows',
  'bytes',
  'kb',
  'mb',
  'gb',
  'líneas',
  'lignes',
  'zeilen',
  'linhas',
  'characters',
  'chars',
  'letters',
  'digits',
  'numbers',
  'words',
  'symbols',
  'long',
  'caracteres',
  'caractères',
  'zeichen',
  'ziffern',
  'stellen',
  'stellig',
  'dígitos',
  'digitos',
  'chiffres',
  'letras',
  'lettres',
  'buchstaben',
  'cifre',
]);

/** Shannon entropy of `s`, bits per character. */
function entropy(s: string): number {
  const counts = new Map<string, number>();
  for (const c of s) counts.set(c, (counts.get(c) ?? 0) + 1);
  let h = 0;
  const n = [...s].length;
  for (const k of counts.values()) h -= (k / n) * Math.log2(k / n);
  return h;
}

/**
 * True when `v` looks machine-made rather than a word: mixed letters and digits, three kinds of
 * character, long hex, or a long high-entropy run.
 */
export function looksRandom(value: string): boolean {
  // Markdown and quotes around a word are not part of it ("**Innovations:**").
  const v = value.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '');
  if (v.length < 6) return false;
  if (/^\p{Lu}?\p{Ll}+$/u.test(v)) return false;
  if (/^[0-9a-f]{16,}$/i.test(v)) return true;
  const lower = /\p{Ll}/u.test(v);
  const upper = /\p{Lu}/u.test(v);
  const digit = /\p{N}/u.test(v);
  const other = /[^\p{L}\p{N}]/u.test(v);
  const classes = Number(lower) + Number(upper) + Number(digit) + Number(other);
  if (classes >= 3) return true;
  if (classes === 2 && digit && (lower || upper) && v.length >= 8) return true;
  return v.length >= 20 && entropy(v) >= 3.5;
}

/** A password-like word next to "password" without a joining word ("password hunter2!"). */
function looksLikePassword(v: string): boolean {
  return v.length >= 6 && /\p{L}/u.test(v) && /[^\p{L}]/u.test(v) && !/^\p{L}+[.,;:!?]$/u.test(v);
}

function isDescriber(word: string): boolean {
  const w = word
    .toLowerCase()
    .replace(/[!?]+$/, '')
    .replace(/’/g, "'");
  return DESCRIBERS.has(w);
}

/** Words of other scripts that start a description ("什么", "忘", "не"), not a value. */
const OTHER_DESCRIBERS =
  /^(?:什么|什麼|错|錯|不|忘|太|很|在|已|何|なに|間違|忘れ|안|뭐|무엇|틀|не|в|на|слишком|очень|уже|забыл|что|ไม่|ลืม|อะไร|क्या|नहीं|भूल|কী|না|לא|מה|שכח|ما|لا|δεν|τι)/iu;
const LATIN_RUN =
  /[^\s\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Thai}。，、；！？]{1,256}/uy;
/** Text up to the next character of a script without spaces, or the line's end. */
const LATIN_CLAUSE =
  /[^\n\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Thai}。，、；！？]{1,256}/uy;
const OTHER_RUN = /[^\s。，、.,;!?；！？:：]{1,40}/uy;
const COPULA_PARTICLES = /^[はが는은]/u;

/** A span of text (UTF-16 offsets, end exclusive). */
export interface Span {
  start: number;
  end: number;
}

/** Skips blanks (and, after ":" or "=", one line break) from `pos`. */
function skipBlank(text: string, pos: number, newline: boolean): number {
  let p = pos;
  while (p < text.length && (text[p] === ' ' || text[p] === '\t')) p++;
  if (newline && text[p] === '\n') {
    p++;
    while (p < text.length && (text[p] === ' ' || text[p] === '\t')) p++;
  }
  return p;
}

function sticky(re: RegExp, text: string, pos: number): RegExpExecArray | null {
  re.lastIndex = pos;
  return re.exec(text);
}

/** A quoted value at `pos`: the span inside the quotes, or null. */
function quoted(text: string, pos: number): Span | null {
  const close = OPEN_TO_CLOSE[text[pos] ?? ''];
  if (!close) return null;
  const end = text.indexOf(close, pos + 1);
  if (end < 0 || end - pos > 200) return null;
  const inner = text.slice(pos + 1, end);
  if (!inner.trim() || inner.includes('\n') || inner.startsWith(SECRET_PLACEHOLDER)) return null;
  return { start: pos + 1, end };
}

/** Extends a value over the words that follow it in the same clause, up to `max` more words. */
function continueValue(text: string, span: Span, rawEnd: number, max: number): Span {
  if (CLAUSE_END.test(text.slice(span.start, rawEnd))) return span;
  let end = span.end;
  let at = rawEnd;
  for (let i = 0; i < max; i++) {
    const m = sticky(NEXT_TOKEN, text, at);
    if (!m) break;
    const raw = m[1]!;
    const word = raw.replace(TRAILING, '');
    const lower = word.toLowerCase();
    if (!word || VALUE_STOPS.has(lower) || /^[[(]/.test(word)) break;
    // A spaced dash ends the value: what follows is another clause ("Pw: Elbe#Möwe2019 — …").
    if (/^[—–-]+$/u.test(raw)) break;
    if (raw.startsWith(SECRET_PLACEHOLDER.slice(0, 7))) break;
    end = m.index + m[0].length - (raw.length - word.length);
    at = m.index + m[0].length;
    if (CLAUSE_END.test(raw) || word !== raw) break;
  }
  return { start: span.start, end };
}

/** An identity number at `pos`: words holding digits (or one to three capitals), four digits at least. */
function idValue(text: string, pos: number): Span | null {
  const first = sticky(TOKEN, text, pos);
  if (!first) return null;
  const ok = (w: string) => /\d/.test(w) || /^[A-Z]{1,3}$/.test(w);
  const word = first[0].replace(TRAILING, '');
  if (!ok(word)) return null;
  let end = pos + word.length;
  let digits = (word.match(/\d/g) ?? []).length;
  let at = pos + first[0].length;
  for (let i = 0; i < 6 && word === first[0]; i++) {
    const m = sticky(NEXT_TOKEN, text, at);
    if (!m) break;
    const raw = m[1]!;
    const next = raw.replace(TRAILING, '');
    if (!next || !ok(next) || digits >= 12) break;
    digits += (next.match(/\d/g) ?? []).length;
    end = m.index + m[0].length - (raw.length - next.length);
    at = m.index + m[0].length;
    if (next !== raw) break;
  }
  return digits >= 4 ? { start: pos, end } : null;
}

const IBAN_AT = /[A-Z]{2}\d{2}(?:[ -]?[A-Z0-9]{1,4}){2,8}(?![\p{L}\p{N}])/uy;
const ACCOUNT_DIGITS = /\d(?:[ -]?\d){5,33}(?![\p{L}\p{N}])/uy;

/**
 * An account number at `pos`: an IBAN as written (country, check digits, groups), or six to
 * thirty-four digits with spaces or hyphens between them.
 */
function accountValue(text: string, pos: number): Span | null {
  const m = sticky(IBAN_AT, text, pos) ?? sticky(ACCOUNT_DIGITS, text, pos);
  return m ? { start: pos, end: pos + m[0].length } : null;
}

/** Recovery codes or a seed phrase at `pos`: the rest of the sentence. */
function codesValue(text: string, pos: number): Span | null {
  const limit = Math.min(text.length, pos + 600);
  let end = pos;
  for (let i = pos; i < limit; i++) {
    const c = text[i]!;
    if (c === '\n') break;
    if ((c === '.' || c === '!' || c === '?') && (i + 1 >= text.length || /\s/.test(text[i + 1]!)))
      break;
    // A spaced dash closes the clause ("… curtain fringe — the trezor itself lives …").
    if (/[—–-]/.test(c) && /\s/.test(text[i - 1] ?? '') && /\s/.test(text[i + 1] ?? '')) break;
    end = i + 1;
  }
  const value = text.slice(pos, end).replace(/[\s,;:]+$/, '');
  const words = value.split(/\s+/).filter(Boolean);
  if (words.length === 0 || isDescriber(words[0]!)) return null;
  if (!/\d/.test(value) && words.length < 3) return null;
  return { start: pos, end: pos + value.length };
}

/**
 * The value a credential noun is joined to, read from `pos` (just after the joining word), or null
 * when what follows is not a value (a description, an empty clause, a placeholder already there).
 */
function latinValue(
  text: string,
  pos: number,
  group: TermGroup,
  via: Via,
  noun: string,
): Span | null {
  // "my bank password is⏎Tr0ub4dor&3": a noun whose line ends with its joining word.
  const p = skipBlank(text, pos, via === 'sym' || via === 'verb');
  if (p >= text.length || text.startsWith(SECRET_PLACEHOLDER, p)) return null;
  const shape = group.value;
  const q = quoted(text, p);
  if (q && via !== 'none' && ['word', 'phrase', 'token', 'pin', 'key'].includes(shape)) return q;
  const start = q ? q.start : p;
  // "my code is 1500 lines long", "my password is 12 characters": a quantity, not a value.
  const quantity = /^\d+[^\S\n]+(\p{L}+)/u.exec(text.slice(start, start + 40));
  if (quantity && UNITS.has(quantity[1]!.toLowerCase())) return null;
  switch (shape) {
    case 'digits': {
      // After "code" or a keypad, capitals and digits too ("login code R7KQ2"); a gate's "A12B"
      // is where to board.
      const m =
        sticky(DIGITS_4_12, text, start) ??
        (/(?:code|keypad)s?$/iu.test(noun) ? sticky(CODE_OF_CAPITALS, text, start) : null);
      return m ? { start, end: start + m[0].length } : null;
    }
    case 'cvv': {
      const m = sticky(DIGITS_3_4, text, start);
      return m ? { start, end: start + m[0].length } : null;
    }
    case 'card': {
      const m = sticky(CARD_DIGITS, text, start);
      return m ? { start, end: start + m[0].length } : null;
    }
    case 'id':
      return idValue(text, start);
    case 'codes':
      return via === 'none' ? null : codesValue(text, start);
    case 'account':
      return accountValue(text, start);
    default:
      break;
  }
  const tok = sticky(TOKEN, text, start);
  if (!tok) return null;
  const raw = tok[0];
  const word = raw.replace(TRAILING, '');
  const span = { start, end: start + word.length };
  const rawEnd = start + raw.length;
  if (!word) return null;
  if (isDescriber(word) && !opensPassphrase(text, word, raw, rawEnd, shape)) return null;
  const next = sticky(NEXT_TOKEN, text, rawEnd);
  // "the password's length is 12": "'s" was a possessive, not "is".
  if (via === 'poss' && next) {
    const after = sticky(NEXT_TOKEN, text, next.index + next[0].length);
    if (
      /^(?:is|are|was|were)$/i.test(next[1]!) ||
      (after && /^(?:is|are|was|were)$/i.test(after[1]!))
    )
      return null;
  }
  // "Password: Choose a strong one", "Access codes: Provide customers with …": after a colon, a
  // capitalised word that a lower-case sentence follows is a heading, not a value.
  if (via === 'sym' && /^\p{Lu}\p{Ll}+$/u.test(word) && next && /^\p{Ll}/u.test(next[1]!)) {
    return null;
  }
  switch (shape) {
    case 'pin': {
      const d = sticky(DIGITS_3_12, text, start);
      if (d) return { start, end: start + d[0].length };
      // A code of capitals and digits, as keypads and sign-in codes are ("R7KQ2", "58B30#").
      const code = sticky(CODE_OF_CAPITALS, text, start);
      if (code) return { start, end: start + code[0].length };
      if (via === 'none') return null;
      // Lower-case "pin" is also a pin on a map: only digits make it a PIN.
      if (/^pins?$/.test(noun)) return null;
      // A passcode of letters ends its phrase ("my passcode is sunshine and …") or holds a digit.
      const goesOn =
        next &&
        !CLAUSE_END.test(raw) &&
        !VALUE_STOPS.has(next[1]!.toLowerCase().replace(TRAILING, ''));
      if (!/[\p{N}\p{P}\p{S}]/u.test(word) && goesOn) return null;
      return span;
    }
    case 'key':
      return looksRandom(word) && (via !== 'none' || word.length >= 12) ? span : null;
    case 'token':
      if (via === 'none') return looksRandom(word) ? span : null;
      return word.length >= 4 ? span : null;
    case 'word':
      if (via === 'none') return looksLikePassword(word) ? span : null;
      return continueValue(text, span, rawEnd, 6);
    case 'phrase':
      if (via === 'none') return null;
      return continueValue(text, span, rawEnd, 24);
    default:
      return null;
  }
}

const ARTICLES: ReadonlySet<string> = new Set(
  'the a an el la los las un una le les une der die das ein eine o os as um uma il lo'.split(' '),
);

/** "correct horse battery staple": a describing word followed by two words that are neither stops nor describers. */
function opensPassphrase(text: string, word: string, raw: string, rawEnd: number, shape: string) {
  if ((shape !== 'word' && shape !== 'phrase') || word !== raw) return false;
  const first = word.toLowerCase();
  // A passphrase or an answer may start with an article: "the quick brown fox".
  if (!PASSPHRASE_OPENERS.has(first) && !(shape === 'phrase' && ARTICLES.has(first))) return false;
  let at = rawEnd;
  for (let i = 0; i < 2; i++) {
    const m = sticky(NEXT_TOKEN, text, at);
    if (!m) return false;
    const w = m[1]!.replace(TRAILING, '').toLowerCase();
    if (!w || VALUE_STOPS.has(w) || isDescriber(w)) return false;
    if (i === 0 && w !== m[1]!.toLowerCase()) return false;
    at = m.index + m[0].length;
  }
  return true;
}

/** The value after a noun of a script other than Latin. */
function otherValue(text: string, pos: number, group: TermGroup, joinedBy: string): Span | null {
  const p = skipBlank(text, pos, false);
  if (p >= text.length || text.startsWith(SECRET_PLACEHOLDER, p)) return null;
  const q = quoted(text, p);
  if (q) return q;
  const c = text[p]!;
  const latin = /[\p{Script=Latin}\p{N}\p{P}\p{S}]/u.test(c);
  // Numbers and codes read as in any language ("номер паспорта: 4509 123456").
  if (latin && !['word', 'phrase', 'token', 'key'].includes(group.value)) {
    const run = sticky(LATIN_CLAUSE, text, p);
    return run ? latinValue(text.slice(0, p + run[0].length), p, group, 'verb', '') : null;
  }
  const m = sticky(latin ? LATIN_RUN : OTHER_RUN, text, p);
  if (!m) return null;
  let value = m[0].replace(TRAILING, '');
  if (!latin) {
    // A topic particle ("は", "는") is followed by any predicate: only "X です" / "X 입니다" gives a value.
    const tail = OTHER_VALUE_TAIL.exec(value);
    if (COPULA_PARTICLES.test(joinedBy.trim()) && !tail) return null;
    if (tail) value = value.slice(0, tail.index);
  }
  if (!value || OTHER_DESCRIBERS.test(value) || isDescriber(value)) return null;
  if (['pin', 'digits', 'cvv', 'card', 'id'].includes(group.value)) {
    const digits = (value.match(/\d/g) ?? []).length;
    const need = group.value === 'card' ? 12 : group.value === 'cvv' ? 3 : 4;
    if (digits < need && group.value !== 'pin') return null;
  }
  return { start: p, end: p + value.length };
}

// ---------------------------------------------------------------------------------------------
// Reading around a noun

const LETTER_CHAR = /[\p{L}\p{N}\p{M}]/u;

/** The word just before `pos` (across blanks and one hyphen), lower-cased, or undefined. */
function wordBefore(text: string, pos: number): string | undefined {
  let p = pos;
  while (p > 0 && (text[p - 1] === ' ' || text[p - 1] === '\t')) p--;
  if (p > 0 && text[p - 1] === '-') p--;
  while (p > 0 && (text[p - 1] === ' ' || text[p - 1] === '\t')) p--;
  const end = p;
  while (p > 0 && end - p < 40 && LETTER_CHAR.test(text[p - 1]!)) p--;
  return end > p ? text.slice(p, end).toLowerCase() : undefined;
}

/** The word just after `pos` (across blanks), lower-cased, or undefined. */
function wordAfter(text: string, pos: number): string | undefined {
  let p = pos;
  while (p < text.length && (text[p] === ' ' || text[p] === '\t')) p++;
  const start = p;
  while (p < text.length && p - start < 40 && LETTER_CHAR.test(text[p]!)) p++;
  return p > start ? text.slice(start, p).toLowerCase() : undefined;
}

const POSSESSIVE_BEFORE =
  /(?:^|[^\p{L}\p{N}])(?:mi|mis|tu|tus|su|sus|nuestra|nuestras|my|our)[^\S\n]+$/iu;

/** True when the noun is blocked: "zip code", "código postal", "Dresscode", "gestor de contraseñas". */
function blocked(text: string, hit: Hit): boolean {
  const before = text.slice(Math.max(0, hit.start - 40), hit.start);
  if (hit.group.weak) {
    const prev = wordBefore(text, hit.start);
    const next = wordAfter(text, hit.end);
    if (prev && BLOCKING_MODIFIERS.has(prev)) return true;
    if (next && BLOCKING_MODIFIERS.has(next)) return true;
    if (hit.attach === 'compound') {
      const prefix = hit.noun.slice(0, hit.noun.length - 4).replace(/-$/, '');
      if (prefix && BLOCKING_MODIFIERS.has(prefix)) return true;
    }
  }
  if (hit.group.possessive && !POSSESSIVE_BEFORE.test(before)) return true;
  // The complement of another noun ("gestor de contraseñas", "changement de mot de passe").
  const complement =
    hit.attach !== 'word'
      ? null
      : (hit.group.headFirst ? COMPLEMENT_BEFORE : COMPLEMENT_BEFORE_LOANWORD).exec(before);
  if (complement) {
    const head = wordBefore(before, complement.index + 1);
    if (!head || !COMPLEMENT_CONTAINERS.has(head)) return true;
  }
  return false;
}

const REVERSE_JOINS: ReadonlySet<string> = new Set(REVERSE_JOIN.split('|'));
const DETERMINERS: readonly string[][] = REVERSE_DETERMINERS.split('|')
  .map((d) => d.split(' '))
  .sort((a, b) => b.length - a.length);
const REVERSE_AFTER = new RegExp(
  `^(?:[^\\S\\n]+(?:for|to|of|on|at|de|del|du|do|da|für|von|para|pour)${NOT_AFTER}[^\\n.;,!?]{0,40})?[^\\S\\n]*(?:$|[.,;!?\\n)]|[^\\S\\n]+(?:and|but|y|pero|et|mais|und|aber|e|mas)${NOT_AFTER})`,
  'iu',
);

/** "sunshine is my wifi password", "use hunter2 as the password": the value before the noun. */
function reverseValue(text: string, hit: Hit): Span | null {
  if (!REVERSE_AFTER.test(text.slice(hit.end, hit.end + 60))) return null;
  // The last words before the noun, with their offsets: value, join, [determiner], ≤ 2 words.
  const from = Math.max(0, hit.start - 80);
  const before = text.slice(from, hit.start);
  if (!/[^\S\n]$/.test(before)) return null;
  const words: { w: string; at: number }[] = [];
  for (const m of before.matchAll(/[^\s]+/g)) words.push({ w: m[0], at: from + m.index });
  if (from > 0) words.shift(); // may be cut
  const lower = words.slice(-7).map((x) => x.w.toLowerCase());
  const offset = words.length - lower.length;
  for (let j = lower.length - 2; j >= 1 && j >= lower.length - 6; j--) {
    if (!REVERSE_JOINS.has(lower[j]!)) continue;
    let mids = lower.slice(j + 1);
    const det = DETERMINERS.find((d) => d.every((w, i) => mids[i] === w));
    if (det) mids = mids.slice(det.length);
    if (mids.length > 2) return null;
    if (
      mids.some(
        (w) => REVERSE_GENERAL.has(w) || isDescriber(w) || !/^[\p{L}\p{N}\p{M}'’-]+$/u.test(w),
      )
    )
      return null;
    // "7390 — that's the PIN": a dash between the value and its joining word.
    const k = /^[—–-]$/u.test(lower[j - 1]!) && j >= 2 ? j - 2 : j - 1;
    return reverseCandidate(words[offset + k]!, hit);
  }
  return null;
}

/** The word before the joining word, if it can be the noun's value. */
function reverseCandidate(candidate: { w: string; at: number }, hit: Hit): Span | null {
  const raw = candidate.w;
  const lead = raw.match(/^["'“‘«„(]*/)![0].length;
  const word = raw.slice(lead).replace(TRAILING, '');
  if (!word || /[[\]]/.test(raw) || REVERSE_NON_VALUES.has(word.toLowerCase())) return null;
  if (isDescriber(word) || /[.!?;:]$/.test(raw.slice(lead))) return null;
  const start = candidate.at + lead;
  const span = { start, end: start + word.length };
  switch (hit.group.value) {
    case 'pin':
    case 'digits':
      return /^\d[\d-]{2,14}$/.test(word) ? span : null;
    case 'cvv':
      return /^\d{3,4}$/.test(word) ? span : null;
    case 'card':
    case 'id':
      return (word.match(/\d/g) ?? []).length >= (hit.group.value === 'card' ? 12 : 4)
        ? span
        : null;
    case 'key':
      return looksRandom(word) ? span : null;
    case 'codes':
      return null;
    default:
      return span;
  }
}

/** A password noun read in a pair after a user name: any one word that is not a description. */
const PAIRED_PASSWORD: TermGroup = { kind: 'password', value: 'token', terms: [] };
const USER_BEFORE_RE = new RegExp(USER_BEFORE, 'iu');

/** True when a user name and its value come just before the password noun `hit`. */
function pairedWithUser(text: string, hit: Hit): boolean {
  return USER_BEFORE_RE.test(text.slice(Math.max(0, hit.start - 100), hit.start));
}

/**
 * Words of the noun's clause before its joining word, any words (no colon, no sentence end): read
 * only for a code, whose value must then be digits.
 */
const DIGITS_QUALIFIED = new RegExp(
  `[^\\S\\n]+(?:[^\\n.;:!?=,]|\\.(?=[\\p{L}\\p{N}])){1,60}?(?:${LATIN_JOIN})`,
  'iuy',
);
/** A year is not read as a code after words between ("the code of 2019 is 2024"). */
const YEAR = /^(?:19|20)\d\d$/;
const DIGITS_ONLY = (group: TermGroup): TermGroup => ({ ...group, value: 'digits' });

/** The secret a credential noun is joined to, or null. */
function secretOf(text: string, hit: Hit): Span | null {
  const v = joinedValue(text, hit);
  return v && !blocked(text, hit) ? v : null;
}

/** The value joined to a noun, before the noun's own vetoes ({@link blocked}) are applied. */
function joinedValue(text: string, hit: Hit): Span | null {
  const { group } = hit;
  if (hit.attach === 'bare') {
    const j = sticky(JOIN_OTHER, text, hit.end);
    if (j) {
      const v = otherValue(text, hit.end + j[0].length, group, j[0]);
      if (v) return v;
    }
    // Hindi and Bengali put the verb last: "मेरा पासवर्ड sunshine है".
    const s = sticky(SPACE, text, hit.end);
    if (s) {
      const v = otherValue(text, hit.end + s[0].length, group, '');
      if (v && /^[^\S\n]*(?:है|হয়|হল)/u.test(text.slice(v.end, v.end + 8))) return v;
    }
    return null;
  }
  // "login: sam / password hunter22", "user sam pass hunter22": the half after a user name.
  const paired = group.kind === 'password' && pairedWithUser(text, hit);
  const read = paired ? PAIRED_PASSWORD : group;
  const join = sticky(group.headFirst ? JOIN_HEAD_FIRST : JOIN_HEAD_LAST, text, hit.end);
  if (join) {
    const via: Via = join.groups?.sym ? 'sym' : join.groups?.poss ? 'poss' : 'verb';
    if (!group.symbolOnly || via === 'sym' || paired) {
      const v = latinValue(text, hit.end + join[0].length, read, via, hit.noun);
      if (v) return v;
    }
  }
  if (group.symbolOnly && !paired) return null;
  // Next to the noun without a joining word: "PIN 4821", "api key 8f3a…", "password hunter2!".
  const space = sticky(SPACE, text, hit.end);
  if (space) {
    const v = latinValue(text, hit.end + space[0].length, read, paired ? 'verb' : 'none', hit.noun);
    if (v) return v;
  }
  // "the code they texted me is 551 902": a code's digits after any words of its clause.
  if (group.value === 'pin' || group.value === 'digits') {
    const q = sticky(DIGITS_QUALIFIED, text, hit.end);
    if (q) {
      const via: Via = q.groups?.sym ? 'sym' : 'verb';
      const v = latinValue(text, hit.end + q[0].length, DIGITS_ONLY(group), via, hit.noun);
      if (v && !YEAR.test(text.slice(v.start, v.end))) return v;
    }
  }
  // "I changed my password to …", "cambié mi contraseña a …".
  const set = sticky(SET_JOIN_RE, text, hit.end);
  if (set && SET_VERB_BEFORE.test(text.slice(Math.max(0, hit.start - 60), hit.start))) {
    const v = latinValue(text, hit.end + set[0].length, group, 'set', hit.noun);
    if (v) return v;
  }
  return reverseValue(text, hit);
}

/** Where `text` holds the placeholder already: spans no secret may touch. */
export function placeholders(text: string): Span[] {
  const out: Span[] = [];
  for (let at = text.indexOf(SECRET_PLACEHOLDER); at >= 0; ) {
    out.push({ start: at, end: at + SECRET_PLACEHOLDER.length });
    at = text.indexOf(SECRET_PLACEHOLDER, at + SECRET_PLACEHOLDER.length);
  }
  return out;
}

/** True when `span` overlaps one of `held` (sorted, disjoint). Binary search. */
export function overlapsAny(span: Span, held: readonly Span[]): boolean {
  let lo = 0;
  let hi = held.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const h = held[mid]!;
    if (h.end <= span.start) lo = mid + 1;
    else if (h.start >= span.end) hi = mid - 1;
    else return true;
  }
  return false;
}

/** What a scan may know besides the text itself. */
export interface ScanOptions {
  /**
   * The owner's previous turn as stored (already redacted): when it held the id half of a key
   * pair (an AWS access key id, withheld or not), the secret half said in this text is withheld
   * too; when it ended on an open clause ("my bank password is", "PIN:"), this text is read as
   * that clause's next line. Read for that alone; nothing in it is reported.
   */
  context?: string | undefined;
}

/** The most characters of the previous turn read as the clause this text may finish. */
const CARRIED_CLAUSE_CHARS = 300;
/** A clause left open for its value: it ends on a joining word or sign. */
const OPEN_CLAUSE =
  /(?:[:=：]|(?<![\p{L}\p{M}])(?:is|was|are|es|era|est|ist|lautet|war|é|è|foi|это|είναι))[^\S\n]*$/iu;

/**
 * The secrets of `text` read as the next line of the clause the previous turn left open ("my bank
 * password at the old flat is", then the password on its own): the same structure the scan reads
 * inside one text across a line break, across two turns. Spans are in `text`.
 */
function carriedFindings(text: string, context: string | undefined): SecretFinding[] {
  if (!context) return [];
  const tail = context.trimEnd().slice(-CARRIED_CLAUSE_CHARS);
  if (!OPEN_CLAUSE.test(tail)) return [];
  const offset = tail.length + 1;
  return scanSecrets(`${tail}\n${text}`)
    .filter((f) => f.start >= offset)
    .map((f) => ({ ...f, start: f.start - offset, end: f.end - offset }));
}

/**
 * Every secret in `text`, in order of position, with the span of the secret itself (the noun and
 * the words around it are not part of it). Overlapping findings are kept; redaction merges them.
 * Text already withheld (`[secret withheld]`) is never read as a value, nor as part of one.
 *
 * @param text - any text, any length (linear time).
 * @param options - what else the scan may read ({@link ScanOptions}); the scan stays pure.
 */
export function scanSecrets(text: string, options: ScanOptions = {}): SecretFinding[] {
  if (typeof text !== 'string' || text.length === 0) return [];
  const held = placeholders(text);
  const shapes = [
    ...shapeFindings(text),
    ...checkedNumbers(text),
    ...pairedKeyHalves(text, options.context),
    ...carriedFindings(text, options.context),
    ...securityAnswers(text),
    ...deliveredCodes(text),
    ...recoveryPhrases(text),
    ...pairedCredentials(text),
    ...commandPasswords(text),
    ...answeredCredential(text, options.context),
  ]
    .filter((f) => !overlapsAny(f, held))
    .sort((a, b) => a.start - b.start);
  const found = [...shapes];
  let done = 0;
  let s = 0;
  let shapeEnd = 0;
  let foundAt = -1;
  for (const hit of hitsIn(text)) {
    if (hit.start < done || hit.start === foundAt) continue;
    // A noun inside a secret found by shape (a token's "key" part) is not read again.
    while (s < shapes.length && shapes[s]!.start <= hit.start) {
      shapeEnd = Math.max(shapeEnd, shapes[s]!.end);
      s++;
    }
    if (hit.end <= shapeEnd) continue;
    const v = secretOf(text, hit);
    if (!v || v.end <= v.start || overlapsAny(v, held)) continue;
    found.push({ kind: hit.group.kind, start: v.start, end: v.end });
    foundAt = hit.start;
    if (v.start >= hit.end) done = Math.max(done, v.end);
  }
  // A span found both by its shape and after its noun is one finding.
  return found
    .sort((a, b) => a.start - b.start || b.end - a.end)
    .filter((f, i, all) => i === 0 || f.start !== all[i - 1]!.start || f.end !== all[i - 1]!.end);
}

/**
 * The kind of the first secret in `text`, or null.
 *
 * @param text - any text, any length (linear time).
 */
export function findSecret(text: string): SecretKind | null {
  return scanSecrets(text)[0]?.kind ?? null;
}

const KEY_SPLIT = /[\s_\-./:]+/;

/**
 * The kind of secret a value is when a name (a slot key, a field name) says what it is:
 * "bank_password" = "Tr0ub4dor&3", "wifi_password" = "sunshine", "pin" = "4821". The value is
 * read as if the text said "<name> is <value>"; a name whose credential noun is followed by another
 * noun is about something else (`password_manager`, `pin_pad`, `password_hint`), and a value that
 * describes ("changed yesterday") is not a secret. Secrets stated inside the value itself are
 * {@link scanSecrets}'s, not this function's.
 */
export function secretNamedBy(name: string, value: string): SecretKind | null {
  const phrase = name.normalize('NFKC').split(KEY_SPLIT).filter(Boolean).join(' ');
  if (!phrase) return null;
  for (const hit of hitsIn(phrase)) {
    const after = phrase.slice(hit.end).trim().split(' ').filter(Boolean);
    if (after.some((w) => KEY_HEADS.has(w.toLowerCase()))) continue;
    if (blocked(phrase, hit)) continue;
    const sentence = `${phrase.slice(0, hit.end)} is ${value.trim()}`;
    const v =
      hit.attach === 'bare'
        ? otherValue(sentence, hit.end + 4, hit.group, ':')
        : latinValue(sentence, hit.end + 4, hit.group, 'verb', hit.noun);
    if (v) return hit.group.kind;
  }
  return null;
}

/**
 * The kind of secret a write would store as `key: value`, or null: the value states one ("my
 * wifi password is sunshine"), the key holds one (`password_is_hunter2`), or the key names a
 * credential and the value is one ({@link secretNamedBy}).
 *
 * @returns the kind, and whether the key itself holds the secret (then the key is withheld too).
 */
export function secretInSlot(
  key: string,
  value: string,
): { kind: SecretKind; inKey: boolean } | null {
  const inValue = findSecret(value);
  if (inValue) return { kind: inValue, inKey: false };
  const inKey = findSecret(key.normalize('NFKC').split(KEY_SPLIT).filter(Boolean).join(' '));
  if (inKey) return { kind: inKey, inKey: true };
  const named = secretNamedBy(key, value);
  if (named) return { kind: named, inKey: false };
  // The slot read as a sentence: "steuer id is 86095742719" (a check digit the name makes count).
  const phrase = key.normalize('NFKC').split(KEY_SPLIT).filter(Boolean).join(' ');
  const sentence = `${phrase} is ${value}`;
  const inSentence = scanSecrets(sentence).find((f) => f.start >= phrase.length + 4);
  return inSentence ? { kind: inSentence.kind, inKey: false } : null;
}
