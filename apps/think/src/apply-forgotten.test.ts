// Reflection and the curator write through the store's write review: after the owner forgets a
// value, a delta that mentions it (a longer value, another spelling, a key) is refused by its
// folded content, a delta about something else is written, and the owner's word lifts it.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Episode, MemoryStore, REFUSED_FORGOTTEN_CONTENT } from '@keel/memory';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { applyDelta } from './apply.js';

let dir: string;
let store: MemoryStore;
let clock = Date.UTC(2026, 2, 10, 12, 0);

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'keel-think-apply-'));
  store = MemoryStore.open(join(dir, 'keel.db'), { now: () => clock });
});
afterEach(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

const say = (text: string): Episode => {
  clock += 60_000;
  return store.addEpisode({ kind: 'conversation', channel: 'terminal', role: 'owner', text });
};
const shown = (...episodes: Episode[]) => new Map(episodes.map((e) => [e.id, e]));

describe('a delta after the owner forgot a value', () => {
  it('is refused when it mentions the forgotten value; another delta is written', () => {
    const first = say('remember that I summer in Málaga');
    const f = store.remember({
      kind: 'preference',
      key: 'summer',
      value: 'Málaga',
      source: 'owner_stated',
      episodeId: first.id,
    }).fact!;
    store.forget(f.id);
    const later = say('how much is a flight to MALAGA, Spain in July? I also love Cádiz');
    for (const [actor, key, value] of [
      ['reflection', 'summer', 'Malaga, Spain'],
      ['curator', 'summer_in_malaga', 'every July'],
      ['reflection', 'holiday', 'MALAGA'],
    ] as const) {
      const r = applyDelta(
        store,
        { op: 'add', kind: 'preference', subject: 'owner', key, value, episodes: [later.id] },
        shown(later),
        'UTC',
        actor,
      );
      expect(r.outcome, key).toBe('ignored');
      expect(r.reason, key).toBe(REFUSED_FORGOTTEN_CONTENT);
    }
    // control: a delta about something else from the same turn is written
    const other = applyDelta(
      store,
      {
        op: 'add',
        kind: 'preference',
        subject: 'owner',
        key: 'city',
        value: 'Cádiz',
        episodes: [later.id],
      },
      shown(later),
      'UTC',
    );
    expect(other.outcome).toBe('written');
    // The owner's own word brings it back; reflection may then corroborate it.
    const again = say('remember that I summer in Malaga, Spain');
    store.remember({
      kind: 'preference',
      key: 'summer',
      value: 'Malaga, Spain',
      source: 'owner_stated',
      episodeId: again.id,
    });
    const next = say('Malaga, Spain again this summer, can not wait');
    const back = applyDelta(
      store,
      {
        op: 'add',
        kind: 'preference',
        subject: 'owner',
        key: 'summer',
        value: 'Malaga, Spain',
        episodes: [next.id],
      },
      shown(next),
      'UTC',
    );
    expect(back, back.reason).toMatchObject({ outcome: 'written' });
  });
});
