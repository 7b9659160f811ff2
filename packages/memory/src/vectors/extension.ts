/**
 * Loading sqlite-vec (the `vec0` virtual table and the vector distance functions) into a
 * connection: probed once per connection, and the result said rather than thrown, so the store can
 * degrade to lexical recall on purpose and `keel verify` can name the cause.
 *
 * @module
 */
import type Database from 'better-sqlite3';
import * as sqliteVec from 'sqlite-vec';

/** Whether sqlite-vec loaded into a connection, and why not. */
export type ExtensionLoad = { ok: true } | { ok: false; error: string };

const loaded = new WeakMap<Database.Database, ExtensionLoad>();

/** Loads sqlite-vec into a connection once. Never throws: says whether it worked. */
export function loadVectorExtension(db: Database.Database): ExtensionLoad {
  let r = loaded.get(db);
  if (!r) {
    try {
      sqliteVec.load(db);
      r = { ok: true };
    } catch (err) {
      r = { ok: false, error: (err as Error).message };
    }
    loaded.set(db, r);
  }
  return r;
}
