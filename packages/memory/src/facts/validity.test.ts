// Validity that is never nonsense: an earlier value becomes history, an interval never ends
// before it starts, and recall can answer what keel believes was true at a moment.

import { describe, expect, it } from 'vitest';
import { dbOf } from '../internal.js';
import { DAY, factResults, openTempStore, slot } from '../test-helpers.js';

const PROJECT = slot('project', 'current_project');
const HOME = slot('profile', 'home');
const Y2026 = Date.UTC(2026, 0, 1);

describe('a backdated write', () => {
  it('with a valid_from earlier than the current value’s becomes history ending where the current starts, not current', async () => {
    const { store, clock } = openTempStore(Y2026);
    const heron = store.remember({
      ...PROJECT,
      value: 'Heron',
      source: 'owner_stated',
      validFrom: Y2026 - 30 * DAY,
    }).fact!;
    clock.advance(DAY);
    const r = store.remember({
      ...PROJECT,
      value: 'Falcon',
      source: 'owner_stated',
      validFrom: Date.UTC(2010, 0, 1),
    });
    expect(r.decision).toBe('history');
    expect(r.fact).toMatchObject({
      value: 'Falcon',
      status: 'superseded',
      valid_from: Date.UTC(2010, 0, 1),
      valid_to: Y2026 - 30 * DAY,
      superseded_by_id: heron.id,
    });
    // Heron stays current, untouched.
    expect(store.current(PROJECT)).toMatchObject({ id: heron.id, value: 'Heron', valid_to: null });
    expect(store.history(PROJECT).map((f) => [f.value, f.status])).toEqual([
      ['Falcon', 'superseded'],
      ['Heron', 'active'],
    ]);
  });

  it('the owner may say it replaces the current value: it becomes current, and the old interval ends where it began', async () => {
    const { store, clock } = openTempStore(Y2026);
    const heron = store.remember({
      ...PROJECT,
      value: 'Heron',
      source: 'owner_stated',
      validFrom: Y2026 - 30 * DAY,
    }).fact!;
    clock.advance(DAY);
    const r = store.remember({
      ...PROJECT,
      value: 'Falcon',
      source: 'owner_stated',
      validFrom: Date.UTC(2010, 0, 1),
      replaces: true,
    });
    expect(r.decision).toBe('update');
    expect(store.current(PROJECT)).toMatchObject({ value: 'Falcon' });
    const old = store.fact(heron.id)!;
    expect(old.status).toBe('superseded');
    expect(old.valid_to).toBe(old.valid_from); // never before it starts
    // A writer that is not the owner cannot claim to replace: an earlier value is history.
    const guess = store.remember({
      ...PROJECT,
      value: 'Osprey',
      source: 'observed',
      validFrom: Date.UTC(2005, 0, 1),
      replaces: true,
    });
    expect(guess.decision).toBe('history');
  });

  it('a current value recorded without a start is replaced by a dated statement after it', async () => {
    const { store, clock } = openTempStore(Y2026);
    // "I live in Porto": true now, since some time before it was recorded.
    const porto = store.remember({ ...HOME, value: 'Porto', source: 'owner_stated' }).fact!;
    expect(porto.valid_from).toBeNull();
    clock.advance(60_000);
    // "I moved to Lisbon yesterday": the newer statement, dated before Porto was recorded.
    const r = store.remember({
      ...HOME,
      value: 'Lisbon',
      source: 'owner_stated',
      validFrom: Y2026 - DAY,
    });
    expect(r.decision).toBe('update');
    expect(store.current(HOME)).toMatchObject({ value: 'Lisbon', valid_from: Y2026 - DAY });
    expect(store.fact(porto.id)).toMatchObject({ status: 'superseded', valid_to: Y2026 - DAY });
    // Control: with a known later start, the same dated statement is history.
    const { store: known } = openTempStore(Y2026);
    known.remember({ ...HOME, value: 'Porto', source: 'owner_stated', validFrom: Y2026 });
    const earlier = known.remember({
      ...HOME,
      value: 'Lisbon',
      source: 'owner_stated',
      validFrom: Y2026 - DAY,
    });
    expect(earlier.decision).toBe('history');
    // Control: a dated observation (not the owner's word) after an undated current is history,
    // as an old conversation read late must not replace what was recorded since.
    const { store: seen } = openTempStore(Y2026);
    seen.remember({ ...HOME, value: 'Porto', source: 'owner_stated' });
    const late = seen.remember({
      ...HOME,
      value: 'Lisbon',
      source: 'observed',
      episodeId: seen.addEpisode({ channel: 'import', role: 'owner', text: 'I live in Lisbon' }).id,
      validFrom: Y2026 - DAY,
    });
    expect(late.decision).toBe('history');
  });

  it('a later valid_from updates as before, ending the old value where the new one starts', async () => {
    const { store } = openTempStore(Y2026);
    const old = store.remember({
      ...PROJECT,
      value: 'Falcon',
      source: 'owner_stated',
      validFrom: Y2026 - 300 * DAY,
    }).fact!;
    const r = store.remember({
      ...PROJECT,
      value: 'Heron',
      source: 'owner_stated',
      validFrom: Y2026 - 30 * DAY,
    });
    expect(r.decision).toBe('update');
    expect(store.fact(old.id)).toMatchObject({ valid_to: Y2026 - 30 * DAY });
  });
});

describe('valid_to is never before valid_from', () => {
  it('the schema refuses it, and forgetting a belief that starts in the future ends it where it starts', async () => {
    const { store } = openTempStore(Y2026);
    const f = store.remember({
      kind: 'goal',
      key: 'move',
      value: 'moving to Lyon',
      source: 'owner_stated',
      validFrom: Y2026 + 60 * DAY,
    }).fact!;
    expect(() =>
      dbOf(store).prepare('UPDATE facts SET valid_to = ? WHERE id = ?').run(Y2026, f.id),
    ).toThrow(/valid_to >= valid_from/);
    const forgotten = store.forget(f.id).fact;
    expect(forgotten).toMatchObject({ status: 'retracted', valid_to: Y2026 + 60 * DAY });
  });
});

describe('recall as of a moment', () => {
  it('answers what was true then: history and current alike, never what the owner forgot', async () => {
    const { store, clock } = openTempStore(Y2026);
    store.remember({
      ...PROJECT,
      value: 'Project Falcon',
      source: 'owner_stated',
      validFrom: Y2026 - 400 * DAY,
    });
    store.remember({
      ...PROJECT,
      value: 'Project Heron',
      source: 'owner_stated',
      validFrom: Y2026 - 30 * DAY,
    });
    const secretProject = store.remember({
      kind: 'project',
      key: 'side_project',
      value: 'Project Kestrel',
      source: 'owner_stated',
      validFrom: Y2026 - 500 * DAY,
    }).fact!;
    store.forget(secretProject.id);
    const control = store.remember({
      kind: 'project',
      key: 'hobby_project',
      value: 'Project Wren',
      source: 'owner_stated',
      validFrom: Y2026 - 500 * DAY,
    }).fact!;
    clock.advance(DAY);
    const then = await store.recall('project', { type: 'fact', asOf: Y2026 - 100 * DAY });
    expect(then).toMatchObject({ mode: 'lexical' });
    expect(factResults(then).map((f) => f.value)).toEqual(
      expect.arrayContaining(['Project Falcon', 'Project Wren']),
    );
    expect(factResults(then).map((f) => f.value)).not.toContain('Project Heron');
    expect(factResults(then).map((f) => f.value)).not.toContain('Project Kestrel');
    expect(factResults(then).find((f) => f.value === 'Project Falcon')).toMatchObject({
      status: 'superseded',
      valid_from: Y2026 - 400 * DAY,
      valid_to: Y2026 - 30 * DAY,
    });
    const now = await store.recall('project', { type: 'fact', asOf: clock.now() });
    expect(
      factResults(now)
        .map((f) => f.value)
        .sort(),
    ).toEqual(['Project Heron', 'Project Wren']);
    expect(factResults(now).map((f) => f.id)).toContain(control.id);
    // Before anything was true: nothing.
    const before = await store.recall('project', { type: 'fact', asOf: Y2026 - 900 * DAY });
    expect(factResults(before)).toEqual([]);
  });

  it('recall results show both ends of a fact’s validity', async () => {
    const { store } = openTempStore(Y2026);
    store.remember({ ...PROJECT, value: 'Heron', source: 'owner_stated', validFrom: Y2026 - DAY });
    const [f] = factResults(await store.recall('heron'));
    expect(f).toMatchObject({ valid_from: Y2026 - DAY, valid_to: null });
  });

  it('a belief whose end is known and start unknown answers a moment before its end, saying the start is unknown', async () => {
    const { store, clock } = openTempStore(Y2026);
    const porto = store.remember({ ...HOME, value: 'Porto', source: 'owner_stated' }).fact!;
    // A current belief with no known start and no end: held from when it was recorded (as before).
    const desk = store.remember({
      kind: 'fact',
      key: 'home_desk',
      value: 'a desk at home',
      source: 'owner_stated',
    }).fact!;
    clock.advance(100 * DAY);
    store.remember({
      ...HOME,
      value: 'Lisbon',
      source: 'owner_stated',
      validFrom: Y2026 + 50 * DAY,
    });
    const then = factResults(await store.recall('home', { type: 'fact', asOf: Y2026 - 200 * DAY }));
    expect(then.find((f) => f.id === porto.id)).toMatchObject({
      value: 'Porto',
      status: 'superseded',
      valid_from: null,
      valid_to: Y2026 + 50 * DAY,
      start_unknown: true,
    });
    // Neither the desk (no end: it holds from when it was recorded) nor Lisbon (not yet) then.
    expect(then.map((f) => f.id)).not.toContain(desk.id);
    expect(then.map((f) => f.value)).not.toContain('Lisbon');
    // After its end: Lisbon, not Porto; a known start carries no start_unknown.
    const after = factResults(await store.recall('home', { type: 'fact', asOf: Y2026 + 60 * DAY }));
    expect(after.map((f) => f.value)).toContain('Lisbon');
    expect(after.map((f) => f.value)).not.toContain('Porto');
    expect(after.find((f) => f.value === 'Lisbon')!.start_unknown).toBeUndefined();
  });
});
