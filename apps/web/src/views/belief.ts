/**
 * One belief's page: "why do you believe that?" Its slot's history (every version, newest first;
 * a superseded value labelled former, with its dates), the episodes that are its evidence (with
 * the door each came through and when), the journal's entries about the chain (who made each
 * change), and the owner's actions on it: confirm, reject, edit the value, forget, purge.
 *
 * @module
 */
import type { BeliefExplanation, Fact } from '@keel/memory';
import { html } from 'hono/html';
import {
  ago,
  confidenceBar,
  csrfField,
  type Html,
  type PageContext,
  page,
  postButton,
  shownValue,
  slotName,
  validity,
  when,
} from './layout.js';

/** What the page shows of a belief: the store's explanation (`MemoryStore.why`). */
export type BeliefView = BeliefExplanation;

/** How a version of the slot reads beside the current one. */
function versionLabel(f: Fact): string {
  switch (f.status) {
    case 'active':
      return 'current';
    case 'superseded':
      return 'former';
    case 'pending':
      return 'pending (waits for your review)';
    case 'retracted':
      return f.purged_at === null ? 'forgotten' : 'purged';
    case 'rejected':
      return 'rejected';
  }
}

function chainList(view: BeliefView, ctx: PageContext): Html {
  return html`<ol class="chain">${view.chain.map(
    (f) => html`<li class="version ${f.status}${f.id === view.fact.id ? ' shown' : ''}">
<span class="label">${versionLabel(f)}</span>
<a href="/beliefs/${String(f.id)}">f${String(f.id)}</a>
<span class="value">${shownValue(f)}</span>
${confidenceBar(f.confidence)} <span class="source">${f.source}</span>
<span class="dates">written ${when(f.created_at, ctx.tz)}${
      f.status === 'superseded' && f.superseded_by_id !== null
        ? html`; replaced by <a href="/beliefs/${String(f.superseded_by_id)}">f${String(f.superseded_by_id)}</a> ${when(f.updated_at, ctx.tz)}`
        : f.status !== 'active' && f.status !== 'pending'
          ? html`; ${f.status} ${when(f.updated_at, ctx.tz)}`
          : ''
    }; valid ${validity(f, ctx.tz)}</span>
${f.status_reason ? html`<span class="reason">(${f.status_reason})</span>` : ''}
</li>`,
  )}</ol>`;
}

function evidenceList(view: BeliefView, ctx: PageContext): Html {
  if (view.evidence.length === 0) {
    return html`<p class="empty">No episode is recorded as its evidence (a belief written before evidence was kept, or by keel itself).</p>`;
  }
  return html`<ul class="evidence">${view.evidence.map(
    ({ factId, episode: e }) => html`<li>
<span class="door" title="the door it came through">${e.channel}</span>
<span class="when">${when(e.occurred_at, ctx.tz)}</span>
<span class="who">${e.speaker ?? e.role}</span>
<a href="/conversations?day=${when(e.occurred_at, ctx.tz).slice(0, 10)}#e${String(e.id)}">e${String(e.id)}</a>
for <a href="/beliefs/${String(factId)}">f${String(factId)}</a>:
<q>${e.redacted_at === null ? e.text : `${e.text} (redacted)`}</q>
</li>`,
  )}</ul>`;
}

function changesList(view: BeliefView, ctx: PageContext): Html {
  if (view.changes.length === 0) return html`<p class="empty">No journal entry names it.</p>`;
  return html`<table class="journal"><thead><tr><th>#</th><th>when</th><th>who</th><th>what</th><th>belief</th><th>summary</th></tr></thead>
<tbody>${view.changes.map(
    (c) =>
      html`<tr><td>${String(c.seq)}</td><td>${when(c.at, ctx.tz)}</td><td class="actor">${actorName(c.actor)}</td><td>${c.op}</td><td>${c.factId === null ? '' : html`<a href="/beliefs/${String(c.factId)}">f${String(c.factId)}</a>`}</td><td>${c.summary}</td></tr>`,
  )}</tbody></table>`;
}

/** Who a journal entry names, in words. */
export function actorName(actor: string): string {
  const names: Record<string, string> = {
    owner: 'you',
    web: 'you, on this page',
    model: 'the model',
    reflection: 'reflection (think)',
    curator: 'the nightly curator',
    think: 'the think service',
    import: 'an import',
    mcp: 'another agent (MCP)',
    system: 'keel',
  };
  if (actor.startsWith('mcp:')) return `another agent (MCP: ${actor.slice(4)})`;
  return names[actor] ?? actor;
}

function actions(f: Fact, ctx: PageContext): Html {
  const live = f.status === 'active' || f.status === 'pending';
  return html`<section class="say">
<h2>Your say</h2>
${
  live
    ? html`${postButton(ctx, `/beliefs/${f.id}/confirm`, 'Confirm: it is true')}
${postButton(ctx, `/beliefs/${f.id}/reject`, 'Reject: it is not', { danger: true })}
${f.status === 'active' ? postButton(ctx, `/beliefs/${f.id}/forget`, 'Forget it', { danger: true }) : ''}
<form method="post" action="/beliefs/${String(f.id)}/edit" class="edit">
${csrfField(ctx)}
<label>The value is now <input type="text" name="value" required maxlength="2000" value="${f.status === 'active' ? f.value : ''}"></label>
<button type="submit">Save as what you say</button>
</form>`
    : html`<p>It is ${f.status}: nothing to confirm or reject.</p>`
}
<p><a class="danger" href="/purge?fact=${String(f.id)}">Purge its value everywhere…</a> (shows what it reaches first)</p>
</section>`;
}

/** The belief's page. */
export function beliefPage(ctx: PageContext, view: BeliefView): Html {
  const f = view.fact;
  const body = html`<section class="summary">
<p class="slot">${slotName(f)} <span class="tag">${versionLabel(f)}</span></p>
<p class="value big">${shownValue(f)}</p>
<dl>
<dt>confidence</dt><dd>${confidenceBar(f.confidence)}</dd>
<dt>evidence</dt><dd>${String(f.evidence_count)} independent episode(s)</dd>
<dt>source</dt><dd>${f.source}</dd>
<dt>last seen</dt><dd>${when(f.last_seen_at, ctx.tz)} (${ago(f.last_seen_at, ctx.now)})</dd>
<dt>valid</dt><dd>${validity(f, ctx.tz)}</dd>
</dl>
</section>
${actions(f, ctx)}
<section><h2>History of the slot</h2>${chainList(view, ctx)}</section>
<section><h2>Evidence</h2>${evidenceList(view, ctx)}</section>
<section><h2>Journal</h2>${changesList(view, ctx)}</section>
${
  view.unexplained.length
    ? html`<p class="warning">The journal does not explain ${view.unexplained.map((id) => `f${id}`).join(', ')} (changed outside keel; recall leaves it out; keel verify names the change).</p>`
    : ''
}`;
  return page(ctx, `Why keel believes f${f.id}`, '/beliefs', body);
}
