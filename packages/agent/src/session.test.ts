// The catch-up contract: what the owner said while keel was away is stored as their turn,
// unanswered, and the agent and the offline session store the same episode.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KeelError } from '@keel/errors';
import { type Episode, MemoryStore } from '@keel/memory';
import { dbOf } from '@keel/memory/internal';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Agent } from './agent.js';
import { FakeChatModel } from './model/fake.js';
import { OfflineSession } from './offline.js';
import type { UnansweredRecorder, UnansweredTurn } from './session.js';

let dir: string;
const stores: MemoryStore[] = [];
const open = (name: string) => {
  const s = MemoryStore.open(join(dir, `${name}.db`));
  stores.push(s);
  return s;
};
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'keel-unanswered-'));
});
afterEach(() => {
  for (const s of stores.splice(0)) s.close();
  rmSync(dir, { recursive: true, force: true });
});

const SENT_AT = Date.UTC(2026, 2, 1, 9, 30);
const turn: UnansweredTurn = {
  text: '  my sister Ana moves to Lisbon in May  ',
  channel: 'discord',
  occurredAt: SENT_AT,
  sourceId: 'discord:1234567890',
  meta: { discord_message_id: '1234567890' },
};

/** The episode row and its journal entry, without what differs between stores (ids, times). */
function stored(store: MemoryStore, e: Episode) {
  const { id: _id, created_at: _created, ...row } = e;
  const journal = dbOf(store)
    .prepare("SELECT actor, op, entity, payload FROM journal WHERE entity = 'episode'")
    .all();
  return { row, journal };
}

describe('recordUnanswered (the catch-up contract)', () => {
  it('the agent and the offline session store the same episode Discord catch-up stored before', () => {
    const model = new FakeChatModel([]); // any call would throw: nothing is answered
    const agentStore = open('agent');
    const offlineStore = open('offline');
    const sessions: [MemoryStore, UnansweredRecorder][] = [
      [agentStore, new Agent({ store: agentStore, model })],
      [offlineStore, new OfflineSession(offlineStore, { channel: 'terminal' })],
    ];
    // The episode Discord's catch-up wrote directly before the contract existed.
    const before = open('before');
    const reference = before.addEpisode({
      channel: 'discord',
      role: 'owner',
      text: 'my sister Ana moves to Lisbon in May',
      actor: 'owner',
      occurredAt: SENT_AT,
      sourceId: 'discord:1234567890',
      meta: { discord_message_id: '1234567890', caught_up: true },
    });
    const expected = stored(before, reference);
    expect(expected.row).toMatchObject({
      kind: 'conversation',
      role: 'owner',
      channel: 'discord',
      occurred_at: SENT_AT,
      source_id: 'discord:1234567890',
      meta: '{"discord_message_id":"1234567890","caught_up":true}',
    });
    for (const [store, session] of sessions) {
      const e = session.recordUnanswered(turn);
      expect(stored(store, e)).toEqual(expected);
      // Nothing else: no turn in the history, no fact, and the watermark queues it as a turn.
      expect(store.session('owner').recentTurns(5)).toEqual([]);
      expect(store.activeFacts()).toEqual([]);
      expect(store.beliefQueue.advanceWatermark(SENT_AT)).toBe(1);
    }
    expect(model.calls).toEqual([]);
  });

  it('refuses empty text and stores nothing', () => {
    const store = open('empty');
    const session = new OfflineSession(store, { channel: 'discord' });
    let err: unknown;
    try {
      session.recordUnanswered({ ...turn, text: ' \n ' });
    } catch (e) {
      err = e;
    }
    expect(KeelError.isInstance(err) && err.code).toBe('INVALID_INPUT');
    expect(store.stats().episodes).toBe(0);
  });
});

describe("the offline session in the owner's time zone", () => {
  it('reads "yesterday" and shows days in the owner zone, in a line and in /recall', async () => {
    // Tuesday 1 December 2026, 03:00 UTC: still Monday 30 November, 20:00, in UTC-7.
    const now = Date.parse('2026-12-01T03:00:00Z');
    const zoned = MemoryStore.open(join(dir, 'tz.db'), { now: () => now });
    stores.push(zoned);
    // 02:00 UTC on 30 November is 19:00 on the 29th in UTC-7: "yesterday" there, "today" in UTC.
    zoned.addEpisode({
      channel: 'test',
      role: 'owner',
      text: 'the dentist moved my appointment',
      occurredAt: Date.parse('2026-11-30T02:00:00Z'),
    });
    const local = new OfflineSession(zoned, { channel: 'test', tz: 'America/Phoenix' });
    const said = await local.handle('what did the dentist say yesterday?');
    expect(said.text).toContain('2026-11-29');
    expect(said.text).toContain('the dentist moved my appointment');
    const slash = await local.handle('/recall dentist');
    expect(slash.text).toContain('2026-11-29');
    // Control: the same store read in UTC shows the UTC day.
    const utc = new OfflineSession(zoned, { channel: 'test' });
    expect((await utc.handle('/recall dentist')).text).toContain('2026-11-30');
  });
});
