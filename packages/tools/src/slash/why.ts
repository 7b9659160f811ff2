/**
 * "Why do you believe that?" written out once for every surface that shows it as text: the
 * `keel why` verb, the `/why` slash command and the model's `why` tool. The answer is
 * `MemoryStore.why` (`@keel/memory`'s `facts/why.ts`); this module only lays it out.
 *
 * ```text
 * why keel believes f3:
 * current [f3] profile/dentist: Dr. Park (conf 1.00, seen 1x, owner_stated) [active; supersedes f1] recorded 2026-12-03T10:00:00.000Z
 *   evidence via cli at 2026-12-03 10:00 (Thu): [e5] owner, 2026-12-03: I switched my dentist to Dr. Park
 *   2026-12-03 10:00 (Thu) owner: replaced the former value
 * former [f1] profile/dentist: Dr. Ortiz (conf 1.00, seen 2x, owner_stated, SUPERSEDED) [superseded; superseded by f3] recorded …
 *   …
 * ```
 *
 * Every belief line is `historyLine` (the history listing's line), every episode line
 * `formatEpisodeLine` of `@keel/prompt`, so stored text is neutralised and flagged as everywhere
 * else; a door writes the text through its own control screen (`terminalText`, `discordText`).
 *
 * @module
 */
import { KeelError } from '@keel/errors';
import { localStamp } from '@keel/language';
import type { BeliefExplanation, Fact, MemoryStore } from '@keel/memory';
import { formatEpisodeLine } from '@keel/prompt';
import { historyLine } from './reply.js';

/** The most characters of an evidence episode's text a why listing shows. */
export const WHY_EPISODE_CHARS = 160;

/** How a version of the belief is labelled: the current value, a former one, or its status. */
function versionLabel(f: Fact): string {
  if (f.status === 'active') return 'current';
  if (f.status === 'superseded') return 'former';
  return f.status;
}

/** What the model reads in place of a value the journal does not explain. */
export const UNEXPLAINED_VALUE_WITHHELD = '[not explained by the journal: value withheld]';

/** How {@link whyLines} lays an explanation out. */
export interface WhyLinesOptions {
  /**
   * For the model: the value of a version the journal does not explain is replaced by
   * {@link UNEXPLAINED_VALUE_WITHHELD}, as recall leaves such rows out. The owner (`keel why`,
   * `/why`) sees the value with the warning. Default false.
   */
  withholdUnexplained?: boolean;
}

/**
 * The lines of one explanation (see the module description): the belief asked about, then every
 * version of its slot newest first (labelled `current`, `former`, `pending`, `retracted`,
 * `rejected`), each with its evidence episodes (the door it came through, when, the text cut to
 * {@link WHY_EPISODE_CHARS}) and the journal's decisions about it (when, who, what), and a line
 * for every version the journal does not explain (its value withheld with
 * `withholdUnexplained`). Times in zone `tz` (IANA name).
 */
export function whyLines(
  why: BeliefExplanation,
  tz = 'UTC',
  options: WhyLinesOptions = {},
): string[] {
  const lines = [`why keel believes f${why.fact.id}:`];
  for (const version of why.chain) {
    const unexplained = why.unexplained.includes(version.id);
    const shown =
      unexplained && options.withholdUnexplained
        ? { ...version, value: UNEXPLAINED_VALUE_WITHHELD }
        : version;
    lines.push(`${versionLabel(version)} ${historyLine(shown)}`);
    for (const { episode } of why.evidence.filter((e) => e.factId === version.id)) {
      const said = formatEpisodeLine(
        {
          id: episode.id,
          text: episode.text,
          provenance: {
            channel: episode.channel,
            role: episode.role,
            speaker: episode.speaker,
            occurred_at: episode.occurred_at,
            source_id: episode.source_id,
            source_doc: episode.source_doc,
            session: episode.session_key,
          },
        },
        WHY_EPISODE_CHARS,
        tz,
      );
      lines.push(
        `  evidence via ${episode.channel} at ${localStamp(episode.occurred_at, tz)}: ${said}`,
      );
    }
    const changes = why.changes.filter((c) => c.factId === version.id);
    for (const c of changes) lines.push(`  ${localStamp(c.at, tz)} ${c.actor}: ${c.summary}`);
    if (unexplained) {
      lines.push(
        `  not explained by the journal: f${version.id} was changed outside keel (recall leaves it out; keel verify)`,
      );
    }
  }
  return lines;
}

/**
 * `why` for fact `id` as text ({@link whyLines} joined), the one answer the verb, the slash command
 * and the tool show.
 *
 * @throws KeelError `NOT_FOUND` when no fact has that id.
 */
export function whyText(store: MemoryStore, id: number, tz = 'UTC'): string {
  return whyLines(explained(store, id), tz).join('\n');
}

/**
 * `store.why(id)`, or a `NOT_FOUND` error naming the id.
 *
 * @throws KeelError `NOT_FOUND` when no fact has that id.
 */
export function explained(store: MemoryStore, id: number): BeliefExplanation {
  const why = store.why(id);
  if (!why) throw new KeelError('NOT_FOUND', `no fact f${id}`, { details: { id } });
  return why;
}
