// Evidence on creation (DESIGN "Writing": evidence must be evidence): a belief the model,
// reflection or the curator creates must cite an owner turn that mentions its value. Real SQLite
// files, fake clock; each refusal beside a control that is kept.

import { describe, expect, it } from 'vitest';
import { openTempStore, refusals, slot, turn } from '../test-helpers.js';
import { REFUSED_UNSAID } from './review.js';

const ALLERGY = slot('constraint', 'allergy');
const write = (episodeId: number | undefined, actor: 'model' | 'reflection' | 'curator') => ({
  ...ALLERGY,
  value: 'peanut allergy',
  source: 'inferred' as const,
  actor,
  ...(episodeId === undefined ? {} : { episodeId }),
});

describe('a new belief from the model or reflection rests on an owner turn that mentions it', () => {
  it.each(['model', 'reflection', 'curator'] as const)(
    '%s: a turn that does not mention the value creates nothing; a paraphrase the owner said does',
    (actor) => {
      const { store } = openTempStore();
      const hello = turn(store, 'hello');
      const r = store.remember(write(hello, actor));
      expect(r).toMatchObject({ decision: 'ignore', reason: REFUSED_UNSAID, fact: null });
      expect(store.current(ALLERGY)).toBeUndefined();
      expect(refusals(store)).toMatchObject([{ reason: REFUSED_UNSAID, episode_id: hello }]);
      // Control: the owner said it in other words.
      const said = turn(store, "I'm allergic to peanuts");
      const ok = store.remember(write(said, actor));
      expect(ok.decision).toBe('create');
      expect(store.current(ALLERGY)).toMatchObject({ value: 'peanut allergy', source: 'inferred' });
    },
  );

  it('citing no turn, or keel’s own reply, is not the owner’s word', () => {
    const { store } = openTempStore();
    expect(store.remember(write(undefined, 'model'))).toMatchObject({
      decision: 'ignore',
      reason: REFUSED_UNSAID,
    });
    const reply = store.addEpisode({
      channel: 'terminal',
      role: 'assistant',
      text: 'So you have a peanut allergy?',
    }).id;
    expect(store.remember(write(reply, 'model')).reason).toBe(REFUSED_UNSAID);
    expect(store.current(ALLERGY)).toBeUndefined();
    const said = turn(store, 'yes, a peanut allergy');
    expect(store.remember(write(said, 'model')).decision).toBe('create');
  });

  it('an unsaid new value neither replaces nor contests the current one; a said one does', () => {
    const { store } = openTempStore();
    const first = turn(store, 'I am allergic to peanuts');
    store.remember(write(first, 'reflection'));
    const hello = turn(store, 'good morning');
    const r = store.remember({ ...write(hello, 'model'), value: 'shellfish allergy' });
    expect(r.decision).toBe('ignore');
    expect(r.reason).toBe(REFUSED_UNSAID);
    expect(store.current(ALLERGY)!.value).toBe('peanut allergy');
    expect(store.review().pending).toEqual([]);
    // Control: the owner's turn names the new value.
    const said = turn(store, 'turns out it is shellfish, not peanuts');
    const ok = store.remember({ ...write(said, 'model'), value: 'shellfish allergy' });
    expect(ok.decision).toBe('update');
    expect(store.current(ALLERGY)!.value).toBe('shellfish allergy');
  });

  it('imports, system writes and the owner are not asked for a turn', () => {
    const { store } = openTempStore();
    const hello = turn(store, 'hello');
    expect(
      store.remember({ ...write(hello, 'model'), source: 'imported', actor: 'import' }).decision,
    ).toBe('create');
    const other = slot('fact', 'desk');
    expect(
      store.remember({ ...other, value: 'standing desk', source: 'inferred', episodeId: hello })
        .decision,
    ).toBe('create');
    const owner = slot('preference', 'tea');
    expect(
      store.remember({ ...owner, value: 'green tea', source: 'owner_stated', episodeId: hello })
        .decision,
    ).toBe('create');
    // Control: the same non-owner write from the model is refused.
    expect(
      store.remember({
        ...slot('fact', 'chair'),
        value: 'red chair',
        source: 'inferred',
        actor: 'model',
        episodeId: hello,
      }).reason,
    ).toBe(REFUSED_UNSAID);
  });
});
