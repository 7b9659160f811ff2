/**
 * Test support for the store's own tests: a controllable clock and a {@link MemoryStore} on a real
 * SQLite file in a fresh temporary folder, removed when the test finishes.
 *
 * Used only by `*.test.ts` files.
 *
 * @module
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KeelError, type KeelErrorCode } from '@keel/errors';
import { onTestFinished } from 'vitest';
import { dbOf } from './internal.js';
import type { JournalEntry } from './journal/journal.js';
import type { EpisodeResult, FactResult, RecallResponse } from './recall/recall.js';
import { DB_FILENAME, MemoryStore } from './store.js';
import type { Slot } from './types.js';

export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;
export const WEEK = 7 * DAY;

/** 2025-01-06T09:00:00Z: a fixed starting instant so every run sees the same times. */
export const T0 = Date.UTC(2025, 0, 6, 9, 0, 0);

/** A clock the test moves by hand. Pass `clock.now` as the store's clock. */
export class FakeClock {
  constructor(public t: number = T0) {}

  /** The current instant, ms since epoch (bound, so it can be passed around). */
  readonly now = (): number => this.t;

  /** Moves the clock forward by `ms` (default one minute) and returns the new instant. */
  advance(ms: number = MINUTE): number {
    this.t += ms;
    return this.t;
  }

  set(t: number): void {
    this.t = t;
  }
}

/** A fresh temporary folder, removed when the current test finishes. */
export function tempDir(prefix = 'keel-memory-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** What {@link openTempStore} hands back. */
export interface TempStore {
  store: MemoryStore;
  clock: FakeClock;
  dir: string;
  path: string;
}

/**
 * Opens a MemoryStore on a real SQLite file in a fresh temporary folder, with a fake clock. The
 * store is closed and the folder removed when the current test finishes.
 */
export function openTempStore(start: number = T0): TempStore {
  const dir = tempDir();
  const path = join(dir, DB_FILENAME);
  const clock = new FakeClock(start);
  const store = MemoryStore.open(path, { now: clock.now });
  onTestFinished(() => store.close());
  return { store, clock, dir, path };
}

/** An owner-scope slot. */
export const slot = (kind: Slot['kind'], key: string): Slot => ({ scope: 'owner', kind, key });

/** Records a conversation episode (one owner turn) and returns its id. */
export function turn(store: MemoryStore, text: string, occurredAt?: number): number {
  return store.addEpisode({
    channel: 'terminal',
    role: 'owner',
    text,
    ...(occurredAt === undefined ? {} : { occurredAt }),
  }).id;
}

/** Journal rows, oldest first, optionally of one op. */
export function journalRows(store: MemoryStore, op?: string): JournalEntry[] {
  return (
    op === undefined
      ? dbOf(store).prepare('SELECT * FROM journal ORDER BY seq').all()
      : dbOf(store).prepare('SELECT * FROM journal WHERE op = ? ORDER BY seq').all(op)
  ) as JournalEntry[];
}

/** The parsed payloads of the journal's `ignore` entries, oldest first. */
export function refusals(store: MemoryStore): Record<string, unknown>[] {
  return journalRows(store, 'ignore').map((r) => JSON.parse(r.payload) as Record<string, unknown>);
}

/** A single number from a `SELECT count(*) AS n ...` (or any `AS n`) query. */
export function count(store: MemoryStore, sql: string, ...params: unknown[]): number {
  return (
    dbOf(store)
      .prepare(sql)
      .get(...params) as { n: number }
  ).n;
}

/** Row counts of the tables a write may touch. */
export function tableCounts(store: MemoryStore): Record<string, number> {
  const out: Record<string, number> = {};
  for (const t of ['facts', 'fact_evidence', 'episodes', 'tombstones', 'journal']) {
    out[t] = count(store, `SELECT count(*) AS n FROM ${t}`);
  }
  return out;
}

/** Runs `fn`, expects a KeelError with `code`, and returns it. */
export function expectKeelError(fn: () => unknown, code: KeelErrorCode): KeelError {
  try {
    fn();
  } catch (err) {
    if (KeelError.isInstance(err) && err.code === code) return err;
    throw new Error(
      `expected KeelError ${code}, got ${KeelError.isInstance(err) ? `KeelError ${err.code}` : String(err)}`,
    );
  }
  throw new Error(`expected KeelError ${code}, but nothing was thrown`);
}

/** The fact results of a recall, in rank order. */
export function factResults(response: RecallResponse): FactResult[] {
  return response.results.filter((r): r is FactResult => r.type === 'fact');
}

/** The episode results of a recall, in rank order. */
export function episodeResults(response: RecallResponse): EpisodeResult[] {
  return response.results.filter((r): r is EpisodeResult => r.type === 'episode');
}

/** Ids of the facts a recall returned, in rank order. */
export async function recalledFactIds(store: MemoryStore, query: string): Promise<number[]> {
  return factResults(await store.recall(query, { type: 'fact', touch: false })).map((r) => r.id);
}

/** Awaits `fn`, expects it to reject with a KeelError with `code`, and returns it. */
export async function expectKeelErrorAsync(
  fn: () => Promise<unknown>,
  code: KeelErrorCode,
): Promise<KeelError> {
  try {
    await fn();
  } catch (err) {
    if (KeelError.isInstance(err) && err.code === code) return err;
    throw new Error(
      `expected KeelError ${code}, got ${KeelError.isInstance(err) ? `KeelError ${err.code}` : String(err)}`,
    );
  }
  throw new Error(`expected KeelError ${code}, but nothing was thrown`);
}
