/**
 * The think page: the think service's runs (what each tick examined, queued, proposed and wrote,
 * and why it skipped a step), the nightly diary in the curator's words, the reminders and
 * interrupts waiting to be sent, and the belief gate in use (from the configuration and the last
 * tick).
 *
 * @module
 */
import type { DiaryEntry, PendingInterrupt, Reminder, ThinkRunRow } from '@keel/memory';
import { html } from 'hono/html';
import { type Html, type PageContext, page, when } from './layout.js';

/** What the think page shows. */
export interface ThinkView {
  runs: ThinkRunRow[];
  diary: DiaryEntry[];
  reminders: Reminder[];
  interrupts: PendingInterrupt[];
  /** The gate configured: the Ollama model and host it asks, else the pattern gate. */
  gate: { model: string; host: string; lastTick: string | null };
  /** The think service's lock holder, when one runs. */
  running: { pid: number } | null;
  /** Why no model reflects, when none is configured. */
  model: string;
}

const COUNTS = ['examined', 'queued', 'proposed', 'written', 'interrupts'] as const;

/** A run's summary in words: its counts, the curator's, the reminders, what it skipped. */
function summaryCells(run: ThinkRunRow): Html {
  const s = (run.summary ?? {}) as Record<string, unknown>;
  const counts = COUNTS.filter((k) => typeof s[k] === 'number').map((k) => `${k} ${s[k]}`);
  const curated = s.curated && typeof s.curated === 'object' ? (s.curated as object) : null;
  const reminders = s.reminders && typeof s.reminders === 'object' ? (s.reminders as object) : null;
  const skipped = Array.isArray(s.skipped) ? (s.skipped as unknown[]).map(String) : [];
  const pairs = (o: object) =>
    Object.entries(o)
      .map(([k, v]) => `${k} ${typeof v === 'object' ? JSON.stringify(v) : String(v)}`)
      .join(', ');
  return html`<td>${counts.join(', ') || (typeof run.summary === 'string' ? run.summary : '')}${curated ? html`<br>curator: ${pairs(curated)}` : ''}${reminders ? html`<br>reminders: ${pairs(reminders)}` : ''}</td>
<td>${skipped.length ? html`<ul class="skipped">${skipped.map((x) => html`<li>${x}</li>`)}</ul>` : ''}${run.error_code ? html`<span class="error">${run.error_code}: ${run.error ?? ''}</span>` : ''}</td>`;
}

function runsTable(ctx: PageContext, runs: ThinkRunRow[]): Html {
  if (runs.length === 0) {
    return html`<p class="empty">The think service has not run yet (keel think starts it).</p>`;
  }
  return html`<table class="runs"><thead><tr><th>#</th><th>kind</th><th>started</th><th>status</th><th>gate</th><th>did</th><th>skipped / why</th></tr></thead>
<tbody>${runs.map(
    (r) =>
      html`<tr class="run-${r.status}"><td>${String(r.id)}</td><td>${r.kind}${r.period ? html` ${r.period}` : ''}</td><td>${when(r.started_at, ctx.tz)}</td><td>${r.status}</td><td>${r.gate ?? ''}</td>${summaryCells(r)}</tr>`,
  )}</tbody></table>`;
}

function diaryList(diary: DiaryEntry[]): Html {
  if (diary.length === 0) return html`<p class="empty">No night has been curated yet.</p>`;
  return html`${diary.map(
    (d) => html`<article class="diary"><h3>${d.night}</h3><p>${d.text}</p>
<p class="counts">added ${String(d.added)}, corroborated ${String(d.corroborated)}, superseded ${String(d.superseded)}, conflicts ${String(d.conflicts)}, pruned ${String(d.pruned)}</p></article>`,
  )}`;
}

function waiting(ctx: PageContext, v: ThinkView): Html {
  const pending = v.reminders.filter((r) => r.status === 'pending');
  return html`<h3>Reminders (${String(pending.length)} pending)</h3>
${
  pending.length === 0
    ? html`<p class="empty">No reminder waits.</p>`
    : html`<ul>${pending.map(
        (r) =>
          html`<li>${when(r.due_at, ctx.tz)}: ${r.text}${r.phrase ? html` (“${r.phrase}”)` : ''} <span class="door">${r.channel}</span>${r.last_error ? html` <span class="error">${r.last_error}</span>` : ''}</li>`,
      )}</ul>`
}
<h3>Interrupts (${String(v.interrupts.length)} unsent)</h3>
${
  v.interrupts.length === 0
    ? html`<p class="empty">Nothing waits to be told.</p>`
    : html`<ul>${v.interrupts.map(
        (i) =>
          html`<li>${i.due_at === null ? 'as soon as it can' : when(i.due_at, ctx.tz)}: ${i.text} (${String(i.attempts)} tries${i.last_error ? html`; ${i.last_error}` : ''})</li>`,
      )}</ul>`
}`;
}

/** The think page. */
export function thinkPage(ctx: PageContext, v: ThinkView): Html {
  const body = html`<section class="gate"><h2>The service</h2>
<p>${v.running ? html`running (PID ${String(v.running.pid)})` : 'not running (keel think starts it)'}.</p>
<p>belief gate: Ollama model <code>${v.gate.model}</code> at <code>${v.gate.host}</code> when it answers, else the pattern gate${v.gate.lastTick ? html`; the last tick used: <strong>${v.gate.lastTick}</strong>` : ''}.</p>
<p>reflection and the curator's diary: ${v.model}</p>
</section>
<section><h2>Runs</h2>${runsTable(ctx, v.runs)}</section>
<section><h2>Diary</h2>${diaryList(v.diary)}</section>
<section><h2>Waiting</h2>${waiting(ctx, v)}</section>`;
  return page(ctx, 'Think', '/think', body);
}
