/**
 * Applies a validated delta through the store's write review (`MemoryStore.remember`), the one
 * place that decides what is written: the think service never writes a fact row itself. A delta
 * rests on owner episodes the model was shown; each cited episode is a separate sighting, so
 * evidence grows only with distinct episodes and a repeated run over the same episode changes
 * nothing.
 *
 * @module
 */

import { KeelError } from '@keel/errors';
import { readCorrection } from '@keel/gate';
import { resolveDate, resolveStart } from '@keel/language';
import {
  type Decision,
  type Episode,
  isOwnerSource,
  type MemoryStore,
  normalizeKey,
  type Source,
} from '@keel/memory';
import type { Delta } from './deltas.js';

/** Subjects that mean the owner themself. */
const OWNER_SUBJECTS = new Set(['owner', 'me', 'i', 'myself', 'user', 'self', 'the owner']);

/**
 * The stored key of a subject's attribute: the attribute alone for the owner (`allergy`), else
 * `subject.attribute` (`sam.employer`), so different subjects never share a slot.
 *
 * @throws KeelError `INVALID_INPUT` when either part is not a valid slug.
 */
export function slotKey(subject: string, key: string): string {
  const attr = normalizeKey(key);
  const s = subject.trim().toLowerCase();
  if (OWNER_SUBJECTS.has(s)) return attr;
  const full = `${normalizeKey(s.replace(/[^\p{L}\p{N}_.\s-]/gu, ''))}.${attr}`;
  return normalizeKey(full);
}

/** What became of one delta. */
export interface DeltaOutcome {
  /** `written`: the store created, corroborated, updated or retracted a belief; `conflict`: it
   * was held for the owner (a pending value, or a pending question on the owner's word); `ignored`: the write review refused it (tombstone, same
   * episode, …); `rejected`: it was invalid before reaching the store. */
  outcome: 'written' | 'conflict' | 'ignored' | 'rejected';
  /** The write review's decisions, one per cited episode. */
  decisions: Decision[];
  reason: string;
  factId: number | null;
}

/** The last of `episodes` that is the owner's and says something of theirs stopped or changed. */
function stopSaid(episodes: readonly Episode[]): Episode | null {
  for (const e of [...episodes].reverse()) {
    if (e.role === 'owner' && readCorrection(e.text) !== null) return e;
  }
  return null;
}

/**
 * Applies one delta for the owner scope.
 *
 * @param allowed - the episodes the model was shown, by id (a delta citing another is rejected).
 * @param tz - the owner's zone, for resolving `when` against the cited episode's own time.
 * @param actor - who the journal names: `reflection` (a tick) or `curator` (the night).
 * @throws KeelError only for store failures (DB_*); invalid deltas are returned as `rejected`.
 */
export function applyDelta(
  store: MemoryStore,
  delta: Delta,
  allowed: ReadonlyMap<number, Episode>,
  tz: string,
  actor: 'reflection' | 'curator' = 'reflection',
): DeltaOutcome {
  const rejected = (reason: string): DeltaOutcome => ({
    outcome: 'rejected',
    decisions: [],
    reason,
    factId: null,
  });
  const episodes: Episode[] = [];
  for (const id of new Set(delta.episodes)) {
    const e = allowed.get(id);
    if (!e) return rejected(`cites episode ${id}, which was not among the episodes shown`);
    episodes.push(e);
  }
  episodes.sort((a, b) => a.occurred_at - b.occurred_at || a.id - b.id);
  let key: string;
  try {
    key = slotKey(delta.subject, delta.key);
  } catch (err) {
    return rejected(KeelError.isInstance(err) ? err.message : String(err));
  }

  if (delta.op === 'retract') {
    const current = store.current({ scope: 'owner', kind: delta.kind, key });
    if (!current) return { ...rejected(`nothing active at ${delta.kind}/${key} to retract`) };
    const last = episodes[episodes.length - 1]!;
    const r = store.retract(current.id, {
      actor,
      why: `the owner said it is no longer true (episode ${last.id})`,
      episodeId: last.id,
    });
    // The owner's word is not retracted by reflection: when the owner's turn mentions it, the
    // store asks the owner (a pending question in the review queue), else it refuses.
    if (r.question) {
      return { outcome: 'conflict', decisions: ['conflict'], reason: r.reason, factId: r.fact.id };
    }
    // A turn of the owner's that says something of theirs stopped ("handed in my notice today")
    // supports asking, though it does not name the belief: the owner answers, never a silent drop.
    const stopped = !r.retracted && isOwnerSource(current.source) ? stopSaid(episodes) : null;
    if (stopped) {
      const { question } = store.ask(current.id, {
        actor,
        said: stopped.text,
        episodeId: stopped.id,
      });
      return {
        outcome: 'conflict',
        decisions: ['conflict'],
        reason: r.reason,
        factId: question.factId,
      };
    }
    return {
      outcome: r.retracted ? 'written' : 'ignored',
      decisions: r.retracted ? [] : ['ignore'],
      reason: r.reason,
      factId: r.fact.id,
    };
  }

  let value = delta.value!;
  let validFrom: number | null = null;
  const first = episodes[0]!;
  if (delta.when) {
    // A day the owner named without its year ("on March 3rd") is the most recent one.
    const resolved = resolveStart(delta.when, first.occurred_at, tz);
    if (resolved) {
      validFrom = resolved.startMs;
      if (!value.includes(resolved.date)) value = `${value} (${resolved.date})`;
    }
  } else {
    // A relative phrase left inside the value would go stale ("yesterday"); it becomes the date
    // it meant. Absolute or partial dates and times of day in a value are left as written.
    const resolved = resolveDate(value, first.occurred_at, tz);
    if (resolved?.relative && value.includes(resolved.phrase)) {
      validFrom = resolved.startMs;
      const on = /^(on|in|at)\s/i.test(resolved.phrase) ? '' : 'on ';
      value = value.replace(resolved.phrase, `${on}${resolved.date}`);
    }
  }

  // keel decides the source from what the cited turns say, never from the model's claim: a value
  // whose every content word the owner used in one of them was said outright (observed); any
  // other was inferred.
  const said = episodes.some((e) => store.episodeSupports(e.id, delta.value!, 'all'));
  const source: Source = said ? 'observed' : 'inferred';
  const decisions: Decision[] = [];
  let factId: number | null = null;
  let reason = '';
  for (const e of episodes) {
    const r = store.remember({
      scope: 'owner',
      kind: delta.kind,
      key,
      value,
      source,
      episodeId: e.id,
      validFrom,
      actor,
    });
    decisions.push(r.decision);
    factId = r.fact?.id ?? factId;
    reason = r.reason;
  }
  const outcome = decisions.some(
    (d) => d === 'create' || d === 'corroborate' || d === 'update' || d === 'history',
  )
    ? 'written'
    : decisions.includes('conflict')
      ? 'conflict'
      : 'ignored';
  return { outcome, decisions, reason, factId };
}
