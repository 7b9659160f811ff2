/**
 * The `meta` table: small named values the store and its services keep (the embedder
 * fingerprint, the think service's watermark, the Discord front door's last-seen message).
 *
 * @module
 */
import type Database from 'better-sqlite3';
import { type StoreContext, stmt } from '../context.js';

/** The value stored under `key`, or undefined. */
export function getMeta(db: Database.Database, key: string): string | undefined {
  return (
    stmt(db, 'SELECT value FROM meta WHERE key = ?').get(key) as { value: string } | undefined
  )?.value;
}

/** Stores `value` under `key`; null deletes it. */
export function setMeta(db: Database.Database, key: string, value: string | null): void {
  if (value === null) stmt(db, 'DELETE FROM meta WHERE key = ?').run(key);
  else
    stmt(
      db,
      'INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
    ).run(key, value);
}

/** Named values in `meta`, for the services that keep one (a watermark, a last-seen id). */
export class MetaRepo {
  constructor(private readonly ctx: StoreContext) {}

  /** The value stored under `key`, or undefined. */
  get(key: string): string | undefined {
    return getMeta(this.ctx.db, key);
  }

  /** Stores `value` under `key`; null deletes it. */
  set(key: string, value: string | null): void {
    setMeta(this.ctx.db, key, value);
  }
}
