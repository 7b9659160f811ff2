/**
 * `@keel/memory/internal`: what the store's own tests, the cross-package tests and the
 * benchmarks need beyond the public API — the database handle behind a store, the prepared
 * statement cache, the lexical recall function itself, and the schema's steps. Nothing in `packages/` or `apps/`
 * imports this module (a test enforces it): the store is reached through `MemoryStore` only.
 *
 * @module
 */
export { type Clock, countRows, type StoreContext, stmt } from './context.js';
export { openDatabase, registerFunctions } from './db.js';
export { appendJournal, entryHash, type JournalEntry } from './journal/journal.js';
export { replayJournal } from './journal/replay.js';
export { ftsMatch, ftsPhrases } from './recall/fts-query.js';
export { recall as lexicalRecall, type VectorArm } from './recall/recall.js';
export { MIGRATIONS } from './schema/index.js';
export { contextOf } from './store.js';

import type Database from 'better-sqlite3';
import type { MemoryStore } from './store.js';
import { contextOf } from './store.js';

/** The database handle behind a store (tests and benchmarks only). */
export function dbOf(store: MemoryStore): Database.Database {
  return contextOf(store).db;
}
