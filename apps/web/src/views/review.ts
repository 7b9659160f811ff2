/**
 * The review page: what waits for the owner's word (`MemoryStore.review`): each pending conflict
 * beside the belief it contradicts, the open questions, the requests to forget, and the weak and
 * stale beliefs; each with its actions (confirm, reject, edit, forget, keep, answer, purge).
 *
 * @module
 */
import { type Fact, questionText, type ReviewQueue } from '@keel/memory';
import { html } from 'hono/html';
import {
  beliefLink,
  confidenceBar,
  csrfField,
  type Html,
  type PageContext,
  page,
  postButton,
  shownValue,
  slotName,
  when,
} from './layout.js';

function factCell(f: Fact): Html {
  return html`<div class="fact">${beliefLink(f)} <span class="slot">${slotName(f)}</span>
<span class="value">${shownValue(f)}</span> ${confidenceBar(f.confidence)} <span class="source">${f.source}</span> <span class="num">${String(f.evidence_count)} evidence</span></div>`;
}

function editForm(ctx: PageContext, f: Fact): Html {
  return html`<form method="post" action="/beliefs/${String(f.id)}/edit" class="edit inline">
${csrfField(ctx)}<input type="text" name="value" required maxlength="2000" aria-label="new value for f${String(f.id)}" placeholder="the value is now…">
<button type="submit">Edit</button>
</form>`;
}

function beliefActions(ctx: PageContext, f: Fact): Html {
  return html`<div class="actions">${postButton(ctx, `/beliefs/${f.id}/confirm`, 'Confirm')}
${postButton(ctx, `/beliefs/${f.id}/reject`, 'Reject', { danger: true })}
${f.status === 'active' ? postButton(ctx, `/beliefs/${f.id}/forget`, 'Forget', { danger: true }) : ''}
${editForm(ctx, f)}
<a class="danger" href="/purge?fact=${String(f.id)}">Purge…</a></div>`;
}

function pendingSection(ctx: PageContext, q: ReviewQueue): Html {
  return html`<section id="pending"><h2>Conflicts (${String(q.pending.length)})</h2>
${
  q.pending.length === 0
    ? html`<p class="empty">No conflict waits.</p>`
    : q.pending.map(
        (p) => html`<article class="conflict" data-fact="${String(p.fact.id)}">
<div class="side"><h3>Proposed</h3>${factCell(p.fact)}${beliefActions(ctx, p.fact)}</div>
<div class="side"><h3>Contradicts</h3>${p.current ? factCell(p.current) : html`<p class="empty">The slot holds no current value now.</p>`}</div>
</article>`,
      )
}</section>`;
}

function questionsSection(ctx: PageContext, q: ReviewQueue): Html {
  if (q.questions.length === 0) return html``;
  return html`<section id="questions"><h2>Questions (${String(q.questions.length)})</h2>
${q.questions.map(
  (x) => html`<article class="question"><p>${questionText(x)}</p>${factCell(x.fact)}
<p class="said">you said: <q>${x.said}</q> (${when(x.askedAt, ctx.tz)})</p>
${postButton(ctx, `/questions/${x.id}/answer`, 'Yes: it no longer holds', { fields: { answer: 'yes' } })}
${postButton(ctx, `/questions/${x.id}/answer`, 'No: it stays', { fields: { answer: 'no' } })}
</article>`,
)}</section>`;
}

function forgetSection(ctx: PageContext, q: ReviewQueue): Html {
  return html`<section id="forget"><h2>Asked to forget (${String(q.forget.length)})</h2>
${
  q.forget.length === 0
    ? html`<p class="empty">Nothing asks to be forgotten.</p>`
    : q.forget.map(
        (r) => html`<article class="forget">${factCell(r.fact)}
<p>${r.why ? html`why: ${r.why}` : 'no reason given'} (${when(r.requestedAt, ctx.tz)})</p>
${postButton(ctx, `/beliefs/${r.fact.id}/forget`, 'Forget it', { danger: true })}
${postButton(ctx, `/beliefs/${r.fact.id}/keep`, 'Keep it')}
</article>`,
      )
}</section>`;
}

function listSection(
  ctx: PageContext,
  id: string,
  title: string,
  facts: Fact[],
  none: string,
): Html {
  return html`<section id="${id}"><h2>${title} (${String(facts.length)})</h2>
${
  facts.length === 0
    ? html`<p class="empty">${none}</p>`
    : facts.map(
        (f) =>
          html`<article class="belief-review" data-fact="${String(f.id)}">${factCell(f)}${beliefActions(ctx, f)}</article>`,
      )
}</section>`;
}

/** The review page. */
export function reviewPage(ctx: PageContext, q: ReviewQueue): Html {
  const body = html`${pendingSection(ctx, q)}
${questionsSection(ctx, q)}
${forgetSection(ctx, q)}
${listSection(ctx, 'weak', `Weak beliefs (below ${q.threshold.toFixed(2)})`, q.weak, 'No weak belief.')}
${listSection(ctx, 'stale', 'Stale beliefs (no new evidence for a long time: still true?)', q.stale, 'No stale belief.')}`;
  return page(ctx, 'Review', '/review', body);
}
