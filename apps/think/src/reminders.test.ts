// The tick delivers the reminders the owner asked for, with an injected clock and a recording
// notify over a real SQLite file: a reminder "in 2 minutes" is sent once after its time, not
// before it, not during quiet hours (then at the first tick after them, saying it is late), not
// twice after a restart (a new store over the same file) nor by a second process; a failed send
// is retried; a reminder more than a day late is missed, not sent (a control a day less late is
// sent). The tick sends them before its model work: a tick whose gate fails still sends a due
// reminder and records it (one not yet due waits), and a failed delivery does not stop the tick.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OfflineSession } from '@keel/agent';
import { type BeliefGate, PatternGate } from '@keel/gate';
import { MemoryStore, type RunOutcome } from '@keel/memory';
import { DateTime } from 'luxon';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { recordUrgent } from './interrupt.js';
import { deliverReminders, MISSED_AFTER_MS, reminderMessage } from './reminders.js';
import { runThink } from './run.js';
import { formatReport } from './service.js';
import type { ThinkConfig, ThinkDeps } from './types.js';

const TZ = 'Europe/Paris';
const MIN = 60_000;
const at = (iso: string) => DateTime.fromISO(iso, { zone: TZ }).toMillis();

const config: ThinkConfig = {
  intervalMin: 15,
  quietHours: { start: 23, end: 7 },
  tz: TZ,
  curateAt: 3,
  ollamaHost: 'http://127.0.0.1:9',
  gateModel: 'none',
};

let dir: string;
let path: string;
let t: number;
let sent: string[];
let stores: MemoryStore[];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'keel-think-reminders-'));
  path = join(dir, 'keel.db');
  sent = [];
  stores = [];
});
afterEach(() => {
  for (const s of stores) s.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A service instance: its own store over the file, the test's clock and a recording notify. */
function service(notify: ThinkDeps['notify'] = async (text) => void sent.push(text)): ThinkDeps {
  const store = MemoryStore.open(path, { now: () => t });
  stores.push(store);
  return { store, config, gate: new PatternGate(), model: null, notify, now: () => t };
}
const tick = (deps: ThinkDeps) => runThink(deps, { curate: 'never', weekly: 'never' });

async function ask(deps: ThinkDeps, text: string): Promise<void> {
  const reply = await new OfflineSession(deps.store, { channel: 'terminal', tz: TZ }).handle(text);
  expect(reply.text).toMatch(/^Reminder set: /);
}

describe('reminders on the tick', () => {
  it('sends a reminder once after its time, not before, and not again after a restart', async () => {
    t = at('2026-12-08T14:02');
    const first = service();
    await ask(first, 'remind me in 2 minutes to stretch');
    const before = await tick(first);
    expect(sent).toEqual([]);
    expect(before.reminders).toEqual({ sent: 0, held: 0, missed: 0 });

    t = at('2026-12-08T14:04');
    const due = await tick(first);
    expect(sent).toEqual(['Reminder: stretch (asked Tue 14:02)']);
    expect(due.reminders).toEqual({ sent: 1, held: 0, missed: 0 });
    expect(formatReport(due)).toContain('interrupts 0, reminders sent 1, held 0, missed 0;');
    expect(first.store.reminders.list()[0]).toMatchObject({ status: 'sent', sent_at: t });

    t = at('2026-12-08T14:19');
    await tick(first);
    // A restart: a new service instance over the same file.
    first.store.close();
    stores.splice(stores.indexOf(first.store), 1);
    const restarted = service();
    t = at('2026-12-08T14:34');
    const after = await tick(restarted);
    expect(after.reminders.sent).toBe(0);
    expect(sent).toHaveLength(1);
  });

  it('holds a reminder in quiet hours and sends it at the first tick after them, saying it is late', async () => {
    t = at('2026-12-08T22:50');
    const deps = service();
    await ask(deps, 'remind me in 20 minutes to take the pills');
    t = at('2026-12-08T23:15');
    const quiet = await tick(deps);
    expect(sent).toEqual([]);
    expect(quiet.reminders).toEqual({ sent: 0, held: 1, missed: 0 });
    expect(quiet.skipped).toContain('reminders: 1 reminder(s) held for quiet hours');
    t = at('2026-12-09T06:45');
    await tick(deps);
    expect(sent).toEqual([]);
    t = at('2026-12-09T07:00');
    const morning = await tick(deps);
    expect(morning.reminders.sent).toBe(1);
    expect(sent).toEqual(['Reminder: take the pills (asked Tue 22:50; due yesterday 23:10, late)']);
  });

  it('a failed send is released and sent at the next tick, once', async () => {
    t = at('2026-12-08T14:02');
    let down = true;
    const deps = service(async (text) => {
      if (down) throw new Error('Discord is unreachable');
      sent.push(text);
    });
    await ask(deps, 'remind me in 2 minutes to stretch');
    t = at('2026-12-08T14:05');
    await tick(deps);
    expect(sent).toEqual([]);
    expect(deps.store.reminders.list()[0]).toMatchObject({
      status: 'pending',
      attempts: 1,
      last_error: 'Discord is unreachable',
    });
    down = false;
    t = at('2026-12-08T14:20');
    await tick(deps);
    t = at('2026-12-08T14:35');
    await tick(deps);
    expect(sent).toEqual(['Reminder: stretch (asked Tue 14:02; due today 14:04, late)']);
  });

  it('a second process finds the reminder claimed and does not send it', async () => {
    t = at('2026-12-08T14:02');
    let release!: () => void;
    const slow = service(
      (text) =>
        new Promise<void>((resolve) => {
          release = () => {
            sent.push(text);
            resolve();
          };
        }),
    );
    const other = service();
    await ask(slow, 'remind me in 2 minutes to stretch');
    t = at('2026-12-08T14:04');
    const sending = deliverReminders(slow);
    const second = await deliverReminders(other);
    expect(second.sent).toBe(0);
    release();
    expect((await sending).sent).toBe(1);
    expect(sent).toEqual(['Reminder: stretch (asked Tue 14:02)']);
  });

  it('a reminder more than a day late is missed, not sent; one less late is sent', async () => {
    t = at('2026-12-08T14:02');
    const deps = service();
    await ask(deps, 'remind me in 2 minutes to stretch');
    await ask(deps, 'remind me at 4pm to call the bank');
    // keel was not running until Wednesday 15:00: the stretch is 25 h late, the bank call 23 h.
    t = at('2026-12-09T15:00');
    const wed = await tick(deps);
    expect(wed.reminders).toEqual({ sent: 1, held: 0, missed: 1 });
    expect(sent).toEqual(['Reminder: call the bank (asked Tue 14:02; due yesterday 16:00, late)']);
    const stretch = deps.store.reminders.list().find((r) => r.text === 'stretch');
    expect(stretch).toMatchObject({ status: 'missed' });
    expect(stretch!.last_error).toMatch(/more than a day late/);
    expect(t - stretch!.due_at).toBeGreaterThan(MISSED_AFTER_MS);
    expect(wed.skipped).toContain(
      'reminders: 1 missed (more than a day late); keel reminders lists them',
    );
    t += 15 * MIN;
    await tick(deps);
    expect(sent).toHaveLength(1);
  });

  it("reflection's urgent item from a turn that set a reminder is not an interrupt too (control: another turn's is)", async () => {
    t = at('2026-12-08T14:02');
    const deps = service();
    await ask(deps, 'remind me at five to call the bank');
    const [reminder] = deps.store.reminders.list();
    const asked = deps.store.episode(reminder!.episode_id!)!;
    const other = deps.store.addEpisode({
      channel: 'terminal',
      role: 'owner',
      text: 'the tax return is due Friday at 10',
    });
    const urgent = (episodes: number[]) => ({
      item: 'call the bank',
      message: 'Reminder: call the bank',
      episodes,
      due: 'at 5pm',
    });
    expect(recordUrgent(deps.store, urgent([asked.id]), asked, TZ, t)).toBe(false);
    expect(
      recordUrgent(
        deps.store,
        { ...urgent([other.id]), item: 'tax return', due: 'Friday at 10' },
        other,
        TZ,
        t,
      ),
    ).toBe(true);
  });

  it('a tick whose gate fails still sends a due reminder first and records it; one not yet due waits', async () => {
    t = at('2026-12-08T14:02');
    const deps = service();
    await ask(deps, 'remind me in 2 minutes to stretch');
    await ask(deps, 'remind me at 5pm to call the bank');
    deps.store.addEpisode({ channel: 'terminal', role: 'owner', text: 'I moved to Lyon in May' });
    let judged = 0;
    const broken: BeliefGate = {
      name: 'ollama',
      judge: async () => {
        judged++;
        throw new Error('the gate broke');
      },
    };
    const outcomes: RunOutcome[] = [];
    const finish = deps.store.thinkRuns.finish.bind(deps.store.thinkRuns);
    vi.spyOn(deps.store.thinkRuns, 'finish').mockImplementation((id, now, outcome) => {
      outcomes.push(outcome);
      finish(id, now, outcome);
    });
    const failingTick = () => tick({ ...deps, gate: broken });

    t = at('2026-12-08T14:05');
    await expect(failingTick()).rejects.toThrow('the gate broke');
    expect(judged).toBeGreaterThan(0);
    expect(sent).toEqual(['Reminder: stretch (asked Tue 14:02)']);
    expect(outcomes).toEqual([
      expect.objectContaining({
        status: 'failed',
        error: 'the gate broke',
        summary: expect.objectContaining({ reminders: { sent: 1, held: 0, missed: 0 } }),
      }),
    ]);
    expect(deps.store.reminders.list().find((r) => r.text === 'call the bank')).toMatchObject({
      status: 'pending',
    });

    // 17:00, the gate still broken: the bank call goes out on time, the stretch not again.
    t = at('2026-12-08T17:00');
    await expect(failingTick()).rejects.toThrow('the gate broke');
    expect(sent).toEqual([
      'Reminder: stretch (asked Tue 14:02)',
      'Reminder: call the bank (asked Tue 14:02)',
    ]);
    expect(outcomes[1]).toMatchObject({ summary: { reminders: { sent: 1 } } });
  });

  it('a failed delivery is a note and the tick goes on; the next tick sends the reminder', async () => {
    t = at('2026-12-08T14:02');
    const deps = service();
    await ask(deps, 'remind me in 2 minutes to stretch');
    deps.store.addEpisode({ channel: 'terminal', role: 'owner', text: 'I moved to Lyon in May' });
    vi.spyOn(deps.store.reminders, 'due').mockImplementationOnce(() => {
      throw new Error('the reminders table is busy');
    });
    t = at('2026-12-08T14:05');
    const r = await tick(deps);
    expect(sent).toEqual([]);
    expect(r.skipped).toContain(
      'reminders: delivery failed (INTERNAL: the reminders table is busy); retried next tick',
    );
    expect(r.examined).toBeGreaterThan(0);
    expect(deps.store.thinkRuns.lastTick()).toMatchObject({ status: 'ok' });
    t = at('2026-12-08T14:20');
    const next = await tick(deps);
    expect(next.reminders.sent).toBe(1);
    expect(sent).toEqual(['Reminder: stretch (asked Tue 14:02; due today 14:04, late)']);
  });
});

describe('who set a reminder', () => {
  it("says a reminder the model set is keel's, and one the owner asked for is theirs", () => {
    const base = {
      id: 1,
      text: 'stretch',
      due_at: at('2026-12-08T14:30'),
      phrase: null,
      created_at: at('2026-12-08T14:02'),
      episode_id: null,
      channel: 'terminal',
      status: 'pending',
      sent_at: null,
      attempts: 0,
      last_error: null,
    } as const;
    const now = at('2026-12-08T14:30');
    expect(reminderMessage({ ...base, created_by: 'model' } as never, now, TZ, 15 * MIN)).toBe(
      "Reminder: stretch (set by keel's model Tue 14:02)",
    );
    expect(reminderMessage({ ...base, created_by: 'owner' } as never, now, TZ, 15 * MIN)).toBe(
      'Reminder: stretch (asked Tue 14:02)',
    );
  });
});
