/**
 * The owner's review surface and forgetting: list what needs a decision, confirm, reject, forget,
 * and purge. Every state has an exit: a pending row leaves by confirm or reject; an active row by
 * supersession, forget, reject or prune.
 *
 * @module
 */

import { KeelError } from '@keel/errors';
import { type StoreContext, stmt } from './context.js';
import { addEpisode } from './episodes.js';
import { activeFact, factById, slotRows } from './facts.js';
import { appendJournal } from './journal.js';
import { valuePattern } from './text.js';
import type { Actor, Fact } from './types.js';
import { clearReviewFlags, isOwnerSource } from './write.js';

/** Confidence below which a non-owner belief is listed for review. */
export const WEAK_BELIEF_THRESHOLD = 0.75;

/** A pending conflict with the value it contradicts. */
export interface PendingItem {
  fact: Fact;
  /** The current value it contradicts, if the slot still has one. */
  current: Fact | null;
}

/** What `review` lists. */
export interface ReviewQueue {
  pending: PendingItem[];
  /** Active beliefs not from the owner with confidence below the threshold, weakest first. */
  weak: Fact[];
  /**
   * Active beliefs (the owner's included) with an open `stale` review flag: no evidence for a long
   * time (see `flagStaleBeliefs`), oldest flag first. A belief may be both weak and stale. A new
   * sighting, confirm, reject or forget clears the flag.
   */
  stale: Fact[];
  threshold: number;
}

/** Lists pending conflicts, weakly evidenced beliefs and beliefs flagged as stale. */
export function reviewQueue(ctx: StoreContext, threshold = WEAK_BELIEF_THRESHOLD): ReviewQueue {
  // Pending rows are not current beliefs; this audit read is the review surface itself.
  const pending = (
    stmt(
      ctx.db,
      `SELECT * FROM facts WHERE status = 'pending' ORDER BY created_at, id`,
    ).all() as Fact[]
  ).map((fact) => ({ fact, current: activeFact(ctx, fact) ?? null }));
  const weak = stmt(
    ctx.db,
    `SELECT * FROM active_facts
     WHERE confidence < ? AND source NOT IN ('owner_stated', 'owner_confirmed')
     ORDER BY confidence, id`,
  ).all(threshold) as Fact[];
  const stale = stmt(
    ctx.db,
    `SELECT f.* FROM review_flags r JOIN active_facts f ON f.id = r.fact_id
     WHERE r.reason = 'stale' AND r.cleared_at IS NULL
     ORDER BY r.flagged_at, f.id`,
  ).all() as Fact[];
  return { pending, weak, stale, threshold };
}

function loadFact(ctx: StoreContext, id: number): Fact {
  const fact = factById(ctx, id);
  if (!fact) throw new KeelError('NOT_FOUND', `no fact ${id}`, { details: { id } });
  return fact;
}

function ownerEpisode(ctx: StoreContext, text: string, channel: string): number {
  return addEpisode(ctx, { kind: 'command', channel, role: 'owner', text, actor: 'owner' }).id;
}

/** Options shared by the owner's verbs. */
export interface OwnerActionOptions {
  /** Channel the owner acted from (terminal, cli, discord). Default "cli". */
  channel?: string;
}

/**
 * The owner confirms a belief: it becomes `owner_confirmed` at confidence 1.0. A pending conflict
 * becomes the current value and supersedes what it contradicted.
 *
 * @returns the confirmed fact and the one it superseded, if any.
 * @throws KeelError `NOT_FOUND`, `INVALID_STATE` (not active or pending).
 */
export function confirm(
  ctx: StoreContext,
  id: number,
  options: OwnerActionOptions = {},
): { fact: Fact; superseded: Fact | null } {
  const run = ctx.db.transaction(() => {
    const now = ctx.now();
    const fact = loadFact(ctx, id);
    if (fact.status !== 'active' && fact.status !== 'pending') {
      throw new KeelError(
        'INVALID_STATE',
        `fact ${id} is ${fact.status}; only active or pending facts can be confirmed`,
      );
    }
    const episodeId = ownerEpisode(ctx, `confirm f${id}`, options.channel ?? 'cli');
    let superseded: Fact | null = null;
    if (fact.status === 'pending') {
      const current = activeFact(ctx, fact);
      if (current) {
        stmt(
          ctx.db,
          `UPDATE facts SET status = 'superseded', superseded_by_id = ?, updated_at = ?,
             valid_to = coalesce(valid_to, ?), status_reason = 'owner confirmed another value' WHERE id = ?`,
        ).run(id, now, now, current.id);
        superseded = factById(ctx, current.id)!;
      }
      // Other pending rows for the same slot and value are resolved by this confirmation.
      for (const p of slotRows(ctx, fact, ['pending'])) {
        if (p.id !== id && p.value_hash === fact.value_hash) {
          stmt(
            ctx.db,
            `UPDATE facts SET status = 'superseded', superseded_by_id = ?, updated_at = ?,
               status_reason = 'resolved: the same value was confirmed' WHERE id = ?`,
          ).run(id, now, p.id);
        }
      }
    }
    stmt(
      ctx.db,
      'INSERT OR IGNORE INTO fact_evidence (fact_id, episode_id, source, observed_at) VALUES (?, ?, ?, ?)',
    ).run(id, episodeId, 'owner_confirmed', now);
    stmt(
      ctx.db,
      `UPDATE facts SET status = 'active', source = 'owner_confirmed', confidence = 1.0,
         evidence_count = (SELECT count(*) FROM fact_evidence WHERE fact_id = ?),
         supersedes_id = coalesce(?, supersedes_id), conflicts_with_id = NULL,
         last_seen_at = ?, updated_at = ?, status_reason = 'confirmed by the owner' WHERE id = ?`,
    ).run(id, superseded?.id ?? null, now, now, id);
    // The owner has re-validated the belief: a stale flag on it is answered.
    const cleared = clearReviewFlags(ctx, id, now);
    const after = factById(ctx, id)!;
    appendJournal(ctx.db, {
      at: now,
      actor: 'owner',
      op: 'confirm',
      entity: 'fact',
      entityId: id,
      payload: {
        before: { status: fact.status, source: fact.source, confidence: fact.confidence },
        after,
        superseded: superseded?.id ?? null,
        ...(cleared ? { review_flags_cleared: cleared } : {}),
      },
    });
    return { fact: after, superseded };
  });
  return run.immediate();
}

function tombstone(
  ctx: StoreContext,
  fact: Fact,
  reason: 'forgotten' | 'purged' | 'pruned' | 'rejected',
  now: number,
) {
  stmt(
    ctx.db,
    `INSERT INTO tombstones (scope, kind, key, value_hash, reason, fact_id, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?)`,
  ).run(fact.scope, fact.kind, fact.key, fact.value_hash, reason, fact.id, now);
}

/**
 * Moves an active or pending fact to `status` and leaves a tombstone so that no later observed or
 * inferred write can bring the value back, and clears the fact's open review flags. Used by
 * reject, forget and prune.
 *
 * @throws KeelError `NOT_FOUND`, `INVALID_STATE`.
 */
export function retire(
  ctx: StoreContext,
  id: number,
  how: {
    status: 'rejected' | 'retracted';
    reason: 'rejected' | 'forgotten' | 'pruned';
    actor: Actor;
    why: string;
  },
): Fact {
  const now = ctx.now();
  const fact = loadFact(ctx, id);
  if (fact.status !== 'active' && fact.status !== 'pending') {
    throw new KeelError('INVALID_STATE', `fact ${id} is already ${fact.status}`);
  }
  stmt(
    ctx.db,
    `UPDATE facts SET status = ?, updated_at = ?, valid_to = coalesce(valid_to, ?), status_reason = ? WHERE id = ?`,
  ).run(how.status, now, now, how.why, id);
  tombstone(ctx, fact, how.reason, now);
  // The belief left the active set: nothing about it is left to review.
  const cleared = clearReviewFlags(ctx, id, now);
  const after = factById(ctx, id)!;
  appendJournal(ctx.db, {
    at: now,
    actor: how.actor,
    op: how.reason === 'rejected' ? 'reject' : how.reason === 'pruned' ? 'prune' : 'forget',
    entity: 'fact',
    entityId: id,
    payload: {
      before: { status: fact.status },
      after: { status: after.status },
      reason: how.why,
      value: fact.value,
      ...(cleared ? { review_flags_cleared: cleared } : {}),
    },
  });
  return after;
}

/**
 * The owner rejects a belief: `rejected` plus a tombstone.
 *
 * @throws KeelError `NOT_FOUND`, `INVALID_STATE`.
 */
export function reject(ctx: StoreContext, id: number, options: OwnerActionOptions = {}): Fact {
  return ctx.db
    .transaction(() => {
      ownerEpisode(ctx, `reject f${id}`, options.channel ?? 'cli');
      return retire(ctx, id, {
        status: 'rejected',
        reason: 'rejected',
        actor: 'owner',
        why: 'rejected by the owner',
      });
    })
    .immediate();
}

/** What `forget` did. */
export interface ForgetResult {
  fact: Fact;
  purged: boolean;
  /** Rows of the slot whose value was erased (the fact and earlier versions with the same value). */
  erasedFacts: number[];
  /** Journal entries whose payload was redacted. */
  redactedJournal: number;
  /** Episodes whose text contained the value and had it redacted. */
  redactedEpisodes: number[];
}

/**
 * Columns holding text derived from the conversation, scrubbed by a purge like the episodes:
 * `[table, column]`.
 */
export const PURGE_DERIVED: readonly (readonly [string, string])[] = [
  ['messages', 'content'],
  ['turns', 'input'],
  ['turns', 'error'],
  ['sessions', 'anchor'],
  ['belief_queue', 'reason'],
  ['interrupts', 'text'],
  ['think_runs', 'summary'],
  ['think_runs', 'error'],
  ['curator_diary', 'text'],
];

/** The text that replaces a purged value. */
export const PURGED = '[purged]';

/**
 * Forgets a fact: `retracted` plus a tombstone, so a later observed or inferred write of the value
 * is ignored (an owner_stated write may restore it). With `purge`, the value is also erased from
 * every fact row of the slot that held it, from the FTS index, from the journal's payloads and
 * from the episodes it was stated in; its hash is kept so the tombstone still works.
 *
 * @throws KeelError `NOT_FOUND`, `INVALID_STATE` (already gone and not purging).
 */
export function forget(
  ctx: StoreContext,
  id: number,
  options: OwnerActionOptions & { purge?: boolean } = {},
): ForgetResult {
  const result = ctx.db
    .transaction((): ForgetResult => {
      const now = ctx.now();
      let fact = loadFact(ctx, id);
      ownerEpisode(
        ctx,
        `forget f${id}${options.purge ? ' --purge' : ''}`,
        options.channel ?? 'cli',
      );
      if (fact.status === 'active' || fact.status === 'pending') {
        fact = retire(ctx, id, {
          status: 'retracted',
          reason: 'forgotten',
          actor: 'owner',
          why: 'forgotten by the owner',
        });
      } else if (!options.purge) {
        throw new KeelError(
          'INVALID_STATE',
          `fact ${id} is already ${fact.status}; use --purge to erase its value`,
        );
      }
      if (!options.purge)
        return { fact, purged: false, erasedFacts: [], redactedJournal: 0, redactedEpisodes: [] };
      if (fact.purged_at !== null) {
        return { fact, purged: true, erasedFacts: [], redactedJournal: 0, redactedEpisodes: [] };
      }
      const value = fact.value;
      // Every non-current row of the slot holding this value (history included) is erased.
      const rows = (
        stmt(
          ctx.db,
          'SELECT * FROM facts WHERE scope = ? AND kind = ? AND key = ? AND value_hash = ?',
        ).all(fact.scope, fact.kind, fact.key, fact.value_hash) as Fact[]
      ).filter((r) => r.status !== 'active' && r.status !== 'pending');
      for (const r of rows) {
        stmt(ctx.db, 'UPDATE facts SET value = ?, purged_at = ?, updated_at = ? WHERE id = ?').run(
          PURGED,
          now,
          now,
          r.id,
        );
      }
      tombstone(ctx, fact, 'purged', now);
      // Every stored form of the value: case, punctuation and Unicode form do not matter.
      const pattern = valuePattern(value);
      const scrub = (text: string) =>
        pattern ? text.normalize('NFKC').replace(pattern, PURGED) : text;
      // The journal: every payload string that carries the value is redacted.
      let redactedJournal = 0;
      if (pattern) {
        const scrubJson = (node: unknown): unknown => {
          if (typeof node === 'string') return scrub(node);
          if (Array.isArray(node)) return node.map(scrubJson);
          if (node && typeof node === 'object') {
            return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, scrubJson(v)]));
          }
          return node;
        };
        const redact = stmt(
          ctx.db,
          'UPDATE journal SET payload = ?, redacted_at = ? WHERE seq = ?',
        );
        for (const e of ctx.db.prepare('SELECT seq, payload FROM journal').all() as {
          seq: number;
          payload: string;
        }[]) {
          pattern.lastIndex = 0;
          if (!pattern.test(e.payload.normalize('NFKC'))) continue;
          const payload = JSON.stringify(scrubJson(JSON.parse(e.payload)));
          if (payload === e.payload) continue;
          redact.run(payload, now, e.seq);
          redactedJournal++;
        }
      }
      // Episodes the value was stated in (its evidence) lose the value's text.
      const ids = rows.map((r) => r.id);
      const redactedEpisodes: number[] = [];
      const evidence = ids.length
        ? (ctx.db
            .prepare(
              `SELECT DISTINCT e.id, e.text FROM fact_evidence fe JOIN episodes e ON e.id = fe.episode_id
               WHERE fe.fact_id IN (${ids.map(() => '?').join(',')})`,
            )
            .all(...ids) as { id: number; text: string }[])
        : [];
      for (const ep of evidence) {
        if (!pattern) break;
        pattern.lastIndex = 0;
        if (!pattern.test(ep.text.normalize('NFKC'))) continue;
        stmt(ctx.db, 'UPDATE episodes SET text = ?, redacted_at = ? WHERE id = ?').run(
          scrub(ep.text),
          now,
          ep.id,
        );
        redactedEpisodes.push(ep.id);
      }
      // Text derived from the conversation elsewhere: the model-facing session history, turn
      // inputs and errors, the compaction summary, and the think service's records.
      let redactedDerived = 0;
      if (pattern) {
        for (const [table, column] of PURGE_DERIVED) {
          const update = stmt(ctx.db, `UPDATE ${table} SET ${column} = ? WHERE rowid = ?`);
          for (const row of ctx.db
            .prepare(
              `SELECT rowid AS id, ${column} AS text FROM ${table} WHERE ${column} IS NOT NULL`,
            )
            .all() as { id: number; text: string }[]) {
            pattern.lastIndex = 0;
            if (!pattern.test(row.text.normalize('NFKC'))) continue;
            update.run(scrub(row.text), row.id);
            redactedDerived++;
          }
        }
      }
      appendJournal(ctx.db, {
        at: now,
        actor: 'owner',
        op: 'purge',
        entity: 'fact',
        entityId: id,
        payload: {
          erased_facts: ids,
          value_hash: fact.value_hash,
          redacted_journal: redactedJournal,
          redacted_episodes: redactedEpisodes,
          redacted_derived: redactedDerived,
        },
      });
      return {
        fact: factById(ctx, id)!,
        purged: true,
        erasedFacts: ids,
        redactedJournal,
        redactedEpisodes,
      };
    })
    .immediate();
  if (result.purged && result.erasedFacts.length > 0) {
    // Merge FTS segments so deleted tokens are gone from disk, and fold the WAL into the file.
    ctx.db.exec(`INSERT INTO facts_fts (facts_fts) VALUES ('optimize')`);
    ctx.db.exec(`INSERT INTO episodes_fts (episodes_fts) VALUES ('optimize')`);
    // Inside a caller's unit of work the WAL cannot be folded yet (SQLite refuses a checkpoint in
    // a transaction); `MemoryStore.transaction` folds it once the unit commits.
    if (!ctx.db.inTransaction) ctx.db.pragma('wal_checkpoint(TRUNCATE)');
  }
  return result;
}

/** True when a fact's source lets it decay and be pruned (never the owner's word). */
export function isDecayable(fact: Pick<Fact, 'source' | 'evidence_count'>): boolean {
  return !isOwnerSource(fact.source) && fact.evidence_count === 1;
}
