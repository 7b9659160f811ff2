/**
 * "Why do you believe that?": one belief's provenance, read in one place for every surface (the
 * `keel why` verb, the model's `why` tool, the web page's belief page).
 *
 * The answer is the belief's slot as a chain (every version, newest first: superseded values are
 * the former ones), the episodes that are each version's evidence, and the journal's record of
 * every decision about those versions: who made it (the actor), when, and why. A version whose row
 * the journal does not explain (changed outside keel) is named, as recall leaves it out.
 *
 * @module
 */
import { type StoreContext, stmt } from '../context.js';
import { parsedPayload } from '../journal/journal.js';
import { unexplainedFacts } from '../journal/rows.js';
import { getEpisode } from '../repos/episodes.js';
import type { Episode, Fact } from '../types.js';
import { evidenceEpisodes, factById, history } from './read.js';

/** One episode that is evidence for one version of the belief. */
export interface WhyEvidence {
  /** The version (fact id) it supports. */
  factId: number;
  /** The episode: its `channel` is the door it came through, `occurred_at` when it was said. */
  episode: Episode;
}

/** One journal decision about a version of the belief. */
export interface WhyChange {
  /** The journal entry's sequence number. */
  seq: number;
  /** When, ms since the Unix epoch. */
  at: number;
  /** Who: `owner`, `model`, `reflection`, `curator`, `import`, `mcp:<client>`, `web`, `system`. */
  actor: string;
  /** The decision (`create`, `corroborate`, `update`, `conflict`, `confirm`, `retract`, …). */
  op: string;
  /** The version it is about. */
  factId: number | null;
  /** The decision in words, with its recorded reason when there is one. */
  summary: string;
}

/** The answer to "why do you believe that?" for one belief. */
export interface BeliefExplanation {
  /** The belief asked about, in any status. */
  fact: Fact;
  /** Every version of its slot, newest first (the asked one among them). */
  chain: Fact[];
  /** The evidence of every version, oldest first within a version. */
  evidence: WhyEvidence[];
  /** The journal's decisions about the chain's versions, oldest first. */
  changes: WhyChange[];
  /** Versions whose row the journal does not explain (recall leaves them out). */
  unexplained: number[];
}

/** What each journal decision means, in words. */
const OP_WORDS: Record<string, string> = {
  create: 'stored as a new belief',
  corroborate: 'seen again (evidence added)',
  update: 'replaced the former value',
  conflict: 'held as a pending conflict with the current value',
  history: 'recorded as a past value',
  withheld: 'withheld',
  ignore: 'refused',
  confirm: 'confirmed by the owner',
  reject: 'rejected by the owner',
  retract: 'retracted',
  forget: 'forgotten (retracted, will not be learned again)',
  lift: 'a tombstone on its value was lifted',
  note: 'noted',
  purge: 'value erased everywhere (purge)',
  decay: 'confidence decayed with time',
  dedupe: 'merged with a duplicate',
  flag_stale: 'flagged as stale for review',
  request_forget: 'asked to be forgotten (waiting for the owner)',
  keep: 'kept by the owner after a forget request',
  ask: 'asked the owner whether it still holds',
  answer: 'the owner answered a question about it',
  import: 'brought in from a keel export',
};

/**
 * Why keel holds (or held) belief `id`.
 *
 * @param id - a fact id, in any status.
 * @returns the explanation, or undefined when no such fact exists.
 */
export function explainBelief(ctx: StoreContext, id: number): BeliefExplanation | undefined {
  const fact = factById(ctx, id);
  if (!fact) return undefined;
  const chain = history(ctx, fact);
  const evidence: WhyEvidence[] = [];
  for (const version of chain) {
    for (const episodeId of evidenceEpisodes(ctx, version.id)) {
      const episode = getEpisode(ctx, episodeId);
      if (episode) evidence.push({ factId: version.id, episode });
    }
  }
  return {
    fact,
    chain,
    evidence,
    changes: changesOf(
      ctx,
      chain.map((f) => f.id),
    ),
    unexplained: [...unexplainedFacts(ctx.db, chain)].sort((a, b) => a - b),
  };
}

/** The journal's fact entries about `ids`, oldest first (also what an export carries). */
export function changesOf(ctx: StoreContext, ids: readonly number[]): WhyChange[] {
  if (ids.length === 0) return [];
  const rows = stmt(
    ctx.db,
    `SELECT seq, at, actor, op, entity_id, payload FROM journal
     WHERE entity = 'fact' AND entity_id IN (SELECT value FROM json_each(?)) ORDER BY seq`,
  ).all(JSON.stringify(ids)) as {
    seq: number;
    at: number;
    actor: string;
    op: string;
    entity_id: number | null;
    payload: string;
  }[];
  return rows.map((r) => ({
    seq: r.seq,
    at: r.at,
    actor: r.actor,
    op: r.op,
    factId: r.entity_id,
    summary: summaryOf(r.op, parsedPayload(r.payload)),
  }));
}

/** "confirmed by the owner", "refused: <reason>". */
function summaryOf(op: string, payload: Record<string, unknown> | undefined): string {
  const words = OP_WORDS[op] ?? op;
  const reason = payload?.reason ?? payload?.why;
  return typeof reason === 'string' && reason.length > 0 ? `${words}: ${reason}` : words;
}
