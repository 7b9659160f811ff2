/**
 * Redaction: every secret in a text replaced by `[secret withheld]`, the whole secret and only it
 * ("my wifi password is sunshine" → "my wifi password is [secret withheld]"), and every other
 * place the same text repeats it.
 *
 * A {@link SecretLedger} remembers, in memory only and for one unit of work, the secrets already
 * withheld, so that the same value is withheld from the unit's other writes even where nothing
 * around it says it is a secret: the model's reply that repeats it, a tool call's arguments
 * (`{ key: 'wifi', value: 'sunshine' }`), the fact a model proposes from it.
 *
 * @module
 */
import { overlapsAny, placeholders, scanSecrets, secretNamedBy } from './detect.js';
import { SECRET_PLACEHOLDER, type SecretFinding, type SecretKind } from './kinds.js';

/** The shortest value the ledger looks for elsewhere (shorter ones would withhold common words). */
const MIN_LEDGER_CHARS = 4;
/** The longest value the ledger looks for elsewhere (longer secrets are withheld where found). */
const MAX_LEDGER_CHARS = 256;
/** The most values one ledger holds (a text stating thousands of secrets is withheld where found). */
const MAX_LEDGER_VALUES = 64;

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Secrets seen during one unit of work, kept in memory only (never stored), so the unit's later
 * writes withhold them too. Values are matched whole (not inside a longer word), case-insensitively.
 * It holds at most 64 values of 4 to 256 characters (and 3-digit card security codes); others are
 * withheld only where a scan finds them.
 */
export class SecretLedger {
  readonly #kinds = new Map<string, SecretKind>();
  #pattern: RegExp | null = null;

  /**
   * Remembers `value` as a secret of `kind`. Values shorter than four characters are not kept,
   * except a three-digit card security code.
   */
  note(value: string, kind: SecretKind): void {
    const v = value.trim();
    const min = kind === 'card security code' && /^\d{3}$/.test(v) ? 3 : MIN_LEDGER_CHARS;
    if (v.length < min || v.length > MAX_LEDGER_CHARS) return;
    if (v.includes(SECRET_PLACEHOLDER) || this.#kinds.size >= MAX_LEDGER_VALUES) return;
    const k = v.toLowerCase();
    if (this.#kinds.has(k)) return;
    this.#kinds.set(k, kind);
    this.#pattern = null;
  }

  /** How many secrets it holds. */
  get size(): number {
    return this.#kinds.size;
  }

  /** Every place `text` repeats a remembered secret. */
  find(text: string): SecretFinding[] {
    if (this.#kinds.size === 0) return [];
    if (!this.#pattern) {
      const alts = [...this.#kinds.keys()].sort((a, b) => b.length - a.length).map(escapeRegExp);
      this.#pattern = new RegExp(
        `(?<![\\p{L}\\p{N}\\p{M}])(?:${alts.join('|')})(?![\\p{L}\\p{N}\\p{M}])`,
        'giu',
      );
    }
    const out: SecretFinding[] = [];
    for (const m of text.matchAll(this.#pattern)) {
      const kind = this.#kinds.get(m[0].toLowerCase()) ?? 'password';
      out.push({ kind, start: m.index, end: m.index + m[0].length });
    }
    return out;
  }

  /** The kind of the first remembered secret `text` repeats, or null. */
  kindIn(text: string): SecretKind | null {
    return this.find(text)[0]?.kind ?? null;
  }
}

/** Replaces the merged spans of `findings` in `text` with the placeholder. */
function replaceSpans(text: string, findings: readonly SecretFinding[]): string {
  if (findings.length === 0) return text;
  const spans = findings
    .map((f) => [f.start, f.end] as [number, number])
    .sort((a, b) => a[0] - b[0] || b[1] - a[1]);
  let out = '';
  let at = 0;
  let [start, end] = spans[0]!;
  for (const [s, e] of spans.slice(1)) {
    if (s <= end) {
      end = Math.max(end, e);
      continue;
    }
    out += text.slice(at, start) + SECRET_PLACEHOLDER;
    at = end;
    [start, end] = [s, e];
  }
  return out + text.slice(at, start) + SECRET_PLACEHOLDER + text.slice(end);
}

/** One pass: the text's secrets, and repeats of any secret known, outside the placeholders already there. */
function redactOnce(text: string, ledger: SecretLedger, context?: string): string {
  const findings = scanSecrets(text, { context });
  for (const f of findings) ledger.note(text.slice(f.start, f.end), f.kind);
  const held = placeholders(text);
  const repeats = ledger.find(text).filter((f) => !overlapsAny(f, held));
  return replaceSpans(text, [...findings, ...repeats]);
}

/**
 * Replaces every secret in `text` with {@link SECRET_PLACEHOLDER}: the secret's own span, once per
 * secret, and every other place the text repeats it. The words around it stay: "my wifi password
 * is sunshine" becomes "my wifi password is [secret withheld]"; two secrets leave two
 * placeholders.
 *
 * A placeholder already in `text` is kept as it is and never read as part of a secret, and the
 * text is redacted again until nothing more is found. So `redactSecrets(redactSecrets(x))` equals
 * `redactSecrets(x)`. (Each pass turns at least one character of other text into a placeholder,
 * so this ends; a second pass is rarely needed.)
 *
 * @param text - any text (linear time in its length).
 * @param ledger - the unit of work's secrets: repeats of them are withheld too, and the secrets
 *   found here are added to it. Default: a ledger for this text alone.
 * @param context - the owner's previous turn as stored, for the secret half of a key pair whose
 *   id half it held (see `ScanOptions.context`); nothing in it is changed or reported.
 */
export function redactSecrets(
  text: string,
  ledger: SecretLedger = new SecretLedger(),
  context?: string,
): string {
  if (typeof text !== 'string' || text.length === 0) return text;
  let prev = text;
  let next = redactOnce(text, ledger, context);
  while (next !== prev) {
    prev = next;
    next = redactOnce(next, ledger, context);
  }
  return next;
}

/** Object fields that name what a sibling `value` field holds (`{ key: 'wifi_password', value }`). */
const NAME_FIELDS = ['key', 'name', 'field', 'label', 'slot'] as const;

/** Field names that say how a value is structured, not what it is. */
const STRUCTURAL_FIELDS: ReadonlySet<string> = new Set([
  ...NAME_FIELDS,
  'id',
  'type',
  'kind',
  'role',
  'text',
  'content',
  'value',
  'scope',
  'source',
  'tool_use_id',
  'query',
  'reason',
]);

/**
 * A copy of a JSON-like value with every string passed through {@link redactSecrets}. A field's
 * name counts as the subject of its string (`{ password: 'sunshine' }`), and so does a sibling
 * `key` / `name` field for a `value` field (`{ key: 'wifi_password', value: 'sunshine' }`, as the
 * model's `remember` tool call carries it).
 *
 * @param ledger - as for {@link redactSecrets}.
 */
export function withholdSecrets<T>(node: T, ledger: SecretLedger = new SecretLedger()): T {
  const walk = (n: unknown): unknown => {
    if (typeof n === 'string') return redactSecrets(n, ledger);
    if (Array.isArray(n)) return n.map(walk);
    if (n && typeof n === 'object') {
      const obj = n as Record<string, unknown>;
      const name = NAME_FIELDS.map((f) => obj[f]).find((v) => typeof v === 'string') as
        | string
        | undefined;
      return Object.fromEntries(
        Object.entries(obj).map(([k, v]) => {
          if (typeof v !== 'string') return [k, walk(v)];
          const redacted = redactSecrets(v, ledger);
          if (redacted !== v) return [k, redacted];
          const subject = k === 'value' ? name : STRUCTURAL_FIELDS.has(k) ? undefined : k;
          const kind = subject === undefined ? null : secretNamedBy(subject, v);
          if (!kind) return [k, v];
          ledger.note(v, kind);
          return [k, SECRET_PLACEHOLDER];
        }),
      );
    }
    return n;
  };
  const known = ledger.size;
  const once = walk(node);
  // A second pass withholds repeats that came before the secret they repeat.
  return ledger.size > known ? (walk(once) as T) : (once as T);
}
