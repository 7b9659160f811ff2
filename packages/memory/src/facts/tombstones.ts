/**
 * Tombstones: the value-keyed record of what was forgotten, purged, pruned or rejected (slot, hash
 * of the value, its folded content, reason, when). Every write consults them so that nothing but
 * the owner's word can bring a removed value back; the owner saying the value again in its slot
 * lifts them.
 *
 * Forgetting is about meaning, not one string: a tombstone records the value's folded content
 * words ({@link contentOf}: `contentWords` of `@keel/language`, each kept as a hash so a purged
 * value is not kept in clear), and a write is covered by it ({@link covers}) when its value and
 * key mention every one of those words (as words, a short inflected ending allowed: "Porto,
 * Portugal" and a key `sister_in_porto` are covered by a forgotten "Porto"; "Portugal" and "Port
 * wine" are not), or when its value says nothing but words of the forgotten value ("Porto" after
 * "I live in Porto" was forgotten). A purge by mention buries content alone
 * ({@link buryContent}): no slot, binding every slot of its scope.
 *
 * @module
 */
import { apostropheForms, contentWords, foldedWords, sha256, wordStems } from '@keel/language';
import { type StoreContext, stmt } from '../context.js';
import { noteChange, noteInsert } from '../journal/rows.js';
import { PURGED } from '../redaction.js';
import type { Fact, Scope, Slot } from '../types.js';

/** Why a value was tombstoned. */
export type TombstoneReason = 'forgotten' | 'purged' | 'pruned' | 'rejected';

/** An unlifted tombstone of a slot's value. */
export interface Tombstone {
  id: number;
  reason: TombstoneReason;
}

/** The hash a content word is kept as: the first 32 hex digits of sha256 of the folded word. */
const wordHash = (word: string) => sha256(word).slice(0, 32);

/** The folded content words of `text`, each once, in order. */
const contentOfForm = (text: string) => [
  ...new Set(contentWords(text).flatMap((w) => foldedWords(w))),
];

/**
 * The folded content of `value` as a tombstone keeps it: for each spelling an apostrophe inside a
 * word allows (`apostropheForms`: "O'Neill" as "o neill" and "oneill"), the hashes
 * ({@link wordHash}) of its folded content words, in order, each once. Empty for a value with no
 * word.
 */
export function contentOf(value: string): string[][] {
  const forms = apostropheForms(value)
    .map((v) => contentOfForm(v).map(wordHash))
    .filter((f) => f.length > 0);
  return [...new Map(forms.map((f) => [JSON.stringify(f), f])).values()];
}

/**
 * Leaves a tombstone for a fact's value in its slot, recording the value's folded content.
 *
 * @returns the tombstone's id.
 */
export function bury(ctx: StoreContext, fact: Fact, reason: TombstoneReason, now: number): number {
  const content = fact.value === PURGED ? null : JSON.stringify(contentOf(fact.value));
  const id = Number(
    stmt(
      ctx.db,
      `INSERT INTO tombstones (scope, kind, key, value_hash, reason, fact_id, created_at, content)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(fact.scope, fact.kind, fact.key, fact.value_hash, reason, fact.id, now, content)
      .lastInsertRowid,
  );
  noteInsert(ctx.db, 'tombstones', id);
  return id;
}

/** A tombstone as a keel export recorded it (hashes only), its fact ids already mapped. */
export interface RestoredTombstone {
  scope: Scope;
  kind: Slot['kind'] | null;
  key: string | null;
  valueHash: string;
  /** Per spelling of the value, the hashes of its folded content words; null when none were kept. */
  content: string[][] | null;
  reason: TombstoneReason;
  factId: number | null;
  createdAt: number;
  liftedAt: number | null;
  liftedBy: number | null;
}

/**
 * Writes a tombstone as a keel export recorded it, so a value forgotten before the move stays
 * forgotten after it.
 *
 * @returns the tombstone's id.
 */
export function restoreTombstone(ctx: StoreContext, t: RestoredTombstone): number {
  const id = Number(
    stmt(
      ctx.db,
      `INSERT INTO tombstones (scope, kind, key, value_hash, reason, fact_id, created_at, lifted_at,
         lifted_by, content) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      t.scope,
      t.kind,
      t.key,
      t.valueHash,
      t.reason,
      t.factId,
      t.createdAt,
      t.liftedAt,
      t.liftedBy,
      t.content === null ? null : JSON.stringify(t.content),
    ).lastInsertRowid,
  );
  noteInsert(ctx.db, 'tombstones', id);
  return id;
}

/**
 * Leaves a tombstone of content alone (no slot): `value`'s folded content is refused in every slot
 * of `scope` to every writer but the owner. What a purge by mention buries.
 *
 * @param valueHash - the value's hash (`valueHash` of `@keel/language`).
 * @returns the tombstone's id, or null when `value` has no content word.
 */
export function buryContent(
  ctx: StoreContext,
  scope: Scope,
  value: { text: string; hash: string },
  reason: 'purged' | 'forgotten',
  now: number,
): number | null {
  const content = contentOf(value.text);
  if (content.length === 0) return null;
  const id = Number(
    stmt(
      ctx.db,
      `INSERT INTO tombstones (scope, kind, key, value_hash, reason, fact_id, created_at, content)
       VALUES (?, NULL, NULL, ?, ?, NULL, ?, ?)`,
    ).run(scope, value.hash, reason, now, JSON.stringify(content)).lastInsertRowid,
  );
  noteInsert(ctx.db, 'tombstones', id);
  return id;
}

/** An unlifted tombstone with the content it binds. */
export interface ContentTombstone {
  id: number;
  reason: TombstoneReason;
  /** Its slot's kind and key; null for content alone (binds the whole scope). */
  kind: string | null;
  key: string | null;
  /** The hashes of the buried value's folded content words, per spelling ({@link contentOf}). */
  content: readonly ReadonlySet<string>[];
}

/**
 * The unlifted tombstones whose content binds a write to `slot`: the owner's forgetting
 * (`forgotten`, `purged`) binds every slot of the scope; a pruned or rejected value binds its own
 * slot. A tombstone written before its content was recorded takes it from its fact's value while
 * that value is kept.
 */
export function contentTombstones(ctx: StoreContext, slot: Slot): ContentTombstone[] {
  const rows = stmt(
    ctx.db,
    `SELECT t.id, t.reason, t.kind, t.key, t.content, f.value, f.purged_at
     FROM tombstones t LEFT JOIN facts f ON f.id = t.fact_id
     WHERE t.scope = ? AND t.lifted_at IS NULL
       AND (t.reason IN ('forgotten', 'purged') OR (t.kind = ? AND t.key = ?))
     ORDER BY t.id`,
  ).all(slot.scope, slot.kind, slot.key) as {
    id: number;
    reason: TombstoneReason;
    kind: string | null;
    key: string | null;
    content: string | null;
    value: string | null;
    purged_at: number | null;
  }[];
  return rows.flatMap((r) => {
    const forms: string[][] | null =
      r.content !== null
        ? (JSON.parse(r.content) as string[][])
        : r.value !== null && r.purged_at === null
          ? contentOf(r.value)
          : null;
    if (!forms || forms.length === 0) return [];
    const content = forms.map((f) => new Set(f));
    return [{ id: r.id, reason: r.reason, kind: r.kind, key: r.key, content }];
  });
}

/** A write as the content check reads it: the hashed forms of its words. */
export interface WrittenWords {
  /** Every folded word of the value and the key, and each word less an inflected ending. */
  all: ReadonlySet<string>;
  /** Per spelling of the value alone, each content word as the hashes of its forms. */
  valueContent: readonly (readonly (readonly string[])[])[];
}

/** The words of a write of `value` under `key`, as {@link covers} reads them. */
export function writtenWords(value: string, key: string): WrittenWords {
  const all = new Set(
    apostropheForms(`${value} ${key}`).flatMap((form) =>
      foldedWords(form).flatMap((w) => wordStems(w).map(wordHash)),
    ),
  );
  const valueContent = apostropheForms(value)
    .map((form) => contentOfForm(form).map((w) => wordStems(w).map(wordHash)))
    .filter((f) => f.length > 0);
  return { all, valueContent };
}

/**
 * Whether tombstone `t` covers a write, for some spelling of the buried value: every one of its
 * content words is among the write's words (value and key), or every content word of the written
 * value is one of its words.
 */
export function covers(t: ContentTombstone, w: WrittenWords): boolean {
  return t.content.some(
    (words) =>
      [...words].every((h) => w.all.has(h)) ||
      w.valueContent.some((form) => form.every((forms) => forms.some((h) => words.has(h)))),
  );
}

/**
 * The unlifted tombstones whose content covers a write of `value` in `slot` ({@link covers}),
 * oldest first.
 */
export function coveringTombstones(
  ctx: StoreContext,
  slot: Slot,
  value: string,
): ContentTombstone[] {
  const words = writtenWords(value, slot.key);
  return contentTombstones(ctx, slot).filter((t) => covers(t, words));
}

/** The unlifted tombstones of `hash` in `slot`. */
export function tombstonesOf(ctx: StoreContext, slot: Slot, hash: string): Tombstone[] {
  return stmt(
    ctx.db,
    `SELECT id, reason FROM tombstones
     WHERE scope = ? AND kind = ? AND key = ? AND value_hash = ? AND lifted_at IS NULL`,
  ).all(slot.scope, slot.kind, slot.key, hash) as Tombstone[];
}

/**
 * Cuts a purged value out of the keys of tombstones (`scrub` returns a key with the mention
 * replaced, or the key unchanged): a tombstone's key can hold the owner's words.
 *
 * @returns the ids of the tombstones changed, ascending.
 */
export function scrubTombstoneKeys(
  ctx: StoreContext,
  holds: (key: string) => boolean,
  scrub: (key: string) => string,
): number[] {
  const update = stmt(ctx.db, 'UPDATE tombstones SET key = ? WHERE id = ?');
  const changed: number[] = [];
  for (const t of stmt(
    ctx.db,
    'SELECT id, key FROM tombstones WHERE key IS NOT NULL ORDER BY id',
  ).all() as { id: number; key: string }[]) {
    if (!holds(t.key)) continue;
    noteChange(ctx.db, 'tombstones', t.id);
    update.run(scrub(t.key), t.id);
    changed.push(t.id);
  }
  return changed;
}

/** Lifts tombstones: the owner restored the value as fact `byFactId`. */
export function lift(ctx: StoreContext, ids: readonly number[], byFactId: number, now: number) {
  const update = stmt(ctx.db, 'UPDATE tombstones SET lifted_at = ?, lifted_by = ? WHERE id = ?');
  for (const id of ids) {
    noteChange(ctx.db, 'tombstones', id);
    update.run(now, byFactId, id);
  }
}

/**
 * The oldest unlifted `forgotten` or `purged` tombstone of `hash` anywhere in `scope` (the owner's
 * forgetting binds every key of the scope), or undefined.
 */
export function forgottenAnywhere(
  ctx: StoreContext,
  scope: Slot['scope'],
  hash: string,
): { id: number } | undefined {
  return stmt(
    ctx.db,
    `SELECT id FROM tombstones
     WHERE scope = ? AND value_hash = ? AND reason IN ('forgotten', 'purged') AND lifted_at IS NULL
     ORDER BY id LIMIT 1`,
  ).get(scope, hash) as { id: number } | undefined;
}

/** A fact of `scope` that `episodeId` supported and that the owner forgot or purged. */
export interface ForgottenFromEpisode {
  tombstone_id: number;
  fact_id: number;
  kind: string;
  value: string;
  purged_at: number | null;
}

/** The facts of `scope` the owner forgot or purged that `episodeId` was evidence for. */
export function forgottenFromEpisode(
  ctx: StoreContext,
  episodeId: number,
  scope: Slot['scope'],
): ForgottenFromEpisode[] {
  return stmt(
    ctx.db,
    `SELECT t.id AS tombstone_id, g.id AS fact_id, g.kind, g.value, g.purged_at
     FROM fact_evidence fe JOIN facts g ON g.id = fe.fact_id JOIN tombstones t ON t.fact_id = g.id
     WHERE fe.episode_id = ? AND g.scope = ?
       AND t.reason IN ('forgotten', 'purged') AND t.lifted_at IS NULL
     ORDER BY t.id`,
  ).all(episodeId, scope) as ForgottenFromEpisode[];
}

/** The reasons of every tombstone of `hash`, oldest first (audit). */
export function tombstoneReasons(ctx: StoreContext, hash: string): TombstoneReason[] {
  return (
    stmt(ctx.db, 'SELECT reason FROM tombstones WHERE value_hash = ? ORDER BY id').all(hash) as {
      reason: TombstoneReason;
    }[]
  ).map((t) => t.reason);
}

/**
 * The beliefs the owner forgot (retracted under an unlifted `forgotten` tombstone, value still
 * kept: not purged) that `clause` says again: every content word of the forgotten value is among
 * the clause's words and every content word of the clause is one of the value's (as words, a
 * short inflected ending or an attached prefix allowed), so "I drink oat milk" says again a
 * forgotten "I drink oat milk" and "my friend drinks oat milk" does not. Oldest first.
 *
 * @param clause - one clause of the owner's own statement.
 */
export function forgottenSaidAgain(ctx: StoreContext, scope: Scope, clause: string): Fact[] {
  const said = writtenWords(clause, '');
  if (said.valueContent.length === 0) return [];
  const rows = stmt(
    ctx.db,
    `SELECT f.* FROM tombstones t JOIN facts f ON f.id = t.fact_id
     WHERE t.scope = ? AND t.reason = 'forgotten' AND t.lifted_at IS NULL
       AND f.status = 'retracted' AND f.purged_at IS NULL
     ORDER BY t.id`,
  ).all(scope) as Fact[];
  const seen = new Set<number>();
  return rows.filter((f) => {
    if (seen.has(f.id) || f.value === PURGED) return false;
    seen.add(f.id);
    return contentOf(f.value).some((form) => {
      const words = new Set(form);
      const everyWordSaid = form.every((h) => said.all.has(h));
      const nothingElseSaid = said.valueContent.some((c) =>
        c.every((forms) => forms.some((h) => words.has(h))),
      );
      return everyWordSaid && nothingElseSaid;
    });
  });
}
