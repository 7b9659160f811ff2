// The incremental journal check (`keel doctor`): a whole check writes the checkpoint beside the
// database; the next check hashes only the entries after it, and still finds every break in them,
// every old entry deleted or unlinked, and every current row changed outside keel (replay runs in
// full). An old payload edited without its hash is found by the next whole check, which a day, a
// restore, or a checkpoint that no longer matches brings. Each case has its untampered control.

import { existsSync, writeFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { registerFunctions } from '../db.js';
import { DAY, openTempStore, type TempStore, turn } from '../test-helpers.js';
import { anchorPathFor, anchorRestored, lastEntry, writeAnchor } from './anchor.js';
import { checkpointPathFor, readCheckpoint } from './checkpoint.js';

/** Runs `fn` on a connection of its own with every trigger dropped, then puts them back. */
function tamper(t: TempStore, fn: (db: Database.Database) => void): void {
  const db = new Database(t.path);
  registerFunctions(db);
  try {
    const triggers = db
      .prepare(`SELECT name, sql FROM sqlite_master WHERE type = 'trigger'`)
      .all() as { name: string; sql: string }[];
    for (const { name } of triggers) db.exec(`DROP TRIGGER ${name}`);
    fn(db);
    for (const { sql } of triggers) db.exec(sql);
    writeAnchor(anchorPathFor(t.path), { ...lastEntry(db), at: 0 });
  } finally {
    db.close();
  }
}

/** A store with beliefs, checked whole once (the checkpoint written), then written to again. */
function scene() {
  const t = openTempStore();
  const e1 = turn(t.store, 'I play the cello');
  const cello = t.store.remember({
    kind: 'preference',
    key: 'instrument',
    value: 'the cello',
    source: 'observed',
    episodeId: e1,
  }).fact!;
  const whole = t.store.verify();
  expect(whole.ok).toBe(true);
  const checkpoint = readCheckpoint(checkpointPathFor(t.path));
  expect(checkpoint).toEqual({ ...whole.end, at: t.clock.now() });
  t.clock.advance(60_000);
  const e2 = turn(t.store, 'I live in Lisbon');
  const home = t.store.remember({
    kind: 'profile',
    key: 'home',
    value: 'Lisbon',
    source: 'owner_stated',
    episodeId: e2,
  }).fact!;
  return { t, cello, home, checkpoint: checkpoint!, e1 };
}

const details = (r: { problems: { check: string; detail: string }[] }) =>
  r.problems.map((p) => `${p.check}: ${p.detail}`);

describe('the incremental journal check', () => {
  it('hashes only the entries after the last whole check, and passes an untouched store', () => {
    const { t, checkpoint } = scene();
    const r = t.store.verify({ incremental: true });
    expect(details(r)).toEqual([]);
    expect(r.scope).toBe('incremental');
    expect(r.journal.from).toBe(checkpoint.seq + 1);
    expect(r.journal.entries).toBe(r.end.seq);
    expect(r.end.seq).toBeGreaterThan(checkpoint.seq);
    // An incremental pass does not move the checkpoint: the next one starts where it did.
    expect(readCheckpoint(checkpointPathFor(t.path))).toEqual(checkpoint);
    // Without `incremental` (keel verify) the check is whole, and moves the checkpoint on.
    const whole = t.store.verify();
    expect(whole.scope).toBe('whole');
    expect(whole.journal.from).toBe(1);
    expect(readCheckpoint(checkpointPathFor(t.path))?.seq).toBe(whole.end.seq);
  });

  it('finds a payload edited after the checkpoint', () => {
    const { t, checkpoint } = scene();
    const newer = checkpoint.seq + 2;
    tamper(t, (db) =>
      db.prepare(`UPDATE journal SET payload = '{"x":1}' WHERE seq = ?`).run(newer),
    );
    const r = t.store.verify({ incremental: true });
    expect(r.scope).toBe('incremental');
    expect(details(r)).toContain(
      `journal: entry ${newer}: payload_hash (payload altered without redaction)`,
    );
  });

  it('finds an old entry deleted or its stored link broken, without hashing it', () => {
    const a = scene();
    tamper(a.t, (db) => db.prepare('DELETE FROM journal WHERE seq = 2').run());
    const deleted = a.t.store.verify({ incremental: true });
    expect(deleted.scope).toBe('incremental');
    expect(deleted.ok).toBe(false);
    expect(details(deleted).some((d) => /entries were deleted or added/.test(d))).toBe(true);

    const b = scene();
    const old = b.checkpoint.seq - 1;
    expect(old).toBeGreaterThan(1);
    tamper(b.t, (db) =>
      db.prepare(`UPDATE journal SET prev_hash = ? WHERE seq = ?`).run('f'.repeat(64), old),
    );
    const unlinked = b.t.store.verify({ incremental: true });
    expect(unlinked.scope).toBe('incremental');
    expect(details(unlinked)).toContain(
      `journal: entry ${old}: prev_hash (does not match the previous entry)`,
    );
  });

  it('finds an old row changed outside keel: replay runs over every current row', () => {
    const { t, cello, home } = scene();
    tamper(t, (db) =>
      db.prepare(`UPDATE facts SET value = 'the viola' WHERE id = ?`).run(cello.id),
    );
    const r = t.store.verify({ incremental: true });
    expect(r.scope).toBe('incremental');
    expect(r.ok).toBe(false);
    const said = details(r).join('\n');
    expect(said).toContain(`fact ${cello.id}`);
    expect(said).not.toContain(`fact ${home.id}`); // the control, written after, is explained
  });

  it('leaves an old payload edited without its hash to the whole check, which finds it', () => {
    const { t, checkpoint } = scene();
    const old = checkpoint.seq - 1;
    tamper(t, (db) =>
      db
        .prepare(`UPDATE journal SET payload = replace(payload, 'cello', 'viola') WHERE seq = ?`)
        .run(old),
    );
    const incremental = t.store.verify({ incremental: true });
    expect(incremental.scope).toBe('incremental');
    expect(incremental.journal.breaks.filter((b) => b.seq === old)).toEqual([]);
    const whole = t.store.verify();
    expect(whole.journal.breaks.map((b) => `${b.seq} ${b.problem}`)).toContain(
      `${old} payload_hash`,
    );
    // A failed whole check removes the checkpoint: the next incremental check is whole, and
    // names the edit too.
    expect(readCheckpoint(checkpointPathFor(t.path))).toBeNull();
    const next = t.store.verify({ incremental: true });
    expect(next.scope).toBe('whole');
    expect(next.journal.breaks.map((b) => `${b.seq} ${b.problem}`)).toContain(
      `${old} payload_hash`,
    );
    expect(checkpoint.seq).toBeGreaterThan(old);
  });

  it('a purge after the checkpoint redacts old entries, and that is checked', () => {
    const { t, cello, checkpoint } = scene();
    t.store.forget(cello.id, { purge: true });
    const r = t.store.verify({ incremental: true });
    expect(r.scope).toBe('incremental');
    expect(details(r)).toEqual([]);
    // An old entry rewritten to look redacted, with no redaction entry after the checkpoint
    // naming it, is not vouched for; the redacted ones are checked against their redactions.
    const reader = new Database(t.path, { readonly: true });
    const { seq: redacted } = reader
      .prepare(
        `SELECT min(entity_id) AS seq FROM journal WHERE op = 'redact' AND entity = 'journal'`,
      )
      .get() as { seq: number };
    reader.close();
    expect(redacted).toBeLessThanOrEqual(checkpoint.seq);
    tamper(t, (db) =>
      db.prepare(`UPDATE journal SET payload = '{"forged":true}' WHERE seq = ?`).run(redacted),
    );
    const forged = t.store.verify({ incremental: true });
    expect(forged.scope).toBe('incremental');
    expect(forged.journal.breaks.map((b) => `${b.seq} ${b.problem}`)).toContain(
      `${redacted} payload_hash`,
    );
  });

  it('is whole again after a day, after a restore, and when the checkpoint no longer matches', () => {
    const { t, checkpoint } = scene();
    expect(t.store.verify({ incremental: true }).scope).toBe('incremental');
    // A day later.
    t.clock.advance(DAY);
    expect(t.store.verify({ incremental: true }).scope).toBe('whole');
    expect(t.store.verify({ incremental: true }).scope).toBe('incremental');
    // A checkpoint naming an entry with another hash (an older file restored, or a rewrite).
    writeFileSync(
      checkpointPathFor(t.path),
      JSON.stringify({ ...checkpoint, hash: '0'.repeat(64), at: t.clock.now() }),
    );
    expect(t.store.verify({ incremental: true }).scope).toBe('whole');
    // Not a checkpoint at all.
    writeFileSync(checkpointPathFor(t.path), 'garbage');
    expect(t.store.verify({ incremental: true }).scope).toBe('whole');
    // A restore puts another file in place: its checkpoint goes.
    expect(existsSync(checkpointPathFor(t.path))).toBe(true);
    anchorRestored(t.path, t.clock.now());
    expect(existsSync(checkpointPathFor(t.path))).toBe(false);
  });
});
