// The shared slash commands' purge: /forget <id> --purge and /purge <text> list every stored
// mention first and erase nothing; the owner's --yes line erases them, and a control stays.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryStore } from '@keel/memory';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runSlashCommand } from './commands.js';

let dir: string;
let store: MemoryStore;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'keel-slash-'));
  store = MemoryStore.open(join(dir, 'keel.db'));
});
afterEach(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

const slash = (line: string) => runSlashCommand(store, line, { channel: 'test', status: () => '' });
const said = (text: string) =>
  store.addEpisode({ kind: 'conversation', channel: 'test', role: 'owner', text }).id;

describe('purging from a door', () => {
  it('/forget <id> --purge lists, and erases only on --yes', async () => {
    const ep = said('my ex Tomás still has my bike pump; my bike is a Brompton');
    const ex = store.remember({
      kind: 'relationship',
      key: 'ex',
      value: 'Tomás',
      source: 'owner_stated',
      episodeId: ep,
    }).fact!;
    const bike = store.remember({
      kind: 'profile',
      key: 'bike',
      value: 'Brompton',
      source: 'owner_stated',
      episodeId: ep,
    }).fact!;
    const listed = await slash(`/forget ${ex.id} --purge`);
    expect(listed.text).toContain('Tomás still has');
    expect(listed.text).toContain(`/forget ${ex.id} --purge --yes`);
    expect(store.fact(ex.id)!.status).toBe('active');
    const done = await slash(`/forget ${ex.id} --purge --yes`);
    expect(done.text).toMatch(/Purged \d+ row/);
    expect(store.findMentions('Tomas').total).toBe(0);
    expect(store.fact(ex.id)).toMatchObject({ status: 'retracted', value: '[purged]' });
    expect(store.current(bike)?.value).toBe('Brompton');
    expect(store.episode(ep)!.text).toBe(
      'my ex [purged] still has my bike pump; my bike is a Brompton',
    );
  });

  it('/forget <id> --purge of a belief purged already erases what says it again', async () => {
    const ex = store.remember({
      kind: 'relationship',
      key: 'ex',
      value: 'Tomás Aguilera',
      source: 'owner_stated',
      episodeId: said('my ex is Tomás Aguilera'),
    }).fact!;
    await slash(`/forget ${ex.id} --purge --yes`);
    expect(store.findMentions('Tomas Aguilera').total).toBe(0);
    const again = said('I ran into TOMAS AGUILERA at the market');
    const control = said('the market sells Brompton bikes');
    const listed = await slash(`/forget ${ex.id} --purge`);
    expect(listed.text).toContain('TOMAS AGUILERA at the market');
    expect(store.findMentions('Tomas Aguilera').total).toBe(1);
    const done = await slash(`/forget ${ex.id} --purge --yes`);
    expect(done.text).toContain('was purged already; what still said it is erased');
    expect(store.findMentions('Tomás Aguilera').total).toBe(0);
    expect(store.episode(again)!.text).toBe('I ran into [purged] at the market');
    expect(store.episode(control)!.text).toBe('the market sells Brompton bikes');
    // Nothing left: it says so.
    expect((await slash(`/forget ${ex.id} --purge --yes`)).text).toContain(
      'nothing stored says it any more',
    );
  });

  it('/purge <text> lists, and erases only on --yes', async () => {
    said('ZOË brought cookies again');
    said('the 4th floor kitchen is closed');
    const listed = await slash('/purge zoe');
    expect(listed.text).toContain('ZOË brought cookies');
    expect(store.findMentions('zoe').total).toBe(1);
    await slash('/purge zoe --yes');
    expect(store.findMentions('Zoë').total).toBe(0);
    expect(store.findMentions('4th floor').total).toBe(1);
  });
});

describe('/reminders', () => {
  it('lists the reminders pending first, and cancels one by id (once)', async () => {
    const later = store.reminders.create({
      text: 'call the bank',
      dueAt: store.now() + 3_600_000,
      channel: 'test',
      createdBy: 'owner',
    }).reminder;
    const other = store.reminders.create({
      text: 'water the plants',
      dueAt: store.now() + 7_200_000,
      channel: 'test',
      createdBy: 'owner',
    }).reminder;
    const listed = (await slash('/reminders')).text;
    expect(listed).toContain(`r${later.id}`);
    expect(listed).toContain('call the bank');
    expect(listed).toContain('water the plants');
    expect((await slash(`/reminders cancel r${later.id}`)).text).toMatch(
      /^Cancelled: call the bank/,
    );
    expect(store.reminders.get(later.id)?.status).toBe('cancelled');
    // the control: the other stays pending
    expect(store.reminders.get(other.id)?.status).toBe('pending');
    expect((await slash(`/reminders cancel ${later.id}`)).text).toContain('already cancelled');
    await expect(slash('/reminders cancel soon')).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await expect(slash('/reminders cancel 999')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('says how to set one when there are none', async () => {
    expect((await slash('/reminders')).text).toMatch(/^No reminders/);
  });
});
