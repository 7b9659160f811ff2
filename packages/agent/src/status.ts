/**
 * What every door's status line says of memory: how many beliefs, pending conflicts and episodes
 * it holds, each count with its noun in the singular or the plural as the number takes it.
 *
 * @module
 */
import { count } from '@keel/language';

/** The counts a status line shows (`MemoryStore.stats()` has them). */
export interface MemoryCounts {
  /** Current beliefs. */
  active: number;
  /** Pending conflicts, waiting for the owner's review. */
  pending: number;
  /** Stored episodes (turns and events). */
  episodes: number;
}

/**
 * Memory's part of a status line, the same at every door: "1 belief, 0 pending, 12 episodes".
 */
export function memoryCounts(s: MemoryCounts): string {
  return `${count(s.active, 'belief')}, ${s.pending} pending, ${count(s.episodes, 'episode')}`;
}
