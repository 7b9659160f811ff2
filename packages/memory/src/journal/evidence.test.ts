// The journal is evidence: every way of changing keel.db behind keel's back that `keel verify`
// must report, each with the exact break it reports. The triggers refuse most of these outright;
// a writer who drops them is still caught by verify (the chain, the head, and replay).

import { sha256, valueHash } from '@keel/language';
import { describe, expect, it } from 'vitest';
import { dbOf } from '../internal.js';
import { MemoryStore } from '../store.js';
import {
  factResults,
  journalRows,
  openTempStore,
  slot,
  T0,
  tempDir,
  turn,
  WEEK,
} from '../test-helpers.js';
import { entryHash, GENESIS_HASH, verifyJournal } from './journal.js';
import { CANNOT_DETECT, RESTORE_FIX } from './replay.js';

type Store = ReturnType<typeof openTempStore>['store'];

/** A small store: an owner's belief, an inferred one, a forgotten one, and a last turn. */
function scene() {
  const t = openTempStore();
  const { store, clock } = t;
  const e1 = turn(store, 'I live in Porto');
  const city = store.remember({
    kind: 'profile',
    key: 'city',
    value: 'Porto',
    source: 'owner_stated',
    episodeId: e1,
  }).fact!;
  clock.advance();
  const e2 = turn(store, 'jazz on the radio again');
  const jazz = store.remember({
    kind: 'preference',
    key: 'music',
    value: 'jazz',
    source: 'inferred',
    episodeId: e2,
  }).fact!;
  clock.advance();
  const gym = store.remember({
    kind: 'note',
    key: 'gym',
    value: 'gym on Mondays',
    source: 'observed',
  }).fact!;
  store.forget(gym.id);
  clock.advance();
  const last = turn(store, 'see you tomorrow');
  expect(store.verify()).toMatchObject({ ok: true, problems: [] });
  return { ...t, e1, e2, city, jazz, gym, last };
}

/** The seq of the `state` entry that last recorded row `id` of `table`. */
function recordOf(store: Store, table: string, id: number): number {
  const rows = journalRows(store, 'state').filter((e) =>
    (JSON.parse(e.payload).rows as { t: string; id: number }[]).some(
      (r) => r.t === table && r.id === id,
    ),
  );
  return rows.at(-1)!.seq;
}

const replayProblems = (store: Store) =>
  store.verify().problems.filter((p) => p.check === 'replay');

const activeFix = (id: number) =>
  `${RESTORE_FIX}; until then recall leaves it out (keel forget ${id} retires it)`;

describe('a rewritten payload is detected on any row, redacted or not', () => {
  it('the issue\'s "UPDATE journal SET payload=…, redacted_at=1" is refused; without the trigger, verify names it', async () => {
    const { store } = scene();
    const db = dbOf(store);
    const target = journalRows(store, 'create')[0]!;
    const forge = `UPDATE journal SET payload = '{"forged":true}', redacted_at = 1 WHERE seq = ?`;
    expect(() => db.prepare(forge).run(target.seq)).toThrow(
      'journal is append-only (a payload changes only with its redaction entry)',
    );
    expect(store.verify().ok).toBe(true);

    db.exec('DROP TRIGGER journal_redaction_journaled');
    db.prepare(forge).run(target.seq);
    const report = store.verify();
    expect(report.ok).toBe(false);
    expect(report.journal.breaks).toEqual([
      {
        seq: target.seq,
        problem: 'payload_hash',
        detail: 'payload rewritten as redacted; no redaction entry records it',
      },
    ]);
  });

  it('a purge journals each redaction; a purged payload rewritten again, or restored, is a break', async () => {
    const { store, clock } = scene();
    const locker = store.remember({
      kind: 'note',
      key: 'locker',
      value: 'locker 42 at the gym',
      source: 'owner_stated',
    }).fact!;
    // The same words in another slot: journaled too, redacted by the purge as well.
    store.remember({
      kind: 'note',
      key: 'spare_locker',
      value: 'locker 42 at the gym',
      source: 'owner_stated',
    });
    const before = journalRows(store);
    clock.advance();
    const r = store.forget(locker.id, { purge: true });
    expect(r.redactedJournal).toBeGreaterThan(0);
    const redacted = journalRows(store).filter((e) => e.redacted_at !== null);
    expect(redacted).toHaveLength(r.redactedJournal);
    const redactions = journalRows(store, 'redact').filter((e) => e.entity === 'journal');
    // One redaction entry per rewritten entry, by the owner, before the purge entry.
    expect(redactions.map((e) => e.entity_id)).toEqual(redacted.map((e) => e.seq));
    const purge = journalRows(store, 'purge')[0]!;
    for (const [i, e] of redactions.entries()) {
      expect(e).toMatchObject({ actor: 'owner', entity: 'journal' });
      expect(e.seq).toBeLessThan(purge.seq);
      // The hash before is the one the chain covers (the payload as first written).
      expect(JSON.parse(e.payload)).toEqual({
        reason: 'purge',
        before_sha256: redacted[i]!.payload_hash,
        payload_sha256: sha256(redacted[i]!.payload),
      });
    }
    expect(store.verify()).toMatchObject({ ok: true, problems: [] });

    const db = dbOf(store);
    db.exec('DROP TRIGGER journal_redaction_journaled; DROP TRIGGER journal_redact_only;');
    // Two entries written before the purge: one rewritten again, one restored to what it was.
    const [a, b] = redacted.filter((x) => before.some((y) => y.seq === x.seq));
    const original = before.find((x) => x.seq === b!.seq)!;
    const redactionOf = (seq: number) => redactions.find((e) => e.entity_id === seq)!.seq;
    db.prepare(`UPDATE journal SET payload = '{"forged":true}' WHERE seq = ?`).run(a!.seq);
    db.prepare('UPDATE journal SET payload = ?, redacted_at = NULL WHERE seq = ?').run(
      original.payload,
      b!.seq,
    );
    expect(verifyJournal(db).breaks).toEqual([
      {
        seq: a!.seq,
        problem: 'payload_hash',
        detail: `payload differs from its redaction (entry ${redactionOf(a!.seq)})`,
      },
      {
        seq: b!.seq,
        problem: 'payload_hash',
        detail: `payload differs from its redaction (entry ${redactionOf(b!.seq)})`,
      },
    ]);
  });

  it('a compaction journals each redaction as the curator; the store still verifies', async () => {
    const { store, clock } = scene();
    const f = store.remember({
      kind: 'profile',
      key: 'dentist',
      value: 'Dr Ruiz',
      source: 'observed',
    }).fact!;
    clock.advance();
    store.confirm(f.id);
    clock.advance();
    expect(store.compactJournal({ before: clock.t })).toEqual({ compacted: 1 });
    const [redaction] = journalRows(store, 'redact');
    const compacted = journalRows(store).find((e) => e.redacted_at !== null)!;
    expect(redaction).toMatchObject({ actor: 'curator', entity: 'journal' });
    expect(redaction!.entity_id).toBe(compacted.seq);
    expect(JSON.parse(redaction!.payload)).toMatchObject({
      reason: 'compact',
      payload_sha256: sha256(compacted.payload),
    });
    expect(store.verify()).toMatchObject({ ok: true, problems: [] });
  });
});

describe('a missing tail and a missing journal are detected', () => {
  it('the last entry deleted', async () => {
    const { store, last } = scene();
    const db = dbOf(store);
    const end = journalRows(store).at(-1)!;
    expect(end).toMatchObject({ op: 'episode', entity_id: last });
    db.exec('DROP TRIGGER journal_no_delete');
    db.prepare('DELETE FROM journal WHERE seq = ?').run(end.seq);
    const report = store.verify();
    expect(report.journal.breaks).toEqual([
      {
        seq: end.seq,
        problem: 'missing_tail',
        detail: `the journal ends at entry ${end.seq - 1}; its head records entry ${end.seq}`,
      },
    ]);
    // The turn it recorded is no longer explained either.
    expect(replayProblems(store)).toEqual([
      {
        check: 'replay',
        detail: `episode ${last} is not in the journal: it was written outside keel`,
        fix: RESTORE_FIX,
      },
    ]);
    expect(report.head).toEqual({ seq: end.seq, hash: end.hash });
  });

  it('the whole journal deleted: the head says so, and replay names every row it explained', async () => {
    const { store, e1, e2, city, jazz, gym } = scene();
    const db = dbOf(store);
    const head = journalRows(store).at(-1)!.seq;
    const episodes = (
      db.prepare('SELECT id FROM episodes ORDER BY id').all() as { id: number }[]
    ).map((r) => r.id);
    db.exec('DROP TRIGGER journal_no_delete; DELETE FROM journal;');
    const report = store.verify();
    expect(report.journal).toMatchObject({
      entries: 0,
      breaks: [
        {
          seq: head,
          problem: 'missing_tail',
          detail: `the journal is empty; its head records entry ${head}`,
        },
      ],
    });
    expect(replayProblems(store)).toEqual(everyRowUnexplained(store, episodes));
    expect(episodes).toEqual(expect.arrayContaining([e1, e2]));
    expect([city.id, jazz.id, gym.id]).toEqual([1, 2, 3]);
  });

  it('the journal and its head deleted: the head is missing, and replay still names every row', async () => {
    const { store } = scene();
    const db = dbOf(store);
    const episodes = (
      db.prepare('SELECT id FROM episodes ORDER BY id').all() as { id: number }[]
    ).map((r) => r.id);
    db.exec(`DROP TRIGGER journal_no_delete; DROP TRIGGER journal_head_no_delete;
             DELETE FROM journal; DELETE FROM journal_head;`);
    const report = store.verify();
    expect(report.head).toBeNull();
    expect(report.journal.breaks).toEqual([
      {
        seq: 0,
        problem: 'head',
        detail: 'the journal head is missing: a missing tail cannot be ruled out',
      },
    ]);
    expect(replayProblems(store)).toEqual(everyRowUnexplained(store, episodes));
  });

  it('the journal deleted and the head rewound to the genesis: replay names every row', async () => {
    const { store } = scene();
    const db = dbOf(store);
    const episodes = (
      db.prepare('SELECT id FROM episodes ORDER BY id').all() as { id: number }[]
    ).map((r) => r.id);
    db.exec(`DROP TRIGGER journal_no_delete; DROP TRIGGER journal_head_append_only;
             DELETE FROM journal; UPDATE journal_head SET seq = 0, hash = '${GENESIS_HASH}';`);
    const report = store.verify();
    expect(report.journal).toMatchObject({ entries: 0, breaks: [], from: 1, last: null });
    expect(report.ok).toBe(false);
    expect(replayProblems(store)).toEqual(everyRowUnexplained(store, episodes));
  });
});

/** What replay says of the scene once the journal is gone: every row, and the recall index. */
function everyRowUnexplained(store: Store, episodes: number[]) {
  const db = dbOf(store);
  const problem = (detail: string) => ({ check: 'replay', detail, fix: RESTORE_FIX });
  const facts = db.prepare('SELECT id, kind, key FROM facts ORDER BY id').all() as {
    id: number;
    kind: string;
    key: string;
  }[];
  const evidence = db
    .prepare('SELECT id, fact_id, episode_id FROM fact_evidence ORDER BY id')
    .all() as { id: number; fact_id: number; episode_id: number }[];
  const tombstones = db.prepare('SELECT id, kind, key FROM tombstones ORDER BY id').all() as {
    id: number;
    kind: string;
    key: string;
  }[];
  return [
    ...facts.map((f) =>
      problem(
        `fact ${f.id} (${f.kind}/${f.key}) is not in the journal: it was written outside keel`,
      ),
    ),
    ...evidence.map((e) =>
      problem(
        `evidence row ${e.id} (fact ${e.fact_id}, episode ${e.episode_id}) is not in the journal: it was written outside keel`,
      ),
    ),
    ...tombstones.map((t) =>
      problem(
        `tombstone ${t.id} (${t.kind}/${t.key}) is not in the journal: it was written outside keel`,
      ),
    ),
    ...facts.map((f) => problem(`journal_facts holds fact ${f.id}, which no journal record names`)),
    ...episodes.map((id) =>
      problem(`episode ${id} is not in the journal: it was written outside keel`),
    ),
  ];
}

describe('replay: a row the journal does not explain is a break, named with the row and the fix', () => {
  it("a fact's value changed directly", async () => {
    const { store, city } = scene();
    dbOf(store).prepare(`UPDATE facts SET value = 'Lisbon' WHERE id = ?`).run(city.id);
    expect(replayProblems(store)).toEqual([
      {
        check: 'replay',
        detail: `fact ${city.id} (profile/city): value differs from the journal's record (entry ${recordOf(store, 'facts', city.id)})`,
        fix: activeFix(city.id),
      },
    ]);
    // Recall leaves it out, and says so.
    const r = await store.recall('Lisbon city', { touch: false });
    expect(factResults(r)).toEqual([]);
    expect(r.unexplained).toEqual([city.id]);
  });

  it('an inferred belief promoted to owner_stated at 1.0 directly', async () => {
    const { store, jazz } = scene();
    dbOf(store)
      .prepare(`UPDATE facts SET source = 'owner_stated', confidence = 1.0 WHERE id = ?`)
      .run(jazz.id);
    expect(replayProblems(store)).toEqual([
      {
        check: 'replay',
        detail: `fact ${jazz.id} (preference/music): source, confidence differ from the journal's record (entry ${recordOf(store, 'facts', jazz.id)})`,
        fix: activeFix(jazz.id),
      },
    ]);
    expect(factResults(await store.recall('jazz', { touch: false }))).toEqual([]);
    expect(store.strongestFacts('owner', ['preference'], 10)).toEqual([]);
  });

  it('a belief planted with one evidence row is a break, and is never recalled as the owner’s word', async () => {
    const { store, clock, e1, city } = scene();
    const db = dbOf(store);
    const planted = Number(
      db
        .prepare(
          `INSERT INTO facts (scope, kind, key, value, value_hash, status, source, confidence,
             created_at, updated_at, last_seen_at)
           VALUES ('owner', 'relationship', 'sister', 'Eve', ?, 'active', 'owner_stated', 1.0, ?, ?, ?)`,
        )
        .run(valueHash('Eve'), clock.t, clock.t, clock.t).lastInsertRowid,
    );
    const evidence = Number(
      db
        .prepare(
          `INSERT INTO fact_evidence (fact_id, episode_id, source, observed_at)
           VALUES (?, ?, 'owner_stated', ?)`,
        )
        .run(planted, e1, clock.t).lastInsertRowid,
    );
    const report = store.verify();
    expect(report.ok).toBe(false);
    expect(report.problems).toEqual([
      {
        check: 'replay',
        detail: `fact ${planted} (relationship/sister) is not in the journal: it was written outside keel`,
        fix: RESTORE_FIX,
      },
      {
        check: 'replay',
        detail: `evidence row ${evidence} (fact ${planted}, episode ${e1}) is not in the journal: it was written outside keel`,
        fix: RESTORE_FIX,
      },
    ]);
    // Not recalled, not a standing belief for the prompt; the owner's real belief still is.
    const r = await store.recall('sister Eve', { touch: false });
    expect(factResults(r)).toEqual([]);
    expect(r.unexplained).toEqual([planted]);
    expect(store.strongestFacts('owner', ['relationship', 'profile'], 10).map((f) => f.id)).toEqual(
      [city.id],
    );
    expect((await store.recall('Eve', { asOf: clock.t, touch: false })).unexplained).toEqual([
      planted,
    ]);
  });

  it("an episode's text rewritten through redacted_at is refused; without the trigger, verify names it", async () => {
    const { store, e1 } = scene();
    const db = dbOf(store);
    const rewrite = `UPDATE episodes SET text = 'I live in Lisbon', redacted_at = 1 WHERE id = ?`;
    expect(() => db.prepare(rewrite).run(e1)).toThrow(
      'episodes are append-only (only a journaled purge may redact text)',
    );
    db.exec('DROP TRIGGER episodes_redaction_journaled');
    db.prepare(rewrite).run(e1);
    const recorded = journalRows(store, 'episode').find((e) => e.entity_id === e1)!.seq;
    expect(store.verify().problems).toEqual([
      {
        check: 'replay',
        detail: `episode ${e1}: text rewritten through redacted_at; no journaled purge redacted it (entry ${recorded} recorded the text)`,
        fix: RESTORE_FIX,
      },
      // The dropped guard is named too.
      {
        check: 'triggers',
        detail: 'trigger episodes_redaction_journaled is missing',
        fix: expect.stringContaining('keel restore'),
      },
    ]);
  });

  it("a purge journals each episode's redaction; a purged text restored is a break", async () => {
    const { store, clock, e1, city } = scene();
    clock.advance();
    store.remember({ kind: 'profile', key: 'city', value: 'Braga', source: 'owner_stated' });
    const r = store.forget(city.id, { purge: true });
    expect(r.redactedEpisodes).toContain(e1);
    const redaction = journalRows(store, 'redact').find(
      (e) => e.entity === 'episode' && e.entity_id === e1,
    )!;
    expect(redaction).toMatchObject({ actor: 'owner' });
    expect(JSON.parse(redaction.payload)).toEqual({
      reason: 'purge',
      before_sha256: sha256('I live in Porto'),
      text_sha256: sha256(store.episode(e1)!.text),
    });
    expect(store.verify()).toMatchObject({ ok: true, problems: [] });
    const db = dbOf(store);
    db.exec('DROP TRIGGER episodes_redaction_journaled');
    db.prepare(`UPDATE episodes SET text = 'I live in Porto' WHERE id = ?`).run(e1);
    expect(replayProblems(store)).toEqual([
      {
        check: 'replay',
        detail: `episode ${e1}: text differs from its redaction (entry ${redaction.seq})`,
        fix: RESTORE_FIX,
      },
    ]);
  });

  it('a change laundered by a later decision is still a break, and the fact stays out of recall', async () => {
    const { store, clock, city } = scene();
    const first = recordOf(store, 'facts', city.id);
    dbOf(store).prepare(`UPDATE facts SET value = 'Lisbon' WHERE id = ?`).run(city.id);
    clock.advance();
    // The owner says Porto again: the value hash did not change, so it corroborates the row.
    const again = store.remember({
      kind: 'profile',
      key: 'city',
      value: 'Porto',
      source: 'owner_stated',
    });
    expect(again).toMatchObject({ decision: 'corroborate', fact: { value: 'Lisbon' } });
    expect(replayProblems(store)).toEqual([
      {
        check: 'replay',
        detail: `fact ${city.id} was changed outside the journal between entry ${first} and entry ${recordOf(store, 'facts', city.id)}`,
        fix: RESTORE_FIX,
      },
    ]);
    const r = await store.recall('Lisbon city', { touch: false });
    expect(factResults(r)).toEqual([]);
    expect(r.unexplained).toEqual([city.id]);
  });

  it('an evidence count changed, a tombstone deleted, a status changed', async () => {
    const { store, city, jazz, gym } = scene();
    const db = dbOf(store);
    db.prepare('UPDATE facts SET evidence_count = 3 WHERE id = ?').run(city.id);
    db.prepare(`UPDATE facts SET status = 'retracted' WHERE id = ?`).run(jazz.id);
    const tomb = db.prepare('SELECT id FROM tombstones WHERE fact_id = ?').get(gym.id) as {
      id: number;
    };
    db.prepare('DELETE FROM tombstones WHERE id = ?').run(tomb.id);
    expect(store.verify().problems).toEqual([
      {
        check: 'evidence_count',
        detail: `fact ${city.id} claims 3 pieces of evidence, has 1`,
      },
      {
        check: 'replay',
        detail: `fact ${city.id} (profile/city): evidence count differs from the journal's record (entry ${recordOf(store, 'facts', city.id)})`,
        fix: activeFix(city.id),
      },
      {
        check: 'replay',
        detail: `fact ${jazz.id} (preference/music): status differs from the journal's record (entry ${recordOf(store, 'facts', jazz.id)})`,
        fix: RESTORE_FIX,
      },
      {
        check: 'replay',
        detail: `tombstone ${tomb.id} is missing; the journal recorded it at entry ${recordOf(store, 'tombstones', tomb.id)}`,
        fix: RESTORE_FIX,
      },
    ]);
  });
});

describe('what a record holds', () => {
  it('the whole row the first time, then the columns that changed; a break is still named by field', async () => {
    const { store, clock, jazz } = scene();
    clock.advance(10 * WEEK);
    expect(store.decay().map((c) => c.id)).toContain(jazz.id);
    const decayRecord = JSON.parse(journalRows(store, 'state').at(-1)!.payload);
    expect(decayRecord.for).toBe('decay');
    const mine = decayRecord.rows.find((r: { id: number }) => r.id === jazz.id);
    expect(mine).toEqual({
      t: 'facts',
      id: jazz.id,
      before: expect.stringMatching(/^[0-9a-f]{32}$/),
      sha256: expect.stringMatching(/^[0-9a-f]{32}$/),
      row: { confidence: store.fact(jazz.id)!.confidence, last_decayed_at: clock.t },
    });
    clock.advance(WEEK);
    store.decay();
    expect(store.verify()).toMatchObject({ ok: true, problems: [] });
    dbOf(store)
      .prepare(`UPDATE facts SET confidence = 0.9, kind = 'note' WHERE id = ?`)
      .run(jazz.id);
    expect(replayProblems(store)).toEqual([
      {
        check: 'replay',
        detail: `fact ${jazz.id} (note/music): kind, confidence differ from the journal's record (entry ${recordOf(store, 'facts', jazz.id)})`,
        fix: activeFix(jazz.id),
      },
    ]);
  });
});

describe('what verify says about its own reach', () => {
  it('a fresh store replays from the first entry; the report says what verify cannot detect', async () => {
    const { store } = scene();
    const report = store.verify();
    expect(report.replay).toMatchObject({
      from: 1,
      predate: { facts: 0, evidence: 0, tombstones: 0, episodes: 0 },
      checked: { facts: 3, tombstones: 1 },
    });
    expect(report.cannotDetect).toBe(CANNOT_DETECT);
    expect(CANNOT_DETECT).toMatch(/rewrites the whole file consistently/);
  });

  it('an older store replays from the first entry written with replay records, with no false break', async () => {
    const dir = tempDir();
    const path = `${dir}/keel.db`;
    const { openDatabase } = await import('../db.js');
    const { migrate } = await import('../schema/index.js');
    // A store at schema version 10, written the way keel wrote before replay records: rows and
    // their journal entries, a purge's redactions made in place.
    const db = openDatabase(path, { migrate: false });
    migrate(db, T0, 10);
    const entry = (op: string, entity: string, entityId: number | null, payload: unknown) => {
      const last = db.prepare('SELECT seq, hash FROM journal ORDER BY seq DESC LIMIT 1').get() as
        | { seq: number; hash: string }
        | undefined;
      const text = JSON.stringify(payload);
      const base = {
        seq: (last?.seq ?? 0) + 1,
        at: T0,
        actor: 'owner',
        op,
        entity,
        entity_id: entityId,
        payload_hash: sha256(text),
        prev_hash: last?.hash ?? GENESIS_HASH,
      };
      db.prepare(
        `INSERT INTO journal (seq, at, actor, op, entity, entity_id, payload, payload_hash, prev_hash, hash)
         VALUES (@seq, @at, @actor, @op, @entity, @entity_id, @payload, @payload_hash, @prev_hash, @hash)`,
      ).run({ ...base, payload: text, hash: entryHash(base) });
      return base.seq;
    };
    const episode = (text: string) => {
      const id = Number(
        db
          .prepare(
            `INSERT INTO episodes (kind, channel, role, text, occurred_at, created_at)
             VALUES ('conversation', 'terminal', 'owner', ?, ?, ?)`,
          )
          .run(text, T0, T0).lastInsertRowid,
      );
      entry('episode', 'episode', id, {
        kind: 'conversation',
        channel: 'terminal',
        role: 'owner',
        text_sha256: sha256(text),
      });
      return id;
    };
    const fact = (key: string, value: string, episodeId: number) => {
      const id = Number(
        db
          .prepare(
            `INSERT INTO facts (scope, kind, key, value, value_hash, status, source, confidence,
               created_at, updated_at, last_seen_at)
             VALUES ('owner', 'note', ?, ?, ?, 'active', 'owner_stated', 1.0, ?, ?, ?)`,
          )
          .run(key, value, valueHash(value), T0, T0, T0).lastInsertRowid,
      );
      db.prepare(
        `INSERT INTO fact_evidence (fact_id, episode_id, source, observed_at) VALUES (?, ?, 'owner_stated', ?)`,
      ).run(id, episodeId, T0);
      entry('create', 'fact', id, { reason: 'new slot', after: { id, value } });
      return id;
    };
    const e1 = episode('my locker is 42');
    fact('locker', 'locker 42', e1);
    const e2 = episode('I drink oolong');
    const tea = fact('tea', 'oolong', e2);
    // A purge before redactions were journaled: the payload and the episode's text, in place.
    db.prepare(
      `UPDATE journal SET payload = ?, redacted_at = ? WHERE op = 'create' AND entity_id = 1`,
    ).run('{"reason":"new slot","after":{"id":1,"value":"[purged]"}}', T0);
    db.prepare('UPDATE episodes SET text = ?, redacted_at = ? WHERE id = ?').run(
      'my locker is [purged]',
      T0,
      e1,
    );
    const oldHead = (db.prepare('SELECT max(seq) AS n FROM journal').get() as { n: number }).n;
    db.close();

    // Opened by this keel: migrated, and nothing before it is a break.
    const store = MemoryStore.open(path, { now: () => T0 + 1000 });
    try {
      const report = store.verify();
      expect(report.problems).toEqual([]);
      expect(report.replay).toEqual({
        from: oldHead + 1,
        entries: 0,
        checked: { facts: 0, evidence: 0, tombstones: 0, episodes: 2 },
        predate: { facts: 2, evidence: 2, tombstones: 0, episodes: 0 },
      });
      // A belief from before, changed now through keel: replayed from its first record on.
      store.remember({ kind: 'note', key: 'tea', value: 'oolong', source: 'observed' });
      expect(store.verify()).toMatchObject({ ok: true, problems: [] });
      expect(store.verify().replay).toMatchObject({ checked: { facts: 1 } });
      // Old rows tampered after the migration are still caught where the journal can tell.
      const raw = dbOf(store);
      raw.exec(
        'DROP TRIGGER journal_redaction_journaled; DROP TRIGGER episodes_redaction_journaled;',
      );
      raw.prepare(`UPDATE journal SET payload = '{"forged":true}' WHERE seq = 2`).run();
      raw.prepare(`UPDATE episodes SET text = 'my locker is 7' WHERE id = ?`).run(e1);
      raw.prepare(`UPDATE facts SET confidence = 0.5 WHERE id = ?`).run(tea);
      expect(store.verify().problems).toEqual([
        {
          check: 'journal',
          detail:
            'entry 2: payload_hash (payload differs from its redaction made before redactions were journaled)',
        },
        {
          check: 'replay',
          detail: `fact ${tea} (note/tea): confidence differs from the journal's record (entry ${recordOf(store, 'facts', tea)})`,
          fix: activeFix(tea),
        },
        {
          check: 'replay',
          detail: `episode ${e1}: text differs from its redaction made before redactions were journaled`,
          fix: RESTORE_FIX,
        },
        ...['journal_redaction_journaled', 'episodes_redaction_journaled'].map((name) => ({
          check: 'triggers',
          detail: `trigger ${name} is missing`,
          fix: expect.stringContaining('keel restore'),
        })),
      ]);
      expect(store.current(slot('note', 'tea'))).toBeDefined();
    } finally {
      store.close();
    }
  });
});
