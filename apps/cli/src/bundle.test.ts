// The bundled CLI loads some packages at run time (with createRequire, so that a run that does not
// need them never reads them): each must be left out of the bundle (esbuild's `external`) and be a
// dependency of the CLI's package, or the bundle (what `npm start`, the services and an installed
// keel run) fails the first time it needs one, as it once did for chrono-node on "yesterday".
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const CLI = join(ROOT, 'apps', 'cli');

/** Every TypeScript source of keel's packages and apps (not tests, not build output). */
function sources(): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, e.name);
      if (e.isDirectory()) {
        if (!['node_modules', 'dist', 'bundle', 'runtime'].includes(e.name)) walk(path);
      } else if (e.name.endsWith('.ts') && !e.name.endsWith('.test.ts')) out.push(path);
    }
  };
  for (const group of ['packages', 'apps']) {
    for (const e of readdirSync(join(ROOT, group), { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(ROOT, group, e.name, 'src'));
    }
  }
  return out;
}

/** The package a module specifier names ("wink-lexicon/src/x.js" → "wink-lexicon"). */
const packageOf = (spec: string) =>
  spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!;

/** Packages loaded at run time by name: `createRequire(…)('x')` and `require('x')`. */
function loadedAtRunTime(): Map<string, string> {
  const found = new Map<string, string>();
  const pattern = /(?:createRequire\([^)]*\)|\brequire)\(\s*['"]([^'"./][^'"]*)['"]\s*\)/g;
  for (const file of sources()) {
    for (const m of readFileSync(file, 'utf8').matchAll(pattern)) {
      const name = packageOf(m[1]!);
      if (!name.startsWith('node:')) found.set(name, file.slice(ROOT.length));
    }
  }
  return found;
}

describe('the bundled CLI', () => {
  it('leaves out, and depends on, every package keel loads at run time', () => {
    const script = readFileSync(join(CLI, 'scripts', 'bundle.mjs'), 'utf8');
    const external = new Set(
      [...(/const EXTERNAL = \[([^\]]*)\]/.exec(script)?.[1] ?? '').matchAll(/'([^']+)'/g)].map(
        (m) => m[1]!,
      ),
    );
    const pkg = JSON.parse(readFileSync(join(CLI, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    const loaded = loadedAtRunTime();
    // Control: the scan finds the ones known to be loaded this way.
    expect([...loaded.keys()]).toEqual(
      expect.arrayContaining(['chrono-node', 'gpt-tokenizer', 'wink-lexicon']),
    );
    for (const [name, where] of loaded) {
      expect(external.has(name), `${name} (loaded in ${where}) is not external`).toBe(true);
      expect(pkg.dependencies[name], `${name} (loaded in ${where}) is no CLI dependency`).toBe(
        readDependency(name),
      );
    }
  });
});

/** The version of `name` a keel package depends on (the CLI must depend on the same one). */
function readDependency(name: string): string | undefined {
  for (const group of ['packages', 'apps']) {
    for (const e of readdirSync(join(ROOT, group), { withFileTypes: true })) {
      if (!e.isDirectory() || e.name === 'cli') continue;
      try {
        const deps = (
          JSON.parse(readFileSync(join(ROOT, group, e.name, 'package.json'), 'utf8')) as {
            dependencies?: Record<string, string>;
          }
        ).dependencies;
        if (deps?.[name]) return deps[name];
      } catch {
        // a folder without a package.json
      }
    }
  }
  return undefined;
}
