/**
 * Small file helpers shared by the host: the readers' (the config file, the service locks) and
 * the one way keel's data folder is made ({@link ensureHome}).
 *
 * @module
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { KeelError } from '@keel/errors';

/** The `.gitignore` keel writes into a data folder it makes: nothing in it is ever committed. */
export const HOME_GITIGNORE =
  "# keel's data folder (its beliefs, conversations and config): never committed.\n*\n";

/**
 * Makes keel's data folder `home` (mode 0700) when it is missing, with a `.gitignore` that ignores
 * everything in it, so a data folder made inside a checkout is never committed nor linted. A
 * folder that exists is left as it is.
 *
 * @throws the file system's error when the folder cannot be made (the `.gitignore` is best effort).
 */
export function ensureHome(home: string): void {
  if (existsSync(home)) return;
  mkdirSync(home, { recursive: true, mode: 0o700 });
  try {
    writeFileSync(join(home, '.gitignore'), HOME_GITIGNORE, { mode: 0o600, flag: 'wx' });
  } catch {
    // another process made it first, or the folder takes no more files: only a convenience
  }
}

/**
 * A file's text (UTF-8), or null when it does not exist.
 *
 * @throws KeelError `FILE_UNREADABLE` (details `{ file }`) when it exists but cannot be read.
 */
export function readTextIfPresent(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new KeelError('FILE_UNREADABLE', `cannot read ${path}: ${(err as Error).message}`, {
      cause: err,
      details: { file: path },
    });
  }
}
