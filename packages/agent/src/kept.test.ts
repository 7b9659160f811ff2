// What a turn kept, in plain words: each decision of the write review as one line naming the
// belief, from a real SQLite store.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryStore } from '@keel/memory';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { KEPT_VALUE_CHARS, keptLines, WITHHELD_LINE } from './kept.js';
import type { TurnWrite } from './turn.js';

let dir: string;
let store: MemoryStore;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'keel-kept-'));
  store = MemoryStore.open(join(dir, 'keel.db'));
});
afterEach(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

/** An owner turn, for a write to rest on. */
const turn = (text: string) =>
  store.addEpisode({ kind: 'conversation', channel: 'test', role: 'owner', text }).id;

describe('keptLines', () => {
  it('names each belief written, its id and how to act on it, never a review reason', () => {
    const created = store.remember({
      kind: 'profile',
      key: 'sister_name',
      value: 'Ada',
      source: 'owner_stated',
      episodeId: turn("my sister's name is Ada"),
    });
    expect(keptLines(store, [created])).toEqual([
      `Kept: sister name — Ada [f${created.fact!.id}] (/forget ${created.fact!.id} to undo).`,
    ]);
    // From the shell, the command is the verb.
    expect(keptLines(store, [created], 'shell')[0]).toContain(
      `(keel forget ${created.fact!.id} to undo)`,
    );
    const again = store.remember({
      kind: 'profile',
      key: 'sister_name',
      value: 'Ada',
      source: 'owner_stated',
      episodeId: turn("my sister's name is Ada"),
    });
    expect(keptLines(store, [again])).toEqual([
      `Already known: sister name — Ada [f${created.fact!.id}] (seen 2 times).`,
    ]);
    const paris = store.remember({
      kind: 'profile',
      key: 'home',
      value: 'Paris',
      source: 'owner_stated',
      episodeId: turn('I live in Paris'),
    });
    const lyon = store.remember({
      kind: 'profile',
      key: 'home',
      value: 'Lyon',
      source: 'owner_stated',
      episodeId: turn('I live in Lyon now'),
    });
    expect(lyon.decision).toBe('update');
    expect(keptLines(store, [lyon])).toEqual([
      `Updated: home — Lyon [f${lyon.fact!.id}] (Paris kept in history).`,
    ]);
    for (const line of keptLines(store, [created, again, paris, lyon])) {
      expect(line).not.toMatch(/new slot|same value from|authoritative/);
    }
  });

  it('says a conflict is held for review and what it contradicts; a guess says it is one', () => {
    const oat = store.remember({
      kind: 'preference',
      key: 'coffee',
      value: 'oat flat white',
      source: 'owner_stated',
      episodeId: turn('I drink oat flat whites'),
    }).fact!;
    const black = store.remember({
      kind: 'preference',
      key: 'coffee',
      value: 'black coffee',
      source: 'inferred',
      actor: 'model',
      episodeId: turn('I had a black coffee today'),
    });
    expect(black.decision).toBe('conflict');
    const id = black.fact!.id;
    expect(keptLines(store, [black])).toEqual([
      `Held for your review: coffee — black coffee [f${id}; inferred, conf ${black.fact!.confidence.toFixed(2)}] contradicts oat flat white [f${oat.id}] (/confirm ${id} or /reject ${id}).`,
    ]);
  });

  it('says a value kept as history and what it was true before', () => {
    store.remember({
      kind: 'project',
      key: 'current_project',
      value: 'Heron',
      source: 'owner_stated',
      validFrom: Date.UTC(2026, 5, 1),
      episodeId: turn('my project is Heron'),
    });
    const falcon = store.remember({
      kind: 'project',
      key: 'current_project',
      value: 'Falcon',
      source: 'owner_stated',
      validFrom: Date.UTC(2025, 0, 15),
      episodeId: turn('my project was Falcon'),
    });
    expect(falcon.decision).toBe('history');
    expect(keptLines(store, [falcon])).toEqual([
      expect.stringMatching(
        new RegExp(
          `^Kept as history: current project — Falcon \\[f${falcon.fact!.id}\\] \\(true before Heron \\[f\\d+\\]\\)\\.$`,
        ),
      ),
    ]);
  });

  it('says a withheld credential was not kept without echoing it; says nothing for nothing written', () => {
    const withheld = store.remember({
      kind: 'fact',
      key: 'wifi_password',
      value: 'sunshine42',
      source: 'owner_stated',
    });
    expect(withheld.decision).toBe('withheld');
    const lines = keptLines(store, [withheld, withheld]);
    expect(lines).toEqual([WITHHELD_LINE]);
    expect(lines.join('\n')).not.toContain('sunshine42');
    // Nothing written: no writes, a refused repeat, a request to forget.
    expect(keptLines(store, [])).toEqual([]);
    const tea = store.remember({
      kind: 'preference',
      key: 'tea',
      value: 'black tea',
      source: 'owner_stated',
      episodeId: turn('I drink black tea'),
    });
    const repeat = store.remember({
      kind: 'preference',
      key: 'tea',
      value: 'black tea',
      source: 'owner_stated',
      episodeId: tea.episodeId,
    });
    expect(repeat.decision).toBe('ignore');
    const forget: TurnWrite = {
      decision: 'forget_requested',
      reason: 'the model asked to forget it; the owner decides',
      fact: tea.fact!,
      episodeId: tea.episodeId,
    };
    expect(keptLines(store, [repeat, forget])).toEqual([]);
    // Control: the write itself is said, once, however many writes name the belief.
    expect(keptLines(store, [tea, repeat, forget])).toHaveLength(1);
  });

  it('cuts a long value to one short line', () => {
    const long = store.remember({
      kind: 'note',
      key: 'plan',
      value: `${'word '.repeat(100)}\nend`,
      source: 'owner_stated',
      episodeId: turn(`my plan is ${'word '.repeat(100)} end`),
    });
    const [line] = keptLines(store, [long]);
    expect(line).not.toContain('\n');
    expect(line!.length).toBeLessThan(KEPT_VALUE_CHARS + 60);
    expect(line).toContain('…');
  });
});
