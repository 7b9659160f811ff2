/**
 * Discord pairing end to end: the real discord.js client against the fake Discord (REST +
 * gateway) on 127.0.0.1. The owner DMs the code keel showed and becomes the owner; wrong codes,
 * an expired code and a bad token pair nobody; nothing a stranger sends before pairing is
 * answered or stored (the database's bytes are searched), while the paired owner's message after
 * it is. `keel discord pair` runs as a real process.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { KeelDiscord, PAIRED_TEXT, type PairingCode, pairDiscord } from '@keel/discord';
import { KeelError } from '@keel/errors';
import { MemoryStore } from '@keel/memory';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CLI, keelAsync, tempHome } from '../support/cli.js';
import { FakeDiscord, type FakeUser, user } from '../support/fake-discord.js';

let discord: FakeDiscord;
let owner: FakeUser;
let stranger: FakeUser;
let home: string;
let cleanup: () => void;
let logs: string[];

beforeEach(async () => {
  discord = await FakeDiscord.start();
  discord.token = 'test-token';
  owner = discord.addUser(user('owner'));
  stranger = discord.addUser(user('stranger'));
  ({ home, cleanup } = tempHome());
  logs = [];
});
afterEach(async () => {
  await discord.close();
  cleanup();
  expect(discord.errors).toEqual([]);
});

/** Starts a pairing; resolves `code` once keel is connected and shows it. */
function startPairing(extra: Partial<Parameters<typeof pairDiscord>[0]> = {}) {
  let shown: (c: PairingCode) => void = () => {};
  const code = new Promise<PairingCode>((resolve) => {
    shown = resolve;
  });
  const wrong: number[] = [];
  const result = pairDiscord({
    token: 'test-token',
    apiUrl: discord.apiUrl,
    log: (line) => logs.push(line),
    onCode: (c) => shown(c),
    onWrongCode: (w) => wrong.push(w.triesLeft),
    ...extra,
  });
  // Observed so an early rejection is never unhandled; the tests await `result` themselves.
  result.catch(() => {});
  return { code, result, wrong };
}

/** The KeelError a promise rejects with. */
async function rejection(p: Promise<unknown>): Promise<KeelError> {
  try {
    await p;
  } catch (err) {
    if (KeelError.isInstance(err)) return err;
    throw err;
  }
  throw new Error('expected a rejection');
}

/** Resolves once keel has logged `n` lines matching `pattern` (the gateway is asynchronous). */
async function logged(pattern: RegExp, n = 1): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (logs.filter((l) => pattern.test(l)).length >= n) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${pattern} in ${JSON.stringify(logs)}`);
}

const postedTo = (u: FakeUser) => discord.posted(discord.dmChannel(u.id)).map((m) => m.content);

describe('pairDiscord', () => {
  it('the right code, as the owner types it, pairs its author; the code has no ambiguous characters', async () => {
    const { code, result } = startPairing();
    const shown = await code;
    expect(shown.code).toMatch(/^[A-HJKMNP-Z2-9]{6}$/);
    expect(shown.display).toBe(`${shown.code.slice(0, 3)}-${shown.code.slice(3)}`);
    expect(shown.expiresAt - Date.now()).toBeGreaterThan(9 * 60_000);
    expect(shown.expiresAt - Date.now()).toBeLessThanOrEqual(10 * 60_000);
    expect(shown.bot).toEqual({ id: discord.bot.id, tag: 'keel' });

    discord.sendMessage(owner, discord.dmChannel(owner.id), ` ${shown.display.toLowerCase()} `);
    const paired = await result;
    expect(paired).toMatchObject({ ownerId: owner.id, username: 'owner' });
    // The owner is told; nobody else hears anything.
    expect(postedTo(owner)).toEqual([PAIRED_TEXT]);
    // The connection is closed once paired.
    await discord.waitFor(() => !discord.connected, 10_000, 'the pairing connection to close');
  });

  it('three wrong codes stop it: nobody is paired, nobody is answered, the right code after changes nothing', async () => {
    const { code, result, wrong } = startPairing();
    const shown = await code;
    const dm = discord.dmChannel(stranger.id);
    // Chat is not a try.
    discord.sendMessage(stranger, dm, 'hello, who are you?');
    await logged(/not a code/);
    const other = shown.code === 'AAAAAA' ? 'BBBBBB' : 'AAAAAA';
    discord.sendMessage(stranger, dm, other);
    await logged(/a wrong code/);
    expect(wrong).toEqual([2]);
    discord.sendMessage(stranger, dm, 'ZZZ-ZZ9');
    discord.sendMessage(stranger, dm, other.toLowerCase());
    const err = await rejection(result);
    expect(err.code).toBe('PAIRING_FAILED');
    expect(err.details).toEqual({ reason: 'too_many_tries' });
    expect(err.message).toMatch(/pairing stopped and nobody was paired/);
    expect(wrong).toEqual([2, 1, 0]);
    // Control: the right code, from the owner, now pairs nothing and gets no answer.
    discord.sendMessage(owner, discord.dmChannel(owner.id), shown.code);
    await new Promise((r) => setTimeout(r, 300));
    expect(postedTo(stranger)).toEqual([]);
    expect(postedTo(owner)).toEqual([]);
  });

  it('an expired code is refused: the right code after its time pairs nobody', async () => {
    let offset = 0;
    const { code, result } = startPairing({ now: () => Date.now() + offset });
    const shown = await code;
    offset = 10 * 60_000 + 1; // eleven minutes later, as far as keel's clock knows
    discord.sendMessage(owner, discord.dmChannel(owner.id), shown.code);
    const err = await rejection(result);
    expect(err.code).toBe('PAIRING_FAILED');
    expect(err.details).toEqual({ reason: 'expired' });
    expect(postedTo(owner)).toEqual([]);
  });

  it('the expiry stops the wait by itself', async () => {
    const { code, result } = startPairing({ ttlMs: 300 });
    await code;
    const err = await rejection(result);
    expect(err.details).toEqual({ reason: 'expired' });
  });

  it('a bad token is DISCORD_AUTH, before any code is shown', async () => {
    let shown = false;
    const err = await rejection(
      pairDiscord({
        token: 'not-the-token',
        apiUrl: discord.apiUrl,
        log: (line) => logs.push(line),
        onCode: () => {
          shown = true;
        },
      }),
    );
    expect(err.code).toBe('DISCORD_AUTH');
    expect(shown).toBe(false);
  });

  it("before pairing a stranger's message is neither answered nor stored; the paired owner's is", async () => {
    const path = join(home, 'keel.db');
    const store = MemoryStore.open(path);
    const { code, result } = startPairing();
    const shown = await code;
    discord.sendMessage(
      stranger,
      discord.dmChannel(stranger.id),
      'remember that my locker code is zebracornish',
    );
    await logged(/not a code/);
    discord.sendMessage(owner, discord.dmChannel(owner.id), shown.display);
    const paired = await result;

    // The door, run with the paired owner: the owner's message is stored, the stranger's never.
    const bot = new KeelDiscord({
      token: 'test-token',
      ownerId: paired.ownerId,
      store,
      model: null,
      apiUrl: discord.apiUrl,
      log: (line) => logs.push(line),
      registerCommands: false,
    });
    try {
      await bot.start();
      const dm = discord.dmChannel(owner.id);
      const before = postedTo(owner).length;
      discord.sendMessage(owner, dm, 'remember that my favourite bird is the quokkafinch');
      await discord.waitFor(() => postedTo(owner).length > before, 10_000, 'the reply');
      await bot.idle();
    } finally {
      await bot.stop(1000);
      store.close();
    }
    expect(postedTo(stranger)).toEqual([]);
    const bytes = Buffer.concat(
      [path, `${path}-wal`].filter((p) => existsSync(p)).map((p) => readFileSync(p)),
    );
    expect(bytes.includes('quokkafinch')).toBe(true); // the control: stored, and findable
    expect(bytes.includes('zebracornish')).toBe(false);
  });
});

describe('keel discord pair', () => {
  it('prints the code, waits for the DM and prints the owner id; holds the door lock meanwhile', async () => {
    const child = spawn(process.execPath, [CLI, 'discord', 'pair', '--json'], {
      env: {
        ...process.env,
        KEEL_HOME: home,
        DISCORD_TOKEN: 'test-token',
        KEEL_DISCORD_API_URL: discord.apiUrl,
        KEEL_DISCORD_OWNER_ID: '',
        ANTHROPIC_API_KEY: '',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    const deadline = Date.now() + 60_000;
    while (!stdout.includes('\n') && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
    }
    const first = JSON.parse(stdout.split('\n')[0]!) as Record<string, unknown>;
    expect(first).toMatchObject({
      event: 'code',
      code: expect.stringMatching(/^[A-HJKMNP-Z2-9]{6}$/),
      expires_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      bot: { id: discord.bot.id },
    });
    // A second door cannot start meanwhile (it would answer the code as a turn).
    expect(existsSync(join(home, 'discord.lock'))).toBe(true);
    const busy = await keelAsync(home, ['discord', 'pair'], {
      DISCORD_TOKEN: 'test-token',
      KEEL_DISCORD_API_URL: discord.apiUrl,
    });
    expect(busy.status).toBe(2);
    expect(busy.stderr).toContain('error SERVICE_RUNNING');

    discord.sendMessage(owner, discord.dmChannel(owner.id), String(first.display));
    expect(await exited, stderr).toBe(0);
    const last = JSON.parse(stdout.trim().split('\n').at(-1)!) as Record<string, unknown>;
    expect(last).toMatchObject({
      event: 'paired',
      owner_id: owner.id,
      username: 'owner',
      config_path: join(home, 'config.toml'),
      shadowed_by_env: false,
    });
    // The owner id is saved where every keel process reads it.
    expect(readFileSync(join(home, 'config.toml'), 'utf8')).toContain(`owner_id = "${owner.id}"`);
    const got = await keelAsync(home, ['config', 'get', 'discord.owner_id', '--json'], {
      KEEL_DISCORD_OWNER_ID: '',
    });
    expect(JSON.parse(got.stdout)).toMatchObject({ value: owner.id, source: 'file' });
    expect(existsSync(join(home, 'discord.lock'))).toBe(false);
    // Nothing was opened, so nothing was stored.
    expect(existsSync(join(home, 'keel.db'))).toBe(false);
  });

  it('a bad token exits 2 with DISCORD_AUTH and its fix', async () => {
    const r = await keelAsync(home, ['discord', 'pair'], {
      DISCORD_TOKEN: 'wrong',
      KEEL_DISCORD_API_URL: discord.apiUrl,
    });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^error DISCORD_AUTH: /m);
    expect(r.stderr).toMatch(/^fix: .*DISCORD_TOKEN/m);
    expect(r.stdout).toBe('');
  });
});
