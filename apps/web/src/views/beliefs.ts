/**
 * The beliefs page: every current belief (and every pending conflict) with its confidence, its
 * evidence count, its source, its age and its validity, filtered by kind, source and least
 * confidence; and a search that is keel's one recall (`MemoryStore.recall`, as `keel recall`
 * calls it), with the recall mode it ran in (lexical or hybrid) and why.
 *
 * @module
 */
import {
  type BeliefListing,
  type Fact,
  KINDS,
  type Kind,
  type RecallResponse,
  SOURCES,
  type Source,
} from '@keel/memory';
import { html } from 'hono/html';
import {
  ago,
  beliefLink,
  confidenceBar,
  type Html,
  type PageContext,
  page,
  shownValue,
  slotName,
  validity,
  when,
} from './layout.js';

/** The beliefs page's filter, as its form sends it. */
export interface BeliefQuery {
  kind?: Kind;
  source?: Source;
  /** Least confidence, 0..1. */
  min?: number;
  /** A search: recall over facts. */
  q?: string;
}

/** Reads the filter from a query string; what is not a kind, a source or a number is left out. */
export function beliefQuery(query: Record<string, string | undefined>): BeliefQuery {
  const out: BeliefQuery = {};
  if (query.kind && (KINDS as readonly string[]).includes(query.kind)) {
    out.kind = query.kind as Kind;
  }
  if (query.source && (SOURCES as readonly string[]).includes(query.source)) {
    out.source = query.source as Source;
  }
  const min = query.min === undefined || query.min === '' ? Number.NaN : Number(query.min);
  if (Number.isFinite(min) && min >= 0 && min <= 1) out.min = min;
  if (query.q?.trim()) out.q = query.q.trim();
  return out;
}

function options<T extends string>(all: readonly T[], chosen: T | undefined): Html {
  return html`<option value="">any</option>${all.map(
    (v) => html`<option value="${v}"${v === chosen ? html` selected` : ''}>${v}</option>`,
  )}`;
}

function filterForm(q: BeliefQuery): Html {
  return html`<form method="get" action="/beliefs" class="filters">
<label>search <input type="search" name="q" value="${q.q ?? ''}" placeholder="recall, as keel recall does"></label>
<label>kind <select name="kind">${options(KINDS, q.kind)}</select></label>
<label>source <select name="source">${options(SOURCES, q.source)}</select></label>
<label>least confidence <input type="number" name="min" min="0" max="1" step="0.05" value="${q.min === undefined ? '' : String(q.min)}"></label>
<button type="submit">show</button> <a href="/beliefs">clear</a>
</form>`;
}

/** One belief as a table row. */
export function beliefRow(f: Fact, ctx: PageContext): Html {
  return html`<tr class="belief ${f.status}" data-fact="${String(f.id)}">
<td>${beliefLink(f)}</td>
<td class="slot">${slotName(f)}</td>
<td class="value">${shownValue(f)}${
    f.status === 'pending'
      ? html` <span class="tag">pending: contradicts ${f.conflicts_with_id === null ? 'a belief' : html`<a href="/beliefs/${String(f.conflicts_with_id)}">f${String(f.conflicts_with_id)}</a>`}</span>`
      : ''
  }</td>
<td>${confidenceBar(f.confidence)}</td>
<td class="num">${String(f.evidence_count)}</td>
<td class="source">${f.source}</td>
<td title="${when(f.last_seen_at, ctx.tz)}">${ago(f.last_seen_at, ctx.now)}</td>
<td>${validity(f, ctx.tz)}</td>
</tr>`;
}

/** The table of beliefs. */
export function beliefTable(facts: readonly Fact[], ctx: PageContext): Html {
  if (facts.length === 0) return html`<p class="empty">No belief matches.</p>`;
  return html`<table class="beliefs">
<thead><tr><th>id</th><th>slot</th><th>value</th><th>confidence</th><th>evidence</th><th>source</th><th>last seen</th><th>valid</th></tr></thead>
<tbody>${facts.map((f) => beliefRow(f, ctx))}</tbody>
</table>`;
}

function searchSection(r: RecallResponse, facts: readonly Fact[], ctx: PageContext): Html {
  return html`<section class="search">
<p class="mode">recall: <strong>${r.mode}</strong>${r.reason ? html` (${r.reason})` : ''}; searched for ${r.terms.length ? r.terms.join(' ') : '(no words)'}</p>
${beliefTable(facts, ctx)}
</section>`;
}

/** The beliefs page: a listing, or a search's results. */
export function beliefsPage(
  ctx: PageContext,
  q: BeliefQuery,
  shown: { listing: BeliefListing } | { recall: RecallResponse; facts: Fact[] },
): Html {
  const unexplained = 'listing' in shown ? shown.listing.unexplained : [];
  const body = html`${filterForm(q)}
${
  'listing' in shown
    ? html`<p class="count">${String(shown.listing.beliefs.length)} belief(s)</p>${beliefTable(shown.listing.beliefs, ctx)}`
    : searchSection(shown.recall, shown.facts, ctx)
}
${
  unexplained.length
    ? html`<p class="warning">Left out: ${unexplained.map((id) => `f${id}`).join(', ')} (changed outside keel: the journal does not explain them; keel verify names the change).</p>`
    : ''
}`;
  return page(ctx, 'Beliefs', '/beliefs', body);
}
