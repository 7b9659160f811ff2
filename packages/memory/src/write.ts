/**
 * The one place that decides what is written. Every writer (the owner's commands, the model's
 * tool calls, the reflection tick, the curator, an import) calls {@link remember}, which reviews the
 * write without a model and applies the evidence gate inside the store:
 *
 * | decision    | when                                                             |
 * |-------------|------------------------------------------------------------------|
 * | create      | the slot is empty                                                |
 * | corroborate | same value (after normalisation) from a new episode              |
 * | update      | different value from a source at least as authoritative          |
 * | conflict    | a weaker source contradicts an owner-stated or strong fact       |
 * | ignore      | same episode again, tombstoned value, secret, injection          |
 *
 * Every decision, refusals included, is written to the journal with its reason.
 *
 * What the owner forgot stays forgotten: a writer that is not the owner is refused when the value
 * is tombstoned in its slot (any reason), when the owner forgot or purged the same value under any
 * kind or key of the scope ({@link REFUSED_FORGOTTEN_VALUE}), and when its episode supported a fact
 * of the same scope and kind that the owner forgot or purged ({@link REFUSED_FORGOTTEN_EPISODE}).
 * An owner source is never refused by a tombstone; saying the value again in its slot lifts it.
 *
 * @module
 */

import { KeelError } from '@keel/errors';
import { type StoreContext, stmt } from './context.js';
import { addEpisode } from './episodes.js';
import { activeFact, factById, slotRows } from './facts.js';
import { appendJournal } from './journal.js';
import { findSecret, looksLikeInjection } from './scan.js';
import { normalizeValue, valueHash } from './text.js';
import {
  type Actor,
  type Decision,
  type Fact,
  KINDS,
  type Kind,
  SCOPES,
  type Scope,
  type Slot,
  SOURCES,
  type Source,
} from './types.js';

/** First confidence of an observed or inferred belief (the evidence gate's cap). */
export const FIRST_SIGHTING_CAP = 0.7;
/** Confidence added per independent repeat (from a different episode). */
export const REPEAT_STEP = 0.05;
/** The most any belief not from the owner can reach. */
export const NON_OWNER_MAX = 0.95;
/** A non-owner belief at or above this is "strong": a weaker new sighting cannot replace it. */
export const STRONG_CONFIDENCE = 0.85;
/** The longest fact value, in characters. */
export const MAX_VALUE_CHARS = 4000;

/**
 * The refusal reason when a writer other than the owner offers a value the owner forgot or purged
 * under another kind or key of the same scope (a model may propose a new key for the same thing).
 */
export const REFUSED_FORGOTTEN_VALUE =
  'the owner forgot this value (tombstoned under another key); only the owner can restore it';
/**
 * The refusal reason when a writer other than the owner writes from an episode that supported a
 * fact of the same scope and kind the owner forgot or purged: the owner's forget covers what that
 * episode said about that kind.
 */
export const REFUSED_FORGOTTEN_EPISODE =
  'the owner forgot what this episode said about this; only the owner can restore it';

const OWNER_SOURCES: readonly Source[] = ['owner_stated', 'owner_confirmed'];

/** True for the sources that speak with the owner's authority. */
export function isOwnerSource(source: Source): boolean {
  return OWNER_SOURCES.includes(source);
}

/** How authoritative a source is; a write may replace a stored value of equal or lower rank. */
export function authority(source: Source): number {
  switch (source) {
    case 'owner_stated':
    case 'owner_confirmed':
      return 3;
    case 'system':
      return 2;
    case 'observed':
    case 'imported':
      return 1;
    case 'inferred':
      return 0;
  }
}

/** Rounds a confidence to 4 decimals, as the store keeps it. */
export const round = (x: number) => Math.round(x * 10_000) / 10_000;

/**
 * The evidence gate: the most confidence a belief may hold given its source and how many
 * independent episodes support it. Owner sources may hold 1.0; others start at most at 0.70 and
 * rise 0.05 per independent repeat to at most 0.95.
 *
 * @param independentEvidence - distinct supporting episodes, ≥ 1.
 * @returns a ceiling in 0..1.
 */
export function confidenceCeiling(source: Source, independentEvidence: number): number {
  if (isOwnerSource(source)) return 1;
  return round(
    Math.min(
      NON_OWNER_MAX,
      FIRST_SIGHTING_CAP + REPEAT_STEP * Math.max(0, independentEvidence - 1),
    ),
  );
}

/** What a writer asks the store to believe. */
export interface RememberInput {
  scope?: Scope;
  kind: Kind;
  /** A short stable slug the caller reuses for the same subject (never a timestamp). */
  key: string;
  value: string;
  source: Source;
  /** The episode this sighting comes from; without one, a `command` episode is recorded. */
  episodeId?: number;
  /** A requested confidence 0..1; the gate caps it. Default: the ceiling. */
  confidence?: number;
  /** The value has been true since (ms since epoch). */
  validFrom?: number | null;
  /** Who performs the write, for the journal. Default: owner for owner sources, else system. */
  actor?: Actor;
  /** Channel for the episode recorded when `episodeId` is absent. Default "api". */
  channel?: string;
}

/** The outcome of a write. */
export interface WriteResult {
  decision: Decision;
  /** Why, in words (stable phrases; see the module table). */
  reason: string;
  /** The row written or touched; for `ignore`, the row that caused it when there is one. */
  fact: Fact | null;
  /** The episode this sighting was recorded against. */
  episodeId: number;
}

const SLUG = /^[\p{Ll}\p{Lo}\p{N}][\p{Ll}\p{Lo}\p{N}_.-]*$/u;

/**
 * Normalises a caller's key to a slug: lower case, spaces and slashes to underscores.
 *
 * @throws KeelError `INVALID_INPUT` for an empty key, one with other characters, or a
 *   timestamp-like key (ten or more digits in a row).
 */
export function normalizeKey(key: string): string {
  const k = key
    .normalize('NFKC')
    .trim()
    .toLowerCase()
    .replace(/[\s/]+/g, '_');
  if (!k || k.length > 120 || !SLUG.test(k)) {
    throw new KeelError(
      'INVALID_INPUT',
      `key "${key}" must be a short slug: letters, digits, _ . - (at most 120 characters)`,
    );
  }
  if (/\d{10,}/.test(k)) {
    throw new KeelError(
      'INVALID_INPUT',
      `key "${key}" looks like a timestamp; use a stable subject`,
    );
  }
  return k;
}

function validate(input: RememberInput): { slot: Slot; value: string } {
  const scope = input.scope ?? 'owner';
  if (!SCOPES.includes(scope)) throw new KeelError('INVALID_INPUT', `unknown scope "${scope}"`);
  if (!KINDS.includes(input.kind)) {
    throw new KeelError(
      'INVALID_INPUT',
      `unknown kind "${input.kind}"; one of: ${KINDS.join(', ')}`,
    );
  }
  if (!SOURCES.includes(input.source)) {
    throw new KeelError(
      'INVALID_INPUT',
      `unknown source "${input.source}"; one of: ${SOURCES.join(', ')}`,
    );
  }
  if (typeof input.value !== 'string') throw new KeelError('INVALID_INPUT', 'value must be text');
  const value = input.value.replace(/\u0000/g, ' ').trim();
  if (!value) throw new KeelError('INVALID_INPUT', 'value is empty');
  if (value.length > MAX_VALUE_CHARS) {
    throw new KeelError(
      'TOO_LARGE',
      `value is ${value.length} characters; a fact holds at most ${MAX_VALUE_CHARS}`,
      { details: { length: value.length, limit: MAX_VALUE_CHARS } },
    );
  }
  if (input.confidence !== undefined && !(input.confidence >= 0 && input.confidence <= 1)) {
    throw new KeelError('INVALID_INPUT', 'confidence must be between 0 and 1');
  }
  return { slot: { scope, kind: input.kind, key: normalizeKey(input.key) }, value };
}

const INSERT_FACT = `INSERT INTO facts
  (scope, kind, key, value, value_hash, status, source, confidence, evidence_count, created_at,
   updated_at, last_seen_at, valid_from, supersedes_id, conflicts_with_id, status_reason)
  VALUES (@scope, @kind, @key, @value, @value_hash, @status, @source, @confidence, 1, @now, @now, @now,
   @valid_from, @supersedes_id, @conflicts_with_id, @status_reason)`;

/**
 * Clears a fact's open review flags (e.g. `stale`): a new sighting, confirm, reject, forget, prune
 * or a merge has answered them. Runs inside the caller's transaction.
 *
 * @param now - ms since epoch, recorded as `cleared_at`.
 * @returns how many open flags were cleared (0 when there were none).
 */
export function clearReviewFlags(ctx: StoreContext, factId: number, now: number): number {
  return stmt(
    ctx.db,
    'UPDATE review_flags SET cleared_at = ? WHERE fact_id = ? AND cleared_at IS NULL',
  ).run(now, factId).changes;
}

/**
 * Records that `episodeId` supports `factId`, seen at `observedAt` (ms).
 *
 * @returns false if it already did.
 */
export function addEvidence(
  ctx: StoreContext,
  factId: number,
  episodeId: number,
  source: Source,
  observedAt: number,
): boolean {
  const r = stmt(
    ctx.db,
    'INSERT OR IGNORE INTO fact_evidence (fact_id, episode_id, source, observed_at) VALUES (?, ?, ?, ?)',
  ).run(factId, episodeId, source, observedAt);
  return r.changes === 1;
}

/**
 * The owner's forgetting beyond the exact slot, for a writer that is not the owner: an unlifted
 * `forgotten` or `purged` tombstone of the same value anywhere in the scope, or an unlifted one on
 * a fact of the same scope and kind that `episodeId` supported. Pruned and rejected tombstones bind
 * only their own slot (checked by the caller). The refusal never carries the value.
 */
function forgottenByOwner(
  ctx: StoreContext,
  slot: Slot,
  value: string,
  hash: string,
  episodeId: number | undefined,
): { reason: string; withValue: false; details: Record<string, unknown> } | null {
  const elsewhere = stmt(
    ctx.db,
    `SELECT id FROM tombstones
     WHERE scope = ? AND value_hash = ? AND reason IN ('forgotten', 'purged') AND lifted_at IS NULL
     ORDER BY id LIMIT 1`,
  ).get(slot.scope, hash) as { id: number } | undefined;
  if (elsewhere) {
    return {
      reason: REFUSED_FORGOTTEN_VALUE,
      withValue: false,
      details: { tombstone_id: elsewhere.id },
    };
  }
  if (episodeId === undefined) return null;
  const forgotten = stmt(
    ctx.db,
    `SELECT t.id AS tombstone_id, g.id AS fact_id, g.kind, g.value, g.purged_at
     FROM fact_evidence fe JOIN facts g ON g.id = fe.fact_id JOIN tombstones t ON t.fact_id = g.id
     WHERE fe.episode_id = ? AND g.scope = ?
       AND t.reason IN ('forgotten', 'purged') AND t.lifted_at IS NULL
     ORDER BY t.id`,
  ).all(episodeId, slot.scope) as {
    tombstone_id: number;
    fact_id: number;
    kind: string;
    value: string;
    purged_at: number | null;
  }[];
  const said = ` ${normalizeValue(value)} `;
  for (const g of forgotten) {
    // Covered: the same kind; anything from an episode the owner purged; or, in any kind, a value
    // that holds the forgotten one or is held by it ("allergic to penicillin" / "penicillin").
    const gone = ` ${normalizeValue(g.value)} `;
    const overlaps = gone.trim().length > 0 && (said.includes(gone) || gone.includes(said));
    if (g.kind === slot.kind || g.purged_at !== null || overlaps) {
      return {
        reason: REFUSED_FORGOTTEN_EPISODE,
        withValue: false,
        details: { tombstone_id: g.tombstone_id, forgotten_fact_id: g.fact_id },
      };
    }
  }
  return null;
}

/**
 * Reviews and applies one write. Runs in one IMMEDIATE transaction, so concurrent writers from
 * several processes serialise and never see a half-applied decision.
 *
 * @returns the decision, its reason and the row.
 * @throws KeelError `INVALID_INPUT`, `TOO_LARGE`, `NOT_FOUND` (unknown episode).
 */
export function remember(ctx: StoreContext, input: RememberInput): WriteResult {
  const { slot, value } = validate(input);
  const hash = valueHash(value);
  const actor: Actor = input.actor ?? (isOwnerSource(input.source) ? 'owner' : 'system');
  const run = ctx.db.transaction((): WriteResult => {
    const now = ctx.now();
    // Refusals that hold whatever is stored, decided before anything is written.
    const secret = findSecret(value);
    const tombstone = stmt(
      ctx.db,
      `SELECT id, reason FROM tombstones
       WHERE scope = ? AND kind = ? AND key = ? AND value_hash = ? AND lifted_at IS NULL`,
    ).all(slot.scope, slot.kind, slot.key, hash) as { id: number; reason: string }[];
    let refusal: {
      reason: string;
      withValue: boolean;
      details?: Record<string, unknown>;
    } | null = null;
    if (secret) refusal = { reason: `secret (${secret}) is never stored`, withValue: false };
    else if (!isOwnerSource(input.source) && looksLikeInjection(value)) {
      refusal = { reason: 'reads like instructions to a model (injection)', withValue: true };
    } else if (tombstone.length > 0 && !isOwnerSource(input.source)) {
      // The value was forgotten: the refusal records its hash, never the value again.
      refusal = {
        reason: `tombstoned (${tombstone[0]!.reason}); only the owner can restore it`,
        withValue: false,
      };
    } else if (!isOwnerSource(input.source)) {
      refusal = forgottenByOwner(ctx, slot, value, hash, input.episodeId);
    }

    let episodeId = input.episodeId;
    if (episodeId === undefined) {
      episodeId = addEpisode(ctx, {
        kind: 'command',
        channel: input.channel ?? 'api',
        role: isOwnerSource(input.source) ? 'owner' : 'keel',
        text: `remember ${slot.kind}/${slot.key}: ${refusal && !refusal.withValue ? '[withheld]' : value}`,
        actor,
      }).id;
    } else if (!stmt(ctx.db, 'SELECT 1 FROM episodes WHERE id = ?').get(episodeId)) {
      throw new KeelError('NOT_FOUND', `no episode ${episodeId}`);
    }
    const journal = (op: Decision, factId: number | null, payload: Record<string, unknown>) =>
      appendJournal(ctx.db, {
        at: now,
        actor,
        op,
        entity: 'fact',
        entityId: factId,
        payload: { ...slot, source: input.source, episode_id: episodeId, ...payload },
      });
    const ignore = (
      reason: string,
      fact: Fact | null,
      withValue = true,
      details: Record<string, unknown> = {},
    ): WriteResult => {
      journal('ignore', fact?.id ?? null, {
        reason,
        value_hash: hash,
        ...details,
        ...(withValue ? { value } : {}),
      });
      return { decision: 'ignore', reason, fact, episodeId };
    };
    if (refusal) return ignore(refusal.reason, null, refusal.withValue, refusal.details);

    const current = activeFact(ctx, slot);
    const insert = (params: {
      status: 'active' | 'pending';
      confidence: number;
      supersedes_id: number | null;
      conflicts_with_id: number | null;
      status_reason: string;
      source?: Source;
    }): Fact => {
      const id = Number(
        stmt(ctx.db, INSERT_FACT).run({
          ...slot,
          value,
          value_hash: hash,
          source: params.source ?? input.source,
          now,
          valid_from: input.validFrom ?? null,
          status: params.status,
          confidence: params.confidence,
          supersedes_id: params.supersedes_id,
          conflicts_with_id: params.conflicts_with_id,
          status_reason: params.status_reason,
        }).lastInsertRowid,
      );
      addEvidence(ctx, id, episodeId!, input.source, now);
      return factById(ctx, id)!;
    };
    const liftTombstones = (factId: number) => {
      for (const t of tombstone) {
        stmt(ctx.db, 'UPDATE tombstones SET lifted_at = ?, lifted_by = ? WHERE id = ?').run(
          now,
          factId,
          t.id,
        );
      }
    };
    const firstConfidence = Math.min(input.confidence ?? 1, confidenceCeiling(input.source, 1));

    /** Adds a sighting to an existing row (active or pending). */
    const corroborate = (row: Fact): Fact | null => {
      if (!addEvidence(ctx, row.id, episodeId!, input.source, now)) return null;
      const evidence = row.evidence_count + 1;
      const promote = authority(input.source) > authority(row.source);
      const source = promote ? input.source : row.source;
      const ceiling = confidenceCeiling(source, evidence);
      const next =
        promote && isOwnerSource(source)
          ? 1
          : round(Math.min(ceiling, row.confidence + REPEAT_STEP));
      stmt(
        ctx.db,
        `UPDATE facts SET evidence_count = ?, confidence = max(confidence, ?), source = ?,
           last_seen_at = ?, updated_at = ? WHERE id = ?`,
      ).run(evidence, Math.min(next, ceiling), source, now, now, row.id);
      return factById(ctx, row.id)!;
    };
    /** Pending rows of this slot that hold the value now made current are resolved by it. */
    const resolvePending = (newId: number) => {
      for (const p of slotRows(ctx, slot, ['pending'])) {
        if (p.value_hash !== hash || p.id === newId) continue;
        stmt(
          ctx.db,
          `UPDATE facts SET status = 'superseded', superseded_by_id = ?, updated_at = ?,
             status_reason = 'resolved: the same value became current' WHERE id = ?`,
        ).run(newId, now, p.id);
      }
    };

    if (!current) {
      const fact = insert({
        status: 'active',
        confidence: firstConfidence,
        supersedes_id: null,
        conflicts_with_id: null,
        status_reason: 'created',
      });
      liftTombstones(fact.id);
      resolvePending(fact.id);
      const reason = tombstone.length ? 'new slot (owner lifted a tombstone)' : 'new slot';
      journal('create', fact.id, { reason, after: fact });
      return { decision: 'create', reason, fact, episodeId };
    }

    if (current.value_hash === hash) {
      const fact = corroborate(current);
      if (!fact) return ignore('this episode is already counted as evidence', current);
      liftTombstones(fact.id);
      // A new sighting answers a stale flag: the belief has fresh evidence.
      const cleared = clearReviewFlags(ctx, fact.id, now);
      const reason = 'same value from a new episode';
      journal('corroborate', fact.id, {
        reason,
        before: {
          confidence: current.confidence,
          evidence_count: current.evidence_count,
          source: current.source,
        },
        after: {
          confidence: fact.confidence,
          evidence_count: fact.evidence_count,
          source: fact.source,
        },
        ...(cleared ? { review_flags_cleared: cleared } : {}),
      });
      return { decision: 'corroborate', reason, fact, episodeId };
    }

    const weaker = authority(input.source) < authority(current.source);
    const outweighed =
      !isOwnerSource(input.source) &&
      !isOwnerSource(current.source) &&
      current.confidence >= STRONG_CONFIDENCE &&
      firstConfidence < current.confidence;
    if (weaker || outweighed) {
      const reason = weaker
        ? `a weaker source (${input.source}) contradicts ${current.source}`
        : `a single sighting contradicts a strong belief (confidence ${current.confidence})`;
      const samePending = slotRows(ctx, slot, ['pending']).find((p) => p.value_hash === hash);
      if (samePending) {
        const fact = corroborate(samePending);
        if (!fact) return ignore('this episode is already counted as evidence', samePending);
        journal('conflict', fact.id, {
          reason: `${reason}; already pending, evidence added`,
          after: fact,
        });
        return { decision: 'conflict', reason, fact, episodeId };
      }
      const fact = insert({
        status: 'pending',
        confidence: firstConfidence,
        supersedes_id: null,
        conflicts_with_id: current.id,
        status_reason: reason,
      });
      journal('conflict', fact.id, { reason, contradicts: current.id, after: fact });
      return { decision: 'conflict', reason, fact, episodeId };
    }

    // UPDATE: the old row leaves 'active' first (one active row per slot), then the new row enters.
    stmt(
      ctx.db,
      `UPDATE facts SET status = 'superseded', updated_at = ?, valid_to = coalesce(valid_to, ?),
         status_reason = 'superseded by a newer value' WHERE id = ?`,
    ).run(now, input.validFrom ?? now, current.id);
    const fact = insert({
      status: 'active',
      confidence: firstConfidence,
      supersedes_id: current.id,
      conflicts_with_id: null,
      status_reason: 'replaced an earlier value',
    });
    stmt(ctx.db, 'UPDATE facts SET superseded_by_id = ? WHERE id = ?').run(fact.id, current.id);
    liftTombstones(fact.id);
    resolvePending(fact.id);
    // The replaced belief leaves the review queue: the slot was seen again with a new value.
    const cleared = clearReviewFlags(ctx, current.id, now);
    const reason = `different value from ${input.source}, at least as authoritative as ${current.source}`;
    journal('update', fact.id, {
      reason,
      supersedes: {
        id: current.id,
        value: current.value,
        confidence: current.confidence,
        source: current.source,
      },
      after: fact,
      ...(cleared ? { review_flags_cleared: cleared } : {}),
    });
    return { decision: 'update', reason, fact, episodeId };
  });
  return run.immediate();
}
