// Bundles keel with esbuild, from the TypeScript sources, into apps/cli/bundle/: what `npm start`
// and an installed `keel` (npm install -g) run, and what the end-to-end tests run.
//
//   keel.mjs     the `keel` command
//   think.mjs    the think service, discord.mjs the Discord door, mcp.mjs keel's memory as an MCP
//                server, web.mjs the web page (`keel think`, `keel discord`, `keel mcp` and `keel web`
//                start them as child processes, from beside keel.mjs)
//   chunk-*.mjs  code they share, and the parts each loads only when used (a verb's module, a
//                model client, discord.js…): every dynamic import() becomes a chunk of its own.
//
// Why a bundle (docs/decisions/2026-12-02-a-bundled-keel.md): Node resolves and compiles each
// file of node_modules on its own, and `keel --help` reached nearly 900 of them (zod, chrono,
// the model SDKs…); one pass over the sources also replaces the tsc build on `npm start`.
//
// Left out and loaded from node_modules at run time (the CLI package depends on each): the native
// modules and their loaders (better-sqlite3, sqlite-vec), what keel loads with createRequire on
// first use (gpt-tokenizer's tables, wink-lexicon's word lists), and discord.js's optional native
// helpers. `@huggingface/transformers` (the local embedder) becomes `src/embedder-runtime.ts`,
// which loads it from the runtime `keel models pull` installs.
//
//   node scripts/bundle.mjs [--if-stale] [--verbose] [--metafile <file>]
//     --if-stale  do nothing when the bundle is newer than every file it was built from
//     --verbose   say what was built
//     --metafile  write esbuild's metafile (what went into each chunk) to <file>
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const CLI = dirname(dirname(fileURLToPath(import.meta.url)));
const ROOT = dirname(dirname(CLI));
const OUT = join(CLI, 'bundle');
/** What the last build read (its inputs), for --if-stale. */
const INPUTS_FILE = join(OUT, '.inputs.json');

/** Loaded from node_modules at run time; the CLI's package.json depends on each. */
const EXTERNAL = [
  'better-sqlite3',
  'sqlite-vec',
  'gpt-tokenizer',
  'wink-lexicon',
  'an-array-of-english-words',
  'chrono-node',
];
/** discord.js's optional native helpers: loaded when installed, skipped when not. */
const OPTIONAL_NATIVE = ['zlib-sync', 'bufferutil', 'utf-8-validate'];

/** keel's workspace packages: name → its folder and exports (`@keel/host` → packages/host). */
function workspacePackages() {
  const map = new Map();
  for (const group of ['packages', 'apps']) {
    for (const entry of readdirSync(join(ROOT, group), { withFileTypes: true })) {
      const file = join(ROOT, group, entry.name, 'package.json');
      if (!entry.isDirectory() || !existsSync(file)) continue;
      const pkg = JSON.parse(readFileSync(file, 'utf8'));
      map.set(pkg.name, { dir: dirname(file), exports: pkg.exports ?? {} });
    }
  }
  return map;
}

/** Marks the plugin's own resolutions (so it does not handle them twice). */
const SELF = Symbol('keel-sources');

/** Whether `file` is one of keel's TypeScript sources (not a dependency). */
function isKeelSource(file) {
  return file.startsWith(ROOT) && !file.includes(`${sep}node_modules${sep}`) && /\.ts$/.test(file);
}

/**
 * Resolves `@keel/x[/sub]` to its TypeScript source (the export's `dist/….js` as `src/….ts`), so
 * the bundle is built from the sources without a tsc build, and marks keel's own modules free of
 * side effects (what a run does not use is left out of its chunks).
 */
function keelSources() {
  const packages = workspacePackages();
  return {
    name: 'keel-sources',
    setup(b) {
      b.onResolve({ filter: /^@keel\// }, (args) => {
        const [scope, name, ...rest] = args.path.split('/');
        const pkg = packages.get(`${scope}/${name}`);
        if (!pkg) return undefined;
        const sub = rest.length ? `./${rest.join('/')}` : '.';
        const target = pkg.exports[sub]?.default;
        if (!target) return { errors: [{ text: `${args.path} is not exported` }] };
        const path = join(pkg.dir, target.replace(/^\.\/dist\//, 'src/').replace(/\.js$/, '.ts'));
        return { path, sideEffects: false };
      });
      // keel's own modules, imported by path from one another.
      b.onResolve({ filter: /^\.\.?\// }, async (args) => {
        if (args.pluginData === SELF || !isKeelSource(args.importer)) return undefined;
        const resolved = await b.resolve(args.path, {
          kind: args.kind,
          importer: args.importer,
          resolveDir: args.resolveDir,
          pluginData: SELF,
        });
        return resolved.errors.length > 0 ? undefined : { ...resolved, sideEffects: false };
      });
      b.onResolve({ filter: /^@huggingface\/transformers$/ }, () => ({
        path: join(CLI, 'src', 'embedder-runtime.ts'),
        sideEffects: false,
      }));
    },
  };
}

/** Whether the bundle is missing or older than a file the last build read. */
function stale() {
  if (!existsSync(INPUTS_FILE) || !existsSync(join(OUT, 'keel.mjs'))) return true;
  const built = statSync(join(OUT, 'keel.mjs')).mtimeMs;
  const inputs = JSON.parse(readFileSync(INPUTS_FILE, 'utf8'));
  const watched = [fileURLToPath(import.meta.url), join(ROOT, 'pnpm-lock.yaml'), ...inputs];
  return watched.some((file) => !existsSync(file) || statSync(file).mtimeMs > built);
}

if (process.argv.includes('--if-stale') && !stale()) process.exit(0);

const started = Date.now();
rmSync(OUT, { recursive: true, force: true });
const result = await build({
  absWorkingDir: CLI,
  entryPoints: {
    keel: 'src/main.ts',
    think: '../think/src/main.ts',
    discord: '../discord/src/main.ts',
    mcp: '../mcp/src/main.ts',
    web: '../web/src/main.ts',
  },
  outdir: OUT,
  bundle: true,
  splitting: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  // ES module builds first: they let the unused parts of a library be left out.
  mainFields: ['module', 'main'],
  outExtension: { '.js': '.mjs' },
  entryNames: '[name]',
  chunkNames: 'chunk-[hash]',
  external: [...EXTERNAL, ...OPTIONAL_NATIVE],
  plugins: [keelSources()],
  minifyWhitespace: true,
  minifySyntax: true,
  legalComments: 'linked',
  // CommonJS code inside the bundle calls require() for Node's own modules.
  banner: {
    js: "import { createRequire as __keelCreateRequire } from 'node:module';\nconst require = __keelCreateRequire(import.meta.url);",
  },
  metafile: true,
  logLevel: 'warning',
});

const inputs = Object.keys(result.metafile.inputs)
  .filter((file) => !file.includes('node_modules'))
  .map((file) => join(CLI, file));
writeFileSync(INPUTS_FILE, `${JSON.stringify(inputs)}\n`);

const metafileAt = process.argv.indexOf('--metafile');
if (metafileAt > 0 && process.argv[metafileAt + 1]) {
  writeFileSync(process.argv[metafileAt + 1], JSON.stringify(result.metafile));
}

if (process.argv.includes('--verbose')) {
  const outputs = Object.entries(result.metafile.outputs);
  const bytes = outputs.reduce((n, [, o]) => n + o.bytes, 0);
  console.log(
    `bundle: ${outputs.length} files, ${(bytes / 1e6).toFixed(1)} MB in ${OUT} (${Date.now() - started} ms)`,
  );
}
