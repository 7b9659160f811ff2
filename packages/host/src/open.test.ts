// openKeel wires every door the same way: the store with the configured embedder bound (the fake
// Ollama on 127.0.0.1 embeds), the chat model only when asked, the gate chooser bound to the
// configured host and model, and the owner notifier.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KeelError } from '@keel/errors';
import { DEFAULT_GATE_MODEL } from '@keel/gate';
import { MemoryStore } from '@keel/memory';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { FakeDiscord } from '../../../tests/support/fake-discord.js';
import { refusedPort } from '../../../tests/support/fake-hub.js';
import { bagOfWordsVector, startFakeOllama } from '../../../tests/support/fake-ollama.js';
import { loadConfig } from './config.js';
import { keepRecallWarm, openKeel } from './open.js';

const closers: (() => unknown)[] = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

function tempHome(): string {
  const home = mkdtempSync(join(tmpdir(), 'keel-host-open-'));
  closers.push(() => rmSync(home, { recursive: true, force: true }));
  return home;
}

async function fakeOllama(models = ['nomic-embed-text:latest']) {
  const ollama = await startFakeOllama({ models });
  closers.push(() => ollama.close());
  return ollama;
}

describe('openKeel', () => {
  it('binds the configured embedder, so recall is hybrid (a plain open is lexical)', async () => {
    const ollama = await fakeOllama();
    const home = tempHome();
    // Control: the store as Discord and think used to open it, with no embedder bound.
    const plain = MemoryStore.openHome(home);
    expect(plain.stats().mode).toBe('lexical');
    plain.close();

    const config = loadConfig({
      KEEL_HOME: home,
      KEEL_EMBEDDER: 'ollama',
      OLLAMA_HOST: ollama.url,
    });
    const keel = await openKeel(config);
    closers.push(() => keel.close());
    expect(keel.store.stats().mode).toBe('hybrid');
    expect(keel.embedder.name).toBe('ollama nomic-embed-text');
    expect(keel.chat).toBeNull();
    keel.store.addEpisode({
      channel: 'discord',
      role: 'owner',
      text: 'my sister Ada lives in Lyon',
    });
    const r = await keel.store.recall('where does Ada live', { limit: 3 });
    expect(r.mode).toBe('hybrid');
    expect(ollama.requests.some((q) => q.path === '/api/embed')).toBe(true);
  });

  it('runs lexical and says why when no embedder is configured or none can run', async () => {
    const home = tempHome();
    const none = await openKeel(loadConfig({ KEEL_HOME: home, KEEL_EMBEDDER: 'none' }));
    expect(none.store.stats().mode).toBe('lexical');
    expect(none.embedder).toEqual({
      name: null,
      reason: 'embedder set to none (KEEL_EMBEDDER=none)',
    });
    none.close();
    const port = await refusedPort();
    const down = await openKeel(
      loadConfig({
        KEEL_HOME: home,
        KEEL_EMBEDDER: 'ollama',
        OLLAMA_HOST: `http://127.0.0.1:${port}`,
      }),
    );
    expect(down.store.stats().mode).toBe('lexical');
    expect(down.embedder.reason).toMatch(/^EMBEDDER_UNAVAILABLE: /);
    down.close();
  });

  it('chooses the chat model only when asked', async () => {
    const ollama = await fakeOllama(['llama3.1:latest']);
    const config = loadConfig({
      KEEL_HOME: tempHome(),
      KEEL_EMBEDDER: 'none',
      OLLAMA_HOST: ollama.url,
      ANTHROPIC_API_KEY: '',
      OPENAI_API_KEY: '',
    });
    const bare = await openKeel(config);
    bare.close();
    expect(bare.chat).toBeNull();
    expect(ollama.requests).toEqual([]); // nothing probed
    const keel = await openKeel(config, { chat: true });
    keel.close();
    expect(keel.chat).toMatchObject({
      provider: 'ollama',
      reason: `Ollama answers at ${ollama.url}`,
    });
    expect(keel.chat.model?.model).toBe('llama3.1');
    // a provider error opens nothing
    const bad = loadConfig({ KEEL_HOME: tempHome(), KEEL_CHAT_PROVIDER: 'anthropic' });
    await expect(openKeel(bad, { chat: true })).rejects.toMatchObject({ code: 'MODEL_AUTH' });
  });

  it('binds the gate chooser to the configured Ollama host and gate model', async () => {
    const ollama = await fakeOllama([`${DEFAULT_GATE_MODEL}`]);
    const home = tempHome();
    const keel = await openKeel(
      loadConfig({ KEEL_HOME: home, KEEL_EMBEDDER: 'none', OLLAMA_HOST: ollama.url }),
    );
    closers.push(() => keel.close());
    const chosen = await keel.chooseGate();
    expect(chosen.why).toBe(`belief gate: ollama (${DEFAULT_GATE_MODEL} at ${ollama.url})`);
    const other = await openKeel(
      loadConfig({
        KEEL_HOME: home,
        KEEL_EMBEDDER: 'none',
        OLLAMA_HOST: ollama.url,
        KEEL_GATE_MODEL: 'tiny-gate',
      }),
    );
    closers.push(() => other.close());
    expect((await other.chooseGate()).why).toContain('has no model "tiny-gate"');
  });

  it('gives the owner notifier only with a token and an owner id, and it DMs the owner', async () => {
    const home = tempHome();
    const without = await openKeel(loadConfig({ KEEL_HOME: home, KEEL_EMBEDDER: 'none' }));
    without.close();
    expect(without.owner.notify).toBeNull();
    expect(without.owner.reason).toBe(
      'DISCORD_TOKEN and KEEL_DISCORD_OWNER_ID are not both set: nothing urgent is sent to the owner',
    );
    const discord = await FakeDiscord.start();
    closers.push(() => discord.close());
    const keel = await openKeel(
      loadConfig({
        KEEL_HOME: home,
        KEEL_EMBEDDER: 'none',
        DISCORD_TOKEN: 'test-token',
        KEEL_DISCORD_OWNER_ID: '123456789012345678',
        KEEL_DISCORD_API_URL: discord.apiUrl,
      }),
    );
    keel.close();
    await keel.owner.notify!('Take the bins out');
    const posted = discord.requests.filter(
      (r) => r.method === 'POST' && /\/channels\/\d+\/messages$/.test(r.path),
    );
    expect(posted.map((r) => (r.body as { content: string }).content)).toEqual([
      'Take the bins out',
    ]);
  });

  it('an embedder of another dimension: an error for the CLI, lexical and saying why for a service', async () => {
    const ollama = await fakeOllama();
    const home = tempHome();
    const config = loadConfig({
      KEEL_HOME: home,
      KEEL_EMBEDDER: 'ollama',
      OLLAMA_HOST: ollama.url,
    });
    (await openKeel(config)).close(); // the store now holds 16-d vectors' fingerprint
    ollama.setEmbed((input) => input.map((t) => bagOfWordsVector(t, 8)));

    const err = await openKeel(config).catch((e: unknown) => e);
    expect(KeelError.isInstance(err) && err.code).toBe('EMBEDDER_MISMATCH');
    const keel = await openKeel(config, { onEmbedderError: 'lexical' });
    closers.push(() => keel.close());
    expect(keel.store.stats().mode).toBe('lexical');
    expect(keel.embedder.name).toBeNull();
    expect(keel.embedder.reason).toMatch(/^EMBEDDER_MISMATCH: .*keel reindex/);
  });
});

describe('keepRecallWarm', () => {
  const seed = (store: MemoryStore) => {
    for (let i = 0; i < 50; i++) {
      store.addEpisode({ channel: 'terminal', role: 'owner', text: `turn ${i} about tea` });
    }
    store.addEpisode({ channel: 'terminal', role: 'owner', text: 'a flat white, no sugar' });
  };

  it("builds recall's indexes on idle timers, and a door that asks for it gets it", async () => {
    const home = tempHome();
    // Control: a store nobody warms is not built (one step of no time does not finish it).
    const cold = MemoryStore.openHome(home);
    seed(cold);
    expect(cold.warmRecall(0)).toBe(false);
    cold.close();

    const store = MemoryStore.openHome(home);
    closers.push(() => store.close());
    // Watched, not polled: a poll that calls warmRecall would build the indexes itself.
    const built = (s: MemoryStore) => {
      const spy = vi.spyOn(s, 'warmRecall');
      return () => spy.mock.results.some((x) => x.type === 'return' && x.value === true);
    };
    const warmed = built(store);
    const stop = keepRecallWarm(store, { stepMs: 0, idleMs: 60_000 });
    closers.push(stop);
    await expect.poll(warmed, { timeout: 30_000 }).toBe(true);
    const r = await store.recall('a flat white?', { limit: 3, type: 'episode' });
    expect(r.results.map((x) => x.ref)).toEqual(['e51']);

    const keel = await openKeel(loadConfig({ KEEL_HOME: home }), { warmRecall: true });
    closers.push(() => keel.close());
    const doorWarmed = built(keel.store);
    await expect.poll(doorWarmed, { timeout: 30_000 }).toBe(true);
  });

  it('stops: no step runs after the stop', async () => {
    const home = tempHome();
    const store = MemoryStore.openHome(home);
    closers.push(() => store.close());
    seed(store);
    const stop = keepRecallWarm(store, { stepMs: 0, idleMs: 0 });
    stop();
    await new Promise((r) => setTimeout(r, 50));
    expect(store.warmRecall(0)).toBe(false);
  });

  it('ends by itself when the store is closed without stopping it first', async () => {
    const home = tempHome();
    const store = MemoryStore.openHome(home);
    seed(store);
    const spy = vi.spyOn(store, 'warmRecall');
    const stop = keepRecallWarm(store, { stepMs: 0, idleMs: 0 });
    closers.push(stop);
    await expect.poll(() => spy.mock.calls.length).toBeGreaterThan(0);
    store.close();
    const calls = spy.mock.calls.length;
    await new Promise((r) => setTimeout(r, 100));
    // At most the step already scheduled when it closed; a loop would have run hundreds.
    expect(spy.mock.calls.length - calls).toBeLessThanOrEqual(1);
  });
});
