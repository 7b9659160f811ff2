// Catch-up stores what the owner sent while keel was away through the owner session's
// recordUnanswered, never around it: unit-level with fake ports, and through KeelDiscord against
// the fake Discord.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OfflineSession, type UnansweredTurn } from '@keel/agent';
import { MemoryStore } from '@keel/memory';
import { SnowflakeUtil } from 'discord.js';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FakeDiscord, user } from '../../../tests/support/fake-discord.js';
import { KeelDiscord } from './bot.js';
import { type AwayMessage, catchUp, catchUpNotice, LAST_SEEN_KEY, SeenMark } from './catch-up.js';

let dir: string;
let store: MemoryStore;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'keel-catch-up-'));
  store = MemoryStore.open(join(dir, 'keel.db'));
});
afterEach(() => {
  vi.restoreAllMocks();
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

const OWNER = '111111111111111111';
const T0 = Date.UTC(2026, 2, 1, 8, 0);
const id = (at: number, n: number) =>
  SnowflakeUtil.generate({ timestamp: at, increment: BigInt(n) }).toString();
const dm = (n: number, content: string, author = OWNER, bot = false): AwayMessage => ({
  id: id(T0 + n * 1000, n),
  author: { id: author, bot },
  guildId: null,
  webhookId: null,
  content,
  createdTimestamp: T0 + n * 1000,
});

function ports(pages: AwayMessage[][]) {
  const session = new OfflineSession(store, { channel: 'discord' });
  const recorded = vi.spyOn(session, 'recordUnanswered');
  const fetched: string[] = [];
  const notices: string[] = [];
  const stats = { caughtUp: 0 };
  const options = {
    session,
    seen: new SeenMark(store.meta),
    stats,
    fetchAfter: async (after: string) => {
      fetched.push(after);
      return new Map((pages.shift() ?? []).map((m) => [m.id, m]));
    },
    isOwner: (m: AwayMessage) => m.author.id === OWNER && !m.author.bot,
    text: async (m: AwayMessage) => m.content,
    notify: async (text: string) => {
      notices.push(text);
    },
    log: () => {},
  };
  return { options, recorded, fetched, notices, stats };
}

describe('catchUp', () => {
  it('on the very first start only records where "now" is', async () => {
    const p = ports([]);
    expect(await catchUp(p.options, T0)).toBe(0);
    expect(p.fetched).toEqual([]);
    expect(store.meta.get(LAST_SEEN_KEY)).toBe(
      SnowflakeUtil.generate({
        timestamp: T0 - 1,
        increment: 0n,
        workerId: 0n,
        processId: 0n,
      }).toString(),
    );
  });

  it("stores the owner's away DMs through recordUnanswered, oldest first, across pages", async () => {
    const start = dm(0, 'seen before');
    store.meta.set(LAST_SEEN_KEY, start.id);
    const strangers = Array.from({ length: 99 }, (_, i) => dm(10 + i, 'spam', '222'));
    const first = dm(3, 'book the dentist');
    const later = dm(200, 'Ana arrives Friday');
    const page1 = [...strangers, first]; // a full page: the next one is fetched
    const page2 = [later, dm(201, '   '), dm(202, 'beep', OWNER, true)];
    const p = ports([page1, page2]);
    expect(await catchUp(p.options, T0)).toBe(2);

    expect(p.fetched).toEqual([start.id, strangers.at(-1)!.id]);
    const expected = (m: AwayMessage): UnansweredTurn => ({
      text: m.content,
      channel: 'discord',
      occurredAt: m.createdTimestamp,
      sourceId: `discord:${m.id}`,
      meta: { discord_message_id: m.id },
    });
    expect(p.recorded.mock.calls).toEqual([[expected(first)], [expected(later)]]);
    const episodes = p.recorded.mock.results.map((r) => r.value);
    expect(episodes.map((e) => [e.role, e.kind, e.text, e.meta])).toEqual([
      [
        'owner',
        'conversation',
        'book the dentist',
        `{"discord_message_id":"${first.id}","caught_up":true}`,
      ],
      [
        'owner',
        'conversation',
        'Ana arrives Friday',
        `{"discord_message_id":"${later.id}","caught_up":true}`,
      ],
    ]);
    expect(store.stats().episodes).toBe(2); // strangers, bots and empty DMs are not stored
    expect(store.meta.get(LAST_SEEN_KEY)).toBe(page2.at(-1)!.id);
    expect(p.stats.caughtUp).toBe(2);
    expect(p.notices).toEqual([catchUpNotice([first, later])]);
    expect(p.notices[0]).toMatch(/^I was away\. I caught up on 2 messages/);
  });
});

describe('KeelDiscord catch-up', () => {
  it('stores the DMs sent while it was stopped through the owner session', async () => {
    const discord = await FakeDiscord.start();
    const bots: KeelDiscord[] = [];
    const start = async () => {
      const bot = new KeelDiscord({
        token: 'test-token',
        ownerId: owner.id,
        store,
        model: null,
        apiUrl: discord.apiUrl,
        registerCommands: false,
        log: () => {},
      });
      bots.push(bot);
      await bot.start();
      return bot;
    };
    const owner = discord.addUser(user('owner'));
    const stranger = discord.addUser(user('stranger'));
    try {
      await (await start()).stop(1000);
      const channel = discord.dmChannel(owner.id);
      discord.sendMessage(owner, channel, 'sent while you were away', { silent: true });
      discord.sendMessage(stranger, channel, 'not the owner', { silent: true });
      const recorded = vi.spyOn(OfflineSession.prototype, 'recordUnanswered');
      const addEpisode = vi.spyOn(MemoryStore.prototype, 'addEpisode');
      const bot = await start();
      expect(recorded).toHaveBeenCalledTimes(1);
      expect(recorded.mock.calls[0]![0]).toMatchObject({
        text: 'sent while you were away',
        channel: 'discord',
      });
      expect(addEpisode).toHaveBeenCalledTimes(1); // only from inside recordUnanswered
      expect(bot.stats.caughtUp).toBe(1);
      expect(discord.posted(channel).at(-1)!.content).toMatch(/caught up on 1 message you sent/);
    } finally {
      await bots.at(-1)?.stop(1000);
      await discord.close();
    }
  });
});
