/**
 * The chain's head as `journal_head` keeps it beside the journal (schema step 11): the newest
 * entry's sequence and hash, moved by every append and by nothing else, so that a missing tail or
 * a missing journal shows; and where replay begins (the first entry, and the first fact, evidence,
 * tombstone and episode ids, written by code that records what replay needs).
 *
 * @module
 */
import type Database from 'better-sqlite3';
import { stmt } from '../context.js';

/** Where replay begins: the first entry, and the first row ids, written with replay records. */
export interface ReplayStart {
  seq: number;
  facts: number;
  fact_evidence: number;
  tombstones: number;
  episodes: number;
}

/** The chain's head as `journal_head` keeps it, with where replay begins; null when it is missing. */
export function journalHead(
  db: Database.Database,
): { seq: number; hash: string; replay: ReplayStart } | null {
  let r:
    | {
        seq: number;
        hash: string;
        replay_seq: number;
        replay_fact: number;
        replay_evidence: number;
        replay_tombstone: number;
        replay_episode: number;
      }
    | undefined;
  try {
    r = stmt(db, 'SELECT * FROM journal_head WHERE id = 1').get() as typeof r;
  } catch {
    return null; // the table itself is gone
  }
  if (!r) return null;
  return {
    seq: r.seq,
    hash: r.hash,
    replay: {
      seq: r.replay_seq,
      facts: r.replay_fact,
      fact_evidence: r.replay_evidence,
      tombstones: r.replay_tombstone,
      episodes: r.replay_episode,
    },
  };
}

/** Replay from the very first entry and row: what verify assumes when the head is missing. */
export const REPLAY_EVERYTHING: ReplayStart = {
  seq: 1,
  facts: 1,
  fact_evidence: 1,
  tombstones: 1,
  episodes: 1,
};
