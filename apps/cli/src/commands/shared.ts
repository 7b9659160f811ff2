/**
 * What several verb groups share: the fields of a fact, a write and a turn printed in `--json`,
 * the option parsers (whole numbers, dates, confidences), {@link withStore}, which opens the store
 * for one synchronous verb (checked first when the verb writes) and closes it, and
 * {@link keepOnDamage}, which keeps the owner's words in the recovery file when the database is
 * damaged.
 *
 * @module
 */
import type { CaptureError, TurnWrite } from '@keel/agent';
import { KeelError } from '@keel/errors';
import {
  closeStore,
  damageError,
  type IntegrityCheck,
  keepForRecovery,
  openStore,
  type RecoveryInput,
} from '@keel/host';
import type { Fact, MemoryStore, RecallMode, WriteResult } from '@keel/memory';
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
 * {@link withStore} for work that awaits: the store stays open until `fn`'s promise settles.
 *
 * @throws KeelError as {@link withStore}.
 */
export async function withStoreAsync<T>(
  config: Config,
  fn: (store: MemoryStore) => Promise<T>,
  check: IntegrityCheck = 'cached',
): Promise<T> {
  const store = openStore(config, check);
  let failure: unknown;
  try {
    return await fn(store);
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
 * @throws KeelError `DB_CORRUPT` or `JOURNAL_BROKEN` naming the recovery file (details: `recovery`), and whatever else
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
    throw new KeelError(damage.code, `${damage.message}. ${keptLine(path)}`, {
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

/**
 * A turn's capture failure as `--json` prints it (`capture_error`: code, message and its one-line
 * fix), or null.
 */
export function captureErrorJson(
  error: CaptureError | null | undefined,
): { code: string; message: string; fix: string } | null {
  if (!error) return null;
  return { code: error.code, message: error.message, fix: error.fix };
}

/**
 * A write review's outcome as `--json` prints it (`keel remember`, and each of a turn's `writes`):
 * the decision and its reason, the fact, the episode, the kind of secret withheld (`secret`, null
 * unless the decision is `withheld`) and, when the evidence gate stored less confidence than was
 * asked, `confidence_capped: {asked, stored, why}` (else null).
 */
export function writeResultJson(w: WriteResult) {
  return {
    decision: w.decision,
    reason: w.reason,
    fact_id: w.fact?.id ?? null,
    fact: w.fact && factJson(w.fact),
    episode_id: w.episodeId,
    secret: w.secret ?? null,
    confidence_capped: w.confidenceCapped ?? null,
  };
}

/**
 * One thing a turn did to memory as `--json` prints it: {@link writeResultJson}, or for the model
 * asking to forget a belief (`forget_requested`, which waits for the owner) the same keys with the
 * model's `why` and the commands that settle it (`answer`, from `request`, given the fact id).
 * Every write has every key (`why` and `answer` are null for the others).
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
      secret: null,
      confidence_capped: null,
      ...request(w.fact.id),
    };
  }
  return { ...writeResultJson(w), why: null, answer: null };
}

/** What {@link turnJson} is made of: one turn, online or offline. */
export interface TurnJsonInput {
  reply: string;
  /** `anthropic`, `openai`, `ollama`, `offline`; null when keel could not open. */
  provider: string | null;
  /** The model's name; null offline. */
  model: string | null;
  /** Why this provider (or why offline); null when unknown. */
  reason: string | null;
  /** The recall mode of the turn; null when nothing was recalled. */
  mode: RecallMode | null;
  /** The turn's row (a model turn); null offline and for a slash command. */
  turnId: number | null;
  /** The owner's line as stored; null for a slash command or a line not stored. */
  episodeId: number | null;
  factsUsed: readonly number[];
  /** The writes, already as {@link writeJson} prints them. */
  writes: readonly unknown[];
  /** The kinds of credential withheld from the line (never stored, never sent to a model). */
  withheld: readonly string[];
  captureError: CaptureError | null | undefined;
  truncated: boolean;
}

/**
 * One turn as `--json` prints it: the same keys online and offline (`keel ask`, and each line of
 * the terminal's `--json`), `null` or empty where a field has no value:
 * `{"reply", "provider", "model", "reason", "mode", "turn_id", "episode_id", "facts_used",
 * "writes", "withheld", "capture_error", "truncated"}`.
 */
export function turnJson(t: TurnJsonInput) {
  return {
    reply: t.reply,
    provider: t.provider,
    model: t.model,
    reason: t.reason,
    mode: t.mode,
    turn_id: t.turnId,
    episode_id: t.episodeId,
    facts_used: [...t.factsUsed],
    writes: [...t.writes],
    withheld: [...t.withheld],
    capture_error: captureErrorJson(t.captureError),
    truncated: t.truncated,
  };
}
