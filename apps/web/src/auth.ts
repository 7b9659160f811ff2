/**
 * Owner-only by construction: what every request to `keel web` passes before a page is read.
 *
 * - **Host** ({@link loopbackHosts}): the Host header must be exactly the loopback name and port
 *   the server bound (`127.0.0.1:<port>` or `localhost:<port>`), else 403: a page of another site
 *   that rebinds its name to 127.0.0.1 (DNS rebinding) reaches nothing.
 * - **Token → session**: the URL `keel web` prints carries a fresh random token (32 bytes, new
 *   each start). A request with it (compared in constant time) starts a session: an HttpOnly,
 *   SameSite=Strict cookie on Path=/, and a redirect to the same URL without the token, so it
 *   stays out of the history and of every later request. Without a known session cookie a request
 *   is refused (401) with the fix: open the URL keel web printed.
 * - **CSRF**: every state change is a POST carrying the session's own CSRF token in a hidden field
 *   (compared in constant time); an Origin header, when sent, must be this server's (or `null`,
 *   which the browser sends for this page's own forms under its no-referrer policy); a browser's
 *   Sec-Fetch-Site, when sent, must be same-origin. Any other method that is not GET or HEAD is
 *   refused (405).
 *
 * The headers every response carries (a strict Content-Security-Policy, nosniff, no referrer, no
 * store) are hono's `secureHeaders` ({@link webHeaders}).
 *
 * @module
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Context, MiddlewareHandler } from 'hono';
import { getCookie, setCookie } from 'hono/cookie';
import { secureHeaders } from 'hono/secure-headers';

/** The session cookie's name. */
export const SESSION_COOKIE = 'keel_session';
/** The hidden form field that carries the CSRF token. */
export const CSRF_FIELD = '_csrf';
/** Bytes of randomness in the start token, a session id and a CSRF token. */
export const TOKEN_BYTES = 32;

/** A fresh random token: {@link TOKEN_BYTES} bytes, base64url. */
export function newToken(): string {
  return randomBytes(TOKEN_BYTES).toString('base64url');
}

/** Whether `given` equals `expected`, in time that does not depend on where they differ. */
export function sameSecret(given: string | undefined | null, expected: string): boolean {
  if (typeof given !== 'string') return false;
  // Hashing first gives both sides one length, so the comparison leaks not even that.
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

/** The Host headers a server bound to 127.0.0.1:`port` answers to. */
export function loopbackHosts(port: number): readonly string[] {
  return [`127.0.0.1:${port}`, `localhost:${port}`];
}

/** One browser session of the owner's. */
export interface WebSession {
  /** The CSRF token its forms carry. */
  csrf: string;
  /** ms since epoch. */
  startedAt: number;
}

/** What the pages read from a request that passed {@link ownerOnly}. */
export type OwnerVariables = { session: WebSession };

/** Why a request was refused: the status and the words (with the fix) the refusal page shows. */
export interface Refusal {
  status: 401 | 403 | 405;
  title: string;
  detail: string;
  fix: string;
}

/** Renders a refusal (the app's page shell; plain text by default). */
export type RefusalPage = (c: Context, refusal: Refusal) => Response | Promise<Response>;

/** Options of {@link ownerOnly}. */
export interface OwnerOnlyOptions {
  /** The start token the printed URL carries. */
  token: string;
  /** The port the server bound on 127.0.0.1. */
  port: number;
  /** The sessions started so far (kept by the caller, for tests to look into). */
  sessions?: Map<string, WebSession>;
  /** Paths served without a session (the style sheet), the Host check still applies. */
  open?: readonly string[];
  /** How a refusal is shown. */
  refuse?: RefusalPage;
  /** The clock, ms since epoch. */
  now?: () => number;
}

const OPEN_THE_URL = 'Open the URL keel web printed (run keel web again for a new one).';

const plainRefusal: RefusalPage = (c, r) =>
  c.text(`${r.title}: ${r.detail}\nfix: ${r.fix}\n`, r.status);

/**
 * The owner-only gate (see the module's description): Host, then the start token or the session
 * cookie, then for a POST the CSRF token and Origin.
 */
export function ownerOnly(options: OwnerOnlyOptions): MiddlewareHandler<{
  Variables: OwnerVariables;
}> {
  const hosts = new Set(loopbackHosts(options.port));
  const sessions = options.sessions ?? new Map<string, WebSession>();
  const open = new Set(options.open ?? []);
  const refuse = options.refuse ?? plainRefusal;
  const now = options.now ?? Date.now;
  return async (c, next) => {
    const host = c.req.header('host') ?? '';
    if (!hosts.has(host)) {
      return refuse(c, {
        status: 403,
        title: 'Refused',
        detail: `this page answers only at http://127.0.0.1:${options.port}/ (the request named the host "${host}")`,
        fix: OPEN_THE_URL,
      });
    }
    if (open.has(c.req.path) && c.req.method === 'GET') return next();
    const url = new URL(c.req.url);
    const token = url.searchParams.get('token');
    if (token !== null) {
      if (c.req.method !== 'GET' || !sameSecret(token, options.token)) {
        return refuse(c, {
          status: 403,
          title: 'Refused',
          detail: 'the token in this URL is not the one this keel web printed',
          fix: OPEN_THE_URL,
        });
      }
      const id = newToken();
      sessions.set(id, { csrf: newToken(), startedAt: now() });
      setCookie(c, SESSION_COOKIE, id, { httpOnly: true, sameSite: 'Strict', path: '/' });
      url.searchParams.delete('token');
      return c.redirect(`${url.pathname}${url.search}`, 303);
    }
    const session = sessionOf(sessions, getCookie(c, SESSION_COOKIE));
    if (!session) {
      return refuse(c, {
        status: 401,
        title: 'Not signed in',
        detail: 'this browser has no session with this keel web',
        fix: OPEN_THE_URL,
      });
    }
    c.set('session', session);
    if (c.req.method === 'GET' || c.req.method === 'HEAD') return next();
    const refusal = c.req.method === 'POST' ? await forgery(c, host, session) : notAllowed();
    return refusal ? refuse(c, refusal) : next();
  };
}

/** The session a cookie names, if this server started it. */
function sessionOf(sessions: Map<string, WebSession>, id: string | undefined): WebSession | null {
  if (!id) return null;
  for (const [known, session] of sessions) if (sameSecret(id, known)) return session;
  return null;
}

function notAllowed(): Refusal {
  return {
    status: 405,
    title: 'Refused',
    detail: 'only GET and POST (from this page’s own forms) are answered',
    fix: 'Use the buttons on the page.',
  };
}

/**
 * Why a POST is not the owner's own form: a foreign Origin or Sec-Fetch-Site, or a CSRF token
 * that is missing or not this session's. Null when it is.
 */
async function forgery(c: Context, host: string, session: WebSession): Promise<Refusal | null> {
  const reload = 'Reload the page and try again from its own form.';
  const origin = c.req.header('origin');
  // `null`: an opaque origin. A browser sends it for this page's own forms because the page's
  // Referrer-Policy is no-referrer; it names no site, so the CSRF token and Sec-Fetch-Site decide.
  if (origin !== undefined && origin !== 'null' && origin !== `http://${host}`) {
    return {
      status: 403,
      title: 'Refused',
      detail: `a change sent from another site (${origin})`,
      fix: reload,
    };
  }
  const site = c.req.header('sec-fetch-site');
  if (site !== undefined && site !== 'same-origin' && site !== 'none') {
    return { status: 403, title: 'Refused', detail: `a change sent from ${site}`, fix: reload };
  }
  const body = await c.req.parseBody().catch(() => ({}) as Record<string, unknown>);
  const given = body[CSRF_FIELD];
  if (typeof given !== 'string' || !sameSecret(given, session.csrf)) {
    return {
      status: 403,
      title: 'Refused',
      detail: 'the change did not carry this page’s CSRF token',
      fix: reload,
    };
  }
  return null;
}

/**
 * The headers of every response (hono's `secureHeaders`): a Content-Security-Policy that allows
 * only this server's own style sheet and forms (no script at all), no framing, no base URI; plus
 * nosniff, no referrer, and no caching of a page that shows the owner's memory.
 */
export function webHeaders(): MiddlewareHandler {
  const secure = secureHeaders({
    contentSecurityPolicy: {
      defaultSrc: ["'none'"],
      styleSrc: ["'self'"],
      imgSrc: ["'self'", 'data:'],
      formAction: ["'self'"],
      frameAncestors: ["'none'"],
      baseUri: ["'none'"],
    },
    xContentTypeOptions: 'nosniff',
    referrerPolicy: 'no-referrer',
    xFrameOptions: 'DENY',
    strictTransportSecurity: false,
  });
  return async (c, next) => {
    await secure(c, async () => {
      await next();
    });
    c.header('Cache-Control', 'no-store');
  };
}
