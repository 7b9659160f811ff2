/**
 * What the CLI says after a turn beside the reply: the model's requests to forget a belief (the
 * model proposes; the owner decides: the terminal asks on a TTY, else the request waits for
 * `/forget <id>` or `/keep <id>`). What every door says under a reply (what was kept, a capped
 * confidence, a failed capture) is `underReply` of `@keel/agent`.
 *
 * @module
 */
import type { TurnWrite } from '@keel/agent';
import type { Fact, MemoryStore } from '@keel/memory';
import { formatFactLine } from '@keel/prompt';

/** A request to forget a belief that a turn recorded, with the model's reason. */
export interface ForgetAsk {
  fact: Fact;
  /** The model's reason, in its words (null when it gave none). */
  why: string | null;
}

/** Characters of the model's reason shown in one line. */
const WHY_MAX_CHARS = 200;

/**
 * The requests to forget among a turn's writes, once per belief, with the reasons the open
 * requests carry (read from the review queue).
 */
export function forgetAsks(store: MemoryStore, writes: readonly TurnWrite[]): ForgetAsk[] {
  const facts = new Map<number, Fact>();
  for (const w of writes) {
    if (w.decision === 'forget_requested' && !facts.has(w.fact.id)) facts.set(w.fact.id, w.fact);
  }
  if (facts.size === 0) return [];
  const open = new Map(store.review().forget.map((r) => [r.factId, r.why]));
  return [...facts.values()].map((fact) => ({ fact, why: open.get(fact.id) ?? null }));
}

/** `keel asks to forget [f12] preference/tea: black tea (…) — because "…".` */
export function forgetAskLine(ask: ForgetAsk): string {
  const why = ask.why?.replace(/\s+/g, ' ').trim();
  const clipped =
    why && why.length > WHY_MAX_CHARS ? `${why.slice(0, WHY_MAX_CHARS - 1)}…` : (why ?? '');
  return `keel asks to forget ${formatFactLine(ask.fact)}${clipped ? ` — because "${clipped}"` : ''}.`;
}

/**
 * How the owner settles a request: `/forget 12 or /keep 12` in the terminal (slash commands), `keel
 * forget 12 or keel keep 12` from the shell.
 */
export function forgetAnswer(factId: number, door: 'terminal' | 'shell'): string {
  const p = door === 'terminal' ? '/' : 'keel ';
  return `${p}forget ${factId} or ${p}keep ${factId}`;
}

/** The request line for a door that cannot ask: it waits, and the commands that settle it. */
export function forgetWaitingLine(ask: ForgetAsk, door: 'terminal' | 'shell'): string {
  return `${forgetAskLine(ask)} It waits for you: ${forgetAnswer(ask.fact.id, door)}`;
}

/** What `--json` says of a request (see `writeJson`): the model's reason and how to settle it. */
export function forgetRequestJson(
  asks: readonly ForgetAsk[],
  door: 'terminal' | 'shell',
): (factId: number) => { why: string | null; answer: string } {
  return (factId) => ({
    why: asks.find((a) => a.fact.id === factId)?.why ?? null,
    answer: forgetAnswer(factId, door),
  });
}
