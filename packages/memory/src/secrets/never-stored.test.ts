// No credential reaches the database, whatever path it takes: each statement of the phrasing table
// is written through the store's real paths into a real SQLite file — the owner's `remember` (the
// slot a capture makes, and the whole statement as a note), an episode, a turn of the owner
// session with keel's reply and the model's tool call — and then the bytes of keel.db, its WAL and
// the journal's rows are searched for the secret, before and after a checkpoint. The statements
// that hold no secret are the control: they are stored as written.

import { readFileSync, statSync } from 'node:fs';
import { SECRET_PLACEHOLDER } from '@keel/language';
import {
  expectedRedaction,
  HARMLESS_PHRASINGS,
  type HarmlessPhrasing,
  SECRET_PHRASINGS,
  type SecretPhrasing,
} from '@keel/language/test';
import { describe, expect, it } from 'vitest';
import { dbOf } from '../internal.js';
import type { MemoryStore } from '../store.js';
import { openTempStore, refusals } from '../test-helpers.js';

/** The bytes of the database file and its WAL (empty when there is none). */
function fileBytes(path: string): { db: Buffer; wal: Buffer } {
  const read = (p: string) => {
    try {
      return statSync(p).size > 0 ? readFileSync(p) : Buffer.alloc(0);
    } catch {
      return Buffer.alloc(0);
    }
  };
  return { db: read(path), wal: read(`${path}-wal`) };
}

/**
 * The bytes of a store that went through every path with a statement holding no secret: a word of
 * a secret that is found there too ("proj", "0000") says nothing about the secret.
 */
const baseline = (() => {
  let bytes: Buffer | undefined;
  return () => {
    if (!bytes) {
      const { store, path } = openTempStore();
      writeEverywhere(store, 'I like green tea', { key: 'tea', value: 'green tea' });
      dbOf(store).pragma('wal_checkpoint(TRUNCATE)');
      bytes = fileBytes(path).db;
    }
    return bytes;
  };
})();

/**
 * What to look for: the secret as typed, and each of its words of four characters or more as the
 * full-text index keeps them (folded to lower case, split at punctuation), unless a store that
 * never saw the secret holds that word too.
 */
function needles(secret: string): string[] {
  const parts = secret
    .normalize('NFKC')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w.length >= 4 && baseline().indexOf(Buffer.from(w, 'utf8')) < 0);
  return [...new Set([secret, ...parts])];
}

function journalText(store: MemoryStore): string {
  return (
    dbOf(store).prepare('SELECT payload FROM journal ORDER BY seq').all() as {
      payload: string;
    }[]
  )
    .map((r) => r.payload)
    .join('\n');
}

/** Bytes of hexadecimal digits (lower case, as keel writes its hashes). */
const isHex = (b: number | undefined) =>
  b !== undefined && ((b >= 0x30 && b <= 0x39) || (b >= 0x61 && b <= 0x66));

/**
 * Where `needle` occurs in `buf`, other than inside a run of 32 or more hex digits: a hash (the
 * journal's chain, a value's hash) is random text that holds a short number like "737" by chance,
 * and says nothing of the secret. -1 when nowhere else.
 */
function foundOutsideHashes(buf: Buffer, needle: string): number {
  const bytes = Buffer.from(needle, 'utf8');
  for (let i = buf.indexOf(bytes); i >= 0; i = buf.indexOf(bytes, i + 1)) {
    let from = i;
    let to = i + bytes.length;
    if (![...bytes].every(isHex)) return i;
    while (isHex(buf[from - 1])) from--;
    while (isHex(buf[to])) to++;
    if (to - from < 32) return i;
  }
  return -1;
}

/** Every place the secret could be: the file, the WAL, the journal; then again after a checkpoint. */
function expectNowhere(store: MemoryStore, path: string, secret: string): void {
  const look = () => {
    const { db, wal } = fileBytes(path);
    const journal = journalText(store);
    for (const n of needles(secret)) {
      expect(foundOutsideHashes(db, n), `"${n}" in keel.db`).toBe(-1);
      expect(foundOutsideHashes(wal, n), `"${n}" in keel.db-wal`).toBe(-1);
      expect(
        foundOutsideHashes(Buffer.from(journal.toLowerCase(), 'utf8'), n.toLowerCase()),
        `"${n}" in the journal`,
      ).toBe(-1);
    }
  };
  look();
  dbOf(store).pragma('wal_checkpoint(TRUNCATE)');
  look();
}

/** Writes a statement through every path; returns what the paths answered. */
function writeEverywhere(store: MemoryStore, text: string, slot: { key: string; value: string }) {
  // 1. Outside a unit of work (the offline terminal): the owner's turn, then a capture of it.
  const episode = store.addEpisode({ channel: 'terminal', role: 'owner', text });
  const note = store.remember({
    kind: 'note',
    key: 'said',
    value: text,
    source: 'owner_stated',
    episodeId: episode.id,
  });
  const captured = store.remember({
    kind: 'profile',
    key: slot.key,
    value: slot.value,
    source: 'owner_stated',
    episodeId: episode.id,
  });
  // 2. A turn with a model, stored as the agent stores it: one unit of work.
  const session = store.session();
  const turnId = session.startTurn('discord', text);
  const turn = store.transaction(() => {
    const owner = store.addEpisode({ channel: 'discord', role: 'owner', text });
    const reply = store.addEpisode({
      channel: 'discord',
      role: 'assistant',
      speaker: 'keel',
      text: `Noted. (You said ${slot.value}.)`,
    });
    const inferred = store.remember({
      kind: 'setting',
      key: 'credential_note',
      value: slot.value,
      source: 'inferred',
      episodeId: owner.id,
      actor: 'model',
    });
    session.completeTurn(
      turnId,
      [
        { role: 'user', content: [{ type: 'text', text }] },
        {
          role: 'assistant',
          content: [
            {
              type: 'tool_use',
              id: 't1',
              name: 'remember',
              input: { kind: 'profile', key: slot.key, value: slot.value },
            },
          ],
        },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'ok' }] },
        {
          role: 'assistant',
          content: [{ type: 'text', text: `Noted. (You said ${slot.value}.)` }],
        },
      ],
      { provider: 'test', model: 'test', factsUsed: [] },
      () => 1,
    );
    return { owner, reply, inferred };
  });
  return { episode, note, captured, turn, session };
}

describe.each(SECRET_PHRASINGS.map((p) => [`[${p.lang}] ${JSON.stringify(p.text)}`, p] as const))(
  'a statement holding a secret: %s',
  (_, p: SecretPhrasing) => {
    it('leaves no trace of the secret in keel.db, its WAL or the journal', () => {
      const { store, path } = openTempStore();
      const w = writeEverywhere(store, p.text, { key: p.key, value: p.value ?? p.secret });

      // The episodes keep every word but the secret.
      expect(store.episode(w.episode.id)!.text).toBe(expectedRedaction(p));
      expect(store.episode(w.turn.owner.id)!.text).toBe(expectedRedaction(p));
      expect(store.episode(w.turn.reply.id)!.text).toContain(SECRET_PLACEHOLDER);
      // Every write is refused, naming the kind; none is stored.
      for (const r of [w.note, w.captured, w.turn.inferred]) {
        expect(r.decision).toBe('withheld');
        expect(r.reason).toBe(`secret (${p.kind}) is never stored`);
        expect(r.secret).toBe(p.kind);
        expect(r.fact).toBeNull();
      }
      expect(store.stats().facts).toBe(0);
      expect(
        refusals(store).every((r) => r.value === undefined && r.value_hash === undefined),
      ).toBe(true);
      // The session holds the turn, with the secret withheld.
      const history = JSON.stringify(w.session.history().messages);
      expect(history).toContain(SECRET_PLACEHOLDER);
      expect(history).not.toContain(p.secret);

      expectNowhere(store, path, p.secret);
    });
  },
);

describe.each(HARMLESS_PHRASINGS.map((p) => [`[${p.lang}] ${JSON.stringify(p.text)}`, p] as const))(
  'control, a statement holding no secret: %s',
  (_, p: HarmlessPhrasing) => {
    it('is stored as written, in the file as in every table', () => {
      const { store, path } = openTempStore();
      const slot = p.slot ?? { key: 'said_slot', value: p.text };
      const w = writeEverywhere(store, p.text, slot);

      expect(store.episode(w.episode.id)!.text).toBe(p.text);
      expect(store.episode(w.turn.owner.id)!.text).toBe(p.text);
      expect(w.note.decision).toBe('create');
      expect(w.note.fact!.value).toBe(p.text);
      expect(w.captured.decision).toBe('create');
      expect(w.captured.fact!.value).toBe(slot.value);
      expect(w.note.secret).toBeUndefined();
      expect(JSON.stringify(w.session.history().messages)).not.toContain(SECRET_PLACEHOLDER);

      dbOf(store).pragma('wal_checkpoint(TRUNCATE)');
      const { db } = fileBytes(path);
      expect(db.indexOf(Buffer.from(p.text, 'utf8'))).toBeGreaterThanOrEqual(0);
    });
  },
);

describe('a secret named only by its key', () => {
  it('is refused, and a key that holds a secret is withheld from the journal and episodes', () => {
    const { store, path } = openTempStore();
    const r = store.remember({
      kind: 'note',
      key: 'password_is_Kumquat99',
      value: 'noted',
      source: 'owner_stated',
    });
    expect(r.decision).toBe('withheld');
    expect(r.reason).toBe('secret (password) is never stored');
    expectNowhere(store, path, 'Kumquat99');
  });
});

describe('every other table that can hold the owner’s words', () => {
  it('withholds a secret from interrupts, the diary, think runs, the belief queue, failed turns, the session anchor and episode metadata', () => {
    const { store, path, clock } = openTempStore();
    const said = 'my wifi password is Quokka-Pie-31';
    const e = store.addEpisode({
      channel: 'discord',
      role: 'owner',
      text: 'hello there',
      meta: { quoted: said, fields: { password: 'Quokka-Pie-31' } },
    });
    store.interrupts.record({
      itemKey: 'r1',
      text: `Reminder: ${said}`,
      episodeId: e.id,
      dueAt: null,
      now: clock.t,
    });
    const run = store.thinkRuns.start('tick', clock.t);
    store.thinkRuns.finish(run, clock.t, {
      status: 'failed',
      code: 'MODEL_UNAVAILABLE',
      error: `could not judge "${said}"`,
      summary: { turns: [said] },
    });
    store.diary.record(
      '2025-01-06',
      run,
      { added: 0, corroborated: 0, superseded: 0, conflicts: 0, pruned: 0 },
      `Tonight the owner said ${said}`,
      clock.t,
    );
    store.beliefQueue.advanceWatermark(clock.t);
    const [queued] = store.beliefQueue.forGate(3, 10);
    store.beliefQueue.decide(queued!.id, {
      state: 'dismissed',
      gate: 'pattern',
      reason: `the owner said ${said}`,
      decidedAt: clock.t,
      attempt: 1,
    });
    const session = store.session();
    const turn = session.startTurn('discord', said);
    session.failTurn(turn, 'failed', 'MODEL_UNAVAILABLE', `while answering "${said}"`);
    const done = session.startTurn('discord', 'hi');
    session.completeTurn(
      done,
      [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
      { provider: 'test', model: 'test', factsUsed: [] },
      () => 1,
    );
    session.setAnchor(`Earlier the owner said ${said}`, session.history().messages[0]!.id);

    // The words around the secret are kept.
    const raw = JSON.stringify(
      dbOf(store)
        .prepare('SELECT text FROM interrupts UNION ALL SELECT text FROM curator_diary')
        .all(),
    );
    expect(raw).toContain(`my wifi password is ${SECRET_PLACEHOLDER}`);
    expectNowhere(store, path, 'Quokka-Pie-31');
  });
});

describe('the unit of work’s secrets', () => {
  it('are withheld from the unit’s other writes, and forgotten when it ends', () => {
    const { store } = openTempStore();
    const [reply, fact] = store.transaction(() => {
      store.addEpisode({ channel: 'discord', role: 'owner', text: 'my wifi password is sunshine' });
      const reply = store.addEpisode({
        channel: 'discord',
        role: 'assistant',
        text: 'I will not keep sunshine.',
      });
      const fact = store.remember({
        kind: 'setting',
        key: 'wifi',
        value: 'sunshine',
        source: 'inferred',
        actor: 'model',
      });
      return [reply, fact] as const;
    });
    expect(store.episode(reply.id)!.text).toBe(`I will not keep ${SECRET_PLACEHOLDER}.`);
    expect(fact.decision).toBe('withheld');
    expect(fact.secret).toBe('password');
    // After the unit: the same word, said without a credential, is the owner's word again.
    const later = store.addEpisode({
      channel: 'discord',
      role: 'owner',
      text: 'the sunshine was lovely today',
    });
    expect(store.episode(later.id)!.text).toBe('the sunshine was lovely today');
    const weather = store.remember({
      kind: 'note',
      key: 'weather',
      value: 'sunshine',
      source: 'owner_stated',
    });
    expect(weather.decision).toBe('create');
  });
});

describe('a key pair said over two owner turns', () => {
  it('withholds the secret half in the next owner turn after a turn that held the id half', () => {
    const { store, path } = openTempStore();
    const half = 'Wm3Kp8Qz1Rt6Yu0Io4Pa7Sd9Fg2Hj5Kl8Zx1Cv3B';
    const first = store.addEpisode({
      channel: 'test',
      role: 'owner',
      text: 'aws access key id AKIAMNBVCXZLKJHGFDSA',
    });
    expect(first.text).toBe(`aws access key id ${SECRET_PLACEHOLDER}`);
    // keel's reply between the two owner turns does not break the pair.
    store.addEpisode({ channel: 'test', role: 'assistant', text: 'noted, and the other half?' });
    const second = store.addEpisode({ channel: 'test', role: 'owner', text: `here: ${half}` });
    expect(second.text).toBe(`here: ${SECRET_PLACEHOLDER}`);
    expectNowhere(store, path, half);
    // Control: the same string after an owner turn that held no key id is kept as typed.
    store.addEpisode({ channel: 'test', role: 'owner', text: 'thanks, done' });
    const third = store.addEpisode({ channel: 'test', role: 'owner', text: `here: ${half}` });
    expect(third.text).toBe(`here: ${half}`);
  });
});

describe('a secret whose clause the previous owner turn left open', () => {
  it('withholds the value said alone in the next owner turn; a turn after a closed clause is kept', () => {
    const { store, path } = openTempStore();
    const value = 'Tr0ub4dor&3zz';
    store.addEpisode({
      channel: 'test',
      role: 'owner',
      text: 'my bank password at the old flat is',
    });
    const second = store.addEpisode({ channel: 'test', role: 'owner', text: value });
    expect(second.text).toBe(SECRET_PLACEHOLDER);
    expectNowhere(store, path, value);
    // Control: after a turn that closed its clause, the same text is kept as typed.
    store.addEpisode({ channel: 'test', role: 'owner', text: 'I changed my bank password today' });
    const fourth = store.addEpisode({ channel: 'test', role: 'owner', text: 'Lisbon2024 trip' });
    expect(fourth.text).toBe('Lisbon2024 trip');
  });
});
