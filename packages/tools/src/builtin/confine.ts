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

function refusal(input: string, roots: readonly string[], why: string): Confined {
  return {
    ok: false,
    reason: `Refused: ${input} ${why}. Allowed folders: ${roots.map((r) => resolve(r)).join(', ')}.`,
    exit: 'refused',
  };
}

/**
 * Whether `path` (real) is one of keel's own places the tools never reach, even inside a root:
 * inside a guarded path (keel's data folder, its MCP server list) and not inside the workspace
 * (`roots[0]`, which may lie in the data folder).
 */
async function guardedPlace(
  guarded: readonly string[],
  workspace: string | undefined,
  path: string,
): Promise<boolean> {
  if (guarded.length === 0) return false;
  const [realGuarded, realWorkspace] = await Promise.all([
    realRoots(guarded),
    workspace === undefined ? Promise.resolve(undefined) : realRoots([workspace]).then((r) => r[0]),
  ]);
  if (realWorkspace !== undefined && isInside(realWorkspace, path)) return false;
  return realGuarded.some((g) => isInside(g, path));
}

/** The refusal of one of keel's own places. */
function guardedRefusal(input: string): Confined {
  return {
    ok: false,
    reason: `Refused: ${input} is keel's own data (its database, configuration, backups or MCP server list), which the file tools never reach.`,
    exit: 'refused',
  };
}

/**
 * Confines a path that must exist (read, list): its real path must lie inside a real root, and
 * not in a guarded place (see {@link guardedPlace}). A path that does not exist is reported as
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
  const root = reals.find((r) => isInside(r, real));
  if (!root) {
    const how =
      real === wanted
        ? 'is outside the allowed folders'
        : `leads to ${real}, outside the allowed folders`;
    return refusal(input, roots, how);
  }
  if (await guardedPlace(guarded, roots[0], real)) return guardedRefusal(input);
  return { ok: true, path: real, root };
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
  const target = join(real, ...missing);
  const root = reals.find((r) => isInside(r, target));
  if (!root) {
    const how =
      target === wanted
        ? 'is outside the allowed folders'
        : `leads to ${target}, outside the allowed folders`;
    return refusal(input, roots, how);
  }
  if (await guardedPlace(guarded, roots[0], target)) return guardedRefusal(input);
  return { ok: true, path: target, root };
}

function codeOf(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  if (code === 'ENOENT') return 'no such file or folder';
  if (code === 'EACCES') return 'permission denied';
  return typeof code === 'string' ? code : String(error);
}
