/**
 * The one place that decides what is recalled.
 *
 * The question's words are {@link recallTerms} (a standard stopword list that keeps content verbs),
 * each with its irregular verb forms ({@link searchedForms}: "won" also searches "win").
 *
 * Candidates come from the FTS5 indexes over the whole store (never a recency window): BM25 over
 * active facts and, as a separate arm, over episodes, ranked by the indexes' mirror in memory when a
 * long-running door built it (`postings.ts`: the same ranking as FTS5's `bm25()`, without its
 * per-row cost), else by FTS5. Within each arm, ranks are fused by
 * reciprocal rank fusion (k = 60; Cormack, Clarke & Büttcher, SIGIR 2009) with the nearest
 * neighbours by embedding when a vector arm is given (see `vectors.ts`). Then:
 *
 * - facts: × (0.7 + 0.3 · confidence), × 1.3 when a query term hits the fact's kind/key; no
 *   recency term (a preference does not fade for being old);
 * - episodes: × (1 + 0.01 · 0.5^(age / 30 days)), a recency term that orders near-ties and
 *   never outweighs relevance (newer first on an exact tie); the turns up to two before and after
 *   a BM25 hit in the same session join as candidates, scored as {@link NEIGHBOUR_WEIGHT} (next
 *   turn) or {@link NEIGHBOUR_WEIGHT_2} (two away) of the hit's reciprocal rank, and a weaker hit
 *   next to a stronger one is lifted to that score (context right after the hit it belongs to);
 *   words match the text of a turn, and a turn said by someone the question names is × 1.2
 *   ({@link SPEAKER_BOOST});
 * - a current belief one of those turns speaks to (one it is evidence for, or its slot's current
 *   belief once that one was superseded) joins at that turn's score × {@link EVIDENCE_WEIGHT} × its
 *   confidence weight, just before the turn ("where do I live?" finds profile/home = Porto through
 *   "I live in Porto", and Lisbon once the owner moved).
 *
 * Recall writes nothing. The facts it returns are counted as used by the store
 * (`MemoryStore.recall`), which writes their `access_count` and `last_accessed_at` with its next
 * write (use slows decay; it never raises confidence).
 *
 * A fact or an episode whose row the journal does not explain (changed or written outside keel;
 * see `unexplainedFacts` of `journal/rows.ts`, `unexplainedEpisodes` of `journal/episodes.ts`, and
 * `keel verify`) is never recalled, so never put into a prompt: it is left out and its id listed
 * in the response's `unexplained` (facts) or `unexplainedEpisodes`.
 *
 * @module
 */

import { KeelError } from '@keel/errors';
import {
  humanAge,
  normalizeValue,
  recallTerms,
  resolveWindow,
  searchedForms,
} from '@keel/language';
import { type StoreContext, stmt } from '../context.js';
import { unexplainedEpisodes } from '../journal/episodes.js';
import { unexplainedFacts } from '../journal/rows.js';
import type { Episode, Fact, Kind, Role, Scope, Source, Status } from '../types.js';
import { ftsMatch, ftsPhrases, termCounter } from './fts-query.js';
import type { HitFilter, RecallIndex } from './postings.js';

/** Reciprocal rank fusion constant (Cormack et al. 2009). */
export const RRF_K = 60;
/** Multiplier for a fact whose kind/key a query term hits. */
export const KEY_BOOST = 1.3;
/**
 * The weight of a BM25 hit's neighbouring turn (the turn just before or after it in the same
 * session), relative to the hit's own reciprocal rank: the neighbours of the first hit rank just
 * after it and the second hit (an answer follows its question). Measured on LoCoMo and
 * LongMemEval-S: see docs/decisions/2026-12-01-recall-as-lived.md.
 */
export const NEIGHBOUR_WEIGHT = 0.95;
/** The weight of a turn two before or after a BM25 hit in the same session (as above). */
export const NEIGHBOUR_WEIGHT_2 = 0.9;
/** Offsets from a hit (in the session's turn order) and their weights. */
const NEIGHBOURS: readonly (readonly [number, number])[] = [
  [1, NEIGHBOUR_WEIGHT],
  [-1, NEIGHBOUR_WEIGHT],
  [2, NEIGHBOUR_WEIGHT_2],
  [-2, NEIGHBOUR_WEIGHT_2],
];
/**
 * Multiplier for an episode candidate (a hit or a hit's neighbour) said by a speaker the question
 * names. A name is matched against what was said, never against who said it: a turn does not
 * become a candidate for being said by Caroline. Measured: docs/decisions/2026-12-01-recall-as-lived.md.
 */
export const SPEAKER_BOOST = 1.2;
/**
 * Multiplier for an episode said outside the window a question names ("yesterday"): the window's
 * own matches come first, ranked among themselves, and matches outside it follow at half their
 * score. Measured: docs/decisions/2026-12-01-recall-as-lived.md.
 */
export const OUTSIDE_WINDOW_WEIGHT = 0.5;
/**
 * Words that ask about the conversation itself rather than a topic: a question whose other words
 * are all among these ("What did I tell you yesterday?") gets the window's turns, newest first.
 */
export const CONVERSATION_WORDS: ReadonlySet<string> = new Set([
  ...['tell', 'told', 'say', 'said', 'says', 'talk', 'talked', 'talking', 'discuss', 'discussed'],
  ...['mention', 'mentioned', 'speak', 'spoke', 'spoken', 'chat', 'chatted', 'ask', 'asked'],
  ...['write', 'wrote', 'written', 'happen', 'happened', 'remember', 'us', 'keel', 'conversation'],
  ...['conversations', 'chats', 'talks', 'anything', 'something', 'everything', 'go', 'went'],
]);
/** How much of a question is read for a date window, in characters. */
export const WINDOW_MAX_CHARS = 300;
/** Episode recency half-life, ms (30 days). */
export const EPISODE_HALF_LIFE_MS = 30 * 86_400_000;
/**
 * The most recency can add to an episode's relevance: × (1 + RECENCY_WEIGHT · 0.5^(age / 30
 * days)), so a turn said now gains at most 1% over one said long ago. Recency orders turns whose
 * relevance is within 1% (ties and near-ties), never a weak match above a clearly better one.
 * Measured as lived against the frozen clock on LoCoMo and LongMemEval-S: see
 * docs/decisions/2026-12-01-recall-as-lived.md.
 */
export const RECENCY_WEIGHT = 0.01;

/**
 * A current belief whose evidence is a recalled turn joins the results at that turn's score times
 * this weight (and its confidence weight): a belief is what its turn said, distilled, so it ranks
 * with it (just before it, on a tie). Its own words need not match the question ("where do I
 * live?" → profile/home = Porto, said as "I live in Porto").
 */
export const EVIDENCE_WEIGHT = 1;

/**
 * The current beliefs of a scope that the turns of a JSON array of ids speak to (parameters: the
 * array, the scope): each belief a turn is evidence for, or, for one since superseded, the current
 * belief of its slot (the turn "I live in Porto" speaks to profile/home, now Lisbon); never one
 * retracted, forgotten or rejected. CROSS JOINs keep the order: the turns, their evidence rows by
 * the episode index, each belief by its id, its slot's current one by the one-per-slot index (named:
 * without statistics the planner picks an index on the scope alone); otherwise the planner walks
 * every active fact by the status index (45 ms a recall at 100k rows).
 */
export const BELIEFS_OF_TURNS = `SELECT fe.episode_id AS episode, cur.id, cur.confidence
  FROM json_each(?) j
  CROSS JOIN fact_evidence fe ON fe.episode_id = j.value
  CROSS JOIN facts f ON f.id = fe.fact_id
  CROSS JOIN facts cur INDEXED BY facts_one_active_per_slot
    ON cur.scope = f.scope AND cur.kind = f.kind AND cur.key = f.key AND cur.status = 'active'
  WHERE f.status IN ('active', 'superseded') AND f.scope = ?`;

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
  /**
   * Count the returned facts as used (default true): `MemoryStore.recall` counts them in memory and
   * writes the counts with the store's next write; recall itself never writes.
   */
  touch?: boolean;
  /** Include the supporting episode ids of each fact (default true). */
  withEvidence?: boolean;
  /**
   * What keel believes was true at this moment (ms since epoch): facts whose validity interval
   * holds it — current ones and history alike, never what the owner forgot, pruned or rejected —
   * and episodes that had occurred by then. Lexical only.
   */
  asOf?: number;
  /**
   * The owner's IANA time zone (e.g. "America/Phoenix"), default "UTC": the zone a date in the
   * question is read in ("yesterday" is midnight to midnight there). The doors pass `KEEL_TZ`.
   */
  tz?: string;
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
  /**
   * Set (true) on an `asOf` answer whose start keel does not know (`valid_from` null) but whose
   * end it does: it held at some time before `valid_to`, maybe not yet at `asOf`. Absent otherwise.
   */
  start_unknown?: true;
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
  /**
   * The span of time the question named ("yesterday", "in July 2022"), `[from, to)` in ms, read
   * in `tz` against the clock: episodes said in it come first, ranked by the other words.
   */
  window?: { from: number; to: number; phrase: string };
  results: RecallResult[];
  /**
   * Facts that would have been returned but were left out because the journal does not explain
   * their row (they were changed or written outside keel; `keel verify` names each); the next best
   * results took their places. Absent when there were none.
   */
  unexplained?: number[];
  /**
   * Episodes that would have been returned but were left out because the journal does not explain
   * their row (edited or inserted outside keel; `unexplainedEpisodes` of `journal/episodes.ts`,
   * and `keel verify`); the next best results took their places. Absent when there were none.
   */
  unexplainedEpisodes?: number[];
}

/** The columns of an episode that scoring reads. */
type EpisodeKey = Pick<Episode, 'id' | 'occurred_at' | 'session_key' | 'channel' | 'speaker'>;

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
  index?: RecallIndex,
): RecallResponse {
  if (typeof query !== 'string') throw new KeelError('INVALID_INPUT', 'query must be text');
  const limit = options.limit ?? 10;
  if (!Number.isInteger(limit) || limit < 1 || limit > 200) {
    throw new KeelError('INVALID_INPUT', 'limit must be a whole number from 1 to 200');
  }
  const now = ctx.now();
  // A date in the question is a window over when things were said; its words are not searched
  // for (a turn that says "yesterday" is not about yesterday).
  const window =
    options.type === 'fact'
      ? null
      : resolveWindow(query.slice(0, WINDOW_MAX_CHARS), now, options.tz ?? 'UTC');
  const words = window
    ? `${query.slice(0, window.index)} ${query.slice(window.index + window.length)}`
    : query;
  const terms = recallTerms(words);
  const searched = searchedForms(terms);
  const match = ftsMatch(searched);
  const phrases = ftsPhrases(searched);
  const response: RecallResponse = {
    mode: vectors ? 'hybrid' : 'lexical',
    query,
    terms,
    ...(window ? { window: { from: window.from, to: window.to, phrase: window.phrase } } : {}),
    results: [],
  };
  if (!match && !vectors && !window) return response;
  const depth = Math.max(limit * 3, 30);
  const scope = options.scope ?? 'owner';

  // Facts and episodes stay bare (id and score) until the cut: only those returned are read whole.
  const results: (
    | FactResult
    | { type: 'fact'; id: number; score: number }
    | { type: 'episode'; id: number; score: number; occurred_at: number }
  )[] = [];
  if (options.type !== 'episode' && options.asOf !== undefined) {
    const asOf = factsAsOf(ctx, terms, scope, options.asOf, depth, now);
    results.push(...asOf.results);
    if (asOf.unexplained.length > 0) response.unexplained = asOf.unexplained;
  } else if (options.type !== 'episode') {
    const narrow = 'f.id, f.scope, f.status, f.confidence';
    let rows: (FactKey & { bm: number })[] = [];
    // The in-memory mirror's ranking when it can answer (the same as FTS5's), else FTS5's.
    const mirrored = match && index ? index.searchFacts(phrases, 2 * depth) : null;
    if (match) {
      // The best 2·depth matches of any scope first (facts_fts holds active facts only), narrow
      // (id and score) and then their scoring columns: the scope's best `depth` are among them
      // unless all 2·depth came back and fewer than `depth` are in scope; only then does the
      // scope filter join every match. About a third faster at 100k rows (bench/hybrid.ts).
      const inner = 2 * depth;
      const best = mirrored
        ? factKeys(ctx, mirrored.hits)
        : (stmt(
            ctx.db,
            `SELECT ${narrow}, m.bm FROM (
           SELECT rowid AS id, bm25(facts_fts) AS bm FROM facts_fts
           WHERE facts_fts MATCH ? ORDER BY bm LIMIT ?
         ) m CROSS JOIN facts f ON f.id = m.id ORDER BY m.bm`,
          ).all(match, inner) as (FactKey & { bm: number })[]);
      rows = best.filter((f) => f.scope === scope && f.status === 'active').slice(0, depth);
      if (rows.length < depth && best.length === inner) {
        rows = stmt(
          ctx.db,
          `SELECT ${narrow}, bm25(facts_fts) AS bm FROM facts_fts
           JOIN active_facts f ON f.id = facts_fts.rowid
           WHERE facts_fts MATCH ? AND f.scope = ?
           ORDER BY bm LIMIT ?`,
        ).all(match, scope, depth) as (FactKey & { bm: number })[];
      }
    }
    const byId = new Map<number, FactKey>(rows.map((f) => [f.id, f]));
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
          `SELECT ${narrow} FROM json_each(?) j CROSS JOIN facts f ON f.id = j.value
           WHERE f.status = 'active' AND f.scope = ?`,
        ).all(JSON.stringify(unseen), scope) as FactKey[];
        for (const f of live) byId.set(f.id, f);
      }
      for (const id of nearest) if (byId.has(id)) semantic.push({ id, rank: semantic.length + 1 });
    }
    const fused = fuse([lexical, semantic]);
    if (fused.size > 0) {
      const keyHits =
        mirrored?.keyed ??
        new Set(
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
        results.push({ type: 'fact', id, score });
      }
    }
  }
  // Episodes are scored from a few columns; only those returned are read whole (below).
  if (options.type !== 'fact') {
    const narrow = 'e.id, e.occurred_at, e.session_key, e.channel, e.speaker';
    // Words match what was said; a speaker's name counts only on turns that match (below).
    const episodeMatch = match && `{text} : (${match})`;
    const inWindow = (t: number) => !window || (t >= window.from && t < window.to);
    const upTo = window
      ? Math.min(window.to, options.asOf === undefined ? window.to : options.asOf + 1)
      : 0;
    // How many turns the window holds decides how its matches are found (see below).
    const span = window && episodeMatch ? windowSpan(ctx, window.from, upTo) : null;
    const wide = span !== null && span.n > WINDOW_RANGE_ROWS;
    // A wide window's matches are read from the same BM25 pass as the rest: deeper.
    const fetch = wide ? WIDE_WINDOW_DEPTH * depth : depth;
    const indexed = (k: number, filter: HitFilter) =>
      index ? withKeys(ctx, index, index.searchEpisodes(phrases, k, filter)) : null;
    const found = !episodeMatch
      ? []
      : options.asOf !== undefined
        ? (indexed(fetch, { to: options.asOf + 1 }) ??
          (stmt(
            ctx.db,
            `SELECT ${narrow}, bm25(episodes_fts) AS bm FROM episodes_fts
             JOIN episodes e ON e.id = episodes_fts.rowid
             WHERE episodes_fts MATCH ? AND e.occurred_at <= ? ORDER BY bm LIMIT ?`,
          ).all(episodeMatch, options.asOf, fetch) as (EpisodeKey & { bm: number })[]))
        : (indexed(fetch, {}) ??
          (stmt(
            ctx.db,
            `SELECT ${narrow}, m.bm FROM (
         SELECT rowid AS id, bm25(episodes_fts) AS bm FROM episodes_fts
         WHERE episodes_fts MATCH ? ORDER BY bm LIMIT ?
       ) m CROSS JOIN episodes e ON e.id = m.id ORDER BY m.bm`,
          ).all(episodeMatch, fetch) as (EpisodeKey & { bm: number })[]));
    let rows = found.length > depth ? found.slice(0, depth) : found;
    let lexical = ranks(rows.map((x) => x.bm)).map((rank, i) => ({ id: rows[i]!.id, rank }));
    if (window) {
      // The window's own matches, ranked among themselves; when none of its turns has the
      // question's other words (or there are none), its turns newest first. Matches outside it
      // keep their place after them (scored × OUTSIDE_WINDOW_WEIGHT below).
      // A question about the conversation itself ("What did I tell you yesterday?", "What did
      // we talk about last week?") is answered by the window's turns, newest first.
      const aboutTheTalk = terms.every((t) => CONVERSATION_WORDS.has(t));
      let inside: (EpisodeKey & { bm: number })[] = [];
      if (!aboutTheTalk && episodeMatch && span && span.n > 0) {
        const own = () =>
          indexed(depth, { from: window.from, to: upTo }) ??
          windowMatches(ctx, episodeMatch, window.from, upTo, depth, span);
        if (!wide) inside = own();
        else {
          // The best matches overall include the window's best `depth` unless fewer than
          // `depth` of them are in it and there were more matches: only then search it alone.
          inside = found.filter((e) => e.occurred_at >= window.from && e.occurred_at < upTo);
          if (inside.length < depth && found.length === fetch) {
            inside = own();
          }
          inside = inside.slice(0, depth);
        }
      }
      const said = !aboutTheTalk
        ? inside
        : (stmt(
            ctx.db,
            `SELECT ${narrow}, -e.occurred_at AS bm FROM episodes e
               WHERE e.kind = 'conversation' AND e.occurred_at >= ? AND e.occurred_at < ?
               ORDER BY e.occurred_at DESC LIMIT ?`,
          ).all(window.from, upTo, depth) as (EpisodeKey & { bm: number })[]);
      const ids = new Set(said.map((e) => e.id));
      const outside = lexical.flatMap((l, i) =>
        ids.has(l.id) || inWindow(rows[i]!.occurred_at) ? [] : [{ row: rows[i]!, rank: l.rank }],
      );
      lexical = [
        ...ranks(said.map((x) => x.bm)).map((rank, i) => ({ id: said[i]!.id, rank })),
        ...outside.map((o) => ({ id: o.row.id, rank: o.rank })),
      ];
      rows = [...said, ...outside.map((o) => o.row)];
    }
    const byId = new Map<number, EpisodeKey>(rows.map((e) => [e.id, e]));
    // Live conversation episodes among `ids` (one primary-key lookup each), by id.
    const keys = (ids: number[]) =>
      new Map(
        (
          index?.turnKeys(ids) ??
          (stmt(
            ctx.db,
            `SELECT ${narrow} FROM json_each(?) j CROSS JOIN episodes e ON e.id = j.value
             WHERE e.kind = 'conversation'`,
          ).all(JSON.stringify(ids)) as EpisodeKey[])
        ).map((e) => [e.id, e]),
      );
    const semantic: { id: number; rank: number }[] = [];
    if (vectors) {
      const nearest = vectors.nearest('episode', depth);
      const unseen = nearest.filter((id) => !byId.has(id));
      if (unseen.length > 0) for (const [id, e] of keys(unseen)) byId.set(id, e);
      for (const id of nearest) if (byId.has(id)) semantic.push({ id, rank: semantic.length + 1 });
    }
    // Neighbouring turns as context: the turns up to two before and after a BM25 hit in the same
    // session (an answer follows its question) join as candidates, each scored as its distance's
    // weight of its hit's reciprocal rank, so they land after the strongest hits; a weaker hit
    // next to a stronger one is lifted to that score.
    const fused = fuse([lexical, semantic]);
    const around = new Map<number, number>();
    const sessioned = rows.filter((e) => e.session_key !== null);
    if (sessioned.length > 0) {
      const wanted = sessioned.flatMap((e) => NEIGHBOURS.map(([d]) => e.id + d));
      const near = keys(wanted.filter((id) => !byId.has(id)));
      for (const [i, hit] of rows.entries()) {
        if (hit.session_key === null) continue;
        for (const [d, w] of NEIGHBOURS) {
          const id = hit.id + d;
          const e = byId.get(id) ?? near.get(id);
          if (!e || e.session_key !== hit.session_key || e.channel !== hit.channel) continue;
          if (!byId.has(id)) byId.set(id, e);
          const score = w / (RRF_K + lexical[i]!.rank);
          if (score > (around.get(id) ?? 0)) around.set(id, score);
        }
      }
    }
    for (const [id, score] of around) {
      const own = fused.get(id);
      if (own === undefined || score > own) fused.set(id, score);
    }
    // A turn said by someone the question names ("What did Caroline research?").
    const termSet = new Set(terms);
    const named = (e: EpisodeKey) =>
      e.speaker !== null &&
      normalizeValue(e.speaker)
        .split(' ')
        .some((w) => termSet.has(w));
    for (const [id, fusedScore] of fused) {
      const e = byId.get(id)!;
      const rrf =
        (named(e) ? fusedScore * SPEAKER_BOOST : fusedScore) *
        (inWindow(e.occurred_at) ? 1 : OUTSIDE_WINDOW_WEIGHT);
      const occurred = e.occurred_at;
      const age = Math.max(0, now - occurred);
      results.push({
        type: 'episode',
        id,
        score: rrf * (1 + RECENCY_WEIGHT * 0.5 ** (age / EPISODE_HALF_LIFE_MS)),
        occurred_at: occurred,
      });
    }
  }
  // A belief a matching turn speaks to ("where do I live?" finds "I live in Porto", the evidence
  // of profile/home = Porto, whose own words do not say "live"; once superseded, the slot's
  // current belief): it joins at its best turn's score times its confidence weight, so it ranks
  // just before that turn.
  if (options.type === undefined && options.asOf === undefined) {
    const turns = results
      .filter((x) => x.type === 'episode')
      .sort((a, b) => b.score - a.score)
      .slice(0, depth);
    if (turns.length > 0) {
      const turnScore = new Map(turns.map((t) => [t.id, t.score]));
      const supported = stmt(ctx.db, BELIEFS_OF_TURNS).all(
        JSON.stringify([...turnScore.keys()]),
        scope,
      ) as {
        episode: number;
        id: number;
        confidence: number;
      }[];
      const facts = new Map(
        results.flatMap((x, i) => (x.type === 'fact' && !('ref' in x) ? [[x.id, i]] : [])),
      );
      for (const r of supported) {
        const score = turnScore.get(r.episode)! * EVIDENCE_WEIGHT * (0.7 + 0.3 * r.confidence);
        const at = facts.get(r.id);
        if (at === undefined) {
          facts.set(r.id, results.length);
          results.push({ type: 'fact', id: r.id, score });
        } else if (results[at]!.score < score) results[at]!.score = score;
      }
    }
  }
  // Stable: equal scores keep arm order (facts first, a belief before the turn it rests on),
  // then BM25 order; of two episodes with equal scores (recency too small to tell them apart), the
  // newer first.
  results.sort(
    (a, b) =>
      b.score - a.score ||
      (a.type === b.type
        ? a.type === 'episode' && b.type === 'episode'
          ? b.occurred_at - a.occurred_at
          : 0
        : a.type === 'fact'
          ? -1
          : 1),
  );
  // The cut: the best `limit`, read whole. A fact or an episode the journal does not explain
  // (changed or written outside keel) is left out, its id listed in `unexplained` or
  // `unexplainedEpisodes`, and the next one takes its place (removing it changes no other score).
  // Only the rows about to be returned are checked.
  const top: typeof results = [];
  const facts = new Map<number, Fact>();
  const full = new Map<number, Episode>();
  const unexplained = new Set<number>();
  const unexplainedTurns = new Set<number>();
  for (let next = 0; top.length < limit && next < results.length; ) {
    const batch = results.slice(next, next + limit - top.length);
    next += batch.length;
    const bare = batch.filter((x) => x.type === 'fact' && !('ref' in x)).map((x) => x.id);
    if (bare.length > 0) {
      const rows = stmt(
        ctx.db,
        'SELECT f.* FROM json_each(?) j CROSS JOIN facts f ON f.id = j.value',
      ).all(JSON.stringify(bare)) as Fact[];
      for (const f of rows) facts.set(f.id, f);
      for (const id of unexplainedFacts(ctx.db, rows)) unexplained.add(id);
    }
    const turns = batch.filter((x) => x.type === 'episode').map((x) => x.id);
    if (turns.length > 0) {
      const rows = stmt(
        ctx.db,
        'SELECT e.* FROM json_each(?) j CROSS JOIN episodes e ON e.id = j.value',
      ).all(JSON.stringify(turns)) as Episode[];
      for (const e of rows) full.set(e.id, e);
      for (const id of unexplainedEpisodes(ctx.db, rows)) unexplainedTurns.add(id);
    }
    for (const x of batch) {
      if (x.type === 'fact' ? !unexplained.has(x.id) : !unexplainedTurns.has(x.id)) top.push(x);
    }
  }
  if (unexplained.size > 0) response.unexplained = [...unexplained].sort((a, b) => a - b);
  if (unexplainedTurns.size > 0) {
    response.unexplainedEpisodes = [...unexplainedTurns].sort((a, b) => a - b);
  }
  response.results = top.map((x): RecallResult => {
    if (x.type === 'fact') {
      if ('ref' in x) return x;
      return factResult(facts.get(x.id)!, x.score, now);
    }
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

  const factResults = response.results.filter((x): x is FactResult => x.type === 'fact');
  const episodes = response.results.filter((x): x is EpisodeResult => x.type === 'episode');
  if (episodes.length > 0) {
    // Audit read (any status): which beliefs each episode supports, so stale ones are marked.
    // One query for all of them.
    const byEpisode = new Map(episodes.map((e) => [e.id, e]));
    const rows = stmt(
      ctx.db,
      `SELECT fe.episode_id AS episode, f.id, f.status FROM json_each(?) j
       CROSS JOIN fact_evidence fe ON fe.episode_id = j.value
       JOIN facts f ON f.id = fe.fact_id ORDER BY fe.episode_id, f.id`,
    ).all(JSON.stringify([...byEpisode.keys()])) as {
      episode: number;
      id: number;
      status: Status;
    }[];
    for (const r of rows) byEpisode.get(r.episode)!.supports.push({ id: r.id, status: r.status });
  }
  if (options.withEvidence !== false && factResults.length > 0) {
    for (const f of factResults) f.evidence = [];
    const byFact = new Map(factResults.map((f) => [f.id, f.evidence!]));
    const rows = stmt(
      ctx.db,
      `SELECT fe.fact_id AS fact, fe.episode_id AS episode FROM json_each(?) j
       CROSS JOIN fact_evidence fe ON fe.fact_id = j.value ORDER BY fe.fact_id, fe.id`,
    ).all(JSON.stringify([...byFact.keys()])) as { fact: number; episode: number }[];
    for (const r of rows) byFact.get(r.fact)!.push(r.episode);
  }
  return response;
}

/** A fact as recall returns it, with its score (evidence is added by the caller). */
function factResult(f: Fact, score: number, now: number): FactResult {
  return {
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
  };
}

/** The scoring columns of a fact. */
type FactKey = Pick<Fact, 'id' | 'scope' | 'status' | 'confidence'>;

/** The scoring columns of the facts `hits` (from the in-memory mirror), in their order, with their BM25. */
function factKeys(
  ctx: StoreContext,
  hits: { id: number; bm: number }[],
): (FactKey & { bm: number })[] {
  if (hits.length === 0) return [];
  const rows = new Map(
    (
      stmt(
        ctx.db,
        'SELECT f.id, f.scope, f.status, f.confidence FROM json_each(?) j CROSS JOIN facts f ON f.id = j.value',
      ).all(JSON.stringify(hits.map((h) => h.id))) as FactKey[]
    ).map((f) => [f.id, f]),
  );
  return hits.flatMap((h) => {
    const f = rows.get(h.id);
    return f ? [{ ...f, bm: h.bm }] : [];
  });
}

/**
 * The scoring columns of `hits` (from the in-memory index), in their order, with their BM25; null
 * stays null (the index could not answer).
 */
function withKeys(
  ctx: StoreContext,
  index: RecallIndex,
  hits: { id: number; bm: number }[] | null,
): (EpisodeKey & { bm: number })[] | null {
  if (!hits) return null;
  if (hits.length === 0) return [];
  const ids = hits.map((h) => h.id);
  const keys = new Map(
    (
      index.turnKeys(ids) ??
      stmt(
        ctx.db,
        `SELECT e.id, e.occurred_at, e.session_key, e.channel, e.speaker
         FROM json_each(?) j CROSS JOIN episodes e ON e.id = j.value`,
      ).all(JSON.stringify(ids))
    ).map((e) => [(e as EpisodeKey).id, e as EpisodeKey]),
  );
  return hits.flatMap((h) => {
    const e = keys.get(h.id);
    return e ? [{ ...e, bm: h.bm }] : [];
  });
}

/** The most turns a window may hold for its matches to be searched by their rowid range. */
const WINDOW_RANGE_ROWS = 2000;
/**
 * A wider window's matches are read from the main BM25 pass, this many times deeper (one pass over
 * the matches, not two).
 */
const WIDE_WINDOW_DEPTH = 8;

/** How many turns `[from, to)` holds (counted up to {@link WINDOW_RANGE_ROWS} + 1), and their ids' range. */
interface WindowSpan {
  n: number;
  lo: number | null;
  hi: number | null;
}

/** The turns in `[from, to)`: one probe of the time index, reading at most WINDOW_RANGE_ROWS + 1. */
function windowSpan(ctx: StoreContext, from: number, to: number): WindowSpan {
  return stmt(
    ctx.db,
    `SELECT count(*) AS n, min(id) AS lo, max(id) AS hi FROM (
       SELECT id FROM episodes WHERE occurred_at >= ? AND occurred_at < ? LIMIT ?)`,
  ).get(from, to, WINDOW_RANGE_ROWS + 1) as WindowSpan;
}

/**
 * The best `depth` episodes in `[from, to)` matching `match` (an episodes_fts expression), by
 * BM25: a window of at most {@link WINDOW_RANGE_ROWS} turns within its rowid range (turns are
 * written in time order, so the range is tight), a larger one over every match.
 */
function windowMatches(
  ctx: StoreContext,
  match: string,
  from: number,
  to: number,
  depth: number,
  span: WindowSpan,
): (EpisodeKey & { bm: number })[] {
  const narrow = 'e.id, e.occurred_at, e.session_key, e.channel, e.speaker';
  if (span.n <= WINDOW_RANGE_ROWS) {
    return stmt(
      ctx.db,
      `SELECT ${narrow}, bm25(episodes_fts) AS bm FROM episodes_fts
       JOIN episodes e ON e.id = episodes_fts.rowid
       WHERE episodes_fts MATCH ? AND episodes_fts.rowid >= ? AND episodes_fts.rowid <= ?
         AND e.occurred_at >= ? AND e.occurred_at < ?
       ORDER BY bm LIMIT ?`,
    ).all(match, span.lo, span.hi, from, to, depth) as (EpisodeKey & { bm: number })[];
  }
  return stmt(
    ctx.db,
    `SELECT ${narrow}, bm25(episodes_fts) AS bm FROM episodes_fts
     JOIN episodes e ON e.id = episodes_fts.rowid
     WHERE episodes_fts MATCH ? AND e.occurred_at >= ? AND e.occurred_at < ?
     ORDER BY bm LIMIT ?`,
  ).all(match, from, to, depth) as (EpisodeKey & { bm: number })[];
}

/**
 * The facts arm "as of" a moment: every fact of `scope` whose validity interval holds `asOf`
 * (`valid_from`, or when it was recorded, at or before it; `valid_to` after it or open), or whose
 * start is unknown and end known after `asOf` (answered with `start_unknown`: the owner said
 * when it stopped, not when it began), in any
 * status a once-true belief can have — current, superseded, or retracted as no longer true — but
 * never one the owner forgot, purged or rejected, nor one pruned (each has a tombstone), nor a
 * pending conflict. The full-text index holds current facts only, so these are matched here: a
 * fact scores by how many of the query's words its kind, key and value hold (as the index would
 * hold them, {@link termCounter}: case and punctuation aside, a Thai word inside its sentence, a
 * Hebrew word with or without its prefix), times the confidence weight; facts holding none are left
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
       AND (f.valid_to IS NULL OR f.valid_to > ?)
       AND (coalesce(f.valid_from, f.created_at) <= ?
            OR (f.valid_from IS NULL AND f.valid_to IS NOT NULL))
       AND NOT EXISTS (SELECT 1 FROM tombstones t WHERE t.fact_id = f.id)`,
  ).all(scope, asOf, asOf) as Fact[];
  const held = termCounter(terms);
  const matched: { f: Fact; hits: number }[] = [];
  for (const f of rows) {
    const hits = held(`${f.kind} ${f.key.replace(/[_.-]+/g, ' ')} ${f.value}`);
    if (hits > 0) matched.push({ f, hits });
  }
  const unexplained = unexplainedFacts(
    ctx.db,
    matched.map((m) => m.f),
  );
  const scored: FactResult[] = [];
  for (const { f, hits } of matched) {
    if (unexplained.has(f.id)) continue;
    const r = factResult(f, (hits / (RRF_K + 1)) * (0.7 + 0.3 * f.confidence), now);
    scored.push(f.valid_from === null && f.valid_to !== null ? { ...r, start_unknown: true } : r);
  }
  return {
    results: scored.sort((a, b) => b.score - a.score || b.id - a.id).slice(0, depth),
    unexplained: [...unexplained].sort((a, b) => a - b),
  };
}
