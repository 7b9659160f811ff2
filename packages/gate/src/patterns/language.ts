/**
 * What the pattern gate needs to read one more language: how a clause in it asks, supposes,
 * hedges or reports someone else's words, and its clause table. The engine (`pattern-gate.ts`)
 * splits a turn into sentences and clauses once and reads every clause in every language it
 * knows; each table is written in words of its own language, so a Spanish pattern does not fire
 * on English. Spanish, French, German and Portuguese are in `es.ts`, `fr.ts`, `de.ts` and `pt.ts`;
 * {@link judgeIn} reads one sentence by one language's rules.
 *
 * @module
 */
import type { BeliefCategory } from '../belief.js';
import type { ClausePattern } from './clauses.js';

/**
 * One language's rules over a normalised clause: lower case, apostrophes made straight, leading
 * punctuation (`¿`, `¡`, `«`, `„`) and the language's {@link LanguagePatterns.leadIn} stripped.
 */
export interface LanguagePatterns {
  /** ISO 639-1 code, shown in the verdict's reason. */
  readonly code: string;
  /** Discourse markers and greetings stripped from a clause's start ("pues", "alors", "also"). */
  readonly leadIn: RegExp;
  /** A clause that opens like this supposes or imagines ("si viviera …", "wenn ich …"). */
  readonly notReal: RegExp;
  /** A clause that asks or requests at its start ("puedes …", "kannst du …", "est-ce que …"). */
  readonly asks: RegExp;
  /** A question word at a clause's start; read as a question at a sentence's start or in one. */
  readonly wh: RegExp;
  /** Someone else is speaking from here on ("dice que", "m'a dit", "sagt", "disse que"). */
  readonly reported: RegExp;
  /** Words that make a clause uncertain, conditional or a wish. */
  readonly hedge: RegExp;
  /** The clause table: the first entry that matches a clause is its hit. */
  readonly clauses: readonly ClausePattern[];
}

/** Does `word` (lower case, as matched in a normalised clause) stand capitalised in `raw`? */
export function capitalisedIn(raw: string, word: string | undefined): boolean {
  if (!word) return false;
  const escaped = word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const m = new RegExp(`(?<![\\p{L}\\p{N}])${escaped}(?![\\p{L}\\p{N}])`, 'iu').exec(raw);
  return m !== null && /^\p{Lu}/u.test(m[0]);
}

/** One pattern that matched: the kind of fact, the pattern's name, and the text it matched. */
export interface PatternHit {
  category: BeliefCategory;
  pattern: string;
  excerpt: string;
}

/** A sentence that ends with a question mark. */
export const QUESTION = /\?[\s"')\]»]*$/u;

/** A clause as written, after a short opening clause if it has one ("Every Sunday, I …"). */
export function withOpening(clauses: readonly string[], i: number): string {
  const opening = clauses[i - 1]?.trim();
  const raw = clauses[i]!;
  return opening && opening.split(/\s+/).length <= 3 ? `${opening}, ${raw}` : raw;
}

/** Lower case, straight apostrophes, opening punctuation and the language's lead-ins stripped. */
function normaliseIn(lang: LanguagePatterns, raw: string): string {
  let s = raw
    .toLowerCase()
    .replace(/[‘’`´]/g, "'")
    .replace(/^[\s"'“”«»„¿¡([{*_~>-]+/u, '');
  let prev = '';
  while (prev !== s) {
    prev = s;
    s = s.replace(lang.leadIn, '').trimStart();
  }
  return s.replace(/[\s.!?"'”»)\]]+$/u, '').replace(/\s+/g, ' ');
}

/**
 * One sentence read by one language's rules. The statement part runs up to the first clause that
 * asks ("¿…", a question word, "kannst du …") or gives someone else's words; a sentence that
 * opens by supposing says nothing; a clause that supposes or hedges is skipped; each remaining
 * clause is tried against the language's table, and its first match is a hit.
 *
 * @param sentence - one sentence as written.
 * @param clauses - the sentence's clauses as written, in order.
 */
export function judgeIn(
  lang: LanguagePatterns,
  sentence: string,
  clauses: readonly string[],
): PatternHit[] {
  const norms = clauses.map((c) => normaliseIn(lang, c));
  if (norms.length === 0 || lang.notReal.test(norms[0]!)) return [];
  const isQuestion = QUESTION.test(sentence);
  let stop = clauses.length;
  for (let i = 0; i < clauses.length; i++) {
    const n = norms[i]!;
    const asks = clauses[i]!.trimStart().startsWith('¿') || lang.asks.test(n);
    if (asks || (lang.wh.test(n) && (isQuestion || i === 0)) || lang.reported.test(n)) {
      stop = i;
      break;
    }
  }
  if (isQuestion && stop === clauses.length) stop = clauses.length - 1;
  const statement = norms.slice(0, stop).join(' ');
  const hits: PatternHit[] = [];
  for (let i = 0; i < stop; i++) {
    const n = norms[i]!;
    if (lang.hedge.test(n) || lang.notReal.test(n)) continue;
    for (const [category, name, re, check] of lang.clauses) {
      const m = re.exec(n);
      if (m && (!check || check(m, statement, withOpening(clauses, i)))) {
        hits.push({ category, pattern: name, excerpt: clauses[i]!.trim() });
        break;
      }
    }
  }
  return hits;
}
