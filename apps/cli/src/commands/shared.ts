/**
 * What several verb groups share: the fields of a fact and of a turn's writes printed in `--json`,
 * the option parsers (whole numbers, dates, confidences) and {@link withStore}, which opens the
 * store for one synchronous verb and closes it.
 *
 * @module
 */
import type { TurnWrite } from '@keel/agent';
import { type Fact, MemoryStore } from '@keel/memory';
import { InvalidArgumentError } from 'commander';
import type { Config } from '../config.js';

/** The fields of a fact the CLI prints in `--json`. */
export function factJson(f: Fact) {
  return {
    id: f.id,
    scope: f.scope,
    kind: f.kind,
    key: f.key,
    value: f.value,
    confidence: f.confidence,
    evidence_count: f.evidence_count,
    source: f.source,
    status: f.status,
    created_at: f.created_at,
    last_seen_at: f.last_seen_at,
    valid_from: f.valid_from,
    valid_to: f.valid_to,
    supersedes_id: f.supersedes_id,
    superseded_by_id: f.superseded_by_id,
    conflicts_with_id: f.conflicts_with_id,
    status_reason: f.status_reason,
  };
}

/**
 * Parses an option that must be a whole number ≥ 1.
 *
 * @throws InvalidArgumentError otherwise (commander prints it as `INVALID_INPUT`).
 */
export function parsePositiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('must be a whole number ≥ 1');
  return n;
}

/**
 * Parses a date option (anything `Date.parse` reads, e.g. 2026-03-01) to ms since epoch.
 *
 * @throws InvalidArgumentError when it is not a date.
 */
export function parseDate(value: string): number {
  const t = Date.parse(value);
  if (Number.isNaN(t)) throw new InvalidArgumentError('must be a date such as 2026-03-01');
  return t;
}

/**
 * Parses a confidence option, a number from 0 to 1.
 *
 * @throws InvalidArgumentError outside that range.
 */
export function parseConfidence(value: string): number {
  const n = Number(value);
  if (!(n >= 0 && n <= 1)) throw new InvalidArgumentError('must be a number from 0 to 1');
  return n;
}

/**
 * Runs `fn` with the store open (no embedder bound: for verbs that do not recall) and closes it.
 *
 * @throws KeelError as `MemoryStore.open`, and whatever `fn` throws.
 */
export function withStore<T>(config: Config, fn: (store: MemoryStore) => T): T {
  const store = MemoryStore.open(config.paths.db);
  try {
    return fn(store);
  } finally {
    store.close();
  }
}

/** A turn's capture failure as `--json` prints it (`capture_error`), or null. */
export function captureErrorJson(
  error: { code: string; message: string } | null,
): { code: string; message: string } | null {
  return error && { code: error.code, message: error.message };
}

/**
 * One thing a turn did to memory as `--json` prints it: its `decision` (a write review's, or
 * `forget_requested` for the model asking to forget a belief, which waits for the owner), the
 * reason, the fact, and the owner episode. A request also carries the model's `why` and `answer`,
 * the commands that settle it (from `request`, given the fact id).
 */
export function writeJson(
  w: TurnWrite,
  request: (factId: number) => { why: string | null; answer: string },
) {
  if (w.decision === 'forget_requested') {
    return {
      decision: w.decision,
      reason: w.reason,
      fact_id: w.fact.id,
      fact: factJson(w.fact),
      episode_id: w.episodeId,
      ...request(w.fact.id),
    };
  }
  return {
    decision: w.decision,
    reason: w.reason,
    fact_id: w.fact?.id ?? null,
    fact: w.fact && factJson(w.fact),
    episode_id: w.episodeId,
    ...(w.secret ? { secret: w.secret } : {}),
  };
}
