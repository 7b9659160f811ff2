/**
 * Explicit capture: the owner's own "remember that …", "note that …", "from now on …" and
 * "call me …" become owner_stated facts under a stable key derived from their subject, so saying
 * the same thing twice corroborates one row instead of minting a second (never a timestamp key).
 *
 * Deterministic patterns, no model. Anything they do not recognise is not captured here.
 *
 * @module
 */
import { type Kind, queryTerms } from '@keel/memory';
import { RELATION_WORD } from './patterns/vocabulary.js';

/** A statement the owner asked keel to keep. */
export interface Capture {
  kind: Kind;
  /** A stable slug derived from the statement's subject. */
  key: string;
  value: string;
  /** Which phrase triggered the capture. */
  trigger: 'remember' | 'note' | 'from_now_on' | 'call_me';
  /** The statement after the trigger phrase. */
  statement: string;
}

const TRIGGERS: readonly [Capture['trigger'], RegExp][] = [
  ['remember', /^(?:please\s+)?(?:remember|keep in mind|don'?t forget)\s*(?:that\b|:)?\s*(.+)$/is],
  ['note', /^(?:please\s+)?(?:note|make a note|take note)\s*(?:that\b|:)\s*(.+)$/is],
  ['from_now_on', /^(?:please\s+)?from now on\s*[,:]?\s*(.+)$/is],
  ['call_me', /^(?:please\s+)?call me\s+(.+)$/is],
];

const LIKE =
  /^i\s+(?:really\s+|truly\s+|absolutely\s+|do\s+)?(love|like|enjoy|adore|prefer)\s+(.+)$/i;
const DISLIKE =
  /^i\s+(?:really\s+|truly\s+|absolutely\s+)?(hate|dislike|detest|can'?t stand|cannot stand|don'?t like|do not like|no longer like|don'?t eat|do not eat|don'?t drink)\s+(.+)$/i;
const FILLERS =
  /\s+(?:any ?more|now|these days|nowadays|a lot|so much|very much|at all|too|either|lately)\s*$/i;

/** A slug of up to `words` content words of `text`. */
function slugOf(text: string, words = 3): string {
  const terms = queryTerms(text)
    .map((t) => t.replace(/['’]/g, ''))
    .filter((t) => t.length > 0)
    .slice(0, words);
  return terms.join('_').slice(0, 80);
}

function cleanStatement(s: string): string {
  return s
    .trim()
    .replace(/[.!。！\s]+$/u, '')
    .trim();
}

function capitalise(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** Derives kind, key and value from a statement (after the trigger phrase). */
function classify(statement: string): { kind: Kind; key: string; value: string } | null {
  const s = statement.replace(/^i'm\b/i, 'I am');
  let m = /^my\s+(?:favou?rite)\s+(.+?)\s+(?:is|are)\s+(.+)$/i.exec(s);
  if (m) {
    const key = slugOf(m[1]!);
    if (key) return { kind: 'preference', key: `favourite_${key}`, value: m[2]! };
  }
  m = /^my\s+(.+?)\s+(?:is|are|was|were|'s)\s+(.+)$/i.exec(s);
  if (m) {
    const subject = m[1]!.toLowerCase();
    const key = slugOf(subject);
    if (key) {
      const head = subject.split(/\s+/).pop() ?? subject;
      return { kind: RELATION_WORD.test(head) ? 'relationship' : 'profile', key, value: m[2]! };
    }
  }
  m = LIKE.exec(s) ?? DISLIKE.exec(s);
  if (m) {
    const key = slugOf(m[2]!.replace(FILLERS, ''));
    if (key) return { kind: 'preference', key, value: capitalise(s) };
  }
  m = /^i am allergic to\s+(.+)$/i.exec(s);
  if (m) {
    const key = slugOf(m[1]!);
    if (key) return { kind: 'constraint', key: `allergy_${key}`, value: capitalise(s) };
  }
  m = /^i (?:live|am living|moved) (?:in|to)\s+(.+)$/i.exec(s);
  if (m) return { kind: 'profile', key: 'home', value: m[1]! };
  m = /^i work (?:at|for)\s+(.+)$/i.exec(s);
  if (m) return { kind: 'profile', key: 'employer', value: m[1]! };
  const key = slugOf(s);
  return key ? { kind: 'note', key, value: capitalise(s) } : null;
}

/**
 * Recognises an explicit request to remember something.
 *
 * @returns the capture, or null when the text is not such a request (or has no content words).
 */
export function captureExplicit(text: string): Capture | null {
  const line = text.trim();
  for (const [trigger, re] of TRIGGERS) {
    const m = re.exec(line);
    if (!m) continue;
    const statement = cleanStatement(m[1]!);
    if (!statement || /^that$/i.test(statement)) return null;
    if (trigger === 'call_me') {
      return { trigger, statement, kind: 'profile', key: 'preferred_name', value: statement };
    }
    if (trigger === 'from_now_on') {
      const key = slugOf(statement);
      return key
        ? { trigger, statement, kind: 'setting', key, value: capitalise(statement) }
        : null;
    }
    const c = classify(statement);
    return c ? { trigger, statement, ...c } : null;
  }
  return null;
}
