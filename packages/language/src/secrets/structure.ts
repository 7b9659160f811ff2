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
  /(?:[^\S\n]+(?:is|was|es|era|est|ist|lautet|war|é|è|era|foi|put|used|wrote|said|chose|picked|answered|typed|entered|gave|puse|escribí|dije|respondí|contesté|mis|écrit|dit|répondu|angegeben|geschrieben|gesagt|coloquei|escrevi|disse|respondi)[^\S\n]+|[^\S\n]*[:=][^\S\n]*|,[^\S\n]*c['’]est[^\S\n]+)/giu;
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

/**
 * Indefinite articles an answer may open with ("first car: a 1998 Fiat Panda"); "the" opens a
 * description of the question ("the name of my dog", "the street I grew up on").
 */
const ARTICLE = /^(?:a|an|un|une|una|um|uma|ein|eine)$/u;

/** The answer after a joining word: up to five words, to the clause's end or a stop word. */
function answerAt(text: string, pos: number, end: number): SecretFinding | null {
  let at = pos;
  let last = -1;
  for (let i = 0; i < 5 && at < end; i++) {
    WORD.lastIndex = at;
    const w = WORD.exec(text);
    if (!w || w.index + w[0].length > end) break;
    const lower = w[0].toLowerCase();
    // An answer may open with an indefinite article ({@link ARTICLE}); other describing words
    // say what the answer is like, or what it is the answer to.
    if (
      i === 0 &&
      ((DESCRIBERS.has(lower) && !ARTICLE.test(lower)) || !/^[\p{L}\p{N}]/u.test(w[0]))
    )
      return null;
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

/**
 * A credential pair named by one joined noun ("user+pass: rokafor + Hummingbird-204",
 * "login/pass = bakeradmin / Crumpet$Oven5", "creds: sam / hunter2", "usuario/contraseña: …"):
 * the joining sign, the user name, a separator, then the secret.
 */
const PAIR_NOUN =
  /(?:(?:user ?(?:name)?|login|e-?mail|usuario|utilisateur|identifiant|benutzer(?:name)?|usuário)[^\S\n]*(?:[+/&]|and|y|et|und|e)[^\S\n]*(?:pass(?:word)?|pw|pwd|contraseña|clave|mot de passe|mdp|passwort|kennwort|senha)|creds|credentials|credenciales|identifiants|zugangsdaten|credenciais)[^\S\n]*(?:[:=]|(?<![\p{L}])(?:is|are|son|sont|sind|são)(?![\p{L}]))[^\S\n]*(?<user>[^\s,;]{1,64})[^\S\n]*(?:[+/,&|]|[^\S\n](?:and|y|et|und|e)(?=[^\S\n]))[^\S\n]*(?<secret>[^\s,;]{1,128})/giu;

/**
 * A login given as "user / secret" ("my netflix login is sam@x.com / Tulip!2020", "account:
 * bakeradmin | Crumpet$Oven5"): a login noun, its joining sign, the user name, a slash or a bar,
 * then the secret.
 */
const LOGIN_SLASH =
  /(?:login|log-?in|account|acct|creds|credentials|acceso|identifiants|zugang|acesso)(?:[^\S\n]+details)?[^\S\n]*(?:[:=]|(?<![\p{L}])(?:is|are|es|est|ist|é)(?![\p{L}]))[^\S\n]*(?<user>[^\s,;/|]{1,64})[^\S\n]*[/|][^\S\n]*(?<secret>[^\s,;]{1,128})/giu;

/**
 * The secret half of each credential pair named by one joined noun ({@link PAIR_NOUN}); the user
 * name is kept.
 *
 * @param text - any text (linear time: one bounded match per pair noun).
 */
export function pairedCredentials(text: string): SecretFinding[] {
  const out: SecretFinding[] = [];
  const pairs = [...text.matchAll(PAIR_NOUN)];
  const logins = [...text.matchAll(LOGIN_SLASH)];
  for (const m of [...pairs, ...logins]) {
    if (!startsWord(text, m.index)) continue;
    const secret = m.groups?.secret?.replace(/[.)\]}"'»”’]+$/u, '');
    if (!secret || secret === SECRET_PLACEHOLDER || DESCRIBERS.has(secret.toLowerCase())) continue;
    // After a bare login noun the second half must look like a password ("sam / usual" is not).
    if (
      logins.includes(m) &&
      (/[:=]$/u.test(secret) || !/\p{N}|[^\p{L}\p{N}]|\p{Ll}\p{Lu}/u.test(secret))
    )
      continue;
    const end = m.index + m[0].length - (m.groups!.secret!.length - secret.length);
    if (out.some((f) => f.end === end)) continue; // both readings found it
    out.push({ kind: 'password', start: end - secret.length, end });
  }
  return out;
}

/**
 * Passwords given to a command on its line: `--password=…`, `--password …`, `--pass …`,
 * `sshpass -p …`, `redis-cli -a …`, `mysql … -p…` (glued to the flag), `curl -u user:…`, each value
 * unquoted or in quotes.
 */
const COMMAND_PASSWORD = new RegExp(
  [
    `--(?:password|passwd|pass|db-password|token|api-key|apikey|secret)(?:=|[^\\S\\n]+)(?<a>'[^'\\n]{1,128}'|"[^"\\n]{1,128}"|[^\\s'"]{1,128})`,
    `(?<![\\w-])sshpass[^\\S\\n]+-p[^\\S\\n]*(?<b>'[^'\\n]{1,128}'|"[^"\\n]{1,128}"|[^\\s'"]{1,128})`,
    `(?<![\\w-])redis-cli\\b[^\\n]{0,120}?[^\\S\\n]-a[^\\S\\n]+(?<c>'[^'\\n]{1,128}'|"[^"\\n]{1,128}"|[^\\s'"]{1,128})`,
    `(?<![\\w-])(?:mysql|mysqldump|mariadb|mariadb-dump|mysqladmin)\\b[^\\n]{0,160}?[^\\S\\n]-p(?<d>'[^'\\n]{1,128}'|"[^"\\n]{1,128}"|[^\\s'"]{1,128})`,
    `(?<![\\w-])curl\\b[^\\n]{0,160}?[^\\S\\n](?:-u|--user)[^\\S\\n]+['"]?[^\\s:'"]{1,64}:(?<e>[^\\s'"]{1,128})`,
  ].join('|'),
  'gu',
);

/**
 * Passwords on a command line ({@link COMMAND_PASSWORD}), quotes left out of the span.
 *
 * @param text - any text (linear time: bounded matches).
 */
export function commandPasswords(text: string): SecretFinding[] {
  if (!/-[-pau]|sshpass/u.test(text)) return [];
  const out: SecretFinding[] = [];
  for (const m of text.matchAll(COMMAND_PASSWORD)) {
    const g = m.groups!;
    const raw = g.a ?? g.b ?? g.c ?? g.d ?? g.e;
    if (!raw) continue;
    const quoted = /^['"]/.test(raw);
    const value = quoted ? raw.slice(1, -1) : raw;
    if (!value || value === SECRET_PLACEHOLDER) continue;
    const end = m.index + m[0].length - (quoted ? 1 : 0);
    out.push({ kind: 'password', start: end - value.length, end });
  }
  return out;
}

/**
 * The previous turn asks for a credential ("what's the disarm code again", "what was the wifi
 * password?", "¿cuál era la clave del wifi?"): group `noun`, what it asked for.
 */
const ASKED_FOR =
  /(?:what(?:['’]s| is| was)|whats|remind me (?:of )?|cuál (?:es|era)|cual (?:es|era)|c['’]est quoi|quel (?:est|était)|wie (?:war|lautet|ist)|qual (?:é|era))[^\n?]{0,60}?(?<noun>codes?|pins?|passcodes?|passwords?|pw|combo|combination|contraseña|clave|código|codigo|mot de passe|mdp|code|passwort|pin-nummer|senha)(?:[^\n?]{0,30})\??[^\S\n]*$/iu;
/** The words an answer may open with ("it's 6604", "found it: x7Gp-22aa", "achei: é 9046"). */
const ANSWER_OPENER =
  /^(?:(?:oh|ok|okay|right|nvm|never ?mind|found it|got it|here|ah|achei|lo encontré|trouvé|gefunden)[^\S\n]*[,:!—–-]?[^\S\n]*)*(?:it['’]s|it is|it was|that['’]s|es|era|c['’]est|ist|é|is)?[^\S\n]*[:=]?[^\S\n]*/iu;

/**
 * The answer to the owner's own question for a credential, said in the next turn: its first word
 * after an opener ({@link ANSWER_OPENER}), digits for a code or a PIN, a word with a digit or a
 * sign for a password ("it's 6604 btw", "found it: x7Gp-22aa-Moose").
 *
 * @param text - this turn.
 * @param context - the owner's previous turn as stored; nothing in it is reported.
 */
export function answeredCredential(text: string, context: string | undefined): SecretFinding[] {
  const asked = context ? ASKED_FOR.exec(context.trimEnd().slice(-200))?.groups?.noun : undefined;
  if (!asked) return [];
  const open = ANSWER_OPENER.exec(text)?.[0].length ?? 0;
  const word = /^[^\s,;]+/u.exec(text.slice(open))?.[0]?.replace(/[.!?)"'»”’]+$/u, '');
  if (!word || word === SECRET_PLACEHOLDER) return [];
  const digitsOnly =
    /^(?:codes?|pins?|passcodes?|combo|combination|código|codigo|code|pin-nummer)$/iu.test(asked);
  const fits = digitsOnly
    ? /^\d[\d-]{2,14}#?$/u.test(word)
    : /\d|[^\p{L}\p{N}]/u.test(word) || /\p{Ll}\p{Lu}/u.test(word);
  return fits
    ? [{ kind: digitsOnly ? 'pin' : 'password', start: open, end: open + word.length }]
    : [];
}
