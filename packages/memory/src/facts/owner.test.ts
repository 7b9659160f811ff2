// forget, forget --purge, and the owner's review surface (review / confirm / reject).

import { valueHash } from '@keel/language';
import { describe, expect, it } from 'vitest';
import { dbOf } from '../internal.js';
import { PURGED } from '../redaction.js';
import {
  count,
  expectKeelError,
  openTempStore,
  recalledFactIds,
  refusals,
  slot,
  turn,
} from '../test-helpers.js';
import { WEAK_BELIEF_THRESHOLD } from './owner.js';

const DENTIST = slot('profile', 'dentist');

/** rowids of an FTS table matching one (already safe) term. */
function ftsRowids(
  store: ReturnType<typeof openTempStore>['store'],
  table: 'facts_fts' | 'episodes_fts',
  term: string,
): number[] {
  return (
    dbOf(store)
      .prepare(`SELECT rowid AS id FROM ${table} WHERE ${table} MATCH ?`)
      .all(`"${term}"`) as {
      id: number;
    }[]
  ).map((r) => r.id);
}

describe('forget', () => {
  it('retracts with a tombstone; the value is not recalled while a control fact is', async () => {
    const { store, clock } = openTempStore();
    const gone = store.remember({
      kind: 'profile',
      key: 'dentist',
      value: 'Dr. Ortiz on Elm Street',
      source: 'owner_stated',
    }).fact!;
    const control = store.remember({
      kind: 'profile',
      key: 'doctor',
      value: 'Dr. Okafor on Elm Street',
      source: 'owner_stated',
    }).fact!;
    expect(await recalledFactIds(store, 'Elm Street')).toHaveLength(2);
    clock.advance();
    const r = store.forget(gone.id);
    expect(r.purged).toBe(false);
    expect(r.fact).toMatchObject({
      id: gone.id,
      status: 'retracted',
      value: 'Dr. Ortiz on Elm Street', // without --purge the row keeps its value
      status_reason: 'forgotten by the owner',
      valid_to: clock.t,
    });
    const tomb = dbOf(store)
      .prepare('SELECT * FROM tombstones WHERE fact_id = ?')
      .all(gone.id) as Record<string, unknown>[];
    expect(tomb).toEqual([
      expect.objectContaining({
        scope: 'owner',
        kind: 'profile',
        key: 'dentist',
        reason: 'forgotten',
        value_hash: valueHash('Dr. Ortiz on Elm Street'),
        lifted_at: null,
      }),
    ]);
    expect(store.current(DENTIST)).toBeUndefined();
    expect(await recalledFactIds(store, 'Elm Street')).toEqual([control.id]);
    expect(await recalledFactIds(store, 'Ortiz')).toEqual([]);
    expect(await recalledFactIds(store, 'Okafor')).toEqual([control.id]);
    // Forgetting twice without --purge is an INVALID_STATE, not a silent no-op.
    expectKeelError(() => store.forget(gone.id), 'INVALID_STATE');
    expectKeelError(() => store.forget(9999), 'NOT_FOUND');
  });

  it('a later observed write of a forgotten value is ignored; an owner_stated one restores it', async () => {
    const { store, clock } = openTempStore();
    const f = store.remember({
      kind: 'profile',
      key: 'dentist',
      value: 'Dr. Ortiz',
      source: 'owner_stated',
    }).fact!;
    clock.advance();
    store.forget(f.id);
    clock.advance();
    const observed = store.remember({
      kind: 'profile',
      key: 'dentist',
      value: 'dr ortiz',
      source: 'observed',
    });
    expect(observed.decision).toBe('ignore');
    expect(observed.reason).toBe('tombstoned (forgotten); only the owner can restore it');
    expect(store.current(DENTIST)).toBeUndefined();
    expect(refusals(store)).toHaveLength(1);

    clock.advance();
    const restored = store.remember({
      kind: 'profile',
      key: 'dentist',
      value: 'Dr. Ortiz',
      source: 'owner_stated',
    });
    expect(restored.decision).toBe('create');
    expect(restored.reason).toBe('new slot (owner lifted a tombstone)');
    expect(restored.fact).toMatchObject({ status: 'active', source: 'owner_stated' });
    expect(dbOf(store).prepare('SELECT lifted_at, lifted_by FROM tombstones').all()).toEqual([
      { lifted_at: clock.t, lifted_by: restored.fact!.id },
    ]);
    expect(await recalledFactIds(store, 'Ortiz')).toEqual([restored.fact!.id]);
    // With the tombstone lifted, observed sightings corroborate again.
    clock.advance();
    const again = store.remember({
      kind: 'profile',
      key: 'dentist',
      value: 'Dr. Ortiz',
      source: 'observed',
    });
    expect(again.decision).toBe('corroborate');
  });
});

describe('forget --purge', () => {
  it('erases the value from facts, recall, FTS and the journal, keeps the hash, verify stays ok', async () => {
    const { store, clock } = openTempStore();
    const value = 'Dr. Quillfeather on Elm Street';
    const hash = valueHash(value);
    const e1 = turn(store, `My dentist is ${value}`);
    const first = store.remember({
      kind: 'profile',
      key: 'dentist',
      value,
      source: 'owner_stated',
      episodeId: e1,
    }).fact!;
    clock.advance();
    // An update and a change back, so the value sits in history as well.
    store.remember({
      kind: 'profile',
      key: 'dentist',
      value: 'Dr. Brennan',
      source: 'owner_stated',
    });
    clock.advance();
    const e2 = turn(store, `Actually it is still ${value}`);
    const current = store.remember({
      kind: 'profile',
      key: 'dentist',
      value,
      source: 'owner_stated',
      episodeId: e2,
    }).fact!;
    const control = store.remember({
      kind: 'profile',
      key: 'doctor',
      value: 'Dr. Okafor on Elm Street',
      source: 'owner_stated',
    }).fact!;
    const controlEp = turn(store, 'My GP is Dr. Okafor');
    expect(await recalledFactIds(store, 'Quillfeather')).toEqual([current.id]);
    expect(ftsRowids(store, 'episodes_fts', 'quillfeather')).toEqual([e1, e2]);
    expect(
      count(store, 'SELECT count(*) AS n FROM journal WHERE payload LIKE ?', '%quillfeather%'),
    ).toBeGreaterThan(0);

    clock.advance();
    const r = store.forget(current.id, { purge: true });
    expect(r.purged).toBe(true);
    expect(r.erasedFacts.sort()).toEqual([first.id, current.id].sort());
    expect(r.redactedJournal).toBeGreaterThan(0);
    expect(r.redactedEpisodes.sort()).toEqual([e1, e2]);

    // Not in facts: no row of the slot (nor any row anywhere) holds the value.
    expect(
      count(store, 'SELECT count(*) AS n FROM facts WHERE value LIKE ?', '%quillfeather%'),
    ).toBe(0);
    const rows = store.history(DENTIST);
    expect(rows.filter((f) => f.value_hash === hash).map((f) => f.value)).toEqual([PURGED, PURGED]);
    expect(store.fact(current.id)).toMatchObject({
      status: 'retracted',
      value: PURGED,
      value_hash: hash,
      purged_at: clock.t,
    });
    // The other version of the slot is untouched.
    expect(rows.map((f) => f.value)).toContain('Dr. Brennan');
    // Not recalled; the control is recalled by a query naming both.
    expect(await recalledFactIds(store, 'Quillfeather')).toEqual([]);
    expect(await recalledFactIds(store, 'Quillfeather Okafor')).toEqual([control.id]);
    expect(
      (await store.recall('Quillfeather Okafor', { type: 'episode' })).results
        .map((x) => x.id)
        .sort(),
    ).toEqual([controlEp]);
    // Not in either full-text index.
    expect(ftsRowids(store, 'facts_fts', 'quillfeather')).toEqual([]);
    expect(ftsRowids(store, 'episodes_fts', 'quillfeather')).toEqual([]);
    expect(ftsRowids(store, 'facts_fts', 'okafor')).toEqual([control.id]);
    // Not in any journal payload, nor any episode text.
    expect(
      count(store, 'SELECT count(*) AS n FROM journal WHERE payload LIKE ?', '%quillfeather%'),
    ).toBe(0);
    expect(
      count(store, 'SELECT count(*) AS n FROM episodes WHERE text LIKE ?', '%quillfeather%'),
    ).toBe(0);
    expect(store.episode(e1)!.text).toBe(`My dentist is ${PURGED}`);
    // The hash is kept: the tombstones name it.
    expect(
      dbOf(store)
        .prepare('SELECT reason FROM tombstones WHERE value_hash = ? ORDER BY id')
        .all(hash)
        .map((t) => (t as { reason: string }).reason),
    ).toEqual(['forgotten', 'purged']);
    // The journal still verifies (redaction keeps the payload hash in the chain).
    expect(store.verify()).toMatchObject({ ok: true, problems: [] });

    // A later observed write of the value is ignored.
    clock.advance();
    const later = store.remember({ kind: 'profile', key: 'dentist', value, source: 'observed' });
    expect(later.decision).toBe('ignore');
    expect(later.reason).toMatch(/^tombstoned/);
    expect(store.current(DENTIST)).toBeUndefined();
    expect(await recalledFactIds(store, 'Quillfeather')).toEqual([]);
    expect(store.verify().ok).toBe(true);
    // Purging again is a no-op, not an error.
    expect(store.forget(current.id, { purge: true })).toMatchObject({
      purged: true,
      erasedFacts: [],
    });
  });

  it('can purge a value that was already forgotten', async () => {
    const { store, clock } = openTempStore();
    const f = store.remember({
      kind: 'note',
      key: 'locker',
      value: 'locker code zanzibar',
      source: 'owner_stated',
    }).fact!;
    const control = store.remember({
      kind: 'note',
      key: 'bike',
      value: 'bike lock zanzibar blue',
      source: 'owner_stated',
    }).fact!;
    clock.advance();
    store.forget(f.id);
    clock.advance();
    const r = store.forget(f.id, { purge: true });
    expect(r.purged).toBe(true);
    expect(store.fact(f.id)!.value).toBe(PURGED);
    expect(
      count(store, `SELECT count(*) AS n FROM journal WHERE payload LIKE '%locker code%'`),
    ).toBe(0);
    expect(await recalledFactIds(store, 'zanzibar')).toEqual([control.id]);
    expect(store.verify().ok).toBe(true);
  });

  it('cutting a purged value out of other slots leaves rows the journal explains', async () => {
    const { store, clock } = openTempStore();
    const f = store.remember({
      kind: 'relationship',
      key: 'sister',
      value: 'Ada Quillfeather',
      source: 'owner_stated',
    }).fact!;
    const quoting = store.remember({
      kind: 'note',
      key: 'sister_bakes',
      value: 'Ada Quillfeather bakes sourdough',
      source: 'owner_stated',
    }).fact!;
    const control = store.remember({
      kind: 'note',
      key: 'neighbour',
      value: 'Brixenwold bakes rye',
      source: 'owner_stated',
    }).fact!;
    clock.advance();
    expect(store.otherSlotsHolding(f.id).map((r) => r.id)).toEqual([quoting.id]);
    store.forget(f.id, { purge: true, otherSlots: 'erase' });
    expect(store.fact(quoting.id)!.value).toBe(`${PURGED} bakes sourdough`);
    expect(store.fact(control.id)!.value).toBe('Brixenwold bakes rye');
    expect(await recalledFactIds(store, 'sourdough')).toEqual([quoting.id]);
    const v = store.verify();
    expect(v.problems).toEqual([]);
    expect(v.ok).toBe(true);
  });

  it('purge erases a value stated in another case/punctuation from its evidence episodes', async () => {
    const { store, clock } = openTempStore();
    const e1 = turn(store, 'My dentist is Dr. Quillfeather on Elm Street');
    const f = store.remember({
      kind: 'profile',
      key: 'dentist',
      value: 'Dr. Quillfeather on Elm Street',
      source: 'observed',
      episodeId: e1,
    }).fact!;
    clock.advance();
    const e2 = turn(store, 'my dentist is dr. quillfeather on elm street!');
    const r = store.remember({
      kind: 'profile',
      key: 'dentist',
      value: 'dr. quillfeather on elm street!',
      source: 'observed',
      episodeId: e2,
    });
    expect(r.decision).toBe('corroborate');
    clock.advance();
    store.forget(f.id, { purge: true });
    expect(ftsRowids(store, 'episodes_fts', 'quillfeather')).toEqual([]);
    expect(
      count(store, 'SELECT count(*) AS n FROM episodes WHERE text LIKE ?', '%quillfeather%'),
    ).toBe(0);
  });

  it('an ignored re-write of a purged value does not put the value back in the journal', async () => {
    const { store, clock } = openTempStore();
    const f = store.remember({
      kind: 'profile',
      key: 'dentist',
      value: 'Dr. Quillfeather',
      source: 'owner_stated',
    }).fact!;
    clock.advance();
    store.forget(f.id, { purge: true });
    clock.advance();
    const r = store.remember({
      kind: 'profile',
      key: 'dentist',
      value: 'Dr. Quillfeather',
      source: 'observed',
    });
    expect(r.decision).toBe('ignore');
    expect(
      count(store, 'SELECT count(*) AS n FROM journal WHERE payload LIKE ?', '%quillfeather%'),
    ).toBe(0);
  });
});

describe('review, confirm, reject', () => {
  it('lists pending conflicts and weak (< 0.75, non-owner) beliefs, not strong or owner ones', async () => {
    const { store, clock } = openTempStore();
    const owner = store.remember({
      kind: 'preference',
      key: 'tea',
      value: 'sencha',
      source: 'owner_stated',
    }).fact!;
    const ownerLow = store.remember({
      kind: 'preference',
      key: 'snack',
      value: 'olives',
      source: 'owner_stated',
      confidence: 0.5,
    }).fact!;
    const weakObserved = store.remember({
      kind: 'profile',
      key: 'city',
      value: 'Lisbon',
      source: 'observed',
    }).fact!;
    const weakInferred = store.remember({
      kind: 'profile',
      key: 'job',
      value: 'architect',
      source: 'inferred',
      confidence: 0.4,
    }).fact!;
    // 0.75 (two episodes) is not weak.
    store.remember({ kind: 'profile', key: 'pet', value: 'a cat', source: 'observed' });
    clock.advance();
    const atThreshold = store.remember({
      kind: 'profile',
      key: 'pet',
      value: 'a cat',
      source: 'observed',
    }).fact!;
    expect(atThreshold.confidence).toBe(WEAK_BELIEF_THRESHOLD);
    clock.advance();
    const pending = store.remember({
      kind: 'preference',
      key: 'tea',
      value: 'builder’s tea',
      source: 'observed',
    }).fact!;

    const q = store.review();
    expect(q.threshold).toBe(0.75);
    expect(q.pending.map((p) => [p.fact.id, p.fact.status, p.current?.id])).toEqual([
      [pending.id, 'pending', owner.id],
    ]);
    // weakest first
    expect(q.weak.map((f) => f.id)).toEqual([weakInferred.id, weakObserved.id]);
    expect(q.weak.map((f) => f.id)).not.toContain(ownerLow.id);
    expect(q.weak.map((f) => f.id)).not.toContain(atThreshold.id);
  });

  it('confirm turns a pending conflict into owner_confirmed 1.0, superseding what it contradicted', async () => {
    const { store, clock } = openTempStore();
    const owner = store.remember({
      kind: 'preference',
      key: 'tea',
      value: 'sencha',
      source: 'owner_stated',
    }).fact!;
    clock.advance();
    const pending = store.remember({
      kind: 'preference',
      key: 'tea',
      value: 'rooibos',
      source: 'observed',
    }).fact!;
    clock.advance();
    const { fact, superseded } = store.confirm(pending.id);
    expect(fact).toMatchObject({
      id: pending.id,
      status: 'active',
      source: 'owner_confirmed',
      confidence: 1,
      evidence_count: 2,
      supersedes_id: owner.id,
      conflicts_with_id: null,
    });
    expect(superseded).toMatchObject({
      id: owner.id,
      status: 'superseded',
      superseded_by_id: pending.id,
      valid_to: clock.t,
    });
    expect(store.current(slot('preference', 'tea'))!.id).toBe(pending.id);
    expect(await recalledFactIds(store, 'rooibos sencha')).toEqual([pending.id]);
    expect(store.review().pending).toEqual([]);
    expect(store.verify().ok).toBe(true);
    // Only active or pending facts can be confirmed.
    expectKeelError(() => store.confirm(owner.id), 'INVALID_STATE');
  });

  it('confirm lifts a weak belief to owner_confirmed 1.0 and off the weak list', async () => {
    const { store, clock } = openTempStore();
    const weak = store.remember({
      kind: 'profile',
      key: 'city',
      value: 'Lisbon',
      source: 'observed',
    }).fact!;
    const other = store.remember({
      kind: 'profile',
      key: 'job',
      value: 'architect',
      source: 'observed',
    }).fact!;
    clock.advance();
    const { fact, superseded } = store.confirm(weak.id);
    expect(superseded).toBeNull();
    expect(fact).toMatchObject({ source: 'owner_confirmed', confidence: 1, status: 'active' });
    expect(store.review().weak.map((f) => f.id)).toEqual([other.id]);
  });

  it('reject makes a pending fact rejected + tombstone; a later observed write is ignored', async () => {
    const { store, clock } = openTempStore();
    const owner = store.remember({
      kind: 'preference',
      key: 'tea',
      value: 'sencha',
      source: 'owner_stated',
    }).fact!;
    clock.advance();
    const pending = store.remember({
      kind: 'preference',
      key: 'tea',
      value: 'rooibos',
      source: 'observed',
    }).fact!;
    clock.advance();
    const rejected = store.reject(pending.id);
    expect(rejected).toMatchObject({ status: 'rejected', status_reason: 'rejected by the owner' });
    expect(
      dbOf(store)
        .prepare('SELECT reason, value_hash FROM tombstones WHERE fact_id = ?')
        .all(pending.id),
    ).toEqual([{ reason: 'rejected', value_hash: valueHash('rooibos') }]);
    expect(store.review().pending).toEqual([]);
    expect(store.current(slot('preference', 'tea'))!.id).toBe(owner.id);
    clock.advance();
    const later = store.remember({
      kind: 'preference',
      key: 'tea',
      value: 'Rooibos',
      source: 'observed',
    });
    expect(later.decision).toBe('ignore');
    expect(later.reason).toBe('tombstoned (rejected); only the owner can restore it');
    expect(count(store, `SELECT count(*) AS n FROM facts WHERE status = 'pending'`)).toBe(0);
    // Control: a different observed value still reaches the review queue.
    const other = store.remember({
      kind: 'preference',
      key: 'tea',
      value: 'oolong',
      source: 'observed',
    });
    expect(other.decision).toBe('conflict');
    expect(store.review().pending.map((p) => p.fact.id)).toEqual([other.fact!.id]);
  });

  it('reject of an active observed belief retracts it from recall; a control stays', async () => {
    const { store, clock } = openTempStore();
    const bad = store.remember({
      kind: 'profile',
      key: 'job',
      value: 'architect in Lisbon',
      source: 'inferred',
    }).fact!;
    const good = store.remember({
      kind: 'profile',
      key: 'city',
      value: 'lives in Lisbon',
      source: 'observed',
    }).fact!;
    clock.advance();
    store.reject(bad.id);
    expect(await recalledFactIds(store, 'Lisbon')).toEqual([good.id]);
    expectKeelError(() => store.reject(bad.id), 'INVALID_STATE');
  });
});

describe('forget --purge reaches text derived from the conversation', () => {
  it('scrubs the session history, turn inputs, compaction summary and think records; other text stays', async () => {
    const { store, clock } = openTempStore();
    const said = turn(store, 'call me Zephyrine from now on');
    const other = turn(store, 'I like long walks by the sea');
    const name = store.remember({
      kind: 'profile',
      key: 'preferred_name',
      value: 'Zephyrine',
      source: 'owner_stated',
      episodeId: said,
    }).fact!;
    const db = dbOf(store);
    const now = clock.now();
    db.prepare(
      `INSERT INTO sessions (id, name, created_at, updated_at, anchor) VALUES (1, 'owner', ?, ?, ?)`,
    ).run(now, now, 'Earlier the owner asked to be called Zephyrine. They like walks.');
    db.prepare(
      `INSERT INTO turns (id, session_id, channel, status, input, started_at) VALUES (1, 1, 'terminal', 'complete', ?, ?)`,
    ).run('call me Zephyrine from now on', now);
    db.prepare(
      `INSERT INTO messages (session_id, turn_id, role, content, tokens, created_at) VALUES (1, 1, ?, ?, 5, ?)`,
    ).run('assistant', JSON.stringify([{ type: 'text', text: 'Hello, Zephyrine!' }]), now);
    db.prepare(
      `INSERT INTO belief_queue (episode_id, queued_at, state, reason) VALUES (?, ?, 'believed', ?)`,
    ).run(said, now, 'identity: "Zephyrine"');
    db.prepare(
      `INSERT INTO belief_queue (episode_id, queued_at, state, reason) VALUES (?, ?, 'believed', ?)`,
    ).run(other, now, 'preference: walks by the sea');
    db.prepare(
      `INSERT INTO interrupts (item_key, text, created_at) VALUES ('k', 'Zephyrine, your dentist is at 9', ?)`,
    ).run(now);
    db.prepare(
      `INSERT INTO think_runs (kind, status, started_at, summary) VALUES ('tick', 'ok', ?, ?)`,
    ).run(now, JSON.stringify({ rejected: [{ at: 'delta[0]', reason: 'key Zephyrine' }] }));

    const r = store.forget(name.id, { purge: true });
    expect(r.purged).toBe(true);
    const everything = [
      'SELECT anchor AS t FROM sessions',
      'SELECT input AS t FROM turns',
      'SELECT content AS t FROM messages',
      'SELECT reason AS t FROM belief_queue',
      'SELECT text AS t FROM interrupts',
      'SELECT summary AS t FROM think_runs',
    ].flatMap((sql) => (db.prepare(sql).all() as { t: string }[]).map((x) => x.t));
    expect(everything.join('\n')).not.toMatch(/zephyrine/i);
    expect(everything.join('\n')).toContain(PURGED);
    // Control: text without the value is untouched.
    expect(everything).toContain('preference: walks by the sea');
    expect(JSON.parse(everything[2]!)).toEqual([{ type: 'text', text: `Hello, ${PURGED}!` }]);
  });
});
