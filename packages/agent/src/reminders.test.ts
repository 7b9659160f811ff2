// A reminder asked for in words is set where the owner's line is captured, at every door: offline
// (the reply is the reminder's line) and with a model (the model is told keel sets it, the line
// under the reply says it, and a remind call of the same reminder makes no second one). A line
// that names a time but asks for no reminder sets none; a request whose time cannot be read is
// answered with what keel could not read.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryStore } from '@keel/memory';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Agent } from './agent.js';
import { FakeChatModel } from './model/fake.js';
import { OfflineSession } from './offline.js';
import { underReply } from './under-reply.js';

const TZ = 'Europe/Paris';
/** Tuesday 2026-12-08 14:02 in Paris (UTC+1). */
const NOW = Date.UTC(2026, 11, 8, 13, 2);

let dir: string;
let store: MemoryStore;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'keel-reminders-'));
  store = MemoryStore.open(join(dir, 'keel.db'), { now: () => NOW });
});
afterEach(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('a reminder asked for in words, offline', () => {
  it('sets the reminder and says so; "I have a meeting at five" sets none', async () => {
    const session = new OfflineSession(store, { channel: 'terminal', tz: TZ });
    const reply = await session.handle('remind me at five to call the bank');
    const [r] = store.reminders.list();
    expect(r).toMatchObject({
      text: 'call the bank',
      due_at: Date.UTC(2026, 11, 8, 16, 0),
      phrase: 'at five',
      episode_id: reply.episodeId,
      channel: 'terminal',
      created_by: 'owner',
      status: 'pending',
    });
    expect(reply.text).toBe(
      `Reminder set: call the bank — today 17:00 (r${r!.id}; /reminders cancel ${r!.id} or keel reminders cancel ${r!.id} to cancel).`,
    );
    // Nothing is kept as a belief from a request.
    expect(store.stats().facts).toBe(0);

    const control = await session.handle('I have a meeting at five');
    expect(store.reminders.list()).toHaveLength(1);
    expect(control.text).not.toMatch(/Reminder/);
  });

  it('answers a request whose time it cannot read with what it could not read, setting nothing', async () => {
    const session = new OfflineSession(store, { channel: 'terminal', tz: TZ });
    const reply = await session.handle('can you remind me to call the bank?');
    expect(reply.text).toBe(
      'No reminder set: I could not read when to remind you to "call the bank". Say a time, e.g. "remind me at 5pm to call the bank".',
    );
    expect(store.reminders.list()).toEqual([]);
  });

  it('withholds a credential from the reminder as from the line', async () => {
    const session = new OfflineSession(store, { channel: 'terminal', tz: TZ });
    const reply = await session.handle(
      'remind me in two hours to change the wifi password hunter2-Zq9!x',
    );
    const [r] = store.reminders.list();
    expect(r!.text).not.toContain('hunter2');
    expect(JSON.stringify(store.reminders.list())).not.toContain('hunter2');
    expect(reply.text).toMatch(/^Reminder set: change the wifi password/);
  });
});

describe('a reminder asked for in words, with a model', () => {
  it('tells the model keel sets it, sets it once at capture, and says it under the reply', async () => {
    const model = new FakeChatModel(['Sure, I will remind you.']);
    const agent = new Agent({ store, model, tz: TZ });
    const result = await agent.turn({
      text: 'remind me Friday at 10 to send the invoice',
      channel: 'discord',
    });
    const sent = JSON.stringify(model.calls[0]!.messages);
    expect(sent).toContain('keel sets this reminder itself when this turn completes');
    expect(sent).toContain('Fri 11 Dec 10:00');
    const [r] = store.reminders.list();
    expect(r).toMatchObject({
      text: 'send the invoice',
      due_at: Date.UTC(2026, 11, 11, 9, 0),
      channel: 'discord',
      episode_id: result.ownerEpisodeId,
    });
    expect(underReply(store, result)).toEqual([
      `Reminder set: send the invoice — Fri 11 Dec 10:00 (r${r!.id}; /reminders cancel ${r!.id} or keel reminders cancel ${r!.id} to cancel).`,
    ]);
    // Control: a turn that asks for none tells the model nothing of reminders and sets none.
    const plain = await new Agent({ store, model: new FakeChatModel(['Ok.']), tz: TZ }).turn({
      text: 'I have a meeting at five',
      channel: 'discord',
    });
    expect(plain.reminder).toBeNull();
    expect(store.reminders.list()).toHaveLength(1);
  });

  it('a remind call of the same reminder in the turn makes one reminder', async () => {
    // The model sets it itself before keel's capture (as a model might): the capture finds it.
    const first = store.reminders.create({
      text: 'call the bank',
      dueAt: Date.UTC(2026, 11, 8, 16, 0),
      channel: 'discord',
      createdBy: 'model',
    }).reminder;
    const agent = new Agent({ store, model: new FakeChatModel(['Done.']), tz: TZ });
    const result = await agent.turn({
      text: 'remind me at five to call the bank',
      channel: 'discord',
    });
    expect(store.reminders.list()).toHaveLength(1);
    expect(result.reminder?.line).toMatch(/^Reminder already set: call the bank — today 17:00 \(r/);
    expect(store.reminders.get(first.id)?.status).toBe('pending');
  });
});

describe('a reminder that cannot be set', () => {
  it('is said under the line, and the line is kept (control: the next request is set)', async () => {
    const session = new OfflineSession(store, { channel: 'terminal', tz: TZ });
    const create = vi.spyOn(store.reminders, 'create').mockImplementationOnce(() => {
      throw new Error('disk full');
    });
    const reply = await session.handle('remind me at five to call the bank');
    expect(reply.text).toBe('No reminder set: INTERNAL: disk full.');
    expect(store.episode(reply.episodeId!)?.text).toBe('remind me at five to call the bank');
    create.mockRestore();
    const again = await session.handle('remind me at five to call the bank');
    expect(again.text).toMatch(/^Reminder set: call the bank/);
  });
});
