/**
 * The health page: what `keel doctor` says (the one report `@keel/host`'s `doctorReport`
 * assembles), each problem with its error code and its fix. Without `?live=1` the checks that use
 * the network are skipped, as `keel doctor --offline` does.
 *
 * @module
 */
import type { DoctorReport } from '@keel/host';
import { html } from 'hono/html';
import { type Html, type PageContext, page } from './layout.js';

function row(label: string, value: Html | string): Html {
  return html`<tr><th scope="row">${label}</th><td>${value}</td></tr>`;
}

function summary(r: DoctorReport): Html {
  const vectors = r.vectors.available
    ? `on: ${r.vectors.counts?.facts ?? 0} fact(s), ${r.vectors.counts?.episodes ?? 0} episode(s) indexed${r.vectors.pending ? `, ${r.vectors.pending} waiting (keel reindex)` : ''}`
    : `off: ${r.vectors.reason ?? ''}`;
  return html`<table class="doctor"><tbody>
${row('data folder', r.home)}
${row('database', `${r.database} (schema ${r.schema_version}, SQLite ${r.sqlite})`)}
${row('integrity', r.integrity === 'ok' ? 'ok' : html`<strong class="error">DAMAGED: ${r.integrity}</strong>`)}
${row('backups', r.backup.newest ? `newest ${r.backup.newest} (${r.backup.at})` : `none in ${r.backup.folder} (keel backup makes one)`)}
${r.recovery.lines > 0 ? row('recovery', `${r.recovery.lines} line(s) wait in ${r.recovery.path}: keel recover stores them`) : ''}
${row('embedder', r.embedder ? `${r.embedder.name} ${r.embedder.model} (${r.embedder.dim}-d)` : 'none')}
${row('vectors', vectors)}
${row('recall mode', r.recall_mode)}
${row('model', r.model.reason)}
${row('memory', `${r.counts.active} active belief(s) (${r.counts.pending} pending), ${r.counts.episodes} episode(s)`)}
${row('think', `${r.think.running ? `running (PID ${r.think.running.pid})` : 'not running (keel think)'}; last tick ${r.think.last_tick ? `${r.think.last_tick.status} at ${r.think.last_tick.at}` : 'never'}; last night ${r.think.last_night ?? 'never'}`)}
${row('journal', r.journal ? (r.journal.ok ? `ok: ${r.journal.entries} entries, ending where keel last wrote (entry ${r.journal.head})` : html`<strong class="error">BROKEN: ${String(r.journal.problems.length)} problem(s)</strong>`) : 'not checked: the database is damaged')}
${row('trust', r.unexplained === null ? 'unknown: the database is damaged' : r.unexplained.length === 0 ? 'the journal explains every current belief' : `${r.unexplained.length} belief(s) the journal does not explain, left out of recall (keel verify names the change)`)}
</tbody></table>`;
}

function problems(r: DoctorReport): Html {
  const journal = r.journal?.problems ?? [];
  const checks = r.checks.filter((c) => c.status === 'fail' || c.status === 'warn');
  if (journal.length === 0 && checks.length === 0 && r.degraded.length === 0) {
    return html`<p class="ok">Nothing to fix.</p>`;
  }
  return html`${
    r.degraded.length
      ? html`<h3>Degraded</h3><ul class="degraded">${r.degraded.map((d) => html`<li>${d}</li>`)}</ul>`
      : ''
  }
${
  journal.length
    ? html`<h3>Journal</h3><ul>${journal.map(
        (p) =>
          html`<li><strong>${p.check}</strong>: ${p.detail}${p.fix ? html`<br><span class="fix">fix: ${p.fix}</span>` : ''}</li>`,
      )}</ul>`
    : ''
}
${
  checks.length
    ? html`<h3>Checks</h3><ul>${checks.map(
        (c) =>
          html`<li class="check-${c.status}"><strong>${c.status} ${c.name}</strong>: ${c.detail}${c.code ? html`<br><code>${c.code}</code> <span class="fix">fix: ${c.fix ?? ''}</span>` : ''}</li>`,
      )}</ul>`
    : ''
}`;
}

function checksTable(r: DoctorReport): Html {
  return html`<table class="checks"><thead><tr><th>status</th><th>check</th><th>detail</th><th>fix</th></tr></thead>
<tbody>${r.checks.map(
    (c) =>
      html`<tr class="check-${c.status}"><td>${c.status}</td><td>${c.name}</td><td>${c.detail}</td><td>${c.code ? html`<code>${c.code}</code> ${c.fix ?? ''}` : ''}</td></tr>`,
  )}</tbody></table>`;
}

/** The health page: the report, or why it could not be made. */
export function healthPage(
  ctx: PageContext,
  shown: { report: DoctorReport } | { error: { code: string; message: string; fix: string } },
): Html {
  if ('error' in shown) {
    const e = shown.error;
    return page(
      ctx,
      'Health',
      '/health',
      html`<p class="error"><code>${e.code}</code> ${e.message}</p><p class="fix">fix: ${e.fix}</p>`,
    );
  }
  const r = shown.report;
  const body = html`<p class="verdict ${r.ok ? 'ok' : 'error'}">${r.ok ? 'keel doctor finds nothing wrong.' : 'keel doctor finds something to fix (below).'}</p>
<p>${r.live ? 'With the checks that use the network.' : html`Without the checks that use the network (as keel doctor --offline). <a href="/health?live=1">Run them too</a>.`}</p>
<section><h2>To fix</h2>${problems(r)}</section>
<section><h2>Report</h2>${summary(r)}</section>
<section><h2>Checks</h2>${checksTable(r)}</section>`;
  return page(ctx, 'Health', '/health', body);
}
