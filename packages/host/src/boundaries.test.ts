// Only apps and @keel/host read the environment: a library that reads `process.env` or one of
// keel's variables by name fails this test (libraries take options with typed defaults).

import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const PACKAGES = fileURLToPath(new URL('../../', import.meta.url));

/** Source files that ship (tests, test helpers and test doubles excepted). */
function shippedSources(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...shippedSources(path));
    else if (
      entry.name.endsWith('.ts') &&
      !entry.name.endsWith('.test.ts') &&
      !['test.ts', 'test-helpers.ts', 'testkit.ts'].includes(entry.name)
    ) {
      out.push(path);
    }
  }
  return out;
}

/** The code of a TypeScript file without its comments (strings are kept). */
function withoutComments(code: string): string {
  return code.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1');
}

const VARIABLE = '(?:KEEL|ANTHROPIC|OPENAI|DISCORD|OLLAMA)_[A-Z0-9_]+';
const READS = [
  /\bprocess\s*\.\s*env\b/,
  new RegExp(`\\.\\s*${VARIABLE}\\b`), // env.KEEL_HOME
  new RegExp(`\\[\\s*['"\`]${VARIABLE}['"\`]\\s*\\]`), // env['OLLAMA_HOST']
  new RegExp(`\\{[^}]*\\b${VARIABLE}\\b[^}]*\\}\\s*=\\s*(?:process\\.)?env\\b`), // { KEEL_TZ } = env
];

/** The environment reads in `code`, one line each. */
function environmentReads(code: string): string[] {
  return withoutComments(code)
    .split('\n')
    .filter((line) => READS.some((re) => re.test(line)))
    .map((line) => line.trim());
}

describe('only apps and @keel/host read the environment', () => {
  it('finds the reads it looks for, and not a variable named in a message or a comment', () => {
    expect(environmentReads('const h = process.env.HOME;')).toHaveLength(1);
    expect(environmentReads('const h = env.KEEL_HOME?.trim();')).toHaveLength(1);
    expect(environmentReads("const h = env['OLLAMA_HOST'];")).toHaveLength(1);
    expect(environmentReads('const k = env.OPENAI_API_KEY;')).toHaveLength(1);
    expect(environmentReads('const { DISCORD_TOKEN } = env;')).toHaveLength(1);
    expect(
      environmentReads("throw new Error('set ANTHROPIC_API_KEY or KEEL_EMBEDDER=none');"),
    ).toEqual([]);
    expect(
      environmentReads('/** reads `env.KEEL_HOME` */\n// process.env.X\nconst a = 1;'),
    ).toEqual([]);
  });

  it('no package but @keel/host reads process.env or a keel variable', () => {
    const packages = readdirSync(PACKAGES, { withFileTypes: true })
      .filter((d) => d.isDirectory() && d.name !== 'host')
      .map((d) => d.name);
    expect(packages).toEqual(expect.arrayContaining(['agent', 'memory', 'gate', 'outbound']));
    const found: string[] = [];
    for (const name of packages) {
      for (const file of shippedSources(join(PACKAGES, name, 'src'))) {
        for (const line of environmentReads(readFileSync(file, 'utf8'))) {
          found.push(`${relative(PACKAGES, file)}: ${line}`);
        }
      }
    }
    expect(found).toEqual([]);
  });
});
