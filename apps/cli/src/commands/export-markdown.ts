/**
 * A keel export (`MemoryStore.exportMemory`) written for a person to read: a title, then one
 * section per kind with one line per current belief (its confidence, source, evidence count and
 * since when), a pending conflict marked under the belief it contradicts, and the former values
 * of the slot under it (superseded, forgotten or rejected; an erased value says only that it was
 * erased). With the episodes, the conversation by day. Days and times in the owner's zone.
 *
 * @module
 */
import { count, localDay, localStamp, showControls } from '@keel/language';
import { type ExportedBelief, type ExportedEpisode, type KeelExport, KINDS } from '@keel/memory';

/** Markdown's own characters escaped, controls shown (never obeyed), and the text on one line. */
function md(text: string): string {
  return showControls(text)
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/[\\`*_[\]<>#|~]/g, (c) => `\\${c}`);
}

const ms = (iso: string) => Date.parse(iso);

/** The slot a belief lives in, as one string. */
const slotOf = (b: ExportedBelief) => `${b.scope}\u0000${b.kind}\u0000${b.key}`;

/** "confidence 0.70, inferred, seen 2×, since 2026-03-01". */
function facts(b: ExportedBelief, tz: string): string {
  const since = b.valid_from ?? b.created_at;
  return `confidence ${b.confidence.toFixed(2)}, ${b.source}, seen ${b.evidence_count}×, since ${localDay(ms(since), tz)}`;
}

/** A former value's line: its value (or that it was erased), how it ended and when. */
function formerLine(b: ExportedBelief, tz: string): string {
  const value = b.value === null ? '*(value erased)*' : md(b.value);
  const ended = b.valid_to ?? b.updated_at;
  const how =
    b.status === 'superseded' ? 'replaced' : b.status === 'retracted' ? 'forgotten' : b.status;
  return `  - former: ${value} (${how} ${localDay(ms(ended), tz)}; was ${facts(b, tz)})`;
}

/** The lines of one kind's section. */
function kindSection(beliefs: readonly ExportedBelief[], tz: string): string[] {
  const slots = new Map<string, ExportedBelief[]>();
  for (const b of beliefs) slots.set(slotOf(b), [...(slots.get(slotOf(b)) ?? []), b]);
  const lines: string[] = [];
  const keys = [...slots.values()].sort((a, b) => a[0]!.key.localeCompare(b[0]!.key));
  for (const rows of keys) {
    const current = rows.find((b) => b.status === 'active');
    const label = (b: ExportedBelief) =>
      `**${md(b.key)}**${b.scope === 'agent' ? ' (about keel)' : ''}`;
    if (current)
      lines.push(`- ${label(current)}: ${md(current.value ?? '')} — ${facts(current, tz)}`);
    for (const p of rows.filter((b) => b.status === 'pending')) {
      lines.push(
        `${current ? '  ' : ''}- ${current ? '' : `${label(p)}: `}**pending conflict**: ${md(p.value ?? '')} — ${facts(p, tz)} (keel review)`,
      );
    }
    const former = rows
      .filter((b) => b.status !== 'active' && b.status !== 'pending')
      .sort((a, b) => ms(b.created_at) - ms(a.created_at));
    if (former.length && !current && !rows.some((b) => b.status === 'pending')) {
      lines.push(`- ${label(former[0]!)}: *(nothing current)*`);
    }
    for (const f of former) lines.push(formerLine(f, tz));
  }
  return lines;
}

/** The conversation by day. */
function episodeSection(episodes: readonly ExportedEpisode[], tz: string): string[] {
  const lines = ['## Conversation'];
  let day = '';
  for (const e of episodes) {
    const d = localDay(ms(e.occurred_at), tz);
    if (d !== day) lines.push('', `### ${d}`, '');
    day = d;
    const who = e.speaker ?? e.role;
    lines.push(
      `- ${localStamp(ms(e.occurred_at), tz).slice(11, 16)} ${md(who)} (${md(e.channel)}): ${md(e.text)}`,
    );
  }
  return lines;
}

/**
 * `x` as Markdown (see the module description), days in zone `tz`.
 */
export function exportMarkdown(x: KeelExport, tz: string): string {
  const current = x.beliefs.filter((b) => b.status === 'active').length;
  const pending = x.beliefs.filter((b) => b.status === 'pending').length;
  const former = x.beliefs.length - current - pending;
  const lines = [
    '# What keel remembers',
    '',
    `Exported ${localStamp(ms(x.exported_at), tz)}, ${tz}: ${count(current, 'current belief')}, ${count(pending, 'pending conflict')}, ${count(former, 'former value')}, ${count(x.tombstones.length, 'tombstone')} (kept as hashes only).`,
  ];
  for (const kind of KINDS) {
    const ofKind = x.beliefs.filter((b) => b.kind === kind);
    if (ofKind.length === 0) continue;
    lines.push('', `## ${kind}`, '', ...kindSection(ofKind, tz));
  }
  if (x.episodes) lines.push('', ...episodeSection(x.episodes, tz));
  return `${lines.join('\n')}\n`;
}
