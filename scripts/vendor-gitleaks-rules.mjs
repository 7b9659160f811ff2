#!/usr/bin/env node
// Writes packages/language/src/secrets/vendor/gitleaks-rules.ts from gitleaks' rule set (then
// run `pnpm biome check --write` to format it as the repository does).
//
//   node scripts/vendor-gitleaks-rules.mjs <path to gitleaks' config/gitleaks.toml> <commit>
//
// gitleaks (https://github.com/gitleaks/gitleaks, MIT, Copyright (c) 2019 Zachary Rice) writes
// its rules in Go's RE2 syntax. JavaScript's RegExp (Node 20) has no inline modifiers, so each
// regex is rewritten case by case: a case-insensitive part ("(?i)…", "(?i:…)") has its letters
// written in both cases ("a" → "[aA]", "[a-z]" → "[a-zA-Z]"), "(?-i:…)" keeps them as written,
// "(?P<name>" becomes "(?<name>", "(?s:.)" any character, "\z" the end. A rule tied to a file
// path (keel scans messages, not files) and the generic-api-key heuristic (keel's own scan reads
// what a sentence names) are left out. A rule whose regex still does not compile is reported and
// left out.
import { readFileSync, writeFileSync } from 'node:fs';
import { parse } from 'smol-toml';

const [, , tomlPath, commit] = process.argv;
if (!tomlPath || !commit) {
  console.error('usage: node scripts/vendor-gitleaks-rules.mjs <gitleaks.toml> <commit>');
  process.exit(2);
}
const config = parse(readFileSync(tomlPath, 'utf8'));

/** Both cases of the letters of a class body ("a-z0-9_" → "a-zA-Z0-9_"). */
function foldClass(body) {
  let out = '';
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (c === '\\') {
      out += c + body[i + 1];
      i++;
      continue;
    }
    if (body[i + 1] === '-' && body[i + 2] && body[i + 2] !== ']') {
      const a = c;
      const b = body[i + 2];
      out += `${a}-${b}`;
      if (/[a-z]/.test(a) && /[a-z]/.test(b)) out += `${a.toUpperCase()}-${b.toUpperCase()}`;
      else if (/[A-Z]/.test(a) && /[A-Z]/.test(b)) out += `${a.toLowerCase()}-${b.toLowerCase()}`;
      i += 2;
      continue;
    }
    out += c;
    if (/[a-z]/.test(c)) out += c.toUpperCase();
    else if (/[A-Z]/.test(c)) out += c.toLowerCase();
  }
  return out;
}

/** An RE2 regex as a JavaScript one with no flags (see the header). */
function translate(re2) {
  // POSIX classes, and escapes of characters that need none (invalid in a \`u\` regex).
  let src = re2.replace(/\[:alnum:\]/g, 'a-zA-Z0-9').replace(/\[:alpha:\]/g, 'a-zA-Z');
  let fold = false;
  if (src.startsWith('(?i)')) {
    fold = true;
    src = src.slice(4);
  }
  let out = '';
  const stack = []; // case folding of each open group
  for (let i = 0; i < src.length; i++) {
    const c = src[i];
    if (c === '\\') {
      const n = src[i + 1];
      if (n === 'z') out += '$';
      else if (n === 'A') out += '^';
      else if (n === 'x' && src[i + 2] === '{') {
        const end = src.indexOf('}', i);
        out += `\\u{${src.slice(i + 3, end)}}`;
        i = end;
        continue;
      } else if (/[^\w\s^$\\.*+?()[\]{}|/]/.test(n)) out += n;
      else out += c + n;
      i++;
      continue;
    }
    if (c === '[') {
      let j = i + 1;
      if (src[j] === '^') j++;
      if (src[j] === ']') j++;
      while (j < src.length && src[j] !== ']') j += src[j] === '\\' ? 2 : 1;
      const body = src
        .slice(i + 1, j)
        .replace(/\\(.)/g, (e, x) => (/[\w\s\][\\^\-/]/.test(x) ? e : x))
        // RE2 reads a "]" first in a class as itself; JavaScript needs it escaped.
        .replace(/^(\^?)\]/, '$1\\]');
      out += `[${fold ? foldClass(body) : body}]`;
      i = j;
      continue;
    }
    if (src.startsWith('(?i)', i)) {
      fold = true;
      i += 3;
      continue;
    }
    if (src.startsWith('(?i:', i) || src.startsWith('(?-i:', i) || src.startsWith('(?s:', i)) {
      stack.push(fold);
      if (src.startsWith('(?i:', i)) fold = true;
      if (src.startsWith('(?-i:', i)) fold = false;
      out += '(?:';
      i = src.indexOf(':', i);
      continue;
    }
    if (src.startsWith('(?P<', i)) {
      stack.push(fold);
      out += '(?<';
      i += 3;
      continue;
    }
    if (c === '(') {
      stack.push(fold);
      out += c;
      continue;
    }
    if (c === ')') {
      fold = stack.pop() ?? fold;
      out += c;
      continue;
    }
    // A brace that opens no quantifier, and a lone "]", are literal in RE2, not in a \`u\` regex.
    if (c === '{') {
      const q = /^\{\d+(?:,\d*)?\}/.exec(src.slice(i));
      out += q ? q[0] : '\\{';
      if (q) i += q[0].length - 1;
      continue;
    }
    if (c === '}' || c === ']') {
      out += `\\${c}`;
      continue;
    }
    if (c === '.' && out.endsWith('(?:') && src[i + 1] === ')') {
      out += '[\\s\\S]';
      continue;
    }
    if (fold && /[a-zA-Z]/.test(c)) out += `[${c.toLowerCase()}${c.toUpperCase()}]`;
    else out += c;
  }
  return out;
}

/** The kind of secret keel reports for a rule. */
function kindOf(id) {
  if (/private-key|pkcs12/.test(id)) return 'private key';
  if (/password/.test(id)) return 'password';
  // AWS names its key ids "access tokens"; keel calls key ids and secrets API keys, as before.
  if (/^aws-|api-key|access-key|secret|client-id|-key$/.test(id)) return 'api key';
  if (/token|pat\b|-pat|jwt|oauth/.test(id)) return 'token';
  return 'api key';
}

const rules = [];
const skipped = [];
for (const rule of config.rules) {
  if (!rule.regex || rule.path || rule.id === 'generic-api-key') {
    skipped.push(`${rule.id} (${rule.regex ? (rule.path ? 'file path' : 'generic') : 'no regex'})`);
    continue;
  }
  const source = translate(rule.regex);
  try {
    new RegExp(source, 'gud');
  } catch (e) {
    skipped.push(`${rule.id} (${e.message})`);
    continue;
  }
  const allow = (rule.allowlists ?? [])
    .filter((a) => !a.paths && a.regexes && (a.regexTarget ?? 'secret') === 'secret')
    .flatMap((a) => a.regexes.map(translate))
    .filter((a) => {
      try {
        new RegExp(a, 'u');
        return true;
      } catch (e) {
        skipped.push(`${rule.id}: an allowlist regex (${e.message})`);
        return false;
      }
    });
  rules.push({
    id: rule.id,
    kind: kindOf(rule.id),
    source,
    keywords: (rule.keywords ?? []).map((k) => k.toLowerCase()),
    ...(rule.entropy ? { entropy: rule.entropy } : {}),
    ...(rule.secretGroup ? { secretGroup: rule.secretGroup } : {}),
    ...(allow.length > 0 ? { allow } : {}),
  });
}

const header = `/**
 * Issuers' key and token formats, from gitleaks' rule set (config/gitleaks.toml at commit
 * ${commit}), as data. Written by \`scripts/vendor-gitleaks-rules.mjs\`; do not edit by hand:
 * run the script on a newer gitleaks.toml instead. ${rules.length} rules of ${config.rules.length}; left out:
${skipped.map((s) => ` * - ${s}`).join('\n')}
 *
 * gitleaks: https://github.com/gitleaks/gitleaks
 *
 * MIT License
 *
 * Copyright (c) 2019 Zachary Rice
 *
 * Permission is hereby granted, free of charge, to any person obtaining a copy of this software
 * and associated documentation files (the "Software"), to deal in the Software without
 * restriction, including without limitation the rights to use, copy, modify, merge, publish,
 * distribute, sublicense, and/or sell copies of the Software, and to permit persons to whom the
 * Software is furnished to do so, subject to the following conditions:
 *
 * The above copyright notice and this permission notice shall be included in all copies or
 * substantial portions of the Software.
 *
 * THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR IMPLIED, INCLUDING
 * BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY, FITNESS FOR A PARTICULAR PURPOSE AND
 * NONINFRINGEMENT. IN NO EVENT SHALL THE AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM,
 * DAMAGES OR OTHER LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
 * OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE SOFTWARE.
 *
 * @module
 */
// biome-ignore-all lint/suspicious/noTemplateCurlyInString: regex sources, not templates
import type { VendorRule } from './rule.js';

/** gitleaks' rules, translated to JavaScript regex sources (no flags; matched with \`gud\`). */
export const GITLEAKS_RULES: readonly VendorRule[] = ${JSON.stringify(rules, null, 2)};
`;
writeFileSync('packages/language/src/secrets/vendor/gitleaks-rules.ts', header);
console.log(`${rules.length} rules written; ${skipped.length} left out:\n${skipped.join('\n')}`);
