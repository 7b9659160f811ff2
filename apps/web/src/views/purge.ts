/**
 * The purge page: before anything is erased, what the purge will reach (every stored mention of
 * the value, folded: `MemoryStore.findMentions`, or `forgetPurgeTarget` for a belief), each with
 * its place and an excerpt, and the beliefs it retracts; then one button that erases it all
 * through the purge every door shares (`@keel/tools`' `forgetAndPurge` / `purgeText`).
 *
 * @module
 */
import type { MentionReport } from '@keel/memory';
import { html } from 'hono/html';
import {
  beliefLink,
  type Html,
  type PageContext,
  page,
  postButton,
  shownValue,
  slotName,
} from './layout.js';

/** What is to be purged: a belief's value, a text, or one turn of the conversation. */
export type PurgeSubject =
  | { kind: 'fact'; id: number }
  | { kind: 'text'; text: string }
  | { kind: 'episode'; id: number; text: string };

function reportList(report: MentionReport): Html {
  if (report.total === 0) return html`<p class="empty">Nothing stored mentions it.</p>`;
  return html`<p>${String(report.total)} stored row(s) mention it:</p>
<table class="mentions"><thead><tr><th>place</th><th>row</th><th>column</th><th>excerpt</th></tr></thead>
<tbody>${report.mentions.map(
    (m) =>
      html`<tr><td>${m.place}</td><td>${String(m.id)}</td><td>${m.column}</td><td>${m.excerpt}</td></tr>`,
  )}</tbody></table>
${
  report.beliefs.length
    ? html`<p>These beliefs will be retracted and purged:</p><ul>${report.beliefs.map(
        (f) => html`<li>${beliefLink(f)} ${slotName(f)}: ${shownValue(f)}</li>`,
      )}</ul>`
    : ''
}`;
}

function fields(subject: PurgeSubject): Record<string, string | number> {
  if (subject.kind === 'fact') return { fact: subject.id };
  if (subject.kind === 'episode') return { episode: subject.id };
  return { text: subject.text };
}

/**
 * The purge page for `subject`: `report` is what it reaches (null: the value was purged already
 * and nothing stored says it any more).
 */
export function purgePage(
  ctx: PageContext,
  subject: PurgeSubject,
  report: MentionReport | null,
): Html {
  const what =
    subject.kind === 'fact'
      ? html`the value of ${beliefLink({ id: subject.id })}`
      : subject.kind === 'episode'
        ? html`turn e${String(subject.id)} of the conversation: <q>${subject.text}</q>`
        : html`<q>${subject.text}</q>`;
  const body = html`<p>Purge erases ${what} everywhere keel keeps it: beliefs and their history, your turns and keel's replies, the journal's payloads (their hashes stay, so the chain still verifies), reminders, the think service's records, and keel's backups. Its words are tombstoned: only you saying them again brings them back. It cannot be undone.</p>
${report ? reportList(report) : html`<p class="empty">It was purged already and nothing stored says it any more.</p>`}
${
  report && (report.total > 0 || subject.kind === 'fact')
    ? postButton(ctx, '/purge', 'Erase all of it', { fields: fields(subject), danger: true })
    : ''
}
<p><a href="/beliefs">Keep it: go back</a></p>`;
  return page(ctx, 'Purge', '/review', body);
}
