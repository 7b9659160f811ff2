/**
 * What a turn kept, in plain words, the same at every door and in both modes: one short line per
 * belief the turn wrote, under the reply (with a model) or as the reply (offline). It is keel's
 * own confirmation, read from what the store decided (the turn's writes), never the model's word:
 *
 * - `Kept: sister name — Ada [f12] (/forget 12 to undo).`
 * - `Updated: home — Lyon [f14] (Paris kept in history).`
 * - `Already known: sister name — Ada [f12] (seen 3 times).`
 * - `Held for your review: coffee — black [f15] contradicts oat flat white [f9] (/confirm 15 or /reject 15).`
 * - `Kept as history: project — Falcon [f16] (true before Heron [f11]).`
 * - `Not kept: what you asked me to remember held a credential.`
 *
 * A belief that is not the owner's own word says what it is (`[f17; inferred, conf 0.60]`). A turn
 * that wrote nothing gets no line; a write the review refused (`ignore`: a repeat from the same
 * turn, a value the owner forgot) wrote nothing and is not said; a request to forget is said by
 * the door beside it (it waits for the owner). A withheld credential is never echoed: the
 * door's notice beside the line (`secretNotice`) names its kind.
 *
 * @module
 */
import { count } from '@keel/language';
import { type Fact, isOwnerSource, type MemoryStore } from '@keel/memory';
import type { TurnWrite } from './turn.js';

/**
 * How the owner runs a command at this door: `slash` in the terminal and Discord (`/forget 12`),
 * `shell` from `keel ask` (`keel forget 12`).
 */
export type CommandStyle = 'slash' | 'shell';

/** The line for a write refused because it held a credential (its kind is said beside it). */
export const WITHHELD_LINE = 'Not kept: what you asked me to remember held a credential.';

/** Characters of a value a line shows, at most; a longer one is cut with "…". */
export const KEPT_VALUE_CHARS = 120;

/** One line: whitespace folded, cut to `max` characters. */
function clip(text: string, max = KEPT_VALUE_CHARS): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** A belief in words: its key's words, then its value: `sister name — Ada`. */
export function beliefWords(f: Pick<Fact, 'key' | 'value'>): string {
  return `${f.key.replace(/[_.-]+/g, ' ').trim()} — ${clip(f.value)}`;
}

/**
 * The belief's id, and what it is when it is not the owner's own word: `[f12]`,
 * `[f17; inferred, conf 0.60]`.
 */
function idTag(f: Pick<Fact, 'id' | 'source' | 'confidence'>): string {
  return isOwnerSource(f.source)
    ? `[f${f.id}]`
    : `[f${f.id}; ${f.source}, conf ${f.confidence.toFixed(2)}]`;
}

/** A command as this door runs it: `/forget 12` or `keel forget 12`. */
function command(style: CommandStyle, verb: string, id: number): string {
  return `${style === 'slash' ? '/' : 'keel '}${verb} ${id}`;
}

/** A belief as another line names it: its value and id, `Paris [f3]`. */
function other(store: Pick<MemoryStore, 'fact'>, id: number | null): string | null {
  const f = id === null ? undefined : store.fact(id);
  return f ? `${clip(f.value, 60)} [f${f.id}]` : null;
}

/**
 * The confirmation of one write, or null when it wrote nothing to say (`ignore`, a request to
 * forget).
 */
function keptLine(
  store: Pick<MemoryStore, 'fact'>,
  w: TurnWrite,
  style: CommandStyle,
): string | null {
  // The kind is said by the door's notice under it (`secretNotice`); the secret never is.
  if (w.decision === 'withheld') return WITHHELD_LINE;
  if (w.decision === 'forget_requested' || w.decision === 'ignore' || !w.fact) return null;
  const f = w.fact;
  const belief = `${beliefWords(f)} ${idTag(f)}`;
  switch (w.decision) {
    case 'create':
      return `Kept: ${belief} (${command(style, 'forget', f.id)} to undo).`;
    case 'update': {
      const was = store.fact(f.supersedes_id ?? 0);
      return `Updated: ${belief}${was ? ` (${clip(was.value, 60)} kept in history)` : ' (the old value is kept in history)'}.`;
    }
    case 'corroborate':
      return `Already known: ${belief} (seen ${count(f.evidence_count, 'time')}).`;
    case 'conflict': {
      const current = other(store, f.conflicts_with_id);
      return `Held for your review: ${belief}${current ? ` contradicts ${current}` : ''} (${command(style, 'confirm', f.id)} or ${command(style, 'reject', f.id)}).`;
    }
    case 'history': {
      const now = other(store, f.superseded_by_id);
      return `Kept as history: ${belief}${now ? ` (true before ${now})` : ''}.`;
    }
  }
}

/**
 * The confirmations of a turn's writes, one line per belief written (the first write of a belief
 * speaks for it: a capture and the model's own `remember` of the same belief say it once), in the
 * order written; empty when the turn wrote nothing.
 *
 * @param store - where the beliefs a line names besides the one written are read (the value an
 *   update replaced, the belief a conflict contradicts).
 * @param style - how the owner runs a command at this door (default `slash`).
 */
export function keptLines(
  store: Pick<MemoryStore, 'fact'>,
  writes: readonly TurnWrite[],
  style: CommandStyle = 'slash',
): string[] {
  const said = new Set<number>();
  const lines: string[] = [];
  for (const w of writes) {
    const id = w.fact?.id;
    if (id !== undefined && said.has(id)) continue;
    const line = keptLine(store, w, style);
    if (!line || lines.includes(line)) continue;
    if (id !== undefined) said.add(id);
    lines.push(line);
  }
  return lines;
}
