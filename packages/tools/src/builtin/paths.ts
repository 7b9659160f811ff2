/**
 * How the built-in tools show a path to the owner, and how they merge options with defaults.
 *
 * @module
 */
import { sep } from 'node:path';

/** `path` with the owner's home folder shown as `~` (unchanged when `home` is absent or not a prefix). */
export function displayPath(path: string, home: string | undefined): string {
  if (!home) return path;
  if (path === home) return '~';
  const prefix = home.endsWith(sep) ? home : home + sep;
  return path.startsWith(prefix) ? `~${sep}${path.slice(prefix.length)}` : path;
}

/** The options without keys whose value is `undefined` (so they do not erase a default). */
export function definedOnly<T extends object>(options: T): Partial<T> {
  return Object.fromEntries(
    Object.entries(options).filter(([, v]) => v !== undefined),
  ) as Partial<T>;
}
