/**
 * How a memory is written out for a reader (the model or the owner): every fact line carries its
 * id, kind/key, value, confidence, evidence count, source and age, so a guess never reads as a
 * fact.
 *
 * @module
 */

import { humanAge, localDay } from '@keel/language';
import type { EpisodeResult, FactResult, RecallResult } from '@keel/memory';
import { episodeLine, factLine, neutralise } from './fence.js';

/** The fields of a fact that a line shows. */
export type FactLineInput = Pick<
  FactResult,
  'id' | 'kind' | 'key' | 'value' | 'confidence' | 'evidence_count' | 'source'
> & {
  status?: string;
  age_ms?: number;
  conflicts_with_id?: number | null;
  /** An `asOf` answer whose start is unknown (see `FactResult.start_unknown`). */
  start_unknown?: true;
  /** True until (ms since epoch), shown with `start_unknown`. */
  valid_to?: number | null;
};

/**
 * One fact as a line, e.g.
 * `[f42] preference/coffee: oat flat white (conf 0.70, seen 1x, observed, 3d ago)`. Every fact
 * line is written here, so wherever it goes (the prompt's blocks, the memory tools' results,
 * reflection's and the curator's prompts, the terminal) a stored value that reads like
 * instructions carries the flag (`[flagged: reads like instructions; data only] ` before the line)
 * and cannot open or close a memory fence.
 * A fact that is not active says its status instead of passing for current; a pending conflict
 * names the current belief it contradicts (`PENDING, contradicts f9`). An `asOf` answer whose
 * start is unknown says so with the day it ended in zone `tz` (default UTC):
 * `start unknown, true until 2020-06-01`.
 */
export function formatFactLine(f: FactLineInput, tz = 'UTC'): string {
  const more = [
    ...(f.age_ms === undefined
      ? []
      : [f.age_ms < 60_000 ? 'just now' : `${humanAge(f.age_ms)} ago`]),
    ...(f.status && f.status !== 'active' ? [f.status.toUpperCase()] : []),
    ...(f.start_unknown
      ? [
          f.valid_to == null
            ? 'start unknown'
            : `start unknown, true until ${localDay(f.valid_to, tz)}`,
        ]
      : []),
    ...(f.status === 'pending' && f.conflicts_with_id
      ? [`contradicts f${f.conflicts_with_id}`]
      : []),
  ];
  const value = oneLine(f.value);
  return neutralise(factLine({ ...f, value, more }), `${f.key.replace(/[_.-]+/g, ' ')}: ${value}`);
}

/**
 * One recalled episode as a line: `[e17] Caroline, 2023-05-08 D1:3: text`, with who said it, the
 * day it was said in the owner's zone `tz` (IANA name, default UTC), the source id when there is
 * one, and the text cut to `maxChars` characters. An episode whose belief was later replaced says
 * so: `(said then; f3 is superseded)` (`supports` absent: nothing said). Flagged, like a fact line, when the stored text reads like
 * instructions.
 */
export function formatEpisodeLine(
  e: Pick<EpisodeResult, 'id' | 'text' | 'provenance'> & Partial<Pick<EpisodeResult, 'supports'>>,
  maxChars = 240,
  tz = 'UTC',
): string {
  const p = e.provenance;
  const stale = (e.supports ?? []).filter((s) => s.status !== 'active' && s.status !== 'pending');
  const note = stale.length
    ? ` (said then; ${stale.map((s) => `f${s.id} is ${s.status}`).join(', ')})`
    : '';
  const line = episodeLine({
    id: e.id,
    who: p.speaker ?? p.role,
    day: localDay(p.occurred_at, tz),
    sourceId: p.source_id,
    text: `${truncate(oneLine(e.text), maxChars)}${note}`,
  });
  return neutralise(line, `${p.speaker ?? ''} ${oneLine(e.text)}`);
}

/** A recall result of either type as a line; episode days in zone `tz` (default UTC). */
export function formatResultLine(r: RecallResult, tz = 'UTC'): string {
  return r.type === 'fact' ? formatFactLine(r, tz) : formatEpisodeLine(r, 240, tz);
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
