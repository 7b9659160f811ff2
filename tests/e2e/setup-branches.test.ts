/**
 * `keel setup`'s model branches and its Ctrl-C, end to end in a real pseudo-terminal (tmux): the
 * built CLI against the fake Anthropic, the fake OpenAI-compatible server and the fake Ollama on
 * 127.0.0.1, in a KEEL_HOME and a HOME of their own.
 *
 * Anthropic: the key is checked by listing the models it can use; the model is chosen from that
 * list (the newest Sonnet offered when the default is not among them), and a model the API
 * refuses (404 not_found_error) is said and the list offered again. OpenAI-compatible: the
 * server's list, or a typed name where it lists none. Ollama: the chat and belief gate models.
 * Every answer is saved when it is given: Ctrl-C at any question leaves exactly the answers
 * before it in config.toml, and the stop message names them.
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspectConfigFile } from '@keel/host';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CLI, runCli } from '../support/cli.js';
import { FakeAnthropic } from '../support/fake-anthropic.js';
import { refusedPort } from '../support/fake-hub.js';
import { type FakeOllama, startFakeOllama } from '../support/fake-ollama.js';
import { FakeOpenAI } from '../support/fake-openai.js';
import { hasTmux, Tmux } from '../support/tmux.js';

const KEY = 'sk-ant-api03-right-key-0123456789';
const OPENAI_KEY = 'sk-openai-right-key-0123456789';
/** Waits on a loaded machine are generous: the screen text is what a test waits for. */
const WAIT = { ms: 45_000 };

/** A stand-in for systemctl and loginctl: answers as a container does. */
const NO_BUS = `#!/bin/sh
echo "Failed to connect to bus: No medium found" >&2
exit 1
`;

let anthropic: FakeAnthropic;
let openai: FakeOpenAI;
let ollama: FakeOllama;
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
  openai = await FakeOpenAI.start();
  ollama = await startFakeOllama({
    models: ['llama3.1:latest', 'qwen2.5:3b', 'nomic-embed-text:latest'],
  });
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
  await openai.close();
  await ollama.close();
  await new Promise<void>((resolve) => hub.close(() => resolve()));
});
beforeEach(() => {
  anthropic.reset();
  anthropic.apiKey = KEY;
  openai.reset();
  root = mkdtempSync(join(tmpdir(), 'keel-setup-branches-'));
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
  expect(openai.errors).toEqual([]);
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
    LANG: 'C.UTF-8',
    HOME: home,
    PATH: `${bin}:${process.env.PATH}`,
    KEEL_HOME: keelHome,
    ANTHROPIC_BASE_URL: anthropic.baseURL,
    KEEL_DISCORD_API_URL: `http://127.0.0.1:1`,
    OLLAMA_HOST: noOllama,
    KEEL_HF_ENDPOINT: hubUrl,
    ...extra,
  };
}

function terminal(extra: Record<string, string> = {}): Tmux {
  const t = Tmux.start([process.execPath, CLI, 'setup'], env(extra));
  terms.push(t);
  return t;
}

/** The active question: clack marks it ◆ until it is answered. */
const asked = (message: string) =>
  new RegExp(`◆  ${message.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`);

/** The config file's values now. */
const saved = () => inspectConfigFile(keelHome).values;

/** Ctrl-C at the question on screen: setup stops, exit 0, naming what was saved. */
async function stopHere(t: Tmux): Promise<string> {
  t.keys('C-c');
  const screen = await t.waitFor(/Setup stopped\./, WAIT);
  expect(await t.exitCode(WAIT.ms)).toBe(0);
  return screen;
}

describe('keel setup: the Anthropic model', () => {
  it('a key without the default model: the list is offered, a refused model is said, the choice saved', {
    timeout: 180_000,
  }, async () => {
    anthropic.models = ['claude-opus-4-1', 'claude-sonnet-4-5', 'claude-haiku-4-5'];
    const t = terminal();
    await t.waitFor(asked('Which model should keel talk to?'), WAIT);
    t.keys('Enter'); // Anthropic
    await t.waitFor(asked('Your Anthropic API key'), WAIT);
    t.type(KEY);
    t.keys('Enter');
    let screen = await t.waitFor(asked('Which model? (3 listed by Anthropic)'), WAIT);
    expect(screen).toMatch(/anthropic: the key works; 3 models listed/);
    expect(screen).toMatch(
      /claude-sonnet-4-6 \(the model now\) is not among the models Anthropic lists for this key/,
    );
    // The newest Sonnet is offered first; the key is saved, the model not yet.
    expect(screen).toMatch(/● claude-sonnet-4-5 \(Claude Sonnet 4\.5\)/);
    expect(saved()).toEqual({ 'model.provider': 'anthropic', 'anthropic.api_key': KEY });

    // A model typed that the API refuses: said, and the list offered again.
    t.keys('Down', 'Down', 'Enter'); // Another model…
    await t.waitFor(asked('The model name'), WAIT);
    t.type('claude-sonnet-9');
    t.keys('Enter');
    await t.waitFor(/claude-sonnet-9 is refused for this key: choose another/, WAIT);
    // The answered list shows ◇; the one asked again shows ◆.
    screen = await t.waitFor(asked('Which model?'), WAIT);
    expect(screen).toMatch(/MODEL_NOT_FOUND: .*has no model "claude-sonnet-9"/);
    expect(saved()['anthropic.model']).toBeUndefined();
    // The control: the one offered is taken and saved.
    t.keys('Enter');
    await t.waitFor(/keel talks to claude-sonnet-4-5\./, WAIT);
    expect(saved()['anthropic.model']).toBe('claude-sonnet-4-5');
    expect(anthropic.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      'GET /v1/models',
      'GET /v1/models/claude-sonnet-9',
      'GET /v1/models/claude-sonnet-4-5',
    ]);

    // Ctrl-C at Discord keeps all of it and says what it is.
    await t.waitFor(asked('Talk to keel from Discord DMs?'), WAIT);
    screen = await stopHere(t);
    expect(screen).toMatch(
      /Saved in .*config\.toml: model\.provider = anthropic, anthropic\.api_key = sk-a…6789, anthropic\.model = claude-sonnet-4-5\./,
    );
    expect(screen).not.toContain(KEY);
    expect(saved()).toEqual({
      'model.provider': 'anthropic',
      'anthropic.api_key': KEY,
      'anthropic.model': 'claude-sonnet-4-5',
    });
    // keel now talks to that model: doctor's model check is green.
    const doctor = await runCli(['doctor', '--json'], env());
    const model = (
      JSON.parse(doctor.stdout) as { checks: { name: string; status: string; detail: string }[] }
    ).checks.find((c) => c.name === 'model');
    expect(model).toMatchObject({
      status: 'ok',
      detail: expect.stringContaining('claude-sonnet-4-5'),
    });
  });

  it('the default model kept when the key has it (nothing more written); Ctrl-C at the list keeps the key', {
    timeout: 120_000,
  }, async () => {
    let t = terminal();
    await t.waitFor(asked('Which model should keel talk to?'), WAIT);
    t.keys('Enter');
    await t.waitFor(asked('Your Anthropic API key'), WAIT);
    t.type(KEY);
    t.keys('Enter');
    const screen = await t.waitFor(asked('Which model?'), WAIT);
    expect(screen).toMatch(/● claude-sonnet-4-6 \(Claude Sonnet 4\.6, now\)/);
    await stopHere(t);
    expect(saved()).toEqual({ 'model.provider': 'anthropic', 'anthropic.api_key': KEY });

    t = terminal();
    await t.waitFor(asked('Which model should keel talk to?'), WAIT);
    t.keys('Enter');
    await t.waitFor(asked('Your Anthropic API key'), WAIT);
    t.keys('Enter'); // keeps the saved key
    await t.waitFor(asked('Which model?'), WAIT);
    t.keys('Enter');
    await t.waitFor(/keel talks to claude-sonnet-4-6 \(as it did\)\./, WAIT);
    await t.waitFor(asked('Talk to keel from Discord DMs?'), WAIT);
    await stopHere(t);
    expect(saved()).toEqual({ 'model.provider': 'anthropic', 'anthropic.api_key': KEY });
  });
});

describe('keel setup: an OpenAI-compatible server', () => {
  it("the server's list: the model chosen from it; Ctrl-C at Discord keeps every answer", {
    timeout: 120_000,
  }, async () => {
    openai.apiKey = OPENAI_KEY;
    openai.onlyListed = true;
    openai.models.add('gpt-test');
    openai.models.add('gpt-other');
    const t = terminal();
    await t.waitFor(asked('Which model should keel talk to?'), WAIT);
    t.keys('Down', 'Enter');
    await t.waitFor(asked('The API address'), WAIT);
    t.type(openai.baseURL);
    t.keys('Enter');
    await t.waitFor(asked('Its API key'), WAIT);
    // The address is saved as soon as it is given.
    expect(saved()).toEqual({ 'openai.base_url': openai.baseURL });
    t.type(OPENAI_KEY);
    t.keys('Enter');
    const screen = await t.waitFor(asked('Which model? (2 listed by'), WAIT);
    expect(screen).toMatch(/openai: the key works; 2 models listed/);
    expect(screen).toMatch(/gpt-4o-mini \(the model now\) is not among the models/);
    t.keys('Down', 'Enter'); // gpt-other
    await t.waitFor(/keel talks to gpt-other\./, WAIT);
    await t.waitFor(asked('Talk to keel from Discord DMs?'), WAIT);
    const stopped = await stopHere(t);
    expect(stopped).toMatch(
      /Saved in .*: openai\.base_url = http:\/\/127\.0\.0\.1:\d+\/v1, model\.provider = openai, openai\.api_key = sk-o…6789, openai\.model = gpt-other\./,
    );
    expect(saved()).toEqual({
      'openai.base_url': openai.baseURL,
      'model.provider': 'openai',
      'openai.api_key': OPENAI_KEY,
      'openai.model': 'gpt-other',
    });
  });

  it('a server without a model list: said, saved anyway, and the model typed', {
    timeout: 120_000,
  }, async () => {
    openai.listsModels = false;
    const t = terminal();
    await t.waitFor(asked('Which model should keel talk to?'), WAIT);
    t.keys('Down', 'Enter');
    await t.waitFor(asked('The API address'), WAIT);
    t.type(openai.baseURL);
    t.keys('Enter');
    await t.waitFor(asked('Its API key'), WAIT);
    t.keys('Enter'); // a local server: no key
    const screen = await t.waitFor(asked('What now?'), WAIT);
    expect(screen).toMatch(/MODEL_UNAVAILABLE: .*has no model list \(404\)/);
    t.keys('Down', 'Enter'); // Save it anyway
    await t.waitFor(asked('The model (one that calls tools)'), WAIT);
    expect(saved()).toEqual({ 'openai.base_url': openai.baseURL, 'model.provider': 'openai' });
    t.type('local');
    t.keys('Enter');
    // The check cannot list either: save it anyway.
    await t.waitFor(/Checking local…/, WAIT);
    await t.waitFor(asked('What now?'), WAIT);
    t.keys('Down', 'Enter');
    await t.waitFor(/keel talks to local\./, WAIT);
    await t.waitFor(asked('Talk to keel from Discord DMs?'), WAIT);
    await stopHere(t);
    expect(saved()).toEqual({
      'openai.base_url': openai.baseURL,
      'model.provider': 'openai',
      'openai.model': 'local',
    });
  });
});

describe('keel setup: Ollama', () => {
  it('the chat model and the belief gate (explained); Ctrl-C at the gate keeps the chat model', {
    timeout: 120_000,
  }, async () => {
    const t = terminal({ OLLAMA_HOST: ollama.url });
    await t.waitFor(asked('Which model should keel talk to?'), WAIT);
    t.keys('Down', 'Down', 'Enter');
    await t.waitFor(asked('Where Ollama runs'), WAIT);
    t.keys('Enter');
    await t.waitFor(asked('The chat model'), WAIT);
    expect(saved()).toEqual({ 'ollama.host': ollama.url });
    t.keys('Enter'); // llama3.1:latest, the default
    const screen = await t.waitFor(asked('The belief gate model'), WAIT);
    expect(screen).toMatch(
      /The belief gate is a small local model that decides which of your sentences become beliefs/,
    );
    expect(saved()).toEqual({
      'ollama.host': ollama.url,
      'model.provider': 'ollama',
      'ollama.chat_model': 'llama3.1:latest',
    });
    await stopHere(t);
    expect(saved()).toEqual({
      'ollama.host': ollama.url,
      'model.provider': 'ollama',
      'ollama.chat_model': 'llama3.1:latest',
    });
  });
});

describe('keel setup offline: Ctrl-C at each later question keeps exactly the answers before it', () => {
  /** The questions after the model, in order, with what is saved once each is answered. */
  const steps = [
    { question: 'Your time zone', saved: { 'model.provider': 'offline' } },
    { question: 'Quiet hours', saved: { time_zone: 'Europe/Berlin' } },
    { question: 'The hour (0 to 23)', saved: { quiet_hours: '23-7' } },
    { question: 'Download the local embedder', saved: { 'think.night_hour': 4 } },
    { question: 'Keep keel running in the background?', saved: {} },
  ] as const;

  it.each(steps.map((s, i) => [s.question, i] as const))(
    'Ctrl-C at "%s"',
    {
      timeout: 120_000,
    },
    async (_question, stopAt) => {
      const t = terminal();
      await t.waitFor(asked('Which model should keel talk to?'), WAIT);
      t.keys('Down', 'Down', 'Down', 'Enter'); // offline
      await t.waitFor(asked('Talk to keel from Discord DMs?'), WAIT);
      t.keys('Down', 'Enter'); // no Discord
      const answers: Array<() => Promise<void>> = [
        async () => {
          t.type('Europe/Berlin');
          t.keys('Enter');
        },
        async () => {
          t.type('11 PM – 7 AM');
          t.keys('Enter');
          await t.waitFor(/Quiet hours: 23-7 \(23:00 to 07:00\)\./, WAIT);
        },
        async () => {
          t.type('4');
          t.keys('Enter');
        },
        async () => {
          t.keys('Down', 'Enter'); // skip the embedder
        },
      ];
      const expected: Record<string, unknown> = {};
      for (let i = 0; i <= stopAt; i++) {
        const step = steps[i]!;
        const screen = await t.waitFor(asked(step.question), WAIT);
        Object.assign(expected, step.saved);
        // What was answered before this question is in the file, nothing after it.
        expect(saved()).toEqual(expected);
        if (step.question === 'The hour (0 to 23)') {
          expect(screen).toMatch(/The nightly curator consolidates memory once a night/);
        }
        if (i < stopAt) await answers[i]!();
      }
      const stopped = await stopHere(t);
      expect(stopped).toContain(
        `Saved in ${join(keelHome, 'config.toml')}: ${Object.entries(expected)
          .map(([k, v]) => `${k} = ${v}`)
          .join(', ')}.`,
      );
      expect(saved()).toEqual(expected);
      expect(existsSync(join(home, '.config', 'systemd'))).toBe(false);
    },
  );
});
