// "Why do you believe that?": the chain of a slot's versions, each version's evidence episodes,
// and the journal's decisions with their actors, for a corrected belief; a control belief's
// answer holds none of the other's parts; a missing id answers undefined.

import { describe, expect, it } from 'vitest';
import { openTempStore, slot, turn } from '../test-helpers.js';

describe('why', () => {
  it('answers with the chain (former values), evidence episodes and who decided each change', () => {
    const { store, clock } = openTempStore();
    const said = turn(store, 'My dentist is Dr. Ortiz');
    const first = store.remember({
      kind: 'profile',
      key: 'dentist',
      value: 'Dr. Ortiz',
      source: 'owner_stated',
      episodeId: said,
    }).fact!;
    clock.advance();
    const again = turn(store, 'Dr. Ortiz again today');
    store.remember({
      kind: 'profile',
      key: 'dentist',
      value: 'Dr. Ortiz',
      source: 'owner_stated',
      episodeId: again,
    });
    clock.advance();
    const moved = turn(store, 'I switched my dentist to Dr. Park');
    const second = store.remember({
      kind: 'profile',
      key: 'dentist',
      value: 'Dr. Park',
      source: 'owner_stated',
      episodeId: moved,
    }).fact!;
    const control = store.remember({
      kind: 'profile',
      key: 'doctor',
      value: 'Dr. Okafor',
      source: 'owner_stated',
    }).fact!;

    const why = store.why(first.id)!;
    expect(why.fact).toMatchObject({ id: first.id, status: 'superseded' });
    // Newest first: the current value, then the former one.
    expect(why.chain.map((f) => [f.id, f.value, f.status])).toEqual([
      [second.id, 'Dr. Park', 'active'],
      [first.id, 'Dr. Ortiz', 'superseded'],
    ]);
    expect(why.evidence.map((e) => [e.factId, e.episode.id])).toEqual([
      [second.id, moved],
      [first.id, said],
      [first.id, again],
    ]);
    expect(why.changes.map((c) => [c.op, c.factId, c.actor])).toEqual([
      ['create', first.id, 'owner'],
      ['corroborate', first.id, 'owner'],
      ['update', second.id, 'owner'],
    ]);
    expect(why.changes[0]!.summary).toMatch(/^stored as a new belief/);
    expect(why.changes.every((c, i) => i === 0 || c.seq > why.changes[i - 1]!.seq)).toBe(true);
    expect(why.unexplained).toEqual([]);
    // The same answer from the current version.
    expect(store.why(second.id)!.chain.map((f) => f.id)).toEqual(why.chain.map((f) => f.id));

    // The control's answer is its own: nothing of the dentist's chain.
    const other = store.why(control.id)!;
    expect(other.chain.map((f) => f.id)).toEqual([control.id]);
    expect(other.changes.map((c) => c.factId)).toEqual([control.id]);
    expect(other.evidence).toHaveLength(1);
    expect(other.evidence[0]!.episode.text).toContain('Dr. Okafor');
  });

  it('records a retraction with its actor and reason; an unknown id answers undefined', () => {
    const { store, clock } = openTempStore();
    const f = store.remember({
      kind: 'preference',
      key: 'coffee',
      value: 'oat flat white',
      source: 'owner_stated',
    }).fact!;
    clock.advance();
    store.forget(f.id);
    const why = store.why(f.id)!;
    expect(why.fact.status).toBe('retracted');
    expect(why.changes.at(-1)).toMatchObject({ op: 'forget', actor: 'owner', factId: f.id });
    expect(why.changes.at(-1)!.summary).toMatch(/^forgotten \(retracted/);
    expect(store.history(slot('preference', 'coffee')).map((x) => x.id)).toEqual([f.id]);
    expect(store.why(f.id + 1000)).toBeUndefined();
  });
});
