// Pending questions: a retraction of the owner's word that rests on the owner's own turn is asked,
// never dropped; the owner's yes closes the belief (history kept), no leaves it; the owner's own
// retraction closes it at once.
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
import { questionText } from './questions.js';
import { ASKED_OWNER_RETRACTION, REFUSED_OWNER_RETRACTION } from './retract.js';

function seeded() {
  const t = openTempStore();
  const { store, clock } = t;
  const job = store.remember({
    kind: 'profile',
    key: 'employer',
    value: 'Acme',
    source: 'owner_stated',
    actor: 'owner',
  }).fact!;
  const home = store.remember({
    kind: 'profile',
    key: 'home',
    value: 'Lisbon',
    source: 'owner_stated',
    actor: 'owner',
  }).fact!;
  clock.advance(DAY);
  return { ...t, job, home };
}

describe('pending questions', () => {
  it("reflection's retraction of the owner's word, resting on the owner's turn, is asked and listed", async () => {
    const { store, job, home } = seeded();
    const left = turn(store, "I'm not at Acme anymore, it's freelancing for me");
    const r = store.retract(job.id, { actor: 'reflection', why: 'left', episodeId: left });
    expect(r).toMatchObject({ retracted: false, reason: ASKED_OWNER_RETRACTION });
    expect(r.question).toMatchObject({ factId: job.id, episodeId: left, actor: 'reflection' });
    // Still current until the owner answers; the control is untouched.
    expect(store.current(slot('profile', 'employer'))!.id).toBe(job.id);
    expect(store.fact(home.id)!.status).toBe('active');
    const q = store.review().questions;
    expect(q).toHaveLength(1);
    expect(q[0]!.said).toContain('not at Acme anymore');
    expect(q[0]!.fact.id).toBe(job.id);
    expect(questionText(q[0]!)).toBe(
      `q${q[0]!.id}: does "I'm not at Acme anymore, it's freelancing for me" mean f${job.id} profile/employer: Acme no longer holds?`,
    );
    expect(journalRows(store, 'ask')).toHaveLength(1);
    // The same turn again asks nothing new.
    store.retract(job.id, { actor: 'reflection', why: 'left', episodeId: left });
    expect(store.review().questions).toHaveLength(1);
  });

  it('a retraction resting on a turn that does not mention the belief is refused, not asked', async () => {
    const { store, job } = seeded();
    const other = turn(store, 'the weather is lovely today');
    const r = store.retract(job.id, { actor: 'reflection', why: 'x', episodeId: other });
    expect(r).toMatchObject({ retracted: false, reason: REFUSED_OWNER_RETRACTION });
    expect(store.review().questions).toEqual([]);
    // Control: a turn that mentions it is asked.
    const said = turn(store, 'Acme is behind me');
    expect(
      store.retract(job.id, { actor: 'reflection', why: 'x', episodeId: said }).question,
    ).toBeDefined();
  });

  it('yes closes the belief as of the turn (history kept, not recalled); the control stays', async () => {
    const { store, clock, job, home } = seeded();
    const left = turn(store, 'Acme and I parted ways');
    const { question } = store.ask(job.id, {
      actor: 'owner',
      said: 'Acme and I parted ways',
      episodeId: left,
    });
    clock.advance(DAY);
    const a = store.answer(question.id, 'yes', { channel: 'terminal' });
    expect(a.fact).toMatchObject({ status: 'retracted' });
    expect(a.fact.valid_to).toBe(store.episode(left)!.occurred_at);
    expect(store.current(slot('profile', 'employer'))).toBeUndefined();
    expect(store.history(slot('profile', 'employer')).map((f) => f.id)).toContain(job.id);
    expect(await recalledFactIds(store, 'Acme')).not.toContain(job.id);
    expect(store.current(slot('profile', 'home'))!.id).toBe(home.id);
    expect(store.review().questions).toEqual([]);
    expect(journalRows(store, 'retract').at(-1)!.actor).toBe('owner');
    expectKeelError(() => store.answer(question.id, 'yes'), 'NOT_FOUND');
  });

  it('no leaves the belief current and clears the question', async () => {
    const { store, job } = seeded();
    const said = turn(store, 'Acme had layoffs');
    const { question } = store.ask(job.id, {
      actor: 'owner',
      said: 'Acme had layoffs',
      episodeId: said,
    });
    const a = store.answer(question.id, 'no');
    expect(a.fact.id).toBe(job.id);
    expect(store.current(slot('profile', 'employer'))).toMatchObject({ id: job.id, confidence: 1 });
    expect(store.review().questions).toEqual([]);
    expect(journalRows(store, 'keep').at(-1)!.actor).toBe('owner');
  });

  it("the owner's own retraction closes the owner's word at once", async () => {
    const { store, job, home } = seeded();
    const said = turn(store, 'I quit Acme');
    const r = store.retract(job.id, { actor: 'owner', why: 'the owner quit', episodeId: said });
    expect(r.retracted).toBe(true);
    expect(store.fact(job.id)).toMatchObject({ status: 'retracted' });
    expect(store.fact(home.id)!.status).toBe('active');
  });

  it('a new value for the slot answers its open questions', async () => {
    const { store, job } = seeded();
    const said = turn(store, 'Acme is history');
    store.ask(job.id, { actor: 'owner', said: 'Acme is history', episodeId: said });
    store.remember({ kind: 'profile', key: 'employer', value: 'Globex', source: 'owner_stated' });
    expect(store.review().questions).toEqual([]);
    expectKeelError(() => store.ask(job.id, { actor: 'owner', said: 'x' }), 'INVALID_STATE');
    expectKeelError(() => store.ask(job.id + 100, { actor: 'owner', said: 'x' }), 'NOT_FOUND');
  });

  it('a question and a pending value from the same turn are answered together (yes confirms the value)', async () => {
    const { store, job, home } = seeded();
    const said = turn(store, 'starting at Globex on Monday, Acme is done');
    const { question } = store.ask(job.id, {
      actor: 'owner',
      said: 'starting at Globex',
      episodeId: said,
    });
    const pending = store.remember({
      kind: 'profile',
      key: 'employer',
      value: 'Globex',
      source: 'inferred',
      episodeId: said,
      actor: 'model',
    });
    expect(pending.decision).toBe('conflict');
    store.answer(question.id, 'yes');
    expect(store.current(slot('profile', 'employer'))).toMatchObject({ value: 'Globex' });
    expect(store.fact(job.id)!.status).toBe('superseded');
    expect(store.review()).toMatchObject({ pending: [], questions: [] });
    expect(store.fact(home.id)!.status).toBe('active');
  });

  it('no rejects the pending value from the same turn; rejecting the value answers the question', async () => {
    const { store, job } = seeded();
    const said = turn(store, 'interviewing at Globex, Acme is driving me mad');
    const { question } = store.ask(job.id, {
      actor: 'owner',
      said: 'interviewing at Globex',
      episodeId: said,
    });
    store.remember({
      kind: 'profile',
      key: 'employer',
      value: 'Globex',
      source: 'inferred',
      episodeId: said,
    });
    store.answer(question.id, 'no');
    expect(store.current(slot('profile', 'employer'))!.id).toBe(job.id);
    expect(store.review()).toMatchObject({ pending: [], questions: [] });
    // The other way round: rejecting the value settles the question on the same turn.
    const again = turn(store, 'Initech called about Acme');
    store.ask(job.id, { actor: 'owner', said: 'Initech called', episodeId: again });
    const p = store.remember({
      kind: 'profile',
      key: 'employer',
      value: 'Initech',
      source: 'inferred',
      episodeId: again,
    });
    store.reject(p.fact!.id);
    expect(store.review().questions).toEqual([]);
    expect(store.current(slot('profile', 'employer'))!.id).toBe(job.id);
  });

  it("a model's key naming the owner's slot in other words is reviewed against it (control: an unrelated key is not)", async () => {
    const { store } = seeded();
    const team = store.remember({
      kind: 'preference',
      key: 'favourite_football_team',
      value: 'Arsenal',
      source: 'owner_stated',
    }).fact!;
    const e = turn(store, "I'm a Spurs fan now");
    const r = store.remember({
      kind: 'preference',
      key: 'favourite_team',
      value: 'Spurs',
      source: 'inferred',
      episodeId: e,
    });
    expect(r.decision).toBe('conflict');
    expect(r.fact).toMatchObject({ key: 'favourite_football_team', status: 'pending' });
    expect(store.current(slot('preference', 'favourite_football_team'))!.id).toBe(team.id);
    const band = store.remember({
      kind: 'preference',
      key: 'favourite_band',
      value: 'Blur',
      source: 'inferred',
      episodeId: e,
    });
    expect(band).toMatchObject({ decision: 'create', fact: { key: 'favourite_band' } });
  });
});
