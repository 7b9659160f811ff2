/**
 * `keel setup` end to end, in a real pseudo-terminal (tmux), as a person would answer it: the
 * built CLI against the fake Anthropic and the fake Discord on 127.0.0.1, in a KEEL_HOME and a
 * HOME of their own, with a stand-in `systemctl` first on PATH that answers as a container does
 * (no user session), so nothing reaches the real service manager.
 *
 * A wrong key shows its code and fix and is asked again; the right one is saved. The bot token is
 * checked, pairing shows a code, a stranger's wrong code changes nothing and the owner's right
 * code pairs. The time zone is validated. The embedder is skipped. The services are written and
 * setup says nothing was started. config.toml (mode 0600) then holds exactly those values, secrets
 * never reach the screen, and `keel doctor --json` against the same fakes is green.
 *
 * keel's first start (`keel` with no verb, what `npm start` runs) enters setup only with a person
 * at the terminal and nothing in KEEL_HOME yet: piped, or with KEEL_SKIP_SETUP=1, it opens the
 * terminal as it always did.
 */
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspectConfigFile } from '@keel/host';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CLI, type CliRun, runCli } from '../support/cli.js';
import { FakeAnthropic } from '../support/fake-anthropic.js';
import { FakeDiscord, type FakeUser, user } from '../support/fake-discord.js';
import { refusedPort } from '../support/fake-hub.js';
import { hasTmux, Tmux } from '../support/tmux.js';

const RIGHT_KEY = 'sk-ant-api03-right-key-0123456789';
const WRONG_KEY = 'sk-ant-api03-wrong-key-9876543210';
const BOT_TOKEN = 'discord-token-0123456789abcdef';

/** A stand-in for systemctl and loginctl: records each call and answers as a container does. */
const NO_BUS = `#!/bin/sh
echo "$(basename "$0") $*" >> "$FAKE_CALLS"
echo "Failed to connect to bus: No medium found" >&2
exit 1
`;

let anthropic: FakeAnthropic;
let discord: FakeDiscord;
let owner: FakeUser;
let stranger: FakeUser;
/** Answers anything with 404: a hub that can be reached (the embedder step asks). */
let hub: Server;
let hubUrl: string;
let noOllama: string;
let root: string;
let keelHome: string;
let home: string;
let bin: string;
const terms: Tmux[] = [];

beforeAll(async () => {
  if (!hasTmux()) throw new Error('tmux is needed for these tests (apt-get install tmux)');
  anthropic = await FakeAnthropic.start();
  discord = await FakeDiscord.start();
  hub = createServer((_req, res) => {
    res.writeHead(404);
    res.end();
  });
  await new Promise<void>((resolve) => hub.listen(0, '127.0.0.1', resolve));
  hubUrl = `http://127.0.0.1:${(hub.address() as AddressInfo).port}`;
  noOllama = `http://127.0.0.1:${await refusedPort()}`;
});
afterAll(async () => {
  await anthropic.close();
  await discord.close();
  await new Promise<void>((resolve) => hub.close(() => resolve()));
});
beforeEach(() => {
  anthropic.reset();
  anthropic.apiKey = RIGHT_KEY;
  discord.token = BOT_TOKEN;
  owner = discord.addUser(user('owner'));
  stranger = discord.addUser(user('stranger'));
  root = mkdtempSync(join(tmpdir(), 'keel-setup-'));
  keelHome = join(root, 'keel');
  home = join(root, 'home');
  bin = join(root, 'bin');
  mkdirSync(home);
  mkdirSync(bin);
  for (const name of ['systemctl', 'loginctl']) {
    writeFileSync(join(bin, name), NO_BUS);
    chmodSync(join(bin, name), 0o755);
  }
});
afterEach(() => {
  for (const t of terms.splice(0)) t.close();
  rmSync(root, { recursive: true, force: true });
  expect(anthropic.errors).toEqual([]);
  expect(discord.errors).toEqual([]);
});

/** The environment of a keel run here: none of the developer's keel settings, the fakes'. */
function env(extra: Record<string, string> = {}): Record<string, string> {
  const base = Object.fromEntries(
    Object.entries(process.env).filter(
      (e): e is [string, string] =>
        e[1] !== undefined && !/^(KEEL_|ANTHROPIC_|OPENAI_|DISCORD_|OLLAMA_|XDG_)/.test(e[0]),
    ),
  );
  return {
    ...base,
    HOME: home,
    PATH: `${bin}:${process.env.PATH}`,
    FAKE_CALLS: join(root, 'calls.log'),
    KEEL_HOME: keelHome,
    ANTHROPIC_BASE_URL: anthropic.baseURL,
    KEEL_DISCORD_API_URL: discord.apiUrl,
    OLLAMA_HOST: noOllama,
    KEEL_HF_ENDPOINT: hubUrl,
    ...extra,
  };
}

/** `keel <args>` with piped stdio, not blocking this process (the fakes answer from it). */
function run(args: string[], input = ''): Promise<CliRun> {
  return runCli(args, env(), input);
}

/** `keel <args>` in a pseudo-terminal. */
function terminal(args: string[], extra: Record<string, string> = {}): Tmux {
  const t = Tmux.start([process.execPath, CLI, ...args], env(extra));
  terms.push(t);
  return t;
}

/** The active question: clack marks it ◆ until it is answered. */
const asked = (message: string) =>
  new RegExp(`◆  ${message.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`);

const pairingCode = /│\s+([A-HJKMNP-Z2-9]{3}-[A-HJKMNP-Z2-9]{3})\s/;

describe('keel setup in a terminal', () => {
  it('sets up the model, Discord with pairing, the time, the services; doctor is green', {
    timeout: 240_000,
  }, async () => {
    const t = terminal(['setup']);
    await t.waitFor(asked('Which model should keel talk to?'));
    t.keys('Enter'); // Anthropic, the first option

    // A wrong key: its code and fix, and the question again.
    await t.waitFor(asked('Your Anthropic API key'));
    t.type(WRONG_KEY);
    t.keys('Enter');
    let screen = await t.waitFor(asked('What now?'));
    expect(screen).toMatch(/MODEL_AUTH: /);
    expect(screen).toMatch(/fix: Set ANTHROPIC_API_KEY to a working key/);
    expect(existsSync(join(keelHome, 'config.toml'))).toBe(false); // nothing saved from it
    t.keys('Enter'); // Enter another key
    await t.waitFor(asked('Your Anthropic API key'));
    t.type(RIGHT_KEY);
    t.keys('Enter');
    await t.waitFor(asked('Which model?')); // the models the key can use
    t.keys('Enter'); // the default, which the key has
    await t.waitFor(/keel talks to claude-sonnet-4-6/);

    // Discord: the token is checked, then pairing.
    await t.waitFor(asked('Talk to keel from Discord DMs?'));
    t.keys('Enter'); // set it up
    await t.waitFor(asked('The bot token'));
    t.type(BOT_TOKEN);
    t.keys('Enter');
    await t.waitFor(/Discord takes the token/);
    await t.waitFor(asked('Pair your Discord account now?'));
    t.keys('Enter'); // yes
    screen = await t.waitFor(pairingCode);
    const code = pairingCode.exec(screen)![1]!;
    // The route, with the link that adds the bot to the owner's server (its application's id).
    expect(screen).toContain('Discord lets you open it once you and the bot share a server');
    expect(screen).toContain(
      `https://discord.com/oauth2/authorize?client_id=${discord.applicationId}&scope=bot+applications.commands&permissions=0&integration_type=0`,
    );
    expect(screen).toContain("In that server's member list, click keel → Message");

    // A stranger's wrong code changes nothing.
    const wrong = code.startsWith('AAA') ? 'BBB-BBB' : 'AAA-AAA';
    discord.sendMessage(stranger, discord.dmChannel(stranger.id), wrong);
    await t.waitFor(new RegExp(`A wrong code from Discord user ${stranger.id}: nothing changed`));
    expect(inspectConfigFile(keelHome).values['discord.owner_id']).toBeUndefined();
    // The control: the owner's right code pairs.
    discord.sendMessage(owner, discord.dmChannel(owner.id), code);
    await t.waitFor(new RegExp(`Paired: owner \\(${owner.id}\\) is keel's owner on Discord`));

    // The time zone (checked), quiet hours, the nightly hour (kept).
    await t.waitFor(asked('Your time zone'));
    t.type('Mars/Olympus');
    t.keys('Enter');
    await t.waitFor(/time_zone is not a time zone name/);
    t.keys(...Array<string>(12).fill('BSpace'));
    t.type('Europe/Berlin');
    t.keys('Enter');
    await t.waitFor(asked('Quiet hours'));
    t.type('23-7');
    t.keys('Enter');
    await t.waitFor(asked('The hour (0 to 23)'));
    t.keys('Enter');
    await t.waitFor(/Time zone Europe\/Berlin; quiet hours 23-7; the night starts at 3:00/);

    // The embedder: skipped.
    await t.waitFor(asked('Download the local embedder'));
    t.keys('Down', 'Enter');
    await t.waitFor(/Skipped: recall stays lexical/);

    // The services: written into this HOME; no user session, so nothing was started.
    await t.waitFor(asked('Keep keel running in the background?'));
    t.keys('Enter');
    // The last line setup prints: the screen above it is complete.
    screen = await t.waitFor(/Next: `keel` opens the terminal/);
    expect(screen).toMatch(/keel is set up/);
    expect(screen).toMatch(/Nothing was started: .*systemctl --user/);
    // The paired bot would stay silent: the step and the summary say so, and what to run.
    expect(screen).toMatch(/Discord is paired but the Discord door is not running/);
    expect(screen).toMatch(/Run `keel think` and `keel discord` in a terminal/);
    expect(screen).toMatch(/services +written, not started.*the Discord door is not running/);
    const units = join(home, '.config', 'systemd', 'user');
    expect(readFileSync(join(units, 'keel-think.service'), 'utf8')).toContain(keelHome);
    expect(existsSync(join(units, 'keel-discord.service'))).toBe(true); // paired, so installed
    expect(await t.exitCode()).toBe(0);

    // Secrets never reach the screen; the summary shows them masked.
    screen = t.screen();
    for (const s of [RIGHT_KEY, WRONG_KEY, BOT_TOKEN]) expect(screen).not.toContain(s);
    expect(screen).toContain('sk-a…6789');

    // config.toml holds exactly those values, readable by the owner only.
    const path = join(keelHome, 'config.toml');
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(inspectConfigFile(keelHome).values).toEqual({
      'model.provider': 'anthropic',
      'anthropic.api_key': RIGHT_KEY,
      'discord.token': BOT_TOKEN,
      'discord.owner_id': owner.id,
      time_zone: 'Europe/Berlin',
      quiet_hours: '23-7',
    });

    // Doctor, against the same fakes: green.
    const doctor = await run(['doctor', '--json']);
    expect(doctor.status, doctor.stderr).toBe(0);
    const report = JSON.parse(doctor.stdout) as {
      ok: boolean;
      checks: { name: string; status: string }[];
    };
    expect(report.ok).toBe(true);
    const status = Object.fromEntries(report.checks.map((c) => [c.name, c.status]));
    expect(status).toMatchObject({
      model: 'ok',
      discord_token: 'ok',
      discord_owner: 'ok',
    });
  });

  it('reruns with the current values as defaults, secrets masked', {
    timeout: 180_000,
  }, async () => {
    mkdirSync(keelHome);
    writeFileSync(
      join(keelHome, 'config.toml'),
      `time_zone = "Europe/Lisbon"\n[anthropic]\napi_key = "${RIGHT_KEY}"\n[discord]\ntoken = "${BOT_TOKEN}"\nowner_id = "${owner.id}"\n`,
      { mode: 0o600 },
    );
    const t = terminal(['setup']);
    await t.waitFor(asked('Which model should keel talk to?'));
    t.keys('Enter'); // Anthropic
    // The key is kept with Enter; only its ends are shown.
    let screen = await t.waitFor(asked('Your Anthropic API key'));
    expect(screen).toContain('Enter keeps sk-a…6789');
    t.keys('Enter');
    await t.waitFor(asked('Which model?'));
    t.keys('Enter');
    await t.waitFor(/keel talks to claude-sonnet-4-6/);
    // Discord is set up: keeping it is offered first.
    screen = await t.waitFor(asked('Talk to keel from Discord DMs?'));
    expect(screen).toContain(`Pair again (the owner now: ${owner.id})`);
    t.keys('Enter');
    screen = await t.waitFor(asked('Your time zone'));
    expect(screen).toContain('(Enter: Europe/Lisbon)');
    t.keys('Enter');
    await t.waitFor(asked('Quiet hours'));
    t.keys('Enter');
    await t.waitFor(asked('The hour (0 to 23)'));
    t.keys('Enter');
    await t.waitFor(asked('Download the local embedder'));
    t.keys('Down', 'Enter');
    // The services: shown, not installed.
    await t.waitFor(asked('Keep keel running in the background?'));
    t.keys('Down', 'Enter');
    screen = await t.waitFor(/Next: `keel` opens the terminal/);
    expect(screen).toMatch(/keel is set up/);
    expect(screen).toMatch(/would write .*keel-think\.service/);
    expect(screen).toMatch(/would run: systemctl --user daemon-reload/);
    expect(existsSync(join(home, '.config', 'systemd'))).toBe(false);
    expect(await t.exitCode()).toBe(0);
    for (const s of [RIGHT_KEY, BOT_TOKEN]) expect(t.screen()).not.toContain(s);
    // Only the provider was new.
    expect(inspectConfigFile(keelHome).values).toEqual({
      'model.provider': 'anthropic',
      'anthropic.api_key': RIGHT_KEY,
      'discord.token': BOT_TOKEN,
      'discord.owner_id': owner.id,
      time_zone: 'Europe/Lisbon',
    });
  });

  it('a failed pairing is offered again; Ctrl-C while it waits stops setup and keeps what was saved', {
    timeout: 180_000,
  }, async () => {
    mkdirSync(keelHome);
    writeFileSync(join(keelHome, 'config.toml'), `[discord]\ntoken = "${BOT_TOKEN}"\n`, {
      mode: 0o600,
    });
    const t = terminal(['setup']);
    await t.waitFor(asked('Which model should keel talk to?'));
    t.keys('Down', 'Down', 'Down', 'Enter'); // offline
    await t.waitFor(/keel runs offline/);
    // A token and no owner: pairing is offered first.
    await t.waitFor(asked('Talk to keel from Discord DMs?'));
    t.keys('Enter');
    let screen = await t.waitFor(pairingCode);
    const first = pairingCode.exec(screen)![1]!;
    // Three wrong codes stop that pairing: setup says so and offers a new one.
    const dm = discord.dmChannel(stranger.id);
    for (const wrong of ['AAA-AAA', 'BBB-BBB', 'CCC-CCC'].filter((c) => c !== first).slice(0, 3)) {
      discord.sendMessage(stranger, dm, wrong);
    }
    screen = await t.waitFor(asked('Pair again?'));
    expect(screen).toMatch(/PAIRING_FAILED: /);
    t.keys('Enter');
    await t.waitFor(new RegExp(`│\\s+(?!${first})[A-HJKMNP-Z2-9]{3}-[A-HJKMNP-Z2-9]{3}\\s`));
    await t.waitFor(/Waiting for your DM/, { count: 2 });
    t.keys('C-c');
    screen = await t.waitFor(/Setup stopped\..*`keel setup` goes on from there/);
    expect(screen).toMatch(
      /Saved in .*config\.toml: model\.provider = offline\. `keel setup` goes on/,
    );
    expect(await t.exitCode()).toBe(0);
    expect(inspectConfigFile(keelHome).values).toEqual({
      'model.provider': 'offline',
      'discord.token': BOT_TOKEN,
    });
    // The pairing ended with setup: the door's lock is free.
    expect(existsSync(join(keelHome, 'discord.lock'))).toBe(false);
  });

  it('without a terminal it asks nothing: SETUP_NEEDS_TERMINAL, exit 2', async () => {
    for (const args of [['setup'], ['setup', '--json']]) {
      const r = await run(args, '\n');
      expect(r.status).toBe(2);
      expect(r.stderr).toMatch(/^error SETUP_NEEDS_TERMINAL: .*needs a person at a terminal/m);
      expect(r.stderr).toMatch(/^fix: Run `keel setup` in a terminal/m);
      expect(existsSync(join(keelHome, 'config.toml'))).toBe(false);
    }
  });
});

describe("keel's first start", () => {
  it('at a terminal with no config file, setup comes first and says how to skip it', {
    timeout: 180_000,
  }, async () => {
    const t = terminal([]);
    const screen = await t.waitFor(asked('Which model should keel talk to?'));
    expect(screen).toMatch(/press Ctrl-C now: keel opens as it is/);
    expect(screen).toContain('KEEL_SKIP_SETUP=1');
    t.keys('C-c'); // skip it all: the terminal opens
    await t.waitFor(/Setup skipped: nothing was saved/);
    await t.waitFor(/you › /);
    t.type('/quit');
    t.keys('Enter');
    expect(await t.exitCode()).toBe(0);
    expect(existsSync(join(keelHome, 'config.toml'))).toBe(false);
  });

  it('piped, or with KEEL_SKIP_SETUP=1, it opens the terminal as it always did', {
    timeout: 180_000,
  }, async () => {
    const piped = await run([], 'remember that I like tea\n/quit\n');
    expect(piped.status, piped.stderr).toBe(0);
    // Setup's first question never showed (the offline notice may still name `keel setup`).
    expect(piped.stdout).not.toContain('keel is not set up yet');
    expect(piped.stdout).not.toContain('Which model should keel talk to?');
    expect(piped.stdout).toContain('Kept: tea — I like tea');
    expect(existsSync(join(keelHome, 'config.toml'))).toBe(false);

    // A KEEL_HOME of its own: the piped run above made a database, and keel that ran is not asked.
    const fresh = join(root, 'keel-skip');
    const t = terminal([], { KEEL_HOME: fresh, KEEL_SKIP_SETUP: '1' });
    const screen = await t.waitFor(/you › /);
    expect(screen).not.toContain('keel is not set up yet');
    expect(screen).not.toContain('Which model should keel talk to?');
    t.type('/quit');
    t.keys('Enter');
    expect(await t.exitCode()).toBe(0);
    expect(existsSync(join(fresh, 'config.toml'))).toBe(false);
  });
});
