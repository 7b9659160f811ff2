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
