// forget --purge reaches every copy: a value written through every path that can carry the owner's
// words — the terminal (offline and with a model), Discord, the model's tool, reflection, the
// nightly curator, an import and a compaction summary — is erased, and afterwards not one byte of
// it is left in keel.db, its WAL or its shared-memory file, and recall finds nothing.

import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Agent, AnthropicChatModel, OfflineSession } from '@keel/agent';
import { KeelDiscord } from '@keel/discord';
import type { BeliefGate } from '@keel/gate';
import { MemoryStore, parseImport } from '@keel/memory';
import { dbOf } from '@keel/memory/internal';
import { runThink, type ThinkDeps } from '@keel/think';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { tempHome } from '../support/cli.js';
import { FakeAnthropic, toolUse } from '../support/fake-anthropic.js';
import { FakeDiscord, user } from '../support/fake-discord.js';

const VALUE = 'Ada Quillfeather';
/** What the value looks like in every store a byte search reads: as typed, folded, stemmed. */
const NEEDLES = ['Quillfeather', 'quillfeather', 'QUILLFEATHER', 'quillfeath'];
/** A control written the same ways, which must survive. */
const CONTROL = 'Brixenwold';

let anthropic: FakeAnthropic;
let discord: FakeDiscord;
let home: string;
let cleanup: () => void;
let store: MemoryStore;
let bot: KeelDiscord | null = null;
let clock = Date.UTC(2026, 10, 29, 15, 0);
const now = () => clock;

const model = () =>
  new AnthropicChatModel({
    apiKey: 'test-key',
    baseURL: anthropic.baseURL,
    model: 'claude-test',
    maxAttempts: 1,
  });

beforeAll(async () => {
  anthropic = await FakeAnthropic.start();
});
afterAll(async () => {
  await anthropic.close();
});
beforeEach(async () => {
  anthropic.reset();
  discord = await FakeDiscord.start();
  ({ home, cleanup } = tempHome());
  store = MemoryStore.open(join(home, 'keel.db'), { now });
});
afterEach(async () => {
  await bot?.stop(1000);
  bot = null;
  await discord.close();
  store.close();
  cleanup();
});

/** Occurrences of each needle in the database file and its side files, after a checkpoint. */
function bytesLeft(needles: readonly string[]): Record<string, number> {
  dbOf(store).pragma('wal_checkpoint(TRUNCATE)');
  const out: Record<string, number> = {};
  for (const suffix of ['', '-wal', '-shm']) {
    let bytes: Buffer;
    try {
      bytes = readFileSync(join(home, `keel.db${suffix}`));
    } catch {
      continue;
    }
    for (const n of needles) {
      let count = 0;
      for (let at = bytes.indexOf(n); at >= 0; at = bytes.indexOf(n, at + 1)) count++;
      out[`keel.db${suffix} ${n}`] = count;
    }
  }
  return out;
}

const total = (counts: Record<string, number>) => Object.values(counts).reduce((a, b) => a + b, 0);

describe('forget --purge reaches every copy', () => {
  it('a value written through every path leaves no byte behind; a control written the same ways stays', async () => {
    const deltas = (d: unknown[]) => JSON.stringify({ deltas: d, urgent: [] });

    // 1. The terminal, offline: the owner's statement becomes their word.
    const offline = new OfflineSession(store, { channel: 'terminal' });
    await offline.handle(`remember that my sister is ${VALUE}`);
    await offline.handle(`remember that my cousin is ${CONTROL}`);
    const sister = store.current({ scope: 'owner', kind: 'relationship', key: 'sister' })!;
    expect(sister.value).toBe(VALUE);

    // 2. The terminal with a model: keel's own reply quotes it; the model's tool writes it in
    // another slot (and the control in yet another).
    const agent = new Agent({ store, model: model(), lock: { waitMs: 30_000 } });
    anthropic.reply([
      toolUse('remember', {
        kind: 'note',
        key: 'sister_bakes',
        value: `${VALUE} bakes sourdough`,
      }),
    ]);
    anthropic.reply(`${VALUE} is your sister; ${CONTROL} is your cousin.`);
    clock += 60_000;
    await agent.turn({
      text: `tell me about ${VALUE} and ${CONTROL}; my sister ${VALUE} bakes sourdough`,
      channel: 'terminal',
    });

    // 3. Discord: a DM and its reply.
    const owner = discord.addUser(user('owner'));
    bot = new KeelDiscord({
      token: 'test-token',
      ownerId: owner.id,
      store,
      model: model(),
      apiUrl: discord.apiUrl,
      log: () => {},
      lock: { waitMs: 30_000 },
    });
    await bot.start();
    const dm = discord.dmChannel(owner.id);
    anthropic.reply(`Say hi to ${VALUE} and ${CONTROL} on Sunday.`);
    clock += 60_000;
    discord.sendMessage(owner, dm, `${VALUE} and ${CONTROL} visit on Sunday`);
    await discord.waitFor(() => discord.posted(dm).length === 1, 20_000, 'the reply');
    await bot.idle();

    // 4. Reflection (a tick) and 5. the curator (the night): beliefs that rest on those turns.
    const turns = store.conversationBetween(0, Number.MAX_SAFE_INTEGER);
    const about = turns.find((t) => t.role === 'owner' && t.text.includes('visit on Sunday'))!;
    const thinkDeps = (over: Partial<ThinkDeps> = {}): ThinkDeps => ({
      store,
      config: {
        intervalMin: 15,
        quietHours: null,
        tz: 'UTC',
        curateAt: 3,
        ollamaHost: 'http://127.0.0.1:9',
        gateModel: 'none',
      },
      // A gate that believes every turn: which turns are believed is not what this test is about.
      gate: {
        name: 'pattern',
        judge: async () => ({ decision: 'yes', category: 'identity', reason: 'test' }),
      } satisfies BeliefGate,
      model: model(),
      notify: null,
      now,
      ...over,
    });
    anthropic.reply(
      deltas([
        {
          op: 'add',
          kind: 'relationship',
          subject: 'owner',
          key: 'sunday_visitors',
          value: `${VALUE} and ${CONTROL} visit on Sunday`,
          episodes: [about.id],
        },
      ]),
    );
    clock += 60_000;
    await runThink(thinkDeps(), { curate: 'never', weekly: 'never' });
    // A turn the tick could not reflect on (no model then) waits for the curator.
    const later = store.addEpisode({
      channel: 'terminal',
      role: 'owner',
      text: `${VALUE} moved to Porto, near ${CONTROL}`,
    });
    await runThink(thinkDeps({ model: null }), { curate: 'never', weekly: 'never' });
    anthropic.reply(
      deltas([
        {
          op: 'add',
          kind: 'relationship',
          subject: 'ada',
          key: 'home',
          value: `${VALUE} lives in Porto`,
          episodes: [later.id],
        },
      ]),
    );
    clock += 60_000;
    await runThink(thinkDeps(), { curate: 'now', weekly: 'never' });
    expect(
      store.activeFacts().filter((f) => f.value.includes('Quillfeather')).length,
    ).toBeGreaterThanOrEqual(4);

    // 6. An import.
    const file = join(home, 'import.json');
    writeFileSync(
      file,
      JSON.stringify([
        {
          sample_id: 'purge-test',
          conversation: {
            speaker_a: 'Owner',
            speaker_b: 'Friend',
            session_1_date_time: '1:56 pm on 8 May, 2023',
            session_1: [
              { speaker: 'Owner', dia_id: 'D1:1', text: `Lunch with ${VALUE} and ${CONTROL}.` },
            ],
          },
        },
      ]),
    );
    store.importTurns(parseImport(JSON.parse(readFileSync(file, 'utf8')), 'locomo'), {
      path: file,
      fileSha256: 'x',
    });

    // 7. A compaction summary that quotes it.
    anthropic.reply(`Summary: the owner talked about ${VALUE} and ${CONTROL}.`);
    expect(await agent.compactIfNeeded(undefined, 1)).toBe(true);

    expect(total(bytesLeft(NEEDLES))).toBeGreaterThan(0);
    expect(total(bytesLeft([CONTROL]))).toBeGreaterThan(0);

    // Purge, cutting it out of the other beliefs that quote it too (a door asks first).
    const others = store.otherSlotsHolding(sister.id);
    expect(others.length).toBeGreaterThanOrEqual(3);
    const r = store.forget(sister.id, { purge: true, otherSlots: 'erase' });
    expect(r.purged).toBe(true);
    expect(r.reached).toMatchObject({
      episodes: expect.any(Number),
      journal: expect.any(Number),
      messages: expect.any(Number),
      sessions: 1,
      think_runs: expect.any(Number),
    });
    expect(r.reached.episodes).toBeGreaterThanOrEqual(6);

    // Not one byte of it in the file, its WAL or its shared memory; the control is still there.
    expect(bytesLeft(NEEDLES)).toEqual(
      Object.fromEntries(Object.keys(bytesLeft(NEEDLES)).map((k) => [k, 0])),
    );
    expect(total(bytesLeft([CONTROL]))).toBeGreaterThan(0);
    // Nothing in recall either, while the control is recalled.
    expect((await store.recall('Quillfeather')).results).toEqual([]);
    expect((await store.recall(CONTROL)).results.length).toBeGreaterThan(0);
    expect(store.verify().ok).toBe(true);
  });
});
