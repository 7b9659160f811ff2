// The `remind` tool against a real store: create names the id, the local time and how to cancel;
// the same reminder set twice is one; list shows pending first; cancel once, then "already
// cancelled"; a past or unreadable time and bad input are error results that set nothing.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryStore } from '@keel/memory';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ApprovalRequest, defaultPolicy, type ToolContext } from '../contract.js';
import { Toolbox } from '../toolbox.js';
import { remindInput, remindTool } from './remind.js';

const TZ = 'Europe/Paris';
/** Tuesday 2026-12-08 14:02 in Paris. */
const NOW = Date.UTC(2026, 11, 8, 13, 2); // UTC+1 in December

let dir: string;
let store: MemoryStore;
let context: ToolContext;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'keel-remind-'));
  store = MemoryStore.open(join(dir, 'keel.db'), { now: () => NOW });
  context = {
    signal: new AbortController().signal,
    store,
    tz: TZ,
    now: () => NOW,
    channel: 'terminal',
  };
});
afterEach(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

const tool = remindTool();
const run = (input: unknown) => tool.execute(remindInput.parse(input), context);

describe('remind', () => {
  it('is a write the owner allows by default, described to the model', () => {
    expect(tool.effect).toBe('write');
    expect(defaultPolicy(tool)).toBe('allow');
    expect(tool.summary(remindInput.parse({ action: 'create', text: 'x', when: 'at five' }))).toBe(
      'set a reminder "x" for at five',
    );
  });

  it('creates a reminder at the owner-local time, naming its id and how to cancel it', async () => {
    const r = await run({ action: 'create', text: 'call the bank', when: 'at five' });
    expect(r.isError).toBe(false);
    const [stored] = store.reminders.list();
    expect(stored).toMatchObject({ text: 'call the bank', created_by: 'model', phrase: 'at five' });
    expect(stored!.due_at).toBe(Date.UTC(2026, 11, 8, 16, 0));
    expect(r.content).toBe(
      `Reminder set: call the bank — today 17:00 (r${stored!.id}; /reminders cancel ${stored!.id} or keel reminders cancel ${stored!.id} to cancel) (time zone ${TZ}).`,
    );
    // The same reminder again (the owner's words already set it): one reminder.
    const again = await run({ action: 'create', text: 'Call the bank', when: '17:00' });
    expect(again.content).toMatch(/^Reminder already set: call the bank/);
    expect(store.reminders.list()).toHaveLength(1);
  });

  it('refuses a time in the past or one it cannot read, setting nothing (control: a future ISO time is set)', async () => {
    const past = await run({ action: 'create', text: 'call the bank', when: '2026-12-01T09:00' });
    expect(past).toMatchObject({ isError: true });
    expect(past.content).toMatch(/in the past/);
    const unread = await run({ action: 'create', text: 'call the bank', when: 'whenever' });
    expect(unread).toMatchObject({ isError: true });
    expect(unread.content).toMatch(/could not read a time in "whenever"/);
    const missing = await run({ action: 'create', text: 'call the bank' });
    expect(missing).toMatchObject({ isError: true });
    expect(store.reminders.list()).toEqual([]);
    const iso = await run({ action: 'create', text: 'call the bank', when: '2026-12-09T08:15' });
    expect(iso.isError).toBe(false);
    expect(iso.content).toContain('tomorrow 08:15');
  });

  it('lists pending first, and cancels once; a second cancel and an unknown id are errors', async () => {
    await run({ action: 'create', text: 'stretch', when: 'in two hours' });
    await run({ action: 'create', text: 'send the invoice', when: 'Friday at 10' });
    const [stretch, invoice] = store.reminders.list();
    const cancelled = await run({ action: 'cancel', id: `r${stretch!.id}` });
    expect(cancelled).toMatchObject({ isError: false });
    expect(cancelled.content).toBe(`Cancelled: stretch — today 16:02 (r${stretch!.id}).`);
    const twice = await run({ action: 'cancel', id: stretch!.id });
    expect(twice).toMatchObject({ isError: true });
    expect(twice.content).toMatch(/already cancelled/);
    const unknown = await run({ action: 'cancel', id: 999 });
    expect(unknown).toMatchObject({ isError: true, exit: 'NOT_FOUND' });
    const listed = await run({ action: 'list' });
    expect(listed.content.split('\n')).toEqual([
      `Reminders (time zone ${TZ}; pending first):`,
      `r${invoice!.id}  pending    Fri 11 Dec 10:00  send the invoice`,
      `r${stretch!.id}  cancelled  today 16:02  stretch`,
    ]);
  });

  it("cancelling is a write under the tool's one policy: with remind: ask it is put to the owner like create (control: allowed, it runs unasked)", async () => {
    const asked: ApprovalRequest[] = [];
    const answers = ['yes', 'no'] as const;
    const approve = async (request: ApprovalRequest) => {
      asked.push(request);
      return answers[asked.length - 1] ?? 'no';
    };
    const box = new Toolbox({ tools: [tool], policies: new Map([['remind', 'ask' as const]]) });
    const create = { action: 'create', text: 'call the bank', when: 'at five' };
    expect(await box.call('remind', create, { context, approve })).toMatchObject({ ran: true });
    const [r] = store.reminders.list();
    const cancel = await box.call('remind', { action: 'cancel', id: r!.id }, { context, approve });
    expect(cancel).toMatchObject({ ran: false, approval: 'asked-no' });
    expect(asked.map((a) => [a.effect, a.summary])).toEqual([
      ['write', 'set a reminder "call the bank" for at five'],
      ['write', `cancel reminder r${r!.id}`],
    ]);
    expect(store.reminders.list()[0]!.status).toBe('pending');
    // control: under the default policy (allow) the same cancel runs without asking
    const allowed = await new Toolbox({ tools: [tool] }).call(
      'remind',
      { action: 'cancel', id: r!.id },
      { context, approve },
    );
    expect(allowed).toMatchObject({ ran: true, approval: 'allowed' });
    expect(asked).toHaveLength(2);
    expect(store.reminders.list()[0]!.status).toBe('cancelled');
  });

  it('runs nothing once the call is cancelled', async () => {
    const controller = new AbortController();
    controller.abort();
    const r = await tool.execute(
      remindInput.parse({ action: 'create', text: 'x', when: 'at five' }),
      { ...context, signal: controller.signal },
    );
    expect(r).toMatchObject({ isError: true, exit: 'cancelled' });
    expect(store.reminders.list()).toEqual([]);
  });
});
