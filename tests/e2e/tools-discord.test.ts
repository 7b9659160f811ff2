/**
 * Discord's approval buttons end to end: the real discord.js client against the fake Discord, the
 * real Anthropic SDK against the fake Anthropic server (a scripted model that calls `shell`), the
 * real `shell` tool in a temporary workspace, and a real SQLite file. A tool call that asks is put
 * to the owner as a message with Run / Deny / Always buttons; only the owner's press answers it,
 * within Discord's 3 s for a button's reply (the fake refuses a later one).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AnthropicChatModel } from '@keel/agent';
import { KeelDiscord } from '@keel/discord';
import { MemoryStore } from '@keel/memory';
import { memoryTools, shellTool, Toolbox } from '@keel/tools';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { tempHome } from '../support/cli.js';
import { FakeAnthropic, toolUse } from '../support/fake-anthropic.js';
import { FakeDiscord, type FakeMessage, type FakeUser, user } from '../support/fake-discord.js';

let anthropic: FakeAnthropic;
let discord: FakeDiscord;
let home: string;
let workspace: string;
let cleanup: () => void;
let store: MemoryStore;
let bot: KeelDiscord | null;
let owner: FakeUser;
let logs: string[];

/** Generous deadlines: a busy 2-core machine can take seconds for what an idle one does at once. */
const WAIT_MS = 60_000;

beforeAll(async () => {
  anthropic = await FakeAnthropic.start();
});
afterAll(async () => {
  await anthropic.close();
});
beforeEach(async () => {
  anthropic.reset();
  discord = await FakeDiscord.start();
  owner = discord.addUser(user('owner'));
  ({ home, cleanup } = tempHome());
  workspace = join(home, 'workspace');
  store = MemoryStore.open(join(home, 'keel.db'));
  logs = [];
  bot = null;
});
afterEach(async () => {
  await bot?.stop(1000);
  await discord.close();
  store.close();
  cleanup();
  expect(anthropic.errors).toEqual([]);
  expect(discord.errors).toEqual([]);
});

/** The door with the memory tools and `shell` (asks: its effect is `run`) in the workspace. */
async function startBot(approvalTimeoutMs = 120_000): Promise<KeelDiscord> {
  bot = new KeelDiscord({
    token: 'test-token',
    ownerId: owner.id,
    store,
    model: new AnthropicChatModel({
      apiKey: 'test-key',
      baseURL: anthropic.baseURL,
      model: 'claude-test',
      maxAttempts: 1,
      baseDelayMs: 1,
      maxDelayMs: 5,
      stallTimeoutMs: 5000,
    }),
    apiUrl: discord.apiUrl,
    log: (line) => {
      logs.push(line);
      if (process.env.DEBUG_DISCORD) console.error(line);
    },
    lock: { waitMs: 30_000 },
    tools: () =>
      new Toolbox({
        tools: [
          ...memoryTools(),
          shellTool({ workdir: workspace, env: { PATH: process.env.PATH } }),
        ],
      }),
    approvalTimeoutMs,
  });
  await bot.start();
  return bot;
}

/** keel's messages in the DM that carry buttons. */
const asks = (dm: string): FakeMessage[] =>
  discord
    .posted(dm)
    .filter((m) => (m.components ?? []).length > 0 || m.content.includes('Allow it?'));

/** The custom ids of a message's buttons, by answer (`yes`, `no`, `always_tool`, `always_exact`). */
function buttons(message: FakeMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const row of message.components as { components: { custom_id: string }[] }[]) {
    for (const b of row.components) out[b.custom_id.split(':').at(-1)!] = b.custom_id;
  }
  return out;
}

/** The tool_result the model was sent for `toolUseId`, as text, with its error flag. */
function toolResult(toolUseId: string): { text: string; isError: boolean } | undefined {
  for (const r of anthropic.requests) {
    for (const m of r.body?.messages ?? []) {
      if (!Array.isArray(m.content)) continue;
      for (const b of m.content) {
        if (b.type !== 'tool_result' || b.tool_use_id !== toolUseId) continue;
        const text =
          typeof b.content === 'string'
            ? b.content
            : (b.content as { text?: string }[]).map((c) => c.text ?? '').join('');
        return { text, isError: b.is_error === true };
      }
    }
  }
  return undefined;
}

/** The owner asks; the model calls `shell` with `command` (tool_use id `id`), then says `after`. */
async function askToRun(dm: string, command: string, id: string, after: string) {
  anthropic.reply([toolUse('shell', { command }, id)]);
  anthropic.reply(after);
  const before = asks(dm).length;
  discord.sendMessage(owner, dm, `please run ${command}`);
  await discord.waitFor(() => asks(dm).length === before + 1, WAIT_MS, 'the approval message');
  return asks(dm).at(-1)!;
}

const outFile = () => join(workspace, 'out.txt');

describe("Discord's approval buttons", () => {
  it("a stranger's press changes nothing; the owner's Deny runs nothing, and the model reads it was declined", async () => {
    await startBot();
    const dm = discord.dmChannel(owner.id);
    const ask = await askToRun(dm, 'echo hi > out.txt', 'toolu_deny', 'Fine, I left it.');
    expect(ask.content).toContain('echo hi > out.txt');
    expect(ask.content).toContain('(tool `shell`, run). Allow it?');
    expect(
      (ask.components as { components: { label: string }[] }[]).flatMap((r) =>
        r.components.map((b) => b.label),
      ),
    ).toEqual(['Run it', 'Deny', 'Always for shell', 'Always this exact one']);
    const ids = buttons(ask);

    // Two strangers press Run: one who shares the owner's server, one who shares none.
    const stranger = discord.addUser(user('stranger'));
    const outsider = discord.addUser(user('outsider'), { sharesServer: false });
    const pressed = [
      discord.click(stranger, ask, ids.yes!),
      discord.click(outsider, ask, ids.yes!),
    ];
    await expect
      .poll(
        () =>
          [stranger, outsider].filter((u) =>
            logs.some((l) => l.includes(`dropped an event from user ${u.id} (stranger)`)),
          ).length,
        { timeout: WAIT_MS },
      )
      .toBe(2);
    for (const id of pressed) expect(discord.callbacks.has(id)).toBe(false);
    expect(existsSync(outFile())).toBe(false);
    expect(bot!.approvals.pending).toBe(1);
    expect(ask.components).toHaveLength(1);
    expect(anthropic.requests).toHaveLength(1);
    expect(store.toolCalls.list({ tool: 'shell' })).toEqual([]);

    // The owner presses Deny: answered at once, the buttons go, nothing runs.
    const deny = discord.click(owner, ask, ids.no!);
    await discord.waitFor(() => discord.callbacks.has(deny), WAIT_MS, 'the Deny callback');
    expect(discord.callbacks.get(deny)).toMatchObject({ type: 7, data: { components: [] } });
    expect(ask.content).toMatch(/Allow it\?\n→ denied: not run$/);
    expect(ask.components).toEqual([]);
    await discord.waitFor(() => discord.posted(dm).length === 2, WAIT_MS, 'the reply');
    await bot!.idle();
    expect(discord.posted(dm).at(-1)!.content).toBe('Fine, I left it.');
    expect(toolResult('toolu_deny')).toEqual({
      text: expect.stringContaining('The owner declined this call of shell; nothing ran.'),
      isError: true,
    });
    expect(existsSync(outFile())).toBe(false);
    expect(store.toolCalls.list({ tool: 'shell' })).toMatchObject([
      { approval: 'asked-no', approved_by: 'owner (discord)' },
    ]);
    expect(bot!.approvals.pending).toBe(0);
  });

  it("the owner's Run runs the command once, and the model reads its result", async () => {
    await startBot();
    const dm = discord.dmChannel(owner.id);
    const ask = await askToRun(dm, 'echo hi > out.txt', 'toolu_run', 'Written.');
    expect(existsSync(outFile())).toBe(false);
    const run = discord.click(owner, ask, buttons(ask).yes!);
    await discord.waitFor(() => discord.callbacks.has(run), WAIT_MS, 'the Run callback');
    expect(discord.callbacks.get(run)).toMatchObject({ type: 7, data: { components: [] } });
    expect(ask.content).toMatch(/Allow it\?\n→ allowed once$/);
    await discord.waitFor(() => discord.posted(dm).length === 2, WAIT_MS, 'the reply');
    await bot!.idle();
    expect(discord.posted(dm).at(-1)!.content).toBe('Written.');
    expect(readFileSync(outFile(), 'utf8')).toBe('hi\n');
    const result = toolResult('toolu_run');
    expect(result?.isError).toBe(false);
    expect(result?.text).toMatch(/"exitCode":\s*0/);
    expect(store.toolCalls.list({ tool: 'shell' })).toMatchObject([
      { approval: 'asked-yes', approved_by: 'owner (discord)', exit: '0' },
    ]);
    expect(store.toolGrants.list('shell')).toEqual([]);
  });

  it('"Always for shell": the call runs, and the next turn\'s shell call runs without a new approval message', async () => {
    await startBot();
    const dm = discord.dmChannel(owner.id);
    const ask = await askToRun(dm, 'echo hi > out.txt', 'toolu_first', 'Written.');
    const always = discord.click(owner, ask, buttons(ask).always_tool!);
    await discord.waitFor(() => discord.callbacks.has(always), WAIT_MS, 'the Always callback');
    expect(ask.content).toMatch(/→ allowed, and always from now on for this tool/);
    await discord.waitFor(() => discord.posted(dm).length === 2, WAIT_MS, 'the first reply');
    await bot!.idle();
    expect(readFileSync(outFile(), 'utf8')).toBe('hi\n');
    expect(store.toolGrants.list('shell')).toMatchObject([
      { tool: 'shell', scope: 'tool', channel: 'discord' },
    ]);

    // The next turn: another command, no message with buttons, it runs.
    anthropic.reply([toolUse('shell', { command: 'echo again >> out.txt' }, 'toolu_second')]);
    anthropic.reply('Appended.');
    discord.sendMessage(owner, dm, 'and append again');
    await discord.waitFor(() => discord.posted(dm).length === 3, WAIT_MS, 'the second reply');
    await bot!.idle();
    // The reply says what ran without asking, and by what.
    expect(discord.posted(dm).at(-1)!.content).toBe(
      'Appended.\n(ran without asking, by your standing answer; keel tools revoke ends it: shell {"command":"echo again >> out.txt"})',
    );
    expect(asks(dm)).toEqual([ask]);
    expect(readFileSync(outFile(), 'utf8')).toBe('hi\nagain\n');
    expect(toolResult('toolu_second')?.isError).toBe(false);
    expect(store.toolCalls.list({ tool: 'shell' }).map((c) => [c.approval, c.approved_by])).toEqual(
      expect.arrayContaining([
        ['always', 'owner (discord)'],
        ['always', 'grant'],
      ]),
    );
  });

  it('no press in time: nothing runs, the message says so, the model is told; a late press finds it over', async () => {
    await startBot(1500);
    const dm = discord.dmChannel(owner.id);
    const ask = await askToRun(dm, 'echo hi > out.txt', 'toolu_late', 'You did not answer.');
    const ids = buttons(ask);
    const shown = structuredClone(ask); // the message as the owner saw it, buttons and all
    await discord.waitFor(() => discord.posted(dm).length === 2, WAIT_MS, 'the reply');
    await bot!.idle();
    // keel edited its own message: the answer, and no buttons left to press.
    expect(ask.content).toMatch(/Allow it\?\n→ no answer in time: not run$/);
    expect(ask.components).toEqual([]);
    expect(
      discord.requests.some(
        (r) => r.method === 'PATCH' && r.path === `/api/v10/channels/${dm}/messages/${ask.id}`,
      ),
    ).toBe(true);
    expect(discord.posted(dm).at(-1)!.content).toBe('You did not answer.');
    expect(toolResult('toolu_late')).toEqual({
      text: expect.stringContaining('The owner did not answer the request to run shell in time'),
      isError: true,
    });
    expect(existsSync(outFile())).toBe(false);
    expect(store.toolCalls.list({ tool: 'shell' })).toMatchObject([
      { approval: 'timeout', approved_by: null },
    ]);

    // A press from a client still showing the buttons: answered, and nothing runs.
    const late = discord.click(owner, shown, ids.yes!);
    await discord.waitFor(() => discord.callbacks.has(late), WAIT_MS, 'the late callback');
    expect(discord.callbacks.get(late)).toMatchObject({
      type: 7,
      data: { content: expect.stringMatching(/→ this request is over/), components: [] },
    });
    expect(existsSync(outFile())).toBe(false);
    expect(anthropic.requests).toHaveLength(2);
  });

  it('keel stopping while a request waits runs nothing, and the message says keel stopped, not that the owner denied it', async () => {
    await startBot();
    const dm = discord.dmChannel(owner.id);
    const ask = await askToRun(dm, 'echo hi > out.txt', 'toolu_stop', '(never read)');
    await bot!.stop(500);
    bot = null;
    await discord.waitFor(() => ask.components.length === 0, WAIT_MS, 'the message edited');
    expect(ask.content).toMatch(/Allow it\?\n→ keel stopped before you answered: not run$/);
    expect(ask.content).not.toContain('denied');
    expect(existsSync(outFile())).toBe(false);
    // The owner's message is left to the next start's catch-up, and they were told.
    expect(discord.posted(dm).at(-1)!.content).toMatch(/I am shutting down/);
    expect(anthropic.requests).toHaveLength(1);
  });

  it("control: the fake refuses a button's reply past Discord's deadline (keel's replies above were within it)", async () => {
    await startBot();
    const dm = discord.dmChannel(owner.id);
    const ask = await askToRun(dm, 'echo hi > out.txt', 'toolu_deadline', 'Fine.');
    discord.interactionDeadlineMs = -1; // every reply is late
    const deny = discord.click(owner, ask, buttons(ask).no!);
    await discord.waitFor(() => discord.errors.length > 0, WAIT_MS, 'the late reply refused');
    expect(discord.errors).toEqual([
      expect.stringMatching(new RegExp(`/interactions/${deny}/.*Unknown interaction`)),
    ]);
    expect(discord.callbacks.has(deny)).toBe(false);
    await expect
      .poll(() => logs.some((l) => l.includes('discord: handler failed')), { timeout: WAIT_MS })
      .toBe(true);
    await discord.waitFor(() => discord.posted(dm).length === 2, WAIT_MS, 'the reply');
    await bot!.idle();
    discord.errors.length = 0;
  });
});
