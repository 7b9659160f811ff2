// Text enters the store well-formed: a lone surrogate ("\ud800") becomes U+FFFD wherever text is
// written (a turn, a belief, an import, a model's write), so what SQLite keeps as UTF-8 reads back
// as it was hashed and `keel verify` finds nothing altered. Real SQLite file.
import { describe, expect, it } from 'vitest';
import type { ParsedImport } from './import/parsers.js';
import { dbOf } from './internal.js';
import { openTempStore } from './test-helpers.js';

const LONE = 'I like tea \ud800 and \udc00 coffee';
const MENDED = 'I like tea \ufffd and \ufffd coffee';
/** A surrogate pair (an emoji) is one character: kept as it is. */
const PAIR = 'tea time \ud83c\udf75';

function importOf(texts: string[]): ParsedImport {
  return {
    format: 'longmemeval',
    docs: ['longmemeval'],
    turns: texts.map((text, i) => ({
      sourceDoc: 'longmemeval',
      sourceId: `s1#${i}`,
      sessionKey: 's1',
      speaker: 'user',
      role: 'owner',
      text,
      occurredAt: Date.UTC(2025, 0, 1) + i,
    })),
    skipped: [],
  };
}

describe('text with a lone surrogate', () => {
  it('is stored well-formed at every entry, and verify finds nothing altered', () => {
    const { store } = openTempStore();
    const imported = store.importTurns(importOf([LONE, PAIR]), { path: 'x.json', fileSha256: 'x' });
    expect(imported.added).toBe(2);
    const turn = store.addEpisode({ channel: 'terminal', role: 'owner', text: LONE });
    const reply = store.addEpisode({
      channel: 'terminal',
      role: 'assistant',
      speaker: 'keel',
      text: `${LONE} (reply)`,
      actor: 'model',
    });
    const owner = store.remember({
      kind: 'preference',
      key: 'drink',
      value: LONE,
      source: 'owner_stated',
    });
    const model = store.remember({
      kind: 'note',
      key: 'drinks',
      value: `${LONE} too`,
      source: 'inferred',
      episodeId: turn.id,
      actor: 'model',
    });

    const texts = [1, 2, turn.id, reply.id].map((id) => store.episode(id)?.text);
    expect(texts).toEqual([MENDED, PAIR, MENDED, `${MENDED} (reply)`]);
    expect(owner.fact?.value).toBe(MENDED);
    expect(store.fact(model.fact!.id)?.value).toBe(`${MENDED} too`);
    const report = store.verify();
    expect(report.problems).toEqual([]);
    expect(report.ok).toBe(true);
  });
});

describe("control characters in a belief's value", () => {
  it('are left out: escape sequences whole, any other control as a space; the episode keeps them', () => {
    const { store } = openTempStore();
    const said = 'my colour is \u001b[31mred\u001b[0m\u0007 \u001b]0;title\u0007ok\u009b';
    const turn = store.addEpisode({ channel: 'terminal', role: 'owner', text: said });
    const r = store.remember({
      kind: 'preference',
      key: 'colour',
      value: said,
      source: 'owner_stated',
      episodeId: turn.id,
    });
    expect(r.fact?.value).toBe('my colour is red ok');
    // The owner's words as said stay in the episode (the terminal shows its controls visibly).
    expect(store.episode(turn.id)?.text).toBe(said);
    // Control: a value with line feeds and tabs only is kept as it is.
    const plain = store.remember({
      kind: 'note',
      key: 'list',
      value: 'eggs\n\tmilk',
      source: 'owner_stated',
    });
    expect(plain.fact?.value).toBe('eggs\n\tmilk');
    expect(store.verify().ok).toBe(true);
  });
});

describe("the think service's rows and the session's error and anchor", () => {
  /** Writes `text` into every column the think service and the session fill from words. */
  function writeAll(text: string) {
    const { store, clock } = openTempStore();
    const e = store.addEpisode({ channel: 'discord', role: 'owner', text: 'hello there' });
    store.interrupts.record({ itemKey: 'r1', text, episodeId: e.id, dueAt: null, now: clock.t });
    const [due] = store.interrupts.due(3, clock.t);
    store.interrupts.claim(due!.id, clock.t);
    store.interrupts.release(due!.id, text);
    const run = store.thinkRuns.start('curate', clock.t, '2025-01-06');
    store.thinkRuns.finish(run, clock.t, {
      status: 'failed',
      code: 'MODEL_UNAVAILABLE',
      error: text,
    });
    const counts = { added: 0, corroborated: 0, superseded: 0, conflicts: 0, pruned: 0 };
    store.diary.record('2025-01-06', run, counts, text, clock.t);
    store.beliefQueue.advanceWatermark(clock.t);
    const [queued] = store.beliefQueue.forGate(3, 10);
    store.beliefQueue.decide(queued!.id, {
      state: 'dismissed',
      gate: 'pattern',
      reason: text,
      decidedAt: clock.t,
      attempt: 1,
    });
    const session = store.session();
    session.failTurn(session.startTurn('discord', 'hi'), 'failed', 'MODEL_UNAVAILABLE', text);
    const done = session.startTurn('discord', 'hi');
    session.completeTurn(
      done,
      [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
      { provider: 'test', model: 'test', factsUsed: [] },
      () => 1,
    );
    session.setAnchor(text, session.history().messages[0]!.id);
    const stored = dbOf(store)
      .prepare(
        `SELECT text FROM interrupts UNION ALL SELECT last_error FROM interrupts
         UNION ALL SELECT error FROM think_runs UNION ALL SELECT text FROM curator_diary
         UNION ALL SELECT reason FROM belief_queue WHERE reason IS NOT NULL
         UNION ALL SELECT error FROM turns WHERE error IS NOT NULL
         UNION ALL SELECT anchor FROM sessions WHERE anchor IS NOT NULL`,
      )
      .pluck()
      .all() as string[];
    return { store, stored };
  }

  it('store a lone surrogate as U+FFFD, each column reading back what was written', () => {
    const { store, stored } = writeAll(LONE);
    expect(stored).toEqual(Array(7).fill(MENDED));
    expect(store.verify().ok).toBe(true);
  });

  it('keep a surrogate pair as it is (control)', () => {
    const { stored } = writeAll(PAIR);
    expect(stored).toEqual(Array(7).fill(PAIR));
  });
});
