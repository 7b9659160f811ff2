// Retraction from conversation: a belief keel formed itself ends without a tombstone (it may
// become true again); the owner's word is never retracted this way.
import { describe, expect, it } from 'vitest';
import {
  DAY,
  expectKeelError,
  journalRows,
  openTempStore,
  recalledFactIds,
  slot,
  turn,
} from '../test-helpers.js';
import { REFUSED_OWNER_RETRACTION } from './retract.js';

describe('retract', () => {
  it('ends an observed belief at the episode that said so; it is no longer recalled, and may be observed again', async () => {
    const { store, clock } = openTempStore();
    const said = turn(store, 'I work at Acme');
    const job = store.remember({
      kind: 'profile',
      key: 'employer',
      value: 'Acme',
      source: 'observed',
      episodeId: said,
    }).fact!;
    const control = store.remember({
      kind: 'profile',
      key: 'city',
      value: 'Lisbon',
      source: 'observed',
      episodeId: said,
    }).fact!;
    clock.advance(DAY);
    const left = turn(store, 'I left Acme last week');
    const r = store.retract(job.id, {
      actor: 'reflection',
      why: 'the owner left',
      episodeId: left,
    });
    expect(r.retracted).toBe(true);
    expect(r.fact).toMatchObject({ status: 'retracted', status_reason: 'the owner left' });
    expect(r.fact.valid_to).toBe(store.episode(left)!.occurred_at);
    expect(await recalledFactIds(store, 'Acme')).not.toContain(job.id);
    expect(await recalledFactIds(store, 'Lisbon')).toContain(control.id);
    expect(journalRows(store, 'retract')).toHaveLength(1);
    // No tombstone: a later sighting may believe it again.
    const back = turn(store, 'I am back at Acme');
    const again = store.remember({
      kind: 'profile',
      key: 'employer',
      value: 'Acme',
      source: 'observed',
      episodeId: back,
    });
    expect(again.decision).toBe('create');
    expect(store.current(slot('profile', 'employer'))!.id).not.toBe(job.id);
  });

  it("refuses to retract the owner's word (journaled) or a row that is not active", async () => {
    const { store } = openTempStore();
    const owner = store.remember({
      kind: 'profile',
      key: 'name',
      value: 'Ada',
      source: 'owner_stated',
    }).fact!;
    const refused = store.retract(owner.id, { actor: 'reflection', why: 'x' });
    expect(refused).toMatchObject({ retracted: false, reason: REFUSED_OWNER_RETRACTION });
    expect(store.fact(owner.id)!.status).toBe('active');
    expect(journalRows(store, 'ignore').at(-1)!.payload).toContain(REFUSED_OWNER_RETRACTION);
    const observed = store.remember({
      kind: 'profile',
      key: 'pet',
      value: 'a cat',
      source: 'observed',
    }).fact!;
    store.retract(observed.id, { actor: 'reflection', why: 'gone' });
    expectKeelError(
      () => store.retract(observed.id, { actor: 'reflection', why: 'x' }),
      'INVALID_STATE',
    );
    expectKeelError(() => store.retract(99_999, { actor: 'reflection', why: 'x' }), 'NOT_FOUND');
  });
});
