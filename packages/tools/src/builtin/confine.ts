/**
 * Keeps the file tools inside the folders the owner allows: a path is resolved, its symlinks are
 * followed (`realpath`), and it must then lie inside one of the roots (themselves `realpath`-ed),
 * so neither `..`, an absolute path nor a symlink pointing out can escape.
 *
 * @module
 */
import { realpath } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';

/** Where a path landed: inside a root (`path` is real), or refused with the reason the model reads. */
export type Confined =
  | { ok: true; path: string; root: string }
  | { ok: false; reason: string; exit: 'refused' | 'not_found' };

/**
 * The path the tools show and remember for an input: resolved against the first root (the
 * workspace) without touching the disk; `exactKey` uses it.
 */
export function lexicalPath(roots: readonly string[], input: string): string {
  return resolve(roots[0] ?? '.', input);
}

/** Whether `path` is `root` or lies below it (both absolute, normalised). */
export function isInside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

/** The roots with their symlinks followed; a root that does not exist is kept as resolved. */
async function realRoots(roots: readonly string[]): Promise<string[]> {
  return Promise.all(roots.map((root) => realpath(resolve(root)).catch(() => resolve(root))));
}

/** A refusal the model reads, e.g. "Refused: ../x is outside the allowed folders. Allowed folders: /w." */
function refused(reason: string): Confined {
  return { ok: false, reason: `Refused: ${reason}`, exit: 'refused' };
}

/** The refusal of a path outside every root, naming the roots. */
function refusal(input: string, roots: readonly string[], why: string): Confined {
  return refused(`${input} ${why}. Allowed folders: ${roots.map((r) => resolve(r)).join(', ')}.`);
}

/**
 * A test of whether a real path is one of keel's own places the tools never reach, even inside a
 * root: inside a guarded path (keel's data folder, its MCP server list) and not inside the
 * workspace (`workspace`, which may lie in the data folder). The guarded paths are resolved once,
 * so a listing asks it of every entry.
 */
export async function guardedTest(
  guarded: readonly string[],
  workspace: string | undefined,
): Promise<(path: string) => boolean> {
  if (guarded.length === 0) return () => false;
  const [realGuarded, realWorkspace] = await Promise.all([
    realRoots(guarded),
    workspace === undefined ? Promise.resolve(undefined) : realRoots([workspace]).then((r) => r[0]),
  ]);
  return (path) =>
    !(realWorkspace !== undefined && isInside(realWorkspace, path)) &&
    realGuarded.some((g) => isInside(g, path));
}

/**
 * A test of whether a listing leaves a real path out: one of keel's own places
 * ({@link guardedTest}), unless the workspace lies below it (the data folder that holds the
 * workspace is listed, and only the workspace is shown inside it).
 */
export async function hiddenInListings(
  guarded: readonly string[],
  workspace: string | undefined,
): Promise<(path: string) => boolean> {
  const [isGuarded, realWorkspace] = await Promise.all([
    guardedTest(guarded, workspace),
    workspace === undefined ? Promise.resolve(undefined) : realRoots([workspace]).then((r) => r[0]),
  ]);
  return (path) =>
    isGuarded(path) && !(realWorkspace !== undefined && isInside(path, realWorkspace));
}

/**
 * Where a real path `real` (from `input`, resolved as `wanted`) landed: inside a real root and not
 * in a guarded place, or refused (a symlink that leads out is named with where it leads).
 */
async function settle(
  roots: readonly string[],
  reals: readonly string[],
  guarded: readonly string[],
  input: string,
  wanted: string,
  real: string,
): Promise<Confined> {
  const root = reals.find((r) => isInside(r, real));
  if (!root) {
    const how =
      real === wanted
        ? 'is outside the allowed folders'
        : `leads to ${real}, outside the allowed folders`;
    return refusal(input, roots, how);
  }
  if ((await guardedTest(guarded, roots[0]))(real)) {
    return refused(
      `${input} is keel's own data (its database, configuration, backups or MCP server list), which the file tools never reach.`,
    );
  }
  return { ok: true, path: real, root };
}

/**
 * Confines a path that must exist (read, list): its real path must lie inside a real root, and
 * not in a guarded place (see {@link guardedTest}). A path that does not exist is reported as
 * missing only when it would lie inside a root.
 */
export async function confineExisting(
  roots: readonly string[],
  input: string,
  guarded: readonly string[] = [],
): Promise<Confined> {
  const wanted = lexicalPath(roots, input);
  const reals = await realRoots(roots);
  let real: string;
  try {
    real = await realpath(wanted);
  } catch (error) {
    if (
      !reals.some((root) => isInside(root, wanted)) &&
      !roots.some((r) => isInside(resolve(r), wanted))
    ) {
      return refusal(input, roots, 'is outside the allowed folders');
    }
    const missing = (error as { code?: unknown }).code === 'ENOENT';
    return {
      ok: false,
      reason: `${input} cannot be read: ${codeOf(error)}.`,
      exit: missing ? 'not_found' : 'refused',
    };
  }
  return settle(roots, reals, guarded, input, wanted, real);
}

/**
 * Confines a path to write: the target itself when it exists (a symlink is followed to where it
 * points), else its nearest existing parent, must lie inside a real root and not in a guarded
 * place; the missing rest of the path is joined below that real parent.
 */
export async function confineWritable(
  roots: readonly string[],
  input: string,
  guarded: readonly string[] = [],
): Promise<Confined> {
  const wanted = lexicalPath(roots, input);
  const reals = await realRoots(roots);
  let existing = wanted;
  const missing: string[] = [];
  let real: string | undefined;
  for (;;) {
    try {
      real = await realpath(existing);
      break;
    } catch {
      const parent = dirname(existing);
      if (parent === existing) break;
      missing.unshift(basename(existing));
      existing = parent;
    }
  }
  if (real === undefined) return refusal(input, roots, 'has no existing folder above it');
  return settle(roots, reals, guarded, input, wanted, join(real, ...missing));
}

function codeOf(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  if (code === 'ENOENT') return 'no such file or folder';
  if (code === 'EACCES') return 'permission denied';
  return typeof code === 'string' ? code : String(error);
}
