/**
 * The vendored rules (`gitleaks-rules.ts`) run over a text: a rule's regex runs only on a text
 * that holds one of its keywords (as gitleaks does), and a match is a secret when its secret
 * part reaches the rule's entropy and is not one of the rule's known harmless examples.
 *
 * @module
 */
import type { SecretFinding } from '../kinds.js';
import { GITLEAKS_RULES } from './gitleaks-rules.js';

const COMPILED = GITLEAKS_RULES.map((rule) => ({
  rule,
  re: new RegExp(rule.source, 'gud'),
  allow: (rule.allow ?? []).map((a) => new RegExp(a, 'u')),
}));

/**
 * The rules' keywords indexed by their first two characters (lower-case ASCII): a text is read
 * once for every keyword it holds, instead of once per keyword.
 */
const KEYWORDS = (() => {
  const starts = new Uint8Array(128 * 128);
  const byStart = new Map<number, { keyword: string; rules: number[] }[]>();
  COMPILED.forEach(({ rule }, index) => {
    for (const keyword of rule.keywords) {
      const k = keyword.charCodeAt(0) * 128 + keyword.charCodeAt(1);
      starts[k] = 1;
      const list = byStart.get(k) ?? [];
      const entry = list.find((e) => e.keyword === keyword);
      if (entry) entry.rules.push(index);
      else list.push({ keyword, rules: [index] });
      byStart.set(k, list);
    }
  });
  return { starts, byStart };
})();

/** Rules without keywords: run on every text. */
const ALWAYS = COMPILED.flatMap(({ rule }, i) => (rule.keywords.length === 0 ? [i] : []));

/** The indices of the rules whose keywords `lower` (a lower-cased text) holds, in rule order. */
function rulesFor(lower: string): number[] {
  const found = new Set<number>(ALWAYS);
  for (let i = 0; i + 1 < lower.length; i++) {
    const a = lower.charCodeAt(i);
    const b = lower.charCodeAt(i + 1);
    if (a > 127 || b > 127 || KEYWORDS.starts[a * 128 + b] !== 1) continue;
    for (const e of KEYWORDS.byStart.get(a * 128 + b)!) {
      if (lower.startsWith(e.keyword, i)) for (const r of e.rules) found.add(r);
    }
  }
  return [...found].sort((x, y) => x - y);
}

/** Shannon entropy of `s`, bits per character (gitleaks' measure). */
function entropy(s: string): number {
  const counts = new Map<string, number>();
  for (const c of s) counts.set(c, (counts.get(c) ?? 0) + 1);
  let h = 0;
  for (const k of counts.values()) h -= (k / s.length) * Math.log2(k / s.length);
  return h;
}

/**
 * Every issuer's key or token the vendored rules find in `text`, with the span of the secret part
 * (the rule's secret group, else its first group that matched, else the whole match).
 *
 * @param text - any text (each rule's regex is bounded; linear in the text's length).
 * @param keywordIndex - find the rules to run in one pass over the text (default), or by looking
 *   for each rule's keywords separately (the same rules either way, measured in `scan.test.ts`).
 */
export function vendorFindings(text: string, keywordIndex = true): SecretFinding[] {
  const out: SecretFinding[] = [];
  const lower = text.toLowerCase();
  const indices = keywordIndex
    ? rulesFor(lower)
    : COMPILED.flatMap(({ rule }, i) =>
        rule.keywords.length === 0 || rule.keywords.some((k) => lower.includes(k)) ? [i] : [],
      );
  for (const index of indices) {
    const { rule, re, allow } = COMPILED[index]!;
    re.lastIndex = 0;
    for (const m of text.matchAll(re)) {
      const indices = m.indices!;
      const group = rule.secretGroup ?? (m.findIndex((g, i) => i > 0 && g !== undefined) as number);
      const span = group > 0 ? indices[group] : indices[0];
      if (!span || span[1] <= span[0]) continue;
      const secret = text.slice(span[0], span[1]);
      if (rule.entropy !== undefined && entropy(secret) < rule.entropy) continue;
      if (allow.some((a) => a.test(secret))) continue;
      out.push({ kind: rule.kind, start: span[0], end: span[1] });
    }
  }
  return out;
}
