/**
 * Purge by mention: every stored text that mentions a value, found folded ("Sao Paulo" finds "São
 * Paulo"), listed ({@link findMentions}) and erased ({@link purgeMentions}): the owner's turns,
 * keel's replies, the session's messages, reminders and interrupts, the think service's records,
 * the journal's payloads, and beliefs whose value or key mentions it (retracted and purged). The
 * value's content is then tombstoned in every scope, so no writer but the owner can bring it back.
 *
 * Each place is a holder of the owner's words (`redaction.ts`); beliefs are this module's own
 * place (`facts`), since a belief that mentions a purged value is retired, not only cut.
 *
 * @module
 */
import { KeelError } from '@keel/errors';
import { contentWords, foldText, valueHash } from '@keel/language';
import type { StoreContext } from '../context.js';
import { appendJournal } from '../journal/journal.js';
import {
  type OwnerTextHolder,
  type OwnerTextMention,
  PURGED,
  type Scrubber,
  scrubberFor,
  withRenamedKeys,
} from '../redaction.js';
import { type Actor, type Fact, SCOPES } from '../types.js';
import { retireBelief } from './owner.js';
import { factById } from './read.js';
import { buryContent, scrubTombstoneKeys } from './tombstones.js';
import * as transition from './transitions.js';

/** The place beliefs are reported under. */
export const FACTS_PLACE = 'facts';

/** One stored text that mentions a value. */
export interface Mention {
  /** The place, as purge reports it (`facts`, `episodes`, `journal`, `messages`, …). */
  place: string;
  /** The table and column that hold it. */
  table: string;
  column: string;
  /** The row's primary key (a fact's id, an episode's id, a journal entry's `seq`, …). */
  id: number;
  /** A short excerpt of the text around the mention. */
  excerpt: string;
}

/** What {@link findMentions} lists: every stored mention of a value, by place. */
export interface MentionReport {
  /** The value as the owner gave it. */
  value: string;
  /** Mentions in order of place then row. */
  mentions: Mention[];
  /** Rows that mention it, per place (a row with two mentioning columns counts once). */
  places: Record<string, number>;
  /** Rows that mention it, over every place. */
  total: number;
  /** The beliefs (any status) whose value or key mentions it: purge retracts and purges them. */
  beliefs: Fact[];
}

/** What {@link purgeMentions} reached in one place. */
export interface PurgeReach {
  /** Rows changed. */
  count: number;
  /** Their ids (primary keys), ascending. */
  ids: number[];
}

/** The receipt of {@link purgeMentions}. */
export interface PurgeReceipt {
  /** The hash of the purged value (`valueHash`): the receipt never carries the value itself. */
  valueHash: string;
  /** What was reached per place (`facts`, `episodes`, `journal`, `messages`, …). */
  reached: Record<string, PurgeReach>;
  /** Beliefs that were active or pending and are now retracted because they mentioned it. */
  retracted: number[];
  /** Tombstones left: the value's content, one per scope, and one per retracted belief. */
  tombstones: number[];
  /** Rows changed over every place. */
  total: number;
  /** The journal entry that records the purge. */
  journalSeq: number;
}

/** Options of {@link purgeMentions}. */
export interface PurgeMentionsOptions {
  /** Who purges (the journal names them). The owner's doors pass `owner`. */
  actor: Actor;
  /**
   * Only these places are walked (`facts` and holder places such as `episodes`); default all.
   * The content is tombstoned whatever the places.
   */
  only?: readonly string[];
}

function scrubberOf(value: unknown): Scrubber {
  if (typeof value !== 'string') throw new KeelError('INVALID_INPUT', 'the value must be text');
  const scrubber = scrubberFor(value);
  if (!scrubber) {
    throw new KeelError(
      'INVALID_INPUT',
      'nothing to find: the value has no word (give the words to purge, e.g. keel purge "São Paulo")',
    );
  }
  return scrubber;
}

/** Every fact row (any status) whose value or key mentions the value, with where. */
function factMentions(ctx: StoreContext, scrubber: Scrubber): Mention[] {
  const found: Mention[] = [];
  for (const f of ctx.db.prepare('SELECT id, key, value FROM facts ORDER BY id').all() as {
    id: number;
    key: string;
    value: string;
  }[]) {
    for (const [column, text] of [
      ['value', f.value === PURGED ? '' : f.value],
      ['key', f.key],
    ] as const) {
      const excerpt = text ? scrubber.excerpt(text) : null;
      if (excerpt !== null) {
        found.push({ place: FACTS_PLACE, table: 'facts', column, id: f.id, excerpt });
      }
    }
  }
  return found;
}

function checkPlaces(only: readonly string[] | undefined, holders: readonly OwnerTextHolder[]) {
  if (!only) return;
  const known = [FACTS_PLACE, ...holders.map((h) => h.place)];
  const unknown = only.filter((p) => !known.includes(p));
  if (unknown.length > 0) {
    throw new KeelError(
      'INVALID_INPUT',
      `unknown place(s) ${unknown.join(', ')}; one of: ${[...new Set(known)].join(', ')}`,
      { details: { unknown, known } },
    );
  }
}

/**
 * Lists every stored text that mentions `value`, folded (case, accents and punctuation ignored;
 * whole words, a short inflected ending allowed; see `mentionFinder` of `@keel/language`): the
 * beliefs' values and keys, and every holder of the owner's words. Reads only.
 *
 * @param holders - every repository that can hold owner text (the store passes all of them).
 * @throws KeelError `INVALID_INPUT` (not text, or no word to find).
 */
export function findMentions(
  ctx: StoreContext,
  value: string,
  holders: readonly OwnerTextHolder[],
): MentionReport {
  const scrubber = scrubberOf(value);
  const mentions: Mention[] = factMentions(ctx, scrubber);
  for (const holder of holders) {
    const tables = new Map(holder.ownerText.map((c) => [c.column, c.table]));
    mentions.push(
      ...holder.find(scrubber).map((m: OwnerTextMention) => ({
        place: holder.place,
        table: tables.get(m.column) ?? holder.place,
        column: m.column,
        id: m.id,
        excerpt: m.excerpt,
      })),
    );
  }
  const places: Record<string, number> = {};
  const rows = new Set<string>();
  for (const m of mentions) {
    const row = `${m.table}:${m.id}`;
    if (rows.has(row)) continue;
    rows.add(row);
    places[m.place] = (places[m.place] ?? 0) + 1;
  }
  const beliefIds = [...new Set(mentions.filter((m) => m.place === FACTS_PLACE).map((m) => m.id))];
  return {
    value,
    mentions,
    places,
    total: rows.size,
    beliefs: beliefIds.map((id) => factById(ctx, id)!),
  };
}

/**
 * Retires and erases every belief whose value or key mentions the value: an active or pending one
 * is retracted (and tombstoned) first; then its whole value is erased and the mention cut out of
 * its key (a key made from the value loses each of `words` it holds: "used_work_sunnyvale" for
 * "Sunnyvale Dynamics" → "used_work_purged"), and out of the keys of tombstones.
 *
 * @param words - the purged value's content words, folded.
 * @returns the rows erased, the beliefs retracted (ascending), the tombstones rekeyed, and the
 *   keys renamed (old → new) for the other places that store them.
 */
function purgeBeliefs(
  ctx: StoreContext,
  scrubber: Scrubber,
  actor: Actor,
  now: number,
  words: ReadonlySet<string>,
): {
  erased: number[];
  retracted: number[];
  tombstones: number[];
  renamed: Map<string, string>;
} {
  const ids = [...new Set(factMentions(ctx, scrubber).map((m) => m.id))].sort((a, b) => a - b);
  const retracted: number[] = [];
  const renamed = new Map<string, string>();
  for (const id of ids) {
    const fact = factById(ctx, id)!;
    if (fact.status === 'active' || fact.status === 'pending') {
      retireBelief(ctx, id, {
        status: 'retracted',
        reason: 'forgotten',
        actor,
        why: 'purged: it mentioned a purged value',
      });
      retracted.push(id);
    }
    const derived = fact.value !== PURGED && scrubber.holds(fact.value);
    if (fact.value !== PURGED) transition.erase(ctx, id, now);
    // A key made from the value holds some of its words, not the whole phrase: each word goes.
    const key = derived
      ? keyWithout(scrubber.scrub(fact.key).replaceAll(PURGED, 'purged'), words)
      : scrubber.scrub(fact.key).replaceAll(PURGED, 'purged');
    if (key !== fact.key) {
      transition.eraseKey(ctx, id, key, now);
      renamed.set(fact.key, key);
    }
  }
  const tombstones = scrubTombstoneKeys(
    ctx,
    (key) => scrubber.holds(key) || renamed.has(key),
    (key) => renamed.get(key) ?? scrubber.scrub(key).replaceAll(PURGED, 'purged'),
  );
  return { erased: ids, retracted, tombstones, renamed };
}

/** The purged value's content words, folded ("Sunnyvale Dynamics" → sunnyvale, dynamics). */
function valueWords(value: string): Set<string> {
  return new Set(contentWords(value).map((w) => foldText(w)));
}

/** `key` with each of its parts that is one of `words` (folded) replaced by "purged". */
function keyWithout(key: string, words: ReadonlySet<string>): string {
  return key
    .split(/([_.-])/u)
    .map((part) => (words.has(foldText(part)) ? 'purged' : part))
    .join('');
}

/**
 * Erases every stored mention of `value` (see {@link findMentions}), in one transaction: beliefs
 * whose value or key mentions it are retracted and purged; in every other text the mention is
 * replaced by `[purged]` and the rest kept (each episode and journal rewrite journaled as a
 * redaction by `actor`). The full-text index follows through its triggers and the vector queue
 * through its own (the store deletes stale vectors after). The value's content is tombstoned in
 * every scope, so no writer but the owner can write it again.
 *
 * @param holders - every repository that can hold owner text (the store passes all of them).
 * @returns what was reached, per place.
 * @throws KeelError `INVALID_INPUT` (not text, no word to find, an unknown place in `only`).
 */
export function purgeMentions(
  ctx: StoreContext,
  value: string,
  options: PurgeMentionsOptions,
  holders: readonly OwnerTextHolder[],
): PurgeReceipt {
  const scrubber = scrubberOf(value);
  checkPlaces(options.only, holders);
  const walks = (place: string) => !options.only || options.only.includes(place);
  const hash = valueHash(value);
  return ctx.db
    .transaction((): PurgeReceipt => {
      const now = ctx.now();
      const lastTombstone = (
        ctx.db.prepare('SELECT coalesce(max(id), 0) AS id FROM tombstones').get() as { id: number }
      ).id;
      const reached: Record<string, PurgeReach> = {};
      const add = (place: string, ids: readonly number[]) => {
        const all = [...new Set([...(reached[place]?.ids ?? []), ...ids])].sort((a, b) => a - b);
        reached[place] = { count: all.length, ids: all };
      };
      let retracted: number[] = [];
      let renamed = new Map<string, string>();
      const tombstones: number[] = []; // content alone, one per scope
      if (walks(FACTS_PLACE)) {
        const beliefs = purgeBeliefs(ctx, scrubber, options.actor, now, valueWords(value));
        renamed = beliefs.renamed;
        add(FACTS_PLACE, beliefs.erased);
        retracted = beliefs.retracted;
        if (beliefs.tombstones.length > 0) add('tombstones', beliefs.tombstones);
      }
      for (const scope of SCOPES) {
        const id = buryContent(ctx, scope, { text: value, hash }, 'purged', now);
        if (id !== null) tombstones.push(id);
      }
      const everywhere = withRenamedKeys(scrubber, renamed);
      for (const holder of holders) {
        if (!walks(holder.place)) continue;
        add(holder.place, holder.redact(everywhere, now, options.actor));
      }
      const total = Object.values(reached).reduce((n, r) => n + r.count, 0);
      const journalSeq = appendJournal(ctx.db, {
        at: now,
        actor: options.actor,
        op: 'purge',
        entity: 'store',
        entityId: null,
        payload: {
          value_hash: hash,
          reached: Object.fromEntries(Object.entries(reached).map(([p, r]) => [p, r.ids])),
          retracted,
          tombstones,
          ...(options.only ? { only: options.only } : {}),
        },
      });
      // The tombstones this purge left: its content's, and one for each belief it retracted.
      const left = ctx.db
        .prepare('SELECT id FROM tombstones WHERE id > ? ORDER BY id')
        .all(lastTombstone) as { id: number }[];
      return {
        valueHash: hash,
        reached,
        retracted,
        tombstones: left.map((t) => t.id),
        total,
        journalSeq,
      };
    })
    .immediate();
}

/**
 * One report of several ({@link findMentions} of each phrase that says one value): mentions of
 * the same row and column once, places and total counted over distinct rows, beliefs once.
 *
 * @returns null for no report.
 */
export function mergeMentionReports(reports: readonly MentionReport[]): MentionReport | null {
  if (reports.length === 0) return null;
  if (reports.length === 1) return reports[0]!;
  const seen = new Set<string>();
  const mentions = reports
    .flatMap((r) => r.mentions)
    .filter((m) => {
      const k = `${m.table}:${m.column}:${m.id}`;
      if (seen.has(k)) return false;
      seen.add(k);
      return true;
    });
  const places: Record<string, number> = {};
  const rows = new Set<string>();
  for (const m of mentions) {
    const row = `${m.table}:${m.id}`;
    if (rows.has(row)) continue;
    rows.add(row);
    places[m.place] = (places[m.place] ?? 0) + 1;
  }
  const beliefs = new Map(reports.flatMap((r) => r.beliefs).map((f) => [f.id, f]));
  return {
    value: reports.map((r) => r.value).join(' / '),
    mentions,
    places,
    total: rows.size,
    beliefs: [...beliefs.values()].sort((a, b) => a.id - b.id),
  };
}

/**
 * One receipt of several purges of one value ({@link purgeMentions} of each phrase that says it):
 * rows reached per place once, every retraction and tombstone, the last journal entry.
 *
 * @param valueHash - the value's hash, for the receipt (never the value).
 */
export function mergeReceipts(receipts: readonly PurgeReceipt[], valueHash: string): PurgeReceipt {
  const reached: Record<string, PurgeReach> = {};
  for (const r of receipts) {
    for (const [place, reach] of Object.entries(r.reached)) {
      const ids = [...new Set([...(reached[place]?.ids ?? []), ...reach.ids])].sort(
        (a, b) => a - b,
      );
      reached[place] = { count: ids.length, ids };
    }
  }
  return {
    valueHash,
    reached,
    retracted: receipts.flatMap((r) => r.retracted),
    tombstones: receipts.flatMap((r) => r.tombstones),
    total: Object.values(reached).reduce((n, r) => n + r.count, 0),
    journalSeq: receipts.at(-1)?.journalSeq ?? 0,
  };
}
