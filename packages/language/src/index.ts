/**
 * `@keel/language`: what keel reads in text, as pure functions with no store. Every package may
 * use it; it depends on nothing of keel's.
 *
 * - **Text** (`text.ts`) — value normalisation and the hash beliefs and tombstones compare on
 *   (`normalizeValue`, `valueHash`), folding for the full-text index (`foldForIndex`), query terms
 *   (`queryTerms`, `recallTerms`, irregular forms), short human ages.
 * - **Folding** (`fold.ts`) — texts compared by meaning (`foldText`: case, accents and
 *   punctuation ignored), the content words a value is made of (`contentWords`), and whether a
 *   text mentions a value (`mentions`).
 * - **Dates** (`dates.ts`) — time phrases read in the owner's zone: a day a statement names
 *   (`resolveDate`), a question's window (`resolveWindow`), `--as-of` (`resolveAsOf`), a
 *   reminder's due time (`resolveDue`), the time phrase a statement ends with
 *   (`splitTimePhrase`), local days and stamps.
 * - **Secrets** (`secrets/`) — the scan that finds credentials by what a sentence is about and by
 *   shape (`scanSecrets`, `findSecret`, `secretInSlot`), the kinds a refusal names
 *   (`SECRET_KINDS`, `describeSecretKind`), and redaction (`redactSecrets`, `withholdSecrets`).
 * - **The injection scan** (`scan.ts`) — `looksLikeInjection`: text that reads like an
 *   instruction aimed at a model.
 *
 * @module
 */
export {
  type DateWindow,
  localDay,
  localStamp,
  mayNameDate,
  type ResolvedDate,
  resolveAsOf,
  resolveDate,
  resolveDue,
  resolveWindow,
  splitTimePhrase,
} from './dates.js';
export { contentWords, foldText, mentions } from './fold.js';
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
  foldForIndex,
  hasCjk,
  humanAge,
  irregularForms,
  NLTK_ENGLISH_STOPWORDS,
  normalizeValue,
  QUERY_MAX_CHARS,
  QUERY_MAX_TERMS,
  queryTerms,
  RECALL_STOPWORDS,
  recallTerms,
  searchedForms,
  sha256,
  valueHash,
  valuePattern,
} from './text.js';
