/**
 * What the pages and the actions share: the store (or why there is none) and a belief id read
 * from a path or a form.
 *
 * @module
 */
import { KeelError } from '@keel/errors';
import type { MemoryStore } from '@keel/memory';
import type { WebKeel } from './keel.js';

/** The store, or a clear error when the database cannot be opened at all. */
export function needStore(keel: WebKeel): MemoryStore {
  if (keel.store) return keel.store;
  throw new KeelError('DB_OPEN_FAILED', keel.problems[0] ?? 'the database cannot be opened', {
    fix: 'See the health page (keel doctor) for what is wrong and how to get back.',
  });
}

/** A belief id from a path: `12` or `f12`. */
export function factId(text: string): number {
  const id = Number(/^f?(\d+)$/.exec(text)?.[1]);
  if (!Number.isSafeInteger(id) || id <= 0) {
    throw new KeelError('INVALID_INPUT', `"${text}" is not a belief id`, {
      fix: 'Open a belief from the beliefs page.',
    });
  }
  return id;
}
