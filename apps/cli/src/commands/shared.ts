/**
 * What several verb groups share: the fields of a fact and of a turn's writes printed in `--json`,
 * the option parsers (whole numbers, dates, confidences), {@link withStore}, which opens the store
 * for one synchronous verb (checked first when the verb writes) and closes it, and
 * {@link keepOnDamage}, which keeps the owner's words in the recovery file when the database is
 * damaged.
 *
 * @module
 */
import type { TurnWrite } from '@keel/agent';
import { KeelError } from '@keel/errors';
import {
  closeStore,
  damageError,
  type IntegrityCheck,
  keepForRecovery,
  openStore,
  type RecoveryInput,
} from '@keel/host';
import type { Fact, MemoryStore } from '@keel/memory';
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
 * The file is checked first (`check`, default `cached`: a verb that writes never writes into a
 * damaged file; `none` for verbs that only read or report); on close the state its writes left
 * is recorded as sound (see `@keel/host`'s `closeStore`).
 *
 * @throws KeelError as `MemoryStore.open` (`DB_CORRUPT`: nothing written), and whatever `fn`
 *   throws.
 */
export function withStore<T>(
  config: Config,
  fn: (store: MemoryStore) => T,
  check: IntegrityCheck = 'cached',
): T {
  const store = openStore(config, check);
  let failure: unknown;
  try {
    return fn(store);
  } catch (err) {
    failure = err;
    throw err;
  } finally {
    closeStore(store, failure);
  }
}

/**
 * Runs `fn`; when it finds the database damaged, the owner's words (`input`) are kept in the
 * recovery file (`keel recover` stores them once the database is restored) and the error says
 * where.
 *
 * @throws KeelError `DB_CORRUPT` naming the recovery file (details: `recovery`), and whatever else
 *   `fn` throws.
 */
export async function keepOnDamage<T>(
  config: Config,
  input: RecoveryInput,
  fn: () => T | Promise<T>,
): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    const damage = damageError(err);
    if (!damage) throw err;
    const { path } = keepForRecovery(config.home, input);
    throw new KeelError('DB_CORRUPT', `${damage.message}. ${keptLine(path)}`, {
      cause: err,
      details: {
        ...(damage.details && typeof damage.details === 'object' ? damage.details : {}),
        recovery: path,
      },
    });
  }
}

/** What the owner is told when their words went to the recovery file. */
export function keptLine(path: string): string {
  return `What you said is kept in ${path}; keel recover stores it once the database is restored (keel restore <file>)`;
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
