/**
 * The conversations page: the episode stream, one day at a time in the owner's zone, each turn
 * with its door (the channel it came through), who spoke and when; a turn can be forgotten (its
 * words purged everywhere, through the purge page: see `purge.ts`).
 *
 * @module
 */
import type { Episode } from '@keel/memory';
import { html } from 'hono/html';
import { type Html, type PageContext, page, when } from './layout.js';

/** A day of the stream and the turns of it. */
export interface ConversationDay {
  /** `YYYY-MM-DD` in the owner's zone. */
  day: string;
  /** Its episodes, oldest first. */
  episodes: Episode[];
  /** The days that hold episodes (newest first), for the navigation. */
  days: string[];
}

function turn(ctx: PageContext, e: Episode): Html {
  const redacted = e.redacted_at !== null;
  return html`<li id="e${String(e.id)}" class="turn ${e.role} ${e.kind}">
<span class="door" title="the door it came through">${e.channel}</span>
<span class="when">${when(e.occurred_at, ctx.tz).slice(11)}</span>
<span class="who">${e.speaker ?? e.role}</span>${e.kind === 'conversation' ? '' : html` <span class="tag">${e.kind}</span>`}
<span class="text">${e.text}</span>${redacted ? html` <span class="tag">redacted</span>` : ''}
${
  e.kind === 'conversation' && !redacted && e.text.trim()
    ? html`<a class="danger small" href="/purge?episode=${String(e.id)}">forget this turn…</a>`
    : ''
}
</li>`;
}

/** The conversations page for one day. */
export function conversationsPage(ctx: PageContext, shown: ConversationDay): Html {
  const body = html`<nav class="days">${
    shown.days.length === 0
      ? html`<span class="empty">No episode yet.</span>`
      : shown.days.map(
          (d) =>
            html`<a href="/conversations?day=${d}"${d === shown.day ? html` aria-current="date"` : ''}>${d}</a>`,
        )
  }</nav>
<h2>${shown.day}</h2>
${
  shown.episodes.length === 0
    ? html`<p class="empty">Nothing was said that day.</p>`
    : html`<ol class="stream">${shown.episodes.map((e) => turn(ctx, e))}</ol>`
}`;
  return page(ctx, 'Conversations', '/conversations', body);
}
