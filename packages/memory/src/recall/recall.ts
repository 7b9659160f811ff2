/**
 * The one place that decides what is recalled.
 *
 * Candidates come from the FTS5 indexes over the whole store (never a recency window): BM25 over
 * active facts and, as a separate arm, over episodes. Within each arm, ranks are fused by
 * reciprocal rank fusion (k = 60; Cormack, Clarke & Büttcher, SIGIR 2009) with the nearest
 * neighbours by embedding when a vector arm is given (see `vectors.ts`). Then:
 *
 * - facts: × (0.7 + 0.3 · confidence), × 1.3 when a query term hits the fact's kind/key; no
 *   recency term (a preference does not fade for being old);
 * - episodes: × (0.6 + 0.4 · 0.5^(age / 30 days)), a 30-day half-life recency term; the turns
 *   just before and after a BM25 hit in the same session join as candidates, scored as
 *   {@link NEIGHBOUR_WEIGHT} of the hit's reciprocal rank (context after the strongest hits).
 *
 * Recall bumps `access_count` and `last_accessed_at` of the facts it returns (a documented side
 * effect: use slows decay; it never raises confidence).
 *
 * A fact whose row the journal does not explain (changed or written outside keel; see
 * `journal/rows.ts` `unexplainedFacts`, and `keel verify`) is never recalled: it is left out and
 * its id listed in the response's `unexplained`.
 *
 * @module
 */

import { KeelError } from '@keel/errors';
import { type StoreContext, stmt } from '../context.js';
import { evidenceEpisodes } from '../facts/read.js';
import { recordAccess } from '../facts/transitions.js';
import { unexplainedFacts } from '../journal/rows.js';
import { ftsMatch, humanAge, normalizeValue, queryTerms } from '../text.js';
import type { Episode, Fact, Kind, Role, Scope, Source, Status } from '../types.js';

/** Reciprocal rank fusion constant (Cormack et al. 2009). */
export const RRF_K = 60;
/** Multiplier for a fact whose kind/key a query term hits. */
export const KEY_BOOST = 1.3;
/**
 * The weight of a BM25 hit's neighbouring turn (the turn before or after it in the same session),
 * relative to the hit's own reciprocal rank. At 0.8 the neighbours of the first hit rank about
 * 16th, after the strongest hits. Measured on LoCoMo and LongMemEval-S: see
 * docs/decisions/2026-11-30-lexical-recall-tuning.md.
 */
export const NEIGHBOUR_WEIGHT = 0.8;
/** Episode recency half-life, ms (30 days). */
export const EPISODE_HALF_LIFE_MS = 30 * 86_400_000;

/** How recall ran: lexical (BM25 only) or hybrid (BM25 + embeddings). */
export type RecallMode = 'lexical' | 'hybrid';

/** Options for {@link recall}. */
export interface RecallOptions {
  /** Results to return, 1..200. Default 10. */
  limit?: number;
  /** Only facts or only episodes. */
  type?: 'fact' | 'episode';
  /** Fact scope, filtered before scoring. Default "owner". */
  scope?: Scope;
  /** Bump access counters (default true). */
  touch?: boolean;
  /** Include the supporting episode ids of each fact (default true). */
  withEvidence?: boolean;
  /**
   * What keel believes was true at this moment (ms since epoch): facts whose validity interval
   * holds it — current ones and history alike, never what the owner forgot, pruned or rejected —
   * and episodes that had occurred by then. Lexical only.
   */
  asOf?: number;
}

/** Where an episode came from. */
export interface Provenance {
  channel: string;
  role: Role;
  speaker: string | null;
  /** When it was said, ms since epoch. */
  occurred_at: number;
  /** E.g. the LoCoMo dia_id "D1:3", or a LongMemEval "session#turn". */
  source_id: string | null;
  source_doc: string | null;
  session: string | null;
}

/** One recalled fact. */
export interface FactResult {
  type: 'fact';
  id: number;
  /** Short reference, e.g. "f42". */
  ref: string;
  scope: Scope;
  kind: Kind;
  key: string;
  value: string;
  confidence: number;
  evidence_count: number;
  source: Source;
  status: Status;
  /** Fused score (higher is better); comparable only within one response. */
  score: number;
  /** ms since the fact was last seen. */
  age_ms: number;
  age: string;
  /** True since (ms since epoch), when known. */
  valid_from: number | null;
  /** True until (ms since epoch); null while it holds. */
  valid_to: number | null;
  /** Episode ids that support it. */
  evidence?: number[];
}

/** One recalled episode. */
export interface EpisodeResult {
  type: 'episode';
  id: number;
  ref: string;
  text: string;
  score: number;
  age_ms: number;
  age: string;
  provenance: Provenance;
  /**
   * Beliefs this episode is evidence for, with their status now. An episode whose belief was
   * superseded, retracted or rejected is what was said then, not what is true now.
   */
  supports: { id: number; status: Status }[];
}

export type RecallResult = FactResult | EpisodeResult;

/** What {@link recall} returns. */
export interface RecallResponse {
  mode: RecallMode;
  /** Why recall ran lexical-only when an embedder was wanted (no embedder, paused, failed). */
  reason?: string;
  query: string;
  /** The terms searched for after stopwords and punctuation were dropped. */
  terms: string[];
  results: RecallResult[];
  /**
   * Facts that matched but were left out because the journal does not explain their row (they
   * were changed or written outside keel; `keel verify` names each). Absent when there were none.
   */
  unexplained?: number[];
}

/** The columns of an episode that scoring reads. */
type EpisodeKey = Pick<Episode, 'id' | 'occurred_at' | 'session_key' | 'channel'>;

/** Ranks from scores where lower is better (BM25 in SQLite), ties sharing a rank (1-based). */
function ranks(scores: number[]): number[] {
  const out: number[] = [];
  let rank = 0;
  for (let i = 0; i < scores.length; i++) {
    if (i === 0 || scores[i] !== scores[i - 1]) rank = i + 1;
    out.push(rank);
  }
  return out;
}

/**
 * The vector arm as recall sees it: for a query already embedded, the nearest row ids, best first.
 * Recall joins them against live rows itself, so a stale id can never be returned.
 */
export interface VectorArm {
  nearest(entity: 'fact' | 'episode', k: number): number[];
}

/** Reciprocal-rank sums per id over ranked lists (ranks 1-based; ties share a rank). */
function fuse(lists: { id: number; rank: number }[][]): Map<number, number> {
  const out = new Map<number, number>();
  for (const list of lists)
    for (const { id, rank } of list) out.set(id, (out.get(id) ?? 0) + 1 / (RRF_K + rank));
  return out;
}

/**
 * Recalls facts and episodes for a query, best first. With a {@link VectorArm}, each arm fuses
 * its BM25 list and its nearest-neighbour list by reciprocal rank (mode "hybrid"); without one,
 * BM25 alone (mode "lexical").
 *
 * @param vectors - the vector arm for this query (the store's `recall` builds it when an embedder
 *   is bound).
 * @throws KeelError `INVALID_INPUT` for a non-string query or a limit outside 1..200.
 */
export function recall(
  ctx: StoreContext,
  query: string,
  options: RecallOptions = {},
  vectors?: VectorArm,
): RecallResponse {
  if (typeof query !== 'string') throw new KeelError('INVALID_INPUT', 'query must be text');
  const limit = options.limit ?? 10;
  if (!Number.isInteger(limit) || limit < 1 || limit > 200) {
    throw new KeelError('INVALID_INPUT', 'limit must be a whole number from 1 to 200');
  }
  const terms = queryTerms(query);
  const match = ftsMatch(terms);
  const response: RecallResponse = {
    mode: vectors ? 'hybrid' : 'lexical',
    query,
    terms,
    results: [],
  };
  if (!match && !vectors) return response;
  const now = ctx.now();
  const depth = Math.max(limit * 3, 30);
  const scope = options.scope ?? 'owner';

  // Episodes stay bare (id and score) until the cut: only those returned are read whole.
  const results: (FactResult | { type: 'episode'; id: number; score: number })[] = [];
  if (options.type !== 'episode' && options.asOf !== undefined) {
    const asOf = factsAsOf(ctx, terms, scope, options.asOf, depth, now);
    results.push(...asOf.results);
    if (asOf.unexplained.length > 0) response.unexplained = asOf.unexplained;
  } else if (options.type !== 'episode') {
    let rows: (Fact & { bm: number })[] = [];
    if (match) {
      // The best 2·depth matches of any scope first (facts_fts holds active facts only), narrow
      // (id and score) and then their rows: the scope's best `depth` are among them unless all
      // 2·depth came back and fewer than `depth` are in scope; only then does the scope filter
      // join every match. About a third faster at 100k rows (bench/hybrid.ts).
      const inner = 2 * depth;
      const best = stmt(
        ctx.db,
        `SELECT f.*, m.bm FROM (
           SELECT rowid AS id, bm25(facts_fts) AS bm FROM facts_fts
           WHERE facts_fts MATCH ? ORDER BY bm LIMIT ?
         ) m CROSS JOIN facts f ON f.id = m.id ORDER BY m.bm`,
      ).all(match, inner) as (Fact & { bm: number })[];
      rows = best.filter((f) => f.scope === scope && f.status === 'active').slice(0, depth);
      if (rows.length < depth && best.length === inner) {
        rows = stmt(
          ctx.db,
          `SELECT f.*, bm25(facts_fts) AS bm FROM facts_fts
           JOIN active_facts f ON f.id = facts_fts.rowid
           WHERE facts_fts MATCH ? AND f.scope = ?
           ORDER BY bm LIMIT ?`,
        ).all(match, scope, depth) as (Fact & { bm: number })[];
      }
    }
    const byId = new Map<number, Fact>(rows.map((f) => [f.id, f]));
    const lexical = ranks(rows.map((x) => x.bm)).map((rank, i) => ({ id: rows[i]!.id, rank }));
    const semantic: { id: number; rank: number }[] = [];
    if (vectors) {
      const nearest = vectors.nearest('fact', depth);
      const unseen = nearest.filter((id) => !byId.has(id));
      if (unseen.length > 0) {
        // One query for all of them; only live rows come back, so a stale id is skipped.
        const live = stmt(
          ctx.db,
          // CROSS JOIN: one primary-key lookup per id (the planner would otherwise walk every
          // active fact by the status index).
          `SELECT f.* FROM json_each(?) j CROSS JOIN facts f ON f.id = j.value
           WHERE f.status = 'active' AND f.scope = ?`,
        ).all(JSON.stringify(unseen), scope) as Fact[];
        for (const f of live) byId.set(f.id, f);
      }
      for (const id of nearest) if (byId.has(id)) semantic.push({ id, rank: semantic.length + 1 });
    }
    const fused = fuse([lexical, semantic]);
    const unexplained = unexplainedFacts(ctx.db, [...byId.values()]);
    for (const id of unexplained) fused.delete(id);
    if (unexplained.size > 0) response.unexplained = [...unexplained].sort((a, b) => a - b);
    if (fused.size > 0) {
      const keyHits = new Set(
        match
          ? (
              stmt(ctx.db, `SELECT rowid AS id FROM facts_fts WHERE facts_fts MATCH ?`).all(
                `{key} : (${match})`,
              ) as { id: number }[]
            ).map((r) => r.id)
          : [],
      );
      for (const [id, rrf] of fused) {
        const f = byId.get(id)!;
        const score = rrf * (0.7 + 0.3 * f.confidence) * (keyHits.has(f.id) ? KEY_BOOST : 1);
        results.push({
          type: 'fact',
          id: f.id,
          ref: `f${f.id}`,
          scope: f.scope,
          kind: f.kind,
          key: f.key,
          value: f.value,
          confidence: f.confidence,
          evidence_count: f.evidence_count,
          source: f.source,
          status: f.status,
          score,
          age_ms: now - f.last_seen_at,
          age: humanAge(now - f.last_seen_at),
          valid_from: f.valid_from,
          valid_to: f.valid_to,
        });
      }
    }
  }
  // Episodes are scored from a few columns; only those returned are read whole (below).
  if (options.type !== 'fact') {
    const narrow = 'e.id, e.occurred_at, e.session_key, e.channel';
    const rows = !match
      ? []
      : options.asOf !== undefined
        ? (stmt(
            ctx.db,
            `SELECT ${narrow}, bm25(episodes_fts) AS bm FROM episodes_fts
             JOIN episodes e ON e.id = episodes_fts.rowid
             WHERE episodes_fts MATCH ? AND e.occurred_at <= ? ORDER BY bm LIMIT ?`,
          ).all(match, options.asOf, depth) as (EpisodeKey & { bm: number })[])
        : (stmt(
            ctx.db,
            `SELECT ${narrow}, m.bm FROM (
         SELECT rowid AS id, bm25(episodes_fts) AS bm FROM episodes_fts
         WHERE episodes_fts MATCH ? ORDER BY bm LIMIT ?
       ) m CROSS JOIN episodes e ON e.id = m.id ORDER BY m.bm`,
          ).all(match, depth) as (EpisodeKey & { bm: number })[]);
    const byId = new Map<number, EpisodeKey>(rows.map((e) => [e.id, e]));
    const lexical = ranks(rows.map((x) => x.bm)).map((rank, i) => ({ id: rows[i]!.id, rank }));
    // Live conversation episodes among `ids` (one primary-key lookup each), by id.
    const keys = (ids: number[]) =>
      new Map(
        (
          stmt(
            ctx.db,
            `SELECT ${narrow} FROM json_each(?) j CROSS JOIN episodes e ON e.id = j.value
             WHERE e.kind = 'conversation'`,
          ).all(JSON.stringify(ids)) as EpisodeKey[]
        ).map((e) => [e.id, e]),
      );
    const semantic: { id: number; rank: number }[] = [];
    if (vectors) {
      const nearest = vectors.nearest('episode', depth);
      const unseen = nearest.filter((id) => !byId.has(id));
      if (unseen.length > 0) for (const [id, e] of keys(unseen)) byId.set(id, e);
      for (const id of nearest) if (byId.has(id)) semantic.push({ id, rank: semantic.length + 1 });
    }
    // Neighbouring turns as context: the turn just before and just after a BM25 hit in the same
    // session (an answer follows its question) join as candidates of their own, each scored as
    // NEIGHBOUR_WEIGHT of its hit's rank, so they land after the strongest hits, never above them.
    const neighbours: { id: number; rank: number }[] = [];
    const adjacent = rows.flatMap((e) => (e.session_key === null ? [] : [e.id - 1, e.id + 1]));
    if (adjacent.length > 0) {
      const near = keys(adjacent.filter((id) => !byId.has(id)));
      for (const [i, hit] of rows.entries()) {
        for (const id of [hit.id - 1, hit.id + 1]) {
          const e = near.get(id);
          if (!e || byId.has(id) || e.session_key !== hit.session_key || e.channel !== hit.channel)
            continue;
          byId.set(id, e);
          neighbours.push({ id, rank: lexical[i]!.rank });
        }
      }
    }
    const fused = fuse([lexical, semantic]);
    for (const { id, rank } of neighbours)
      fused.set(id, (fused.get(id) ?? 0) + NEIGHBOUR_WEIGHT / (RRF_K + rank));
    for (const [id, rrf] of fused) {
      const age = Math.max(0, now - byId.get(id)!.occurred_at);
      results.push({
        type: 'episode',
        id,
        score: rrf * (0.6 + 0.4 * 0.5 ** (age / EPISODE_HALF_LIFE_MS)),
      });
    }
  }
  // Stable: equal scores keep arm order (facts first), then BM25 order.
  results.sort((a, b) => b.score - a.score);
  const top = results.slice(0, limit);
  const chosen = top.filter((x) => x.type === 'episode').map((x) => x.id);
  const full = new Map(
    (
      stmt(ctx.db, 'SELECT e.* FROM json_each(?) j CROSS JOIN episodes e ON e.id = j.value').all(
        JSON.stringify(chosen),
      ) as Episode[]
    ).map((e) => [e.id, e]),
  );
  response.results = top.map((x): RecallResult => {
    if (x.type !== 'episode') return x;
    const e = full.get(x.id)!;
    const age = Math.max(0, now - e.occurred_at);
    return {
      type: 'episode',
      id: e.id,
      ref: `e${e.id}`,
      text: e.text,
      score: x.score,
      age_ms: age,
      age: humanAge(age),
      supports: [],
      provenance: {
        channel: e.channel,
        role: e.role,
        speaker: e.speaker,
        occurred_at: e.occurred_at,
        source_id: e.source_id,
        source_doc: e.source_doc,
        session: e.session_key,
      },
    };
  });

  const facts = response.results.filter((x): x is FactResult => x.type === 'fact');
  const episodes = response.results.filter((x): x is EpisodeResult => x.type === 'episode');
  if (episodes.length > 0) {
    // Audit read (any status): which beliefs each episode supports, so stale ones are marked.
    const supports = stmt(
      ctx.db,
      `SELECT f.id, f.status FROM fact_evidence fe JOIN facts f ON f.id = fe.fact_id
       WHERE fe.episode_id = ? ORDER BY f.id`,
    );
    for (const e of episodes) e.supports = supports.all(e.id) as { id: number; status: Status }[];
  }
  if (options.withEvidence !== false)
    for (const f of facts) f.evidence = evidenceEpisodes(ctx, f.id);
  if (options.touch !== false && facts.length > 0) {
    ctx.db
      .transaction(() =>
        recordAccess(
          ctx,
          facts.map((f) => f.id),
          now,
        ),
      )
      .immediate();
  }
  return response;
}

/**
 * The facts arm "as of" a moment: every fact of `scope` whose validity interval holds `asOf`
 * (`valid_from`, or when it was recorded, at or before it; `valid_to` after it or open), in any
 * status a once-true belief can have — current, superseded, or retracted as no longer true — but
 * never one the owner forgot, purged or rejected, nor one pruned (each has a tombstone), nor a
 * pending conflict. The full-text index holds current facts only, so these are matched here: a
 * fact scores by how many of the query's words its kind, key and value hold (compared as values
 * are: case-folded, punctuation aside), times the confidence weight; facts holding none are left
 * out, and so are facts the journal does not explain (their ids are returned as `unexplained`).
 */
function factsAsOf(
  ctx: StoreContext,
  terms: readonly string[],
  scope: Scope,
  asOf: number,
  depth: number,
  now: number,
): { results: FactResult[]; unexplained: number[] } {
  if (terms.length === 0) return { results: [], unexplained: [] };
  const rows = stmt(
    ctx.db,
    `SELECT f.* FROM facts f
     WHERE f.scope = ? AND f.status IN ('active', 'superseded', 'retracted')
       AND coalesce(f.valid_from, f.created_at) <= ? AND (f.valid_to IS NULL OR f.valid_to > ?)
       AND NOT EXISTS (SELECT 1 FROM tombstones t WHERE t.fact_id = f.id)`,
  ).all(scope, asOf, asOf) as Fact[];
  const wanted = terms.map((t) => normalizeValue(t)).filter(Boolean);
  const matched: { f: Fact; hits: number }[] = [];
  for (const f of rows) {
    const words = new Set(
      normalizeValue(`${f.kind} ${f.key.replace(/[_.-]+/g, ' ')} ${f.value}`).split(' '),
    );
    const hits = wanted.filter((w) => words.has(w)).length;
    if (hits > 0) matched.push({ f, hits });
  }
  const unexplained = unexplainedFacts(
    ctx.db,
    matched.map((m) => m.f),
  );
  const scored: FactResult[] = [];
  for (const { f, hits } of matched) {
    if (unexplained.has(f.id)) continue;
    scored.push({
      type: 'fact',
      id: f.id,
      ref: `f${f.id}`,
      scope: f.scope,
      kind: f.kind,
      key: f.key,
      value: f.value,
      confidence: f.confidence,
      evidence_count: f.evidence_count,
      source: f.source,
      status: f.status,
      score: (hits / (RRF_K + 1)) * (0.7 + 0.3 * f.confidence),
      age_ms: now - f.last_seen_at,
      age: humanAge(now - f.last_seen_at),
      valid_from: f.valid_from,
      valid_to: f.valid_to,
    });
  }
  return {
    results: scored.sort((a, b) => b.score - a.score || b.id - a.id).slice(0, depth),
    unexplained: [...unexplained].sort((a, b) => a - b),
  };
}
