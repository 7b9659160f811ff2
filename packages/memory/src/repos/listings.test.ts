// What the owner's web page lists of the think service: its runs, the diary, the unsent interrupts.

import { describe, expect, it } from 'vitest';
import { openTempStore, T0 } from '../test-helpers.js';

describe('listings for the owner', () => {
  it('think runs, newest first, with their summaries parsed and their errors', () => {
    const { store } = openTempStore();
    const a = store.thinkRuns.start('tick', T0);
    store.thinkRuns.finish(a, T0 + 1, {
      status: 'ok',
      gate: 'pattern',
      summary: { examined: 3, queued: 1, skipped: ['reflection: no model'] },
    });
    const b = store.thinkRuns.start('curate', T0 + 2, '2026-12-06');
    store.thinkRuns.finish(b, T0 + 3, { status: 'failed', code: 'MODEL_TIMEOUT', error: 'slow' });
    const runs = store.thinkRuns.recent(10);
    expect(runs.map((r) => [r.id, r.kind, r.status])).toEqual([
      [b, 'curate', 'failed'],
      [a, 'tick', 'ok'],
    ]);
    expect(runs[1]!.summary).toEqual({ examined: 3, queued: 1, skipped: ['reflection: no model'] });
    expect(runs[1]!.gate).toBe('pattern');
    expect(runs[0]).toMatchObject({
      period: '2026-12-06',
      error_code: 'MODEL_TIMEOUT',
      error: 'slow',
    });
    expect(store.thinkRuns.recent(1)).toHaveLength(1);
  });

  it('the diary, newest night first, in the curator’s words', () => {
    const { store } = openTempStore();
    const counts = { added: 1, corroborated: 2, superseded: 0, conflicts: 0, pruned: 1 };
    const first = store.thinkRuns.start('curate', T0, '2026-12-05');
    const second = store.thinkRuns.start('curate', T0 + 1, '2026-12-06');
    store.diary.record('2026-12-05', first, counts, 'A quiet night.', T0);
    store.diary.record('2026-12-06', second, counts, 'You moved to Porto.', T0 + 1);
    expect(store.diary.recent().map((d) => [d.night, d.text, d.corroborated])).toEqual([
      ['2026-12-06', 'You moved to Porto.', 2],
      ['2026-12-05', 'A quiet night.', 2],
    ]);
  });

  it('interrupts not sent yet, oldest first; a sent one is not listed', () => {
    const { store } = openTempStore();
    store.interrupts.record({
      itemKey: 'a',
      text: 'call the bank',
      episodeId: null,
      dueAt: T0,
      now: T0,
    });
    store.interrupts.record({
      itemKey: 'b',
      text: 'water the plants',
      episodeId: null,
      dueAt: null,
      now: T0,
    });
    const sent = store.interrupts.idOf('a')!;
    expect(store.interrupts.pending().map((i) => i.text)).toEqual([
      'call the bank',
      'water the plants',
    ]);
    expect(store.interrupts.claim(sent, T0 + 1)).toBe(true);
    expect(store.interrupts.pending().map((i) => i.text)).toEqual(['water the plants']);
  });
});
