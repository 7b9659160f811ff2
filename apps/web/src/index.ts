/**
 * `@keel/web`: the owner's memory in a local browser page (`keel web`). Server-rendered pages
 * (beliefs, a belief's why, review, purge, conversations, think, health) behind an owner-only
 * gate: 127.0.0.1 only, a start token that becomes an HttpOnly SameSite=Strict session cookie,
 * CSRF tokens on every change, the Host header checked against DNS rebinding, a strict
 * Content-Security-Policy. The process entry is `main.ts`.
 *
 * @module
 */

export { type WebAppOptions, type WebEnv, webApp } from './app.js';
export { parseWebArgs, type WebArgs } from './args.js';
export {
  CSRF_FIELD,
  loopbackHosts,
  newToken,
  type OwnerOnlyOptions,
  ownerOnly,
  SESSION_COOKIE,
  sameSecret,
  TOKEN_BYTES,
  type WebSession,
  webHeaders,
} from './auth.js';
export { openWebKeel, type WebKeel } from './keel.js';
export { LOOPBACK, type RunningWeb, type StartWebOptions, startWeb } from './server.js';
