/**
 * Discord pairing end to end: the real discord.js client against the fake Discord (REST +
 * gateway) on 127.0.0.1. The owner DMs the code keel showed and becomes the owner; wrong codes,
 * an expired code and a bad token pair nobody; nothing a stranger sends before pairing is
 * answered or stored (the database's bytes are searched), while the paired owner's message after
 * it is. An owner who shares no server with the bot cannot pair by DM (Discord keeps such DMs from
 * the bot) until the bot is added to their server. `keel discord pair` and `keel discord invite`
 * (the install link and the route) run as real processes.
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
    // The application's id, not the bot user's (they differ for older applications).
    expect(shown.applicationId).toBe(discord.applicationId);

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

  it('the Message Content intent off is DISCORD_AUTH naming where to turn it on, before any code', async () => {
    discord.application.flags = 0;
    let shown = false;
    const err = await rejection(
      pairDiscord({
        token: 'test-token',
        apiUrl: discord.apiUrl,
        log: (line) => logs.push(line),
        onCode: () => {
          shown = true;
        },
      }),
    );
    expect(err.code).toBe('DISCORD_AUTH');
    expect(err.message).toMatch(/Message Content intent/);
    expect(err.fix).toMatch(/Bot → Privileged Gateway Intents/);
    expect(shown).toBe(false);
  });

  it('an owner who shares no server with the bot cannot pair by DM; once in a server with it, they can', async () => {
    // Installed to their account only: Discord keeps their DMs from the bot's gateway connection.
    discord.addUser(owner, { sharesServer: false });
    const { code, result } = startPairing();
    const shown = await code;
    const dm = discord.dmChannel(owner.id);
    discord.sendMessage(owner, dm, shown.display);
    let settled = false;
    void result.then(
      () => {
        settled = true;
      },
      () => {
        settled = true;
      },
    );
    // A stranger's chat after it is seen (the gateway keeps order), so the code was not.
    discord.sendMessage(stranger, discord.dmChannel(stranger.id), 'hello there');
    await logged(/not a code/);
    expect(settled).toBe(false);
    expect(logs.filter((l) => l.includes(owner.id))).toEqual([]);
    expect(discord.messages.get(dm)!.map((m) => m.content)).toEqual([shown.display]); // stored
    // The control: the owner adds the bot to their server (the install link), then sends the code.
    discord.addUser(owner);
    discord.sendMessage(owner, dm, shown.display);
    await expect(result).resolves.toMatchObject({ ownerId: owner.id });
    expect(postedTo(owner)).toEqual([PAIRED_TEXT]);
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
      application_id: discord.applicationId,
    });
    const link = new URL(String(first.install_url));
    expect(`${link.origin}${link.pathname}`).toBe('https://discord.com/oauth2/authorize');
    expect(Object.fromEntries(link.searchParams)).toEqual({
      client_id: discord.applicationId,
      scope: 'bot applications.commands',
      permissions: '0',
      integration_type: '0',
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

  it('in text it says the route: the link that adds the bot to your server, its DM, then the code', async () => {
    const child = spawn(process.execPath, [CLI, 'discord', 'pair'], {
      env: {
        ...process.env,
        KEEL_HOME: home,
        DISCORD_TOKEN: 'test-token',
        KEEL_DISCORD_API_URL: discord.apiUrl,
        KEEL_DISCORD_OWNER_ID: '',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    for (let i = 0; i < 400 && !stdout.includes('Waiting for it'); i++) {
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(stdout).toContain('Discord lets you open that DM once you and the bot share a server');
    expect(stdout).toContain(
      `https://discord.com/oauth2/authorize?client_id=${discord.applicationId}&scope=bot+applications.commands&permissions=0&integration_type=0`,
    );
    expect(stdout).toContain("member list, click keel → Message: that is keel's DM");
    const display = /^ {4}([A-Z0-9]{3}-[A-Z0-9]{3})$/m.exec(stdout)![1]!;
    discord.sendMessage(owner, discord.dmChannel(owner.id), display);
    expect(await exited).toBe(0);
    expect(stdout).toContain(`Paired: owner (${owner.id}) is keel's owner on Discord.`);
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

describe('keel discord invite', () => {
  const env = () => ({ DISCORD_TOKEN: 'test-token', KEEL_DISCORD_API_URL: discord.apiUrl });

  it('prints the link that adds the bot to your server, with the route in plain words', async () => {
    const r = await keelAsync(home, ['discord', 'invite'], env());
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain(`Your bot: keel (application ${discord.applicationId}).`);
    expect(r.stdout).toContain(
      `https://discord.com/oauth2/authorize?client_id=${discord.applicationId}&scope=bot+applications.commands&permissions=0&integration_type=0`,
    );
    expect(r.stdout).toContain('Create My Own');
    expect(r.stdout).toContain('keel discord pair');
    expect(r.stdout).not.toContain('Warning');
    // Asked of Discord: the application, nothing else (no gateway connection).
    expect(discord.requests.map((q) => `${q.method} ${q.path}`)).toEqual([
      'GET /api/v10/applications/@me',
    ]);
  });

  it('--json: one line with the link and what in the settings stands in the way', async () => {
    const fine = await keelAsync(home, ['discord', 'invite', '--json'], env());
    expect(fine.status, fine.stderr).toBe(0);
    expect(JSON.parse(fine.stdout)).toEqual({
      application_id: discord.applicationId,
      bot: { id: discord.bot.id, tag: 'keel' },
      route: 'server',
      install_url: `https://discord.com/oauth2/authorize?client_id=${discord.applicationId}&scope=bot+applications.commands&permissions=0&integration_type=0`,
      problems: [],
    });
    discord.application.bot_require_code_grant = true;
    discord.application.flags = 0;
    const blocked = await keelAsync(home, ['discord', 'invite', '--json'], env());
    expect(blocked.status).toBe(0);
    const out = JSON.parse(blocked.stdout) as { problems: { kind: string; fix: string }[] };
    expect(out.problems.map((p) => p.kind)).toEqual(['message_content_off', 'code_grant_required']);
    expect(out.problems[1]!.fix).toMatch(/Turn off Requires OAuth2 Code Grant/);
    const text = await keelAsync(home, ['discord', 'invite'], env());
    expect(text.stdout).toMatch(/^Warning: "Requires OAuth2 Code Grant" is on/m);
  });

  it('without a token: CONFIG_INVALID; a bad token: DISCORD_AUTH (as one JSON error line)', async () => {
    const none = await keelAsync(home, ['discord', 'invite', '--json'], { DISCORD_TOKEN: '' });
    expect(none.status).toBe(2);
    expect(JSON.parse(none.stdout)).toMatchObject({ error: { code: 'CONFIG_INVALID' } });
    const bad = await keelAsync(home, ['discord', 'invite', '--json'], {
      DISCORD_TOKEN: 'wrong',
      KEEL_DISCORD_API_URL: discord.apiUrl,
    });
    expect(bad.status).toBe(2);
    expect(JSON.parse(bad.stdout)).toMatchObject({
      error: { code: 'DISCORD_AUTH', fix: expect.stringContaining('DISCORD_TOKEN') },
    });
  });
});
