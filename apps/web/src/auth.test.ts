import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import {
  CSRF_FIELD,
  newToken,
  type OwnerVariables,
  ownerOnly,
  SESSION_COOKIE,
  sameSecret,
  TOKEN_BYTES,
  type WebSession,
  webHeaders,
} from './auth.js';

const PORT = 40_123;
const HOST = `127.0.0.1:${PORT}`;

/** An app behind the gate with one page and one change. */
function gated() {
  const token = newToken();
  const sessions = new Map<string, WebSession>();
  const app = new Hono<{ Variables: OwnerVariables }>();
  const changes: string[] = [];
  app.use(webHeaders());
  app.use(ownerOnly({ token, port: PORT, sessions, open: ['/style.css'] }));
  app.get('/style.css', (c) => c.text('body {}'));
  app.get('/page', (c) => c.text(`page; csrf ${c.get('session').csrf}`));
  app.post('/change', (c) => {
    changes.push('changed');
    return c.text('changed');
  });
  const request = (path: string, init: RequestInit & { host?: string } = {}) => {
    const headers = new Headers(init.headers);
    headers.set('host', init.host ?? HOST);
    return app.request(`http://${HOST}${path}`, { ...init, headers });
  };
  /** Signs in with the token: the session cookie and its CSRF token. */
  const signIn = async () => {
    const r = await request(`/page?token=${token}`);
    const cookie = /keel_session=([^;]+)/.exec(r.headers.get('set-cookie') ?? '')![1]!;
    const csrf = [...sessions.values()].at(-1)!.csrf;
    return { cookie: `${SESSION_COOKIE}=${cookie}`, csrf };
  };
  const post = (
    cookie: string,
    fields: Record<string, string>,
    headers: Record<string, string> = {},
  ) =>
    request('/change', {
      method: 'POST',
      headers: {
        cookie,
        'content-type': 'application/x-www-form-urlencoded',
        ...headers,
      },
      body: new URLSearchParams(fields).toString(),
    });
  return { token, sessions, changes, request, signIn, post };
}

describe('the start token', () => {
  it('is 32 random bytes, new each time', () => {
    const a = newToken();
    expect(Buffer.from(a, 'base64url')).toHaveLength(TOKEN_BYTES);
    expect(newToken()).not.toBe(a);
  });

  it('sets an HttpOnly SameSite=Strict session cookie on Path=/ and redirects without the token', async () => {
    const g = gated();
    const r = await g.request(`/page?token=${g.token}&x=1`);
    expect(r.status).toBe(303);
    expect(r.headers.get('location')).toBe('/page?x=1');
    const cookie = r.headers.get('set-cookie') ?? '';
    expect(cookie).toMatch(/^keel_session=[\w-]{43}; /);
    expect(cookie).toContain('HttpOnly');
    expect(cookie).toContain('SameSite=Strict');
    expect(cookie).toContain('Path=/');
    expect(g.sessions.size).toBe(1);
  });

  it('a wrong token starts no session', async () => {
    const g = gated();
    const r = await g.request(`/page?token=${newToken()}`);
    expect(r.status).toBe(403);
    expect(r.headers.get('set-cookie')).toBeNull();
    expect(g.sessions.size).toBe(0);
  });
});

describe('the session cookie', () => {
  it('opens the pages; without it a request is refused with the fix', async () => {
    const g = gated();
    const { cookie } = await g.signIn();
    const ok = await g.request('/page', { headers: { cookie } });
    expect(ok.status).toBe(200);
    expect(await ok.text()).toMatch(/^page; csrf /);
    const none = await g.request('/page');
    expect(none.status).toBe(401);
    expect(await none.text()).toContain('Open the URL keel web printed');
    const forged = await g.request('/page', {
      headers: { cookie: `${SESSION_COOKIE}=x${newToken()}` },
    });
    expect(forged.status).toBe(401);
  });

  it('the style sheet needs none (it holds nothing of the owner’s)', async () => {
    const g = gated();
    expect((await g.request('/style.css')).status).toBe(200);
  });
});

describe('the Host header (DNS rebinding)', () => {
  it('must name the loopback address and port bound', async () => {
    const g = gated();
    const { cookie } = await g.signIn();
    for (const host of [HOST, `localhost:${PORT}`]) {
      expect((await g.request('/page', { host, headers: { cookie } })).status, host).toBe(200);
    }
    for (const host of [
      'evil.example',
      `evil.example:${PORT}`,
      '127.0.0.1:1',
      `127.0.0.1:${PORT}.evil`,
    ]) {
      const r = await g.request('/page', { host, headers: { cookie } });
      expect(r.status, host).toBe(403);
    }
    // Not even the token starts a session under a foreign name.
    const r = await g.request(`/page?token=${g.token}`, { host: 'evil.example' });
    expect(r.status).toBe(403);
    expect(r.headers.get('set-cookie')).toBeNull();
  });
});

describe('CSRF', () => {
  it('a POST with the session’s token changes; without it, or with another, nothing changes', async () => {
    const g = gated();
    const { cookie, csrf } = await g.signIn();
    expect((await g.post(cookie, {})).status).toBe(403);
    expect((await g.post(cookie, { [CSRF_FIELD]: newToken() })).status).toBe(403);
    expect(g.changes).toEqual([]);
    const ok = await g.post(cookie, { [CSRF_FIELD]: csrf });
    expect(ok.status).toBe(200);
    expect(g.changes).toEqual(['changed']);
  });

  it('a token is tied to its session', async () => {
    const g = gated();
    const first = await g.signIn();
    const second = await g.signIn();
    expect(first.csrf).not.toBe(second.csrf);
    expect((await g.post(second.cookie, { [CSRF_FIELD]: first.csrf })).status).toBe(403);
    expect((await g.post(second.cookie, { [CSRF_FIELD]: second.csrf })).status).toBe(200);
  });

  it('a foreign Origin or cross-site fetch is refused even with the token; this origin passes', async () => {
    const g = gated();
    const { cookie, csrf } = await g.signIn();
    const fields = { [CSRF_FIELD]: csrf };
    expect((await g.post(cookie, fields, { origin: 'http://evil.example' })).status).toBe(403);
    expect((await g.post(cookie, fields, { 'sec-fetch-site': 'cross-site' })).status).toBe(403);
    expect(g.changes).toEqual([]);
    expect((await g.post(cookie, fields, { origin: `http://${HOST}` })).status).toBe(200);
    expect(g.changes).toEqual(['changed']);
    // Under no-referrer a browser sends `Origin: null` for the page's own form: the token and
    // Sec-Fetch-Site decide.
    const own = { origin: 'null', 'sec-fetch-site': 'same-origin' };
    expect((await g.post(cookie, fields, own)).status).toBe(200);
    const framed = { origin: 'null', 'sec-fetch-site': 'cross-site' };
    expect((await g.post(cookie, fields, framed)).status).toBe(403);
    expect((await g.post(cookie, {}, own)).status).toBe(403);
    expect(g.changes).toEqual(['changed', 'changed']);
  });

  it('only GET and POST are answered', async () => {
    const g = gated();
    const { cookie } = await g.signIn();
    expect((await g.request('/change', { method: 'PUT', headers: { cookie } })).status).toBe(405);
    expect((await g.request('/change', { method: 'DELETE', headers: { cookie } })).status).toBe(
      405,
    );
  });
});

describe('headers', () => {
  it('every response, refusals included, carries a strict CSP, nosniff, no referrer, no store', async () => {
    const g = gated();
    for (const r of [await g.request('/page'), await g.request('/style.css')]) {
      const csp = r.headers.get('content-security-policy') ?? '';
      for (const d of [
        "default-src 'none'",
        "style-src 'self'",
        "img-src 'self' data:",
        "form-action 'self'",
        "frame-ancestors 'none'",
        "base-uri 'none'",
      ]) {
        expect(csp).toContain(d);
      }
      expect(csp).not.toContain('script-src');
      expect(r.headers.get('x-content-type-options')).toBe('nosniff');
      expect(r.headers.get('referrer-policy')).toBe('no-referrer');
      expect(r.headers.get('cache-control')).toBe('no-store');
    }
  });
});

describe('sameSecret', () => {
  it('is equality, whatever the lengths', () => {
    expect(sameSecret('abc', 'abc')).toBe(true);
    expect(sameSecret('abd', 'abc')).toBe(false);
    expect(sameSecret('ab', 'abc')).toBe(false);
    expect(sameSecret(undefined, 'abc')).toBe(false);
  });
});
