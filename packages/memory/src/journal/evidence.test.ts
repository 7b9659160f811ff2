// The journal is evidence: every way of changing keel.db behind keel's back that `keel verify`
// must report, each with the exact break it reports. The triggers refuse most of these outright;
// a writer who drops them is still caught by verify (the chain and the head).

import { describe, expect, it } from 'vitest';
import { dbOf } from '../internal.js';
import { journalRows, openTempStore, turn } from '../test-helpers.js';
import { sha256 } from '../text.js';
import { verifyJournal } from './journal.js';

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
  });

  it('the whole journal deleted: the head says so', async () => {
    const { store } = scene();
    const db = dbOf(store);
    const head = journalRows(store).at(-1)!.seq;
    db.exec('DROP TRIGGER journal_no_delete; DELETE FROM journal;');
    const report = store.verify();
    expect(report.journal).toEqual({
      entries: 0,
      breaks: [
        {
          seq: head,
          problem: 'missing_tail',
          detail: `the journal is empty; its head records entry ${head}`,
        },
      ],
    });
  });

  it('the journal and its head deleted: the head is missing', async () => {
    const { store } = scene();
    const db = dbOf(store);
    db.exec(`DROP TRIGGER journal_no_delete; DROP TRIGGER journal_head_no_delete;
             DELETE FROM journal; DELETE FROM journal_head;`);
    const report = store.verify();
    expect(report.journal.breaks).toEqual([
      {
        seq: 0,
        problem: 'head',
        detail: 'the journal head is missing: a missing tail cannot be ruled out',
      },
    ]);
  });
});
