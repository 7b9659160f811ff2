// The reminders repository: a reminder is created once (the same text due within five minutes is
// that reminder, a different text or a time further off is another), listed pending first,
// cancelled once, claimed once (a second claim, by this process or another, fails), released and
// retried up to the cap, missed when too late, and a credential in its text is withheld.

import { describe, expect, it } from 'vitest';
import { DB_FILENAME, MemoryStore } from '../store.js';
import { expectKeelError, HOUR, MINUTE, openTempStore, turn } from '../test-helpers.js';

const base = { channel: 'terminal', createdBy: 'owner' as const };

describe('reminders', () => {
  it('creates a reminder, and the same text due within five minutes returns it (control: another text or time is new)', () => {
    const { store, clock } = openTempStore();
    const ep = turn(store, 'remind me at five to call the bank');
    const due = clock.t + 2 * HOUR;
    const first = store.reminders.create({
      ...base,
      text: 'call the bank',
      dueAt: due,
      phrase: 'at five',
      episodeId: ep,
    });
    expect(first.created).toBe(true);
    expect(first.reminder).toMatchObject({
      text: 'call the bank',
      due_at: due,
      phrase: 'at five',
      episode_id: ep,
      channel: 'terminal',
      created_by: 'owner',
      status: 'pending',
      attempts: 0,
    });
    const again = store.reminders.create({
      ...base,
      text: 'Call  the BANK',
      dueAt: due + 4 * MINUTE,
      createdBy: 'model',
    });
    expect(again).toMatchObject({ created: false, reminder: { id: first.reminder.id } });
    // Controls: another text at the same time, the same text ten minutes later.
    const other = store.reminders.create({ ...base, text: 'stretch', dueAt: due });
    const later = store.reminders.create({
      ...base,
      text: 'call the bank',
      dueAt: due + 10 * MINUTE,
    });
    expect(other.created).toBe(true);
    expect(later.created).toBe(true);
    expect(new Set([first, other, later].map((r) => r.reminder.id)).size).toBe(3);
    // The reminders of a turn: the one it asked for, not the others.
    expect(store.reminders.fromEpisode(ep).map((r) => r.id)).toEqual([first.reminder.id]);
  });

  it('lists pending reminders soonest first, then the others newest first', () => {
    const { store, clock } = openTempStore();
    const a = store.reminders.create({ ...base, text: 'a', dueAt: clock.t + 3 * HOUR }).reminder;
    store.reminders.create({ ...base, text: 'b', dueAt: clock.t + HOUR }).reminder;
    const c = store.reminders.create({ ...base, text: 'c', dueAt: clock.t + 2 * HOUR }).reminder;
    store.reminders.cancel(c.id);
    expect(store.reminders.list().map((r) => [r.text, r.status])).toEqual([
      ['b', 'pending'],
      ['a', 'pending'],
      ['c', 'cancelled'],
    ]);
    expect(store.reminders.get(a.id)?.text).toBe('a');
    expect(store.reminders.get(999)).toBeNull();
  });

  it('cancels a pending reminder once; cancelling again says it was not pending; an unknown id is NOT_FOUND', () => {
    const { store, clock } = openTempStore();
    const r = store.reminders.create({ ...base, text: 'stretch', dueAt: clock.t + HOUR }).reminder;
    const first = store.reminders.cancel(r.id);
    expect(first).toMatchObject({ cancelled: true, reminder: { status: 'cancelled' } });
    expect(first.reminder.cancelled_at).toBe(clock.t);
    const second = store.reminders.cancel(r.id);
    expect(second).toMatchObject({ cancelled: false, reminder: { status: 'cancelled' } });
    expectKeelError(() => store.reminders.cancel(999), 'NOT_FOUND');
    // A cancelled reminder is never due.
    expect(store.reminders.due(clock.t + 2 * HOUR, 5)).toEqual([]);
  });

  it('is due at its time, not before; a claim succeeds once, a second claim (another process) fails', () => {
    const { store, clock, path } = openTempStore();
    const r = store.reminders.create({
      ...base,
      text: 'stretch',
      dueAt: clock.t + 2 * MINUTE,
    }).reminder;
    expect(store.reminders.due(clock.t + MINUTE, 5)).toEqual([]);
    expect(store.reminders.due(clock.t + 2 * MINUTE, 5).map((x) => x.id)).toEqual([r.id]);
    const other = MemoryStore.open(path);
    try {
      expect(store.reminders.claim(r.id, clock.t)).toBe(true);
      expect(other.reminders.claim(r.id, clock.t)).toBe(false);
      expect(store.reminders.claim(r.id, clock.t)).toBe(false);
    } finally {
      other.close();
    }
    store.reminders.markSent(r.id, clock.t + 1000);
    expect(store.reminders.get(r.id)).toMatchObject({
      status: 'sent',
      sent_at: clock.t + 1000,
      attempts: 1,
    });
    expect(store.reminders.due(clock.t + HOUR, 5)).toEqual([]);
    expect(path.endsWith(DB_FILENAME)).toBe(true);
  });

  it('a released reminder is tried again, and is missed once its tries are spent', () => {
    const { store, clock } = openTempStore();
    const r = store.reminders.create({ ...base, text: 'stretch', dueAt: clock.t }).reminder;
    expect(store.reminders.claim(r.id, clock.t)).toBe(true);
    store.reminders.release(r.id, 'discord unreachable', 2);
    expect(store.reminders.get(r.id)).toMatchObject({
      status: 'pending',
      attempts: 1,
      sent_at: null,
      last_error: 'discord unreachable',
    });
    expect(store.reminders.claim(r.id, clock.t)).toBe(true);
    store.reminders.release(r.id, 'discord unreachable', 2);
    expect(store.reminders.get(r.id)).toMatchObject({ status: 'missed', attempts: 2 });
  });

  it('marks missed the pending reminders due before a time (control: a later one stays pending)', () => {
    const { store, clock } = openTempStore();
    const old = store.reminders.create({
      ...base,
      text: 'old',
      dueAt: clock.t - 30 * HOUR,
    }).reminder;
    const fresh = store.reminders.create({
      ...base,
      text: 'fresh',
      dueAt: clock.t - HOUR,
    }).reminder;
    const missed = store.reminders.expire(clock.t - 24 * HOUR);
    expect(missed.map((r) => r.id)).toEqual([old.id]);
    expect(store.reminders.get(old.id)?.status).toBe('missed');
    expect(store.reminders.get(fresh.id)?.status).toBe('pending');
  });

  it('withholds a credential in its text, and refuses an empty or oversized one', () => {
    const { store, clock } = openTempStore();
    const r = store.reminders.create({
      ...base,
      text: 'log in to the bank with password hunter2-Zq9!x',
      dueAt: clock.t + HOUR,
    });
    expect(r.withheld).toBe(true);
    expect(r.reminder.text).not.toContain('hunter2');
    const plain = store.reminders.create({ ...base, text: 'call mum', dueAt: clock.t + HOUR });
    expect(plain.withheld).toBe(false);
    expectKeelError(
      () => store.reminders.create({ ...base, text: '  ', dueAt: clock.t }),
      'INVALID_INPUT',
    );
    expectKeelError(
      () => store.reminders.create({ ...base, text: 'x'.repeat(1001), dueAt: clock.t }),
      'TOO_LARGE',
    );
    expectKeelError(
      () => store.reminders.create({ ...base, text: 'x', dueAt: Number.NaN }),
      'INVALID_INPUT',
    );
  });

  it('purge reaches a reminder and keeps the rest of its words', () => {
    const { store, clock } = openTempStore();
    const r = store.reminders.create({
      ...base,
      text: 'call Begoña about the flat',
      dueAt: clock.t + HOUR,
    }).reminder;
    const control = store.reminders.create({
      ...base,
      text: 'call the bank',
      dueAt: clock.t + HOUR,
    }).reminder;
    expect(store.findMentions('Begona').places.reminders).toBe(1);
    store.purgeMentions('Begona', { actor: 'owner' });
    expect(store.reminders.get(r.id)?.text).toBe('call [purged] about the flat');
    expect(store.reminders.get(control.id)?.text).toBe('call the bank');
  });
});
