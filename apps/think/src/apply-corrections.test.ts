// Reflection's corrections of the owner's word, through the real store: resting on the owner's own
// later turn, they reach the owner's review (a pending question, or a pending value) and never
// change the owner's word silently; one resting on a turn that does not mention it is refused.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Episode, MemoryStore } from '@keel/memory';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { applyDelta } from './apply.js';

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

function owner(text: string): Episode {
  return store.addEpisode({ channel: 'terminal', role: 'owner', text });
}

function seed() {
  const job = store.remember({
    kind: 'profile',
    key: 'employer',
    value: 'Vandelay',
    source: 'owner_stated',
    actor: 'owner',
  }).fact!;
  const control = store.remember({
    kind: 'profile',
    key: 'home',
    value: 'Leuven',
    source: 'owner_stated',
    actor: 'owner',
  }).fact!;
  return { job, control };
}

describe("reflection's corrections of the owner's word", () => {
  it('a retraction resting on the owner turn becomes a pending question, answered yes', () => {
    const { job, control } = seed();
    const e = owner('my last day at Vandelay was friday, onto something new');
    const out = applyDelta(
      store,
      { op: 'retract', kind: 'profile', subject: 'owner', key: 'employer', episodes: [e.id] },
      new Map([[e.id, e]]),
      'UTC',
    );
    expect(out).toMatchObject({ outcome: 'conflict', factId: job.id });
    const [q] = store.review().questions;
    expect(q).toMatchObject({ factId: job.id, actor: 'reflection', episodeId: e.id });
    expect(q!.said).toContain('last day at Vandelay');
    expect(store.fact(job.id)!.status).toBe('active');
    store.answer(q!.id, 'yes');
    expect(store.fact(job.id)).toMatchObject({ status: 'retracted', valid_to: e.occurred_at });
    expect(store.fact(control.id)!.status).toBe('active');
  });

  it('the same retraction answered no leaves the owner’s word', () => {
    const { job } = seed();
    const e = owner('Vandelay is merging with Kramerica, who knows what happens');
    applyDelta(
      store,
      { op: 'retract', kind: 'profile', subject: 'owner', key: 'employer', episodes: [e.id] },
      new Map([[e.id, e]]),
      'UTC',
    );
    store.answer(store.review().questions[0]!.id, 'no');
    expect(store.fact(job.id)).toMatchObject({ status: 'active', confidence: 1 });
    expect(store.review().questions).toEqual([]);
  });

  it('a retraction resting on a turn that does not mention it is refused (control: one that does is asked)', () => {
    const { job } = seed();
    const off = owner('lovely weather for a walk');
    const refused = applyDelta(
      store,
      { op: 'retract', kind: 'profile', subject: 'owner', key: 'employer', episodes: [off.id] },
      new Map([[off.id, off]]),
      'UTC',
    );
    expect(refused.outcome).toBe('ignored');
    expect(store.review().questions).toEqual([]);
    const on = owner('I left Vandelay');
    const asked = applyDelta(
      store,
      { op: 'retract', kind: 'profile', subject: 'owner', key: 'employer', episodes: [on.id] },
      new Map([[on.id, on]]),
      'UTC',
    );
    expect(asked.outcome).toBe('conflict');
    expect(store.review().questions.map((q) => q.factId)).toEqual([job.id]);
  });

  it('a retraction resting on a turn that says something stopped, without naming it, is asked', () => {
    const { job, control } = seed();
    const e = owner('handed in my notice today, last day is the end of April');
    const out = applyDelta(
      store,
      { op: 'retract', kind: 'profile', subject: 'owner', key: 'employer', episodes: [e.id] },
      new Map([[e.id, e]]),
      'UTC',
    );
    expect(out).toMatchObject({ outcome: 'conflict', factId: job.id });
    expect(store.review().questions.map((q) => q.factId)).toEqual([job.id]);
    expect(store.fact(job.id)!.status).toBe('active');
    expect(store.fact(control.id)!.status).toBe('active');
  });

  it('a different value for the owner’s slot is held as pending and confirmed or rejected by the owner', () => {
    const { job } = seed();
    const e = owner('first week at Pendant Publishing went great');
    const out = applyDelta(
      store,
      {
        op: 'correct',
        kind: 'profile',
        subject: 'owner',
        key: 'employer',
        value: 'Pendant Publishing',
        episodes: [e.id],
      },
      new Map([[e.id, e]]),
      'UTC',
    );
    expect(out.outcome).toBe('conflict');
    const [p] = store.review().pending;
    expect(p).toMatchObject({ fact: { value: 'Pendant Publishing' }, current: { id: job.id } });
    store.confirm(p!.fact.id);
    expect(store.current({ scope: 'owner', kind: 'profile', key: 'employer' })!.value).toBe(
      'Pendant Publishing',
    );
    expect(store.fact(job.id)!.status).toBe('superseded');
  });
});
