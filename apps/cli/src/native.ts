/**
 * better-sqlite3 (keel's SQLite) is a native module, compiled when keel's dependencies are
 * installed. Where no prebuilt binary can be downloaded, node-gyp compiles it against Node's C
 * headers, and where those cannot be downloaded either the compile fails unless npm is told where
 * they are (`--nodedir`, `npm_config_nodedir`). What is left is a keel whose database cannot open:
 * the package is missing (`Cannot find module 'better-sqlite3'`), its `.node` file was never built
 * ("Could not locate the bindings file") or was built for another Node (`NODE_MODULE_VERSION`).
 * {@link nativeModuleError} turns each into `DB_OPEN_FAILED` with the fix that rebuilds it: from a
 * clone, setup again; installed, the reinstall with the headers named.
 *
 * @module
 */
import { existsSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { KeelError } from '@keel/errors';
import { cloneRoot } from './invocation.js';

/** What a missing or unbuilt better-sqlite3 says (in an error or one of its causes). */
const NATIVE_FAILURE =
  /Could not locate the bindings file|better_sqlite3\.node|Cannot find (?:module|package) '?better-sqlite3|NODE_MODULE_VERSION/;

/** The errors `err` wraps, itself first. */
function chain(err: unknown): unknown[] {
  const seen: unknown[] = [];
  for (let e = err; e && !seen.includes(e) && seen.length < 8; e = (e as Error).cause) {
    seen.push(e);
  }
  return seen;
}

/** Whether `err` (or what it wraps) says better-sqlite3's native module cannot be loaded. */
export function isNativeModuleFailure(err: unknown): boolean {
  return chain(err).some((e) => {
    const message = e instanceof Error ? e.message : typeof e === 'string' ? e : '';
    return NATIVE_FAILURE.test(message) && /better.sqlite3|bindings file/.test(message);
  });
}

/** The folder holding Node's C headers (`include/node/node.h`) for this node, or null. */
export function nodeHeadersDir(execPath: string = process.execPath): string | null {
  const candidates = [dirname(dirname(execPath)), '/usr'];
  return candidates.find((d) => existsSync(join(d, 'include', 'node', 'node.h'))) ?? null;
}

/** The fix for a keel installed with npm (`clone`: null) or run from the clone at `clone`. */
export function nativeModuleFix(clone: string | null, headers: string | null): string {
  const nodedir = headers ?? '<folder with include/node/node.h>';
  const getHeaders = headers
    ? ''
    : ' (Debian/Ubuntu: apt-get install libnode-dev build-essential python3 puts them in /usr)';
  if (clone) {
    return `Install the dependencies again: \`rm -rf node_modules && npm start\` from ${clone}; setup gives the compile Node's C headers${getHeaders}.`;
  }
  return `Reinstall keel with Node's C headers named, where they cannot be downloaded: \`npm install -g --nodedir=${nodedir} --allow-scripts=better-sqlite3 ./keel-cli-<version>.tgz\`${getHeaders}; see "Installed as a command" in the README.`;
}

/**
 * `err` as `DB_OPEN_FAILED` naming the rebuild when better-sqlite3's native module cannot be
 * loaded (see the module description), else null.
 */
export function nativeModuleError(err: unknown, script = process.argv[1]): KeelError | null {
  if (!isNativeModuleFailure(err)) return null;
  let clone: string | null = null;
  try {
    clone = script ? cloneRoot(realpathSync(script)) : null;
  } catch {}
  // The innermost error that says it: better-sqlite3's or Node's own words.
  const said = chain(err).filter((e) => e instanceof Error && NATIVE_FAILURE.test(e.message));
  const why = ((said.at(-1) as Error | undefined)?.message ?? '')
    .split('\n')[0]!
    .replace(/ Tried:$/, '');
  return new KeelError(
    'DB_OPEN_FAILED',
    `better-sqlite3, the SQLite keel stores in, cannot load its native module for Node ${process.versions.node} (${why})`,
    { fix: nativeModuleFix(clone, nodeHeadersDir()), cause: err },
  );
}

/**
 * Prints `err` as `@keel/host`'s reporter does (`error CODE: message`, `fix: …` on stderr; with
 * `json` also `{"error": …}` on stdout) without loading `@keel/host`, which loads better-sqlite3:
 * for an error from {@link nativeModuleError} when the package itself is missing. Returns 2, the
 * exit code of an error with a code.
 */
export function reportNativeError(
  err: KeelError,
  json: boolean,
  streams: {
    stdout: { write(text: string): unknown };
    stderr: { write(text: string): unknown };
  } = process,
): number {
  const { code, message, fix } = err;
  streams.stderr.write(`error ${code}: ${message}\nfix: ${fix}\n`);
  if (json) streams.stdout.write(`${JSON.stringify({ error: { code, message, fix } })}\n`);
  return 2;
}
