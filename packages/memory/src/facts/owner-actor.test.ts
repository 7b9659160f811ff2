// Who the journal names for the owner's verbs: the owner at a door (`owner`, the default), or the
// owner on the local web page (`web`), with the door the owner acted from on the command episode.

import { describe, expect, it } from 'vitest';
import { dbOf } from '../internal.js';
import { openTempStore } from '../test-helpers.js';

type Row = { actor: string; op: string; entity: string; entity_id: number | null };

function entries(store: ReturnType<typeof openTempStore>['store'], after = 0): Row[] {
  return dbOf(store)
    .prepare(
      `SELECT actor, op, entity, entity_id FROM journal WHERE seq > ? AND op <> 'state' ORDER BY seq`,
    )
    .all(after) as Row[];
}

function lastSeq(store: ReturnType<typeof openTempStore>['store']): number {
  return (dbOf(store).prepare('SELECT max(seq) AS n FROM journal').get() as { n: number }).n;
}

function commandEpisodes(store: ReturnType<typeof openTempStore>['store']) {
  return dbOf(store)
    .prepare(
      `SELECT channel, text FROM episodes
         WHERE kind = 'command' AND (text LIKE 'confirm %' OR text LIKE 'reject %' OR text LIKE 'forget %')
         ORDER BY id`,
    )
    .all() as { channel: string; text: string }[];
}

describe("the owner's verbs name their actor", () => {
  it('confirm, reject, forget and purge from the web page are journaled as web; the chain verifies', () => {
    const { store } = openTempStore();
    const coffee = { kind: 'preference', key: 'coffee' } as const;
    store.remember({ ...coffee, value: 'oat flat white', source: 'owner_stated' });
    const proposed = store.remember({ ...coffee, value: 'black coffee', source: 'inferred' }).fact!;
    expect(proposed.status).toBe('pending');
    const city = store.remember({
      kind: 'profile',
      key: 'city',
      value: 'Lisbon',
      source: 'inferred',
    }).fact!;
    const pet = store.remember({
      kind: 'profile',
      key: 'pet',
      value: 'a cat named Quill',
      source: 'owner_stated',
    }).fact!;
    const dentist = store.remember({
      kind: 'profile',
      key: 'dentist',
      value: 'Dr Amsel',
      source: 'owner_stated',
    }).fact!;

    const mark = lastSeq(store);
    store.confirm(proposed.id, { channel: 'web', actor: 'web' });
    store.reject(city.id, { channel: 'web', actor: 'web' });
    store.forget(pet.id, { channel: 'web', actor: 'web' });
    store.forget(dentist.id, { purge: true, channel: 'web', actor: 'web' });
    const facts = entries(store, mark).filter((e) => e.entity === 'fact');
    expect(facts.map((e) => [e.op, e.actor])).toEqual(
      expect.arrayContaining([
        ['confirm', 'web'],
        ['reject', 'web'],
        ['forget', 'web'],
        ['purge', 'web'],
      ]),
    );
    // Nothing the owner did on the page is named as another actor (supersession is keel's own).
    expect(facts.filter((e) => e.actor === 'owner')).toEqual([]);
    // Each command episode names the page as the door it came through.
    expect(commandEpisodes(store).map((e) => e.channel)).toEqual(['web', 'web', 'web', 'web']);
    expect(store.verify()).toMatchObject({ ok: true, problems: [] });
  });

  it('without an actor the journal names the owner (the CLI and the doors)', () => {
    const { store } = openTempStore();
    const f = store.remember({ kind: 'profile', key: 'city', value: 'Porto', source: 'inferred' })
      .fact!;
    const mark = lastSeq(store);
    store.confirm(f.id, { channel: 'cli' });
    expect(entries(store, mark).filter((e) => e.entity === 'fact')).toEqual([
      { actor: 'owner', op: 'confirm', entity: 'fact', entity_id: f.id },
    ]);
    expect(commandEpisodes(store).map((e) => e.channel)).toEqual(['cli']);
  });
});
