/**
 * The page shell and the small parts every page shares: the navigation, the banners that say what
 * cannot work (a damaged database, no model), a POST form that carries the CSRF token, a belief's
 * confidence bar, times in the owner's zone. Every value goes through hono's `html` template,
 * which escapes it; nothing here escapes by hand.
 *
 * @module
 */
import { humanAge, localStamp } from '@keel/language';
import type { Fact } from '@keel/memory';
import { html } from 'hono/html';
import type { HtmlEscapedString } from 'hono/utils/html';
import { CSRF_FIELD } from '../auth.js';

/** What a view returns: escaped HTML (hono's `html` template). */
export type Html = HtmlEscapedString | Promise<HtmlEscapedString>;

/** What every page knows of the request and of keel. */
export interface PageContext {
  /** The session's CSRF token, for the forms. */
  csrf: string;
  /** The owner's zone (IANA), for times. */
  tz: string;
  /** The clock, ms since epoch. */
  now: number;
  /** What cannot work, each said plainly at the top of every page. */
  banners: string[];
  /** A short notice of what the last action did (from the redirect). */
  notice: string | null;
  /** This page's path and query (without the notice): where an action sends the browser back. */
  path: string;
}

const NAV = [
  ['/beliefs', 'Beliefs'],
  ['/review', 'Review'],
  ['/conversations', 'Conversations'],
  ['/think', 'Think'],
  ['/health', 'Health'],
] as const;

/** The page shell: title, navigation, banners, notice, then `body`. */
export function page(ctx: PageContext, title: string, current: string, body: Html): Html {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · keel</title>
<link rel="stylesheet" href="/style.css">
</head>
<body>
<header>
<span class="brand">keel</span>
<nav>${NAV.map(
    ([href, label]) =>
      html`<a href="${href}"${current === href ? html` aria-current="page"` : ''}>${label}</a>`,
  )}</nav>
</header>
<main>
${ctx.banners.map((b) => html`<p class="banner" role="alert">${b}</p>`)}
${ctx.notice ? html`<p class="notice" role="status">${ctx.notice}</p>` : ''}
<h1>${title}</h1>
${body}
</main>
</body>
</html>`;
}

/** A refusal or error page (no navigation when the browser has no session). */
export function messagePage(title: string, detail: string, fix: string, code?: string): Html {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>${title} · keel</title>
<link rel="stylesheet" href="/style.css">
</head>
<body>
<main>
<h1>${title}</h1>
<p class="detail">${code ? html`<code>${code}</code> ` : ''}${detail}</p>
<p class="fix">fix: ${fix}</p>
</main>
</body>
</html>`;
}

/**
 * A POST form with the CSRF token and one button; `fields` are more hidden fields. `danger` marks
 * a button that erases or forgets.
 */
export function postButton(
  ctx: PageContext,
  action: string,
  label: string,
  options: { fields?: Record<string, string | number>; danger?: boolean } = {},
): Html {
  return html`<form method="post" action="${action}" class="inline">
<input type="hidden" name="${CSRF_FIELD}" value="${ctx.csrf}">
<input type="hidden" name="back" value="${ctx.path}">
${Object.entries(options.fields ?? {}).map(
  ([name, value]) => html`<input type="hidden" name="${name}" value="${String(value)}">`,
)}<button type="submit"${options.danger ? html` class="danger"` : ''}>${label}</button>
</form>`;
}

/** The hidden CSRF field (and where to come back to), for a form a page builds itself. */
export function csrfField(ctx: PageContext): Html {
  return html`<input type="hidden" name="${CSRF_FIELD}" value="${ctx.csrf}"><input type="hidden" name="back" value="${ctx.path}">`;
}

/** How sure keel is: a bar (`<meter>`, no script or inline style) and the number. */
export function confidenceBar(confidence: number): Html {
  return html`<span class="confidence"><meter min="0" max="1" low="0.5" high="0.75" optimum="1" value="${confidence.toFixed(2)}" title="confidence ${confidence.toFixed(2)}"></meter> ${confidence.toFixed(2)}</span>`;
}

/** `ms` in the owner's zone: `2026-11-29 23:50 (Sun)`. */
export function when(ms: number, tz: string): string {
  return localStamp(ms, tz);
}

/** How long ago: `3d ago`, `just now`. */
export function ago(ms: number, now: number): string {
  return now - ms < 60_000 ? 'just now' : `${humanAge(now - ms)} ago`;
}

/** A belief's validity in words: `since 2026-03-01`, `until …`, or `open`. */
export function validity(f: Pick<Fact, 'valid_from' | 'valid_to'>, tz: string): string {
  const from = f.valid_from === null ? null : localStamp(f.valid_from, tz).slice(0, 10);
  const to = f.valid_to === null ? null : localStamp(f.valid_to, tz).slice(0, 10);
  if (from && to) return `${from} – ${to}`;
  if (from) return `since ${from}`;
  if (to) return `until ${to}`;
  return 'open';
}

/** A belief's slot as the CLI names it: `preference/coffee` (with `agent:` for keel's own). */
export function slotName(f: Pick<Fact, 'scope' | 'kind' | 'key'>): string {
  return `${f.scope === 'agent' ? 'agent:' : ''}${f.kind}/${f.key}`;
}

/** The shown value of a belief: its text, or that a purge erased it. */
export function shownValue(f: Pick<Fact, 'value' | 'purged_at'>): string {
  return f.purged_at !== null ? '[purged]' : f.value;
}

/** A link to a belief's page. */
export function beliefLink(f: Pick<Fact, 'id'>): Html {
  return html`<a href="/beliefs/${String(f.id)}">f${String(f.id)}</a>`;
}
