/**
 * Secrets known by how a text is put together rather than by one noun and its value:
 *
 * - **the second half of a key pair** — after the id half of a cloud key pair (an AWS access key
 *   id `AKIA…`, an Alibaba `LTAI…` id, or a key id already withheld), a long random string is
 *   that pair's secret half ("AKIA… and the secret is inX/zMq…", or said alone in the owner's
 *   next turn);
 * - **a delivered code** — short digits right after a word that says a code was sent to the
 *   owner ("the bank texted me 551 902", "j'ai reçu par SMS 662 019");
 * - **a security answer** — a sentence that says it is for a security question gives its answer
 *   after its last joining word ("the name of my first pet, for the security question, is Rex").
 *
 * Both are pure and linear in the text's length.
 *
 * @module
 */
import { SECRET_PLACEHOLDER, type SecretFinding } from './kinds.js';
import {
  DELIVERY_FILLERS,
  DELIVERY_WORDS,
  DESCRIBERS,
  SECURITY_CONTEXT,
  VALUE_STOPS,
} from './vocabulary.js';

/**
 * The id halves of key pairs, as issuers publish them: AWS access key ids (`AKIA`, `ASIA` …, 16
 * more of A–Z and 2–7, as gitleaks' `aws-access-token` rule reads them) and Alibaba Cloud
 * AccessKey ids (`LTAI` + 20).
 */
const KEY_ID =
  /(?<![A-Za-z0-9])(?:(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16}|LTAI[A-Za-z0-9]{20})(?![A-Za-z0-9])/g;

/** An id half already withheld: its noun, then the placeholder ("access key id: [secret withheld]"). */
/** {@link KEY_ID} without its global flag: a test that keeps no position between calls. */
const HAS_KEY_ID = new RegExp(KEY_ID.source);
const WITHHELD_KEY_ID = new RegExp(
  `(?:access[ _-]?key(?:[ _-]?id)?|key[ _-]?id|AKIA)[^\\n]{0,40}?${SECRET_PLACEHOLDER.replace(/[[\]]/g, '\\$&')}`,
  'i',
);

/**
 * A secret half: 30 to 64 characters of base64 (AWS secret access keys are 40; Alibaba's 30),
 * standing alone.
 */
const SECRET_HALF = /(?<![A-Za-z0-9/+=_-])[A-Za-z0-9/+]{30,64}={0,2}(?![A-Za-z0-9/+=_-])/g;

/** A random string, not a word or a path: lower and upper case letters and a digit. */
function randomEnough(s: string): boolean {
  return /[a-z]/.test(s) && /[A-Z]/.test(s) && /\d/.test(s) && !/^[a-z]+(?:\/[a-z]+)+$/i.test(s);
}

/**
 * The secret halves of key pairs in `text`: long random strings after an id half in `text`, or
 * anywhere in `text` when `context` (the owner's previous turn, as stored) held an id half.
 *
 * @param text - any text (linear time).
 * @param context - the previous owner turn, redacted or not; read only for an id half.
 */
export function pairedKeyHalves(text: string, context?: string): SecretFinding[] {
  const fromContext = !!context && (WITHHELD_KEY_ID.test(context) || HAS_KEY_ID.test(context));
  let from = fromContext ? 0 : -1;
  if (from < 0) {
    KEY_ID.lastIndex = 0;
    const id = KEY_ID.exec(text);
    if (!id) return [];
    from = id.index + id[0].length;
  }
  const out: SecretFinding[] = [];
  SECRET_HALF.lastIndex = from;
  for (let m = SECRET_HALF.exec(text); m; m = SECRET_HALF.exec(text)) {
    if (randomEnough(m[0]))
      out.push({ kind: 'api key', start: m.index, end: m.index + m[0].length });
  }
  return out;
}

const SECURITY = new RegExp(SECURITY_CONTEXT, 'giu');
const WORD_CHAR = /[\p{L}\p{N}]/u;

/**
 * True when a match at `at` starts a word. Checked here rather than by a lookbehind in the
 * regex: a regex that opens with a lookbehind cannot skip ahead to its first letters, and these
 * run over every text.
 */
function startsWord(text: string, at: number): boolean {
  return at === 0 || !WORD_CHAR.test(text[at - 1]!);
}
/**
 * A joining word or sign inside a sentence, the value after it: a copula, a colon, or a verb of
 * giving an answer ("I put Mr Biscuits", "said Tromsø", "puse", "j'ai mis", "hab … angegeben").
 */
const JOIN =
  /(?:[^\S\n]+(?:is|was|es|era|est|ist|lautet|war|é|è|era|foi|put|used|wrote|said|chose|picked|answered|typed|entered|gave|puse|escribí|dije|mis|écrit|dit|angegeben|geschrieben|gesagt|coloquei|escrevi|disse)[^\S\n]+|[^\S\n]*[:=][^\S\n]*|,[^\S\n]*c['’]est[^\S\n]+)/giu;
const WORD = /[^\s,;.!?()]+/y;
const SENTENCE_END = /[.!?\n]/;

/** The sentence around `at`: from the last sentence end before it to the next one after, bounded. */
function sentenceBounds(text: string, at: number): [number, number] {
  let start = at;
  while (start > 0 && at - start < 200 && !SENTENCE_END.test(text[start - 1]!)) start--;
  let end = at;
  while (end < text.length && end - at < 200 && !SENTENCE_END.test(text[end]!)) end++;
  return [start, end];
}

/** The answer after a joining word: up to five words, to the clause's end or a stop word. */
function answerAt(text: string, pos: number, end: number): SecretFinding | null {
  let at = pos;
  let last = -1;
  for (let i = 0; i < 5 && at < end; i++) {
    WORD.lastIndex = at;
    const w = WORD.exec(text);
    if (!w || w.index + w[0].length > end) break;
    const lower = w[0].toLowerCase();
    if (i === 0 && (DESCRIBERS.has(lower) || !/^[\p{L}\p{N}]/u.test(w[0]))) return null;
    if (i > 0 && VALUE_STOPS.has(lower)) break;
    last = w.index + w[0].length;
    at = last;
    if (text[at] !== ' ') break;
    at++;
  }
  return last > pos ? { kind: 'security answer', start: pos, end: last } : null;
}

/**
 * Security answers in `text`: in a sentence that says it is about a security question or answer
 * (`SECURITY_CONTEXT`), the words after the sentence's last joining word ("… is Rex"), unless
 * they describe rather than answer ("is the name of my dog", "is what city I was born in").
 *
 * @param text - any text (linear time: each sentence is read once per mention, 400 characters
 *   at most).
 */
export function securityAnswers(text: string): SecretFinding[] {
  const out: SecretFinding[] = [];
  let done = -1;
  SECURITY.lastIndex = 0;
  for (const m of text.matchAll(SECURITY)) {
    if (m.index < done || !startsWord(text, m.index)) continue;
    const [start, end] = sentenceBounds(text, m.index);
    done = end;
    for (const answer of answersIn(text, start, end, m.index + m[0].length - start)) {
      // The mention itself is not the answer ("my answer is: security question").
      if (answer.end <= m.index || answer.start >= m.index + m[0].length) out.push(answer);
    }
  }
  return out;
}

/** Question words: a sentence whose value opens with one states the question, not its answer. */
const INTERROGATIVE =
  /^(?:what|which|who|whom|whose|where|when|how|why|qué|que|cuál|cual|dónde|quién|quel|quelle|où|qui|was|welche|welcher|welches|wo|wer|wie|qual|quais|onde|quem|como)$/i;

/**
 * The answers a sentence (`start`..`end` of `text`) gives: after each joining word past the
 * mention (`mentionEnd`, relative to `start`) that is followed by a value ("… I put Mr Biscuits,
 * and for 'city you were born in' I said Tromsø" gives two), else after the last joining word
 * before it; none after a joining word that states the question itself ("is what city …").
 */
function answersIn(text: string, start: number, end: number, mentionEnd: number): SecretFinding[] {
  const sentence = text.slice(start, end);
  const joins: number[] = [];
  JOIN.lastIndex = 0;
  for (let j = JOIN.exec(sentence); j; j = JOIN.exec(sentence)) joins.push(j.index + j[0].length);
  // A question stated ("is what city I was born in") runs to its clause's end: no join inside.
  let questionEnd = -1;
  const answer = (at: number) => {
    if (at < questionEnd) return null;
    const first = /^[^\s,;.!?()]+/.exec(sentence.slice(at))?.[0] ?? '';
    if (!INTERROGATIVE.test(first)) return answerAt(text, start + at, end);
    const close = sentence.slice(at).search(/[,;]|\s(?:and|but|y|et|und|e)\s/u);
    questionEnd = close < 0 ? sentence.length : at + close;
    return null;
  };
  const after = joins
    .filter((at) => at >= mentionEnd)
    .map(answer)
    .filter((a): a is SecretFinding => a !== null);
  if (after.length > 0) return after;
  const before = joins.filter((at) => at < mentionEnd).at(-1);
  const last = before === undefined ? null : answer(before);
  return last ? [last] : [];
}

const DELIVERY = new RegExp(`(?:${DELIVERY_WORDS})(?![\\p{L}\\p{N}])`, 'giu');
/**
 * After a delivery word: up to three small words (`DELIVERY_FILLERS`), an optional colon, then a
 * code of four to eight digits, whole or in two groups ("551 902", "4471"), not followed by more
 * digits, a unit or a letter.
 */
const DELIVERED_CODE = new RegExp(
  `(?:[^\\S\\n]+(?:${DELIVERY_FILLERS})(?![\\p{L}\\p{N}])){0,3}[^\\S\\n]*[:：]?[^\\S\\n]*(\\d{3,4}[ -]\\d{2,4}|\\d{4,8})(?![\\p{L}\\p{N}]|[ -]?\\d|[^\\S\\n]+(?:times|minutes|dollars|euros|pounds|messages|emails|texts|people|days|hours|seconds|veces|fois|mal|vezes)(?![\\p{L}]))`,
  'iuy',
);
const YEAR = /^(?:19|20)\d\d$/;

/**
 * One-time codes in `text`: four to eight digits right after a word that says a code was sent to
 * the owner (see {@link DELIVERED_CODE}); a year is not a code.
 *
 * @param text - any text (linear time: a bounded look after each delivery word).
 */
export function deliveredCodes(text: string): SecretFinding[] {
  const out: SecretFinding[] = [];
  DELIVERY.lastIndex = 0;
  for (const m of text.matchAll(DELIVERY)) {
    if (!startsWord(text, m.index)) continue;
    DELIVERED_CODE.lastIndex = m.index + m[0].length;
    const c = DELIVERED_CODE.exec(text);
    if (!c || YEAR.test(c[1]!)) continue;
    const end = c.index + c[0].length;
    out.push({ kind: 'pin', start: end - c[1]!.length, end });
  }
  return out;
}
