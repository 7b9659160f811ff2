// `keel web` on the built CLI, in a real browser (Debian's Chromium through playwright-core)
// against a real KEEL_HOME seeded with the CLI: the printed URL's token opens the page and leaves
// the address bar; a belief shows its confidence and source; confirming a pending conflict changes
// the slot's value (its former value labelled so, the change journaled as the owner on the page);
// a purged value is found on no page while a control value still is; a request without the cookie,
// one naming a foreign host, and a change without the CSRF token are refused. Screenshots of the
// beliefs page and of a belief's history go to tests/output/web/.

import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, keel, ROOT, tempHome } from '../support/cli.js';

const CHROMIUM = '/usr/bin/chromium';
const OUTPUT = join(ROOT, 'tests', 'output', 'web');
/** What the purge must erase everywhere, and what must stay. */
const PURGED = 'Quillhaven';
const CONTROL = 'Lisbon';
const ENV = { KEEL_EMBEDDER: 'none', ANTHROPIC_API_KEY: '', OPENAI_API_KEY: '' };

let home: string;
let cleanup: () => void;
let web: ChildProcess;
let url: URL;
let origin: string;
let context: BrowserContext;
let page: Page;
let userData: string;
let stderr = '';

/** Starts `keel web --json` and resolves to the URL it prints. */
function startWeb(): Promise<URL> {
  web = spawn(process.execPath, [CLI, 'web', '--json'], {
    env: { ...process.env, KEEL_HOME: home, ...ENV },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  web.stderr!.on('data', (d) => {
    stderr += d;
  });
  return new Promise((resolve, reject) => {
    let out = '';
    web.stdout!.on('data', (d) => {
      out += d;
      const line = out.split('\n')[0];
      if (out.includes('\n') && line) resolve(new URL((JSON.parse(line) as { url: string }).url));
    });
    web.on('exit', (code) => reject(new Error(`keel web exited ${code}: ${stderr}`)));
  });
}

/** A plain HTTP request (not the browser): status and body. */
function plain(
  path: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: Number(url.port),
        path,
        method: options.method ?? 'GET',
        headers: options.headers ?? {},
      },
      (res) => {
        let body = '';
        res.on('data', (d) => {
          body += d;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

/** The page's HTML at `path`, as the browser got it. */
async function html(path: string): Promise<string> {
  const r = await page.goto(`${origin}${path}`);
  expect(r?.status(), path).toBe(200);
  return page.content();
}

/** The id of the current belief of `slot` (`kind/key`), from the beliefs page. */
async function beliefId(slot: string): Promise<number> {
  await page.goto(`${origin}/beliefs`);
  const row = page
    .locator('tr.belief.active')
    .filter({ has: page.locator('td.slot', { hasText: new RegExp(`^${slot}$`) }) });
  return Number(await row.getAttribute('data-fact'));
}

/** The control belief's id (profile/city). */
const cityId = () => beliefId('profile/city');

beforeAll(async () => {
  ({ home, cleanup } = tempHome());
  mkdirSync(OUTPUT, { recursive: true });
  const said = (args: string[]) => expect(keel(home, args, '', ENV).status, args.join(' ')).toBe(0);
  said(['remember', 'preference/coffee', 'oat', 'flat', 'white']);
  said(['remember', '--source', 'inferred', 'preference/coffee', 'black', 'coffee']);
  said(['remember', 'profile/city', CONTROL]);
  said(['remember', 'profile/gym', PURGED]);
  said(['ask', `I train at the ${PURGED} gym on Tuesdays`]);
  said(['ask', `I live in ${CONTROL} near the river`]);
  said(['think', '--once']);
  url = await startWeb();
  origin = url.origin;
  userData = mkdtempSync(join(tmpdir(), 'keel-web-chromium-'));
  context = await chromium.launchPersistentContext(userData, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  page = context.pages()[0] ?? (await context.newPage());
}, 240_000);

afterAll(async () => {
  await context?.close();
  web?.kill('SIGTERM');
  if (web && web.exitCode === null) await new Promise((r) => web.once('exit', r));
  rmSync(userData, { recursive: true, force: true });
  cleanup();
});

describe('keel web', { timeout: 240_000 }, () => {
  it('binds 127.0.0.1 and prints a URL with a fresh 32-byte token', () => {
    expect(url.hostname).toBe('127.0.0.1');
    const token = url.searchParams.get('token') ?? '';
    expect(Buffer.from(token, 'base64url')).toHaveLength(32);
  });

  it('keel doctor lists the running page by its address, never its token', () => {
    const r = keel(home, ['doctor', '--offline', '--json'], '', ENV);
    const report = JSON.parse(r.stdout) as { checks: { name: string; detail: string }[] };
    const servers = report.checks.find((c) => c.name === 'servers');
    expect(servers?.detail).toContain(`web page at ${origin}/`);
    expect(r.stdout).not.toContain(url.searchParams.get('token'));
  });

  it('the token opens the page and leaves the address bar; a belief shows its confidence and source', async () => {
    await page.goto(url.href);
    expect(page.url()).toBe(`${origin}/beliefs`);
    const cookies = await context.cookies(origin);
    const session = cookies.find((c) => c.name === 'keel_session');
    expect(session).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/' });
    const row = page.locator(`tr.belief[data-fact="${await cityId()}"]`);
    expect(await row.locator('.value').textContent()).toBe(CONTROL);
    expect(await row.locator('.confidence').textContent()).toContain('1.00');
    expect(await row.locator('meter').getAttribute('value')).toBe('1.00');
    expect(await row.locator('.source').textContent()).toBe('owner_stated');
    await page.screenshot({ path: join(OUTPUT, 'beliefs.png'), fullPage: true });
  });

  it('search is keel recall, naming its mode', async () => {
    await page.goto(`${origin}/beliefs?q=coffee`);
    expect(await page.locator('.mode').textContent()).toMatch(/^recall: lexical/);
    expect(await page.locator('tr.belief').count()).toBeGreaterThan(0);
    expect(await page.locator('tr.belief', { hasText: CONTROL }).count()).toBe(0);
  });

  it('confirming a pending conflict changes the slot’s value; its history says why', async () => {
    await page.goto(`${origin}/review`);
    const conflict = page.locator('article.conflict', { hasText: 'black coffee' });
    expect(await conflict.locator('.side').nth(1).textContent()).toContain('oat flat white');
    await conflict.getByRole('button', { name: 'Confirm' }).click();
    await page.waitForURL(/\/review\?notice=/);
    expect(await page.locator('.notice').textContent()).toMatch(
      /^confirmed f\d+; it supersedes f\d+/,
    );
    expect(await page.locator('article.conflict').count()).toBe(0);

    const id = await beliefId('preference/coffee');
    expect(await page.locator('tr.belief', { hasText: 'oat flat white' }).count()).toBe(0);
    await page.goto(`${origin}/beliefs/${id}`);
    expect(await page.locator('.summary .value').textContent()).toBe('black coffee');
    expect(await page.locator('.summary').textContent()).toContain('owner_confirmed');
    const former = page.locator('.chain li.superseded');
    expect(await former.locator('.label').textContent()).toBe('former');
    expect(await former.locator('.value').textContent()).toBe('oat flat white');
    // The journal names who made each change: the confirmation was the owner, on this page.
    const confirm = page.locator('table.journal tr', { hasText: 'confirm' });
    expect(await confirm.first().locator('.actor').textContent()).toBe('you, on this page');
    expect(await page.locator('ul.evidence li').count()).toBeGreaterThan(0);
    await page.screenshot({ path: join(OUTPUT, 'belief-history.png'), fullPage: true });
  });

  it('a purged value is found on no page; the control still is', async () => {
    const id = await beliefId('profile/gym');
    await page.goto(`${origin}/beliefs/${id}`);
    await page.getByRole('link', { name: /Purge its value everywhere/ }).click();
    await page.waitForURL(/\/purge\?fact=/);
    // It asks first, listing what it will reach.
    expect(Number(await page.locator('table.mentions tbody tr').count())).toBeGreaterThan(1);
    expect(await page.locator('table.mentions').textContent()).toContain(PURGED);
    await page.getByRole('button', { name: 'Erase all of it' }).click();
    await page.waitForURL(/\/beliefs\?notice=/);
    expect(await page.locator('.notice').textContent()).toMatch(/^forgot and purged f\d+/);

    const listed = await html('/beliefs');
    const ids = [...listed.matchAll(/data-fact="(\d+)"/g)].map((m) => Number(m[1]));
    const maxId = Math.max(...ids, id);
    const days = [
      ...(await html('/conversations')).matchAll(/href="\/conversations\?day=([\d-]+)"/g),
    ].map((m) => m[1]!);
    expect(days.length).toBeGreaterThan(0);
    const pages = [
      '/beliefs',
      '/review',
      '/think',
      '/health',
      `/purge?fact=${id}`,
      ...days.map((d) => `/conversations?day=${d}`),
      ...Array.from({ length: maxId }, (_, i) => `/beliefs/${i + 1}`),
    ];
    const seen: string[] = [];
    for (const path of pages) {
      const text = await html(path);
      expect(text.toLowerCase(), path).not.toContain(PURGED.toLowerCase());
      if (text.includes(CONTROL)) seen.push(path);
    }
    // Searched for, it is found nowhere (the search box echoes only what the owner typed).
    await html(`/beliefs?q=${PURGED.toLowerCase()}`);
    expect(await page.locator('section.search').textContent()).toContain('No belief matches.');
    await html(`/beliefs?q=${CONTROL.toLowerCase()}`);
    expect(await page.locator('section.search table.beliefs').textContent()).toContain(CONTROL);
    // The control is still on the beliefs page, its own belief's page and the conversation.
    expect(seen).toContain('/beliefs');
    expect(seen.some((p) => p.startsWith('/conversations'))).toBe(true);
    expect(seen.some((p) => /^\/beliefs\/\d+$/.test(p))).toBe(true);
  });

  it('refuses a request without the cookie, one naming a foreign host, and a change without CSRF', async () => {
    const none = await plain('/beliefs');
    expect(none.status).toBe(401);
    expect(none.body).toContain('Open the URL keel web printed');
    expect(none.body).not.toContain(CONTROL);

    const cookie = (await context.cookies(origin)).find((c) => c.name === 'keel_session')!;
    const header = { cookie: `keel_session=${cookie.value}` };
    const ok = await plain('/beliefs', { headers: header });
    expect(ok.status).toBe(200);
    expect(ok.body).toContain(CONTROL);

    const rebound = await plain('/beliefs', {
      headers: { ...header, host: `evil.example:${url.port}` },
    });
    expect(rebound.status).toBe(403);
    expect(rebound.body).not.toContain(CONTROL);

    const id = await cityId();
    const form = { ...header, 'content-type': 'application/x-www-form-urlencoded' };
    const forged = await plain(`/beliefs/${id}/reject`, {
      method: 'POST',
      headers: form,
      body: '',
    });
    expect(forged.status).toBe(403);
    const foreign = await plain(`/beliefs/${id}/reject`, {
      method: 'POST',
      headers: { ...form, origin: 'http://evil.example' },
      body: '_csrf=x',
    });
    expect(foreign.status).toBe(403);
    // Nothing changed: the control is still a current belief.
    await page.goto(`${origin}/beliefs`);
    expect(await page.locator(`tr.belief.active[data-fact="${id}"]`).count()).toBe(1);
  });
});
