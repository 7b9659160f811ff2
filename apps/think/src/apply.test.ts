// A delta is written only when a turn it cites mentions its value (the write review's evidence on
// creation); the refusal comes back with its reason. Real store.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Episode, MemoryStore, REFUSED_UNSAID } from '@keel/memory';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { applyDelta } from './apply.js';
import type { Delta } from './deltas.js';

let dir: string;
let store: MemoryStore;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'keel-apply-'));
  store = MemoryStore.open(join(dir, 'keel.db'));
});
afterEach(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

const shown = (...texts: string[]): Map<number, Episode> =>
  new Map(
    texts.map((text) => {
      const e = store.addEpisode({ channel: 'cli', role: 'owner', text });
      return [e.id, e];
    }),
  );

describe('applyDelta: evidence on creation', () => {
  it('a delta citing turns that never mention its value is ignored with the reason; one that does is written', () => {
    const small = shown('morning!', 'coffee first');
    const age: Delta = {
      op: 'add',
      subject: 'owner',
      kind: 'profile',
      key: 'age',
      value: '42',
      episodes: [...small.keys()],
    };
    const r = applyDelta(store, age, small, 'UTC');
    expect(r).toMatchObject({ outcome: 'ignored', reason: REFUSED_UNSAID, factId: null });
    expect(store.current({ scope: 'owner', kind: 'profile', key: 'age' })).toBeUndefined();
    // Control: a turn of another person's that names the value.
    const felipe = shown('my brother Felipe just got a job as a paramedic in Leeds');
    const job: Delta = {
      op: 'add',
      subject: 'Felipe',
      kind: 'relationship',
      key: 'job',
      value: 'paramedic',
      episodes: [...felipe.keys()],
    };
    expect(applyDelta(store, job, felipe, 'UTC').outcome).toBe('written');
    expect(store.current({ scope: 'owner', kind: 'relationship', key: 'felipe.job' })?.value).toBe(
      'paramedic',
    );
  });
});

describe('applyDelta: when', () => {
  it('a day named without its year is the most recent one before the turn; a month alone is no start', () => {
    const turns = shown('started at Initech on the 3rd of March, so almost a year now');
    const [id, turn] = [...turns][0]!;
    const at = (when: string, key: string) =>
      applyDelta(
        store,
        {
          op: 'add',
          subject: 'owner',
          kind: 'profile',
          key,
          value: 'Initech',
          when,
          episodes: [id],
        },
        turns,
        'UTC',
      ).factId!;
    const day = store.fact(at('on the 3rd of March', 'employer'))!;
    const year = new Date(turn.occurred_at).getUTCFullYear();
    const expected = Date.UTC(year, 2, 3) <= turn.occurred_at ? year : year - 1;
    expect(day.valid_from).toBe(Date.UTC(expected, 2, 3));
    // Control: a month alone leaves the start unknown.
    expect(store.fact(at('in March', 'former_employer'))!.valid_from).toBeNull();
  });
});
