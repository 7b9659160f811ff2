// The web app over a real KEEL_HOME: it says plainly what cannot work and still shows what it can
// (no chat model; a damaged database, read only, every change refused and nothing changed).

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readConfig } from '@keel/host';
import { MemoryStore } from '@keel/memory';
import { afterEach, describe, expect, it } from 'vitest';
import { webApp } from './app.js';
import { CSRF_FIELD, newToken, type WebSession } from './auth.js';
import { openWebKeel, type WebKeel } from './keel.js';

const PORT = 40_321;
const HOST = `127.0.0.1:${PORT}`;
const homes: string[] = [];
const opened: WebKeel[] = [];

afterEach(() => {
  for (const k of opened.splice(0)) k.close();
  for (const h of homes.splice(0)) rmSync(h, { recursive: true, force: true });
});

/** A KEEL_HOME holding many beliefs (so a damaged page lands inside them) and a control. */
function seededHome(): string {
  const home = mkdtempSync(join(tmpdir(), 'keel-web-'));
  homes.push(home);
  const store = MemoryStore.open(join(home, 'keel.db'));
  store.remember({ kind: 'profile', key: 'city', value: 'Lisbon', source: 'owner_stated' });
  for (let i = 0; i < 200; i++) {
    store.remember({
      kind: 'note',
      key: `n${i}`,
      value: `value number ${i} `.repeat(40),
      source: 'owner_stated',
    });
  }
  store.close();
  return home;
}

function config(home: string) {
  return readConfig({
    KEEL_HOME: home,
    KEEL_EMBEDDER: 'none',
    ANTHROPIC_API_KEY: '',
    OPENAI_API_KEY: '',
    OLLAMA_HOST: 'http://127.0.0.1:9',
  });
}

/** The app over `home`, signed in: a request helper with the session cookie and its CSRF token. */
async function signedIn(home: string) {
  const keel = await openWebKeel(config(home));
  opened.push(keel);
  const token = newToken();
  const sessions = new Map<string, WebSession>();
  const app = webApp({
    keel,
    token,
    port: PORT,
    sessions,
    health: async () => {
      throw new Error('not asked');
    },
  });
  const first = await app.request(`http://${HOST}/beliefs?token=${token}`, {
    headers: { host: HOST },
  });
  const cookie = /keel_session=([^;]+)/.exec(first.headers.get('set-cookie') ?? '')![1]!;
  const csrf = [...sessions.values()][0]!.csrf;
  const get = (path: string) =>
    app.request(`http://${HOST}${path}`, {
      headers: { host: HOST, cookie: `keel_session=${cookie}` },
    });
  const post = (path: string) =>
    app.request(`http://${HOST}${path}`, {
      method: 'POST',
      headers: {
        host: HOST,
        cookie: `keel_session=${cookie}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ [CSRF_FIELD]: csrf }).toString(),
    });
  return { keel, get, post };
}

describe('what cannot work is said, and the rest is shown', () => {
  it('no chat model: every page says so; the beliefs are shown', async () => {
    const { get } = await signedIn(seededHome());
    const r = await get('/beliefs?kind=profile');
    expect(r.status).toBe(200);
    const body = await r.text();
    expect(body).toContain('No chat model is configured');
    expect(body).toContain('Lisbon');
  });

  it('a damaged database: read only, said on every page; a change is refused and nothing changes', async () => {
    const home = seededHome();
    const db = join(home, 'keel.db');
    const bytes = readFileSync(db);
    bytes.fill(0xff, Math.floor(bytes.length / 2), Math.floor(bytes.length / 2) + 16_384);
    writeFileSync(db, bytes);
    const { keel, get, post } = await signedIn(home);
    expect(keel.readOnly).toMatch(/damaged/);
    const page = await get('/health');
    expect(await page.text()).toContain('The database is damaged');
    const refused = await post('/beliefs/1/reject');
    expect(refused.status).toBe(400);
    const text = await refused.text();
    expect(text).toContain('DB_CORRUPT');
    expect(text).toContain('Nothing was changed');
    expect(keel.store?.fact(1)?.status).toBe('active');
  });
});
