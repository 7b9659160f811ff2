/**
 * `@keel/language`: what keel reads in text, as pure functions with no store. Every package may
 * use it; it depends on nothing of keel's.
 *
 * - **Text** (`text.ts`) — value normalisation and the hash beliefs and tombstones compare on
 *   (`normalizeValue`, `valueHash`), folding for the full-text index (`foldForIndex`) and its
 *   queries (`foldWords`, `queryPhrases`), query terms (`queryTerms`, `recallTerms`, irregular
 *   forms), short human ages.
 * - **Scripts** (`scripts.ts`) — words where a script writes no spaces (`spaceUnspaced`:
 *   `Intl.Segmenter`), Hebrew and Arabic written one way (`normalizeSemitic`) and their words'
 *   bare forms without prefixes (`prefixForms`, `withPrefixForms`), Russian, Ukrainian and Greek
 *   words' stems (`stemForms`, `bareForms`).
 * - **Folding** (`fold.ts`) — texts compared by meaning (`foldText`: case, accents and
 *   punctuation ignored), the content words a value is made of (`contentWords`), and whether a
 *   text mentions a value (`mentions`), and whether a turn supports a belief written from it
 *   (`supportsValue`).
 * - **Mentions** (`mention.ts`) — where a text mentions a value, folded and mapped back to the
 *   original text (`mentionFinder`: find, excerpt, cut out), and the word test tombstones apply
 *   (`foldedWords`, `holdsWord`, `wordStems`).
 * - **Dates** (`dates.ts`) — time phrases read in the owner's zone: a day a statement names
 *   (`resolveDate`), a question's window (`resolveWindow`, `date-windows.ts`), `--as-of`
 *   (`resolveAsOf`), a reminder's due time (`resolveDue`), the time phrase of a statement
 *   wherever it stands (`splitTimePhrase`, `time-phrases.ts`) and the day it began
 *   (`resolveStart`), local days and stamps; numbers in words (`number-words.ts`).
 * - **Reminders** (`reminders.ts`) — a request to be reminded read from the owner's words
 *   (`parseReminderRequest`: what, when in the owner's zone, and the phrase as written).
 * - **Secrets** (`secrets/`) — the scan that finds credentials by what a sentence is about and by
 *   shape (`scanSecrets`, `findSecret`, `secretInSlot`), the kinds a refusal names
 *   (`SECRET_KINDS`, `describeSecretKind`), and redaction (`redactSecrets`, `withholdSecrets`).
 * - **The injection scan** (`scan.ts`) — `looksLikeInjection`: text that reads like an
 *   instruction aimed at a model.
 * - **Counts** (`count.ts`) — a number with the noun it counts, singular or plural as the number
 *   takes it (`count(1, 'belief')`: "1 belief"), for every line that shows a count.
 * - **Controls shown** (`controls.ts`) — `showControls`: control characters and the bidi
 *   embeddings, overrides and isolates turned into visible characters, the one screen every door
 *   (the terminal, Discord) shows text through.
 * - **Time limits** (`time-limit.ts`) — `withinTime`: a promise's outcome, or a rejection when a
 *   limit passes first, its timer always cleared.
 *
 * @module
 */
export { SHOWN_CONTROLS, showControls } from './controls.js';
export { count } from './count.js';
export { type DateWindow, resolveWindow } from './date-windows.js';
export {
  ENGLISH_MONTHS,
  localDay,
  localStamp,
  mayNameDate,
  namesPresent,
  type ResolvedDate,
  resolveAsOf,
  resolveDate,
  resolveDue,
  resolveStart,
} from './dates.js';
export { contentWords, foldText, mentions, supportsValue } from './fold.js';
export {
  apostropheForms,
  type FoldedText,
  foldedWords,
  foldWithOffsets,
  holdsWord,
  INFLECTED_MIN,
  INFLECTION_MAX,
  type MentionFinder,
  mentionFinder,
  type TextSpan,
  wordStems,
} from './mention.js';
export {
  DEFAULT_HOURS,
  parseReminderRequest,
  type ReminderRequest,
  resolveReminderTime,
  whenWords,
} from './reminders.js';
export {
  describeSecretKind,
  findSecret,
  isSecretKind,
  looksLikeInjection,
  redactSecrets,
  type ScanOptions,
  SECRET_KINDS,
  SECRET_PLACEHOLDER,
  type SecretFinding,
  type SecretKind,
  SecretLedger,
  scanSecrets,
  secretInSlot,
  secretNamedBy,
  withholdSecrets,
} from './scan.js';
export {
  bareForms,
  normalizeForWords,
  normalizeSemitic,
  prefixForms,
  spaceUnspaced,
  stemForms,
  withPrefixForms,
} from './scripts.js';
export {
  englishWord,
  foldForIndex,
  foldWords,
  hasCjk,
  humanAge,
  irregularForms,
  NLTK_ENGLISH_STOPWORDS,
  normalizeValue,
  presentTenseVerb,
  QUERY_MAX_CHARS,
  QUERY_MAX_TERMS,
  queryPhrases,
  queryTerms,
  RECALL_STOPWORDS,
  recallTerms,
  searchedForms,
  sha256,
  valueHash,
  valuePattern,
  wellFormed,
} from './text.js';
export { withinTime } from './time-limit.js';
export { splitTimePhrase } from './time-phrases.js';
