/**
 * Small file helpers shared by the host's readers (the config file, the service locks).
 *
 * @module
 */
import { readFileSync } from 'node:fs';
import { KeelError } from '@keel/errors';

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
