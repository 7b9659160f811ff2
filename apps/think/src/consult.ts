/**
 * Asking the frontier model about a set of owner turns: the turns with their owner-local times
 * and ids, keel's current beliefs that may relate (each line with its confidence, evidence and
 * source, as everywhere the model sees a belief), and the step's instructions. The answer is read
 * by `parseModelOutput`; the model's text is data, never an instruction.
 *
 * @module
 */
import type { ChatModel } from '@keel/agent';
import { localStamp } from '@keel/language';
import type { Episode, FactResult, MemoryStore } from '@keel/memory';
import { formatFactLine } from '@keel/prompt';
import { type ParsedOutput, parseModelOutput } from './deltas.js';

/** The longest part of one turn shown to the model, in characters. */
export const TURN_CHARS = 4000;
/** Related beliefs recalled per turn. */
export const RELATED_PER_TURN = 6;
/** Most related beliefs shown in one request. */
export const RELATED_MAX = 60;
/** Output budget of one request, tokens. */
export const MAX_OUTPUT_TOKENS = 4000;

/** Current beliefs that may relate to `episodes`, by recall over each turn (no access bump). */
export async function relatedBeliefs(
  store: MemoryStore,
  episodes: Episode[],
): Promise<FactResult[]> {
  const seen = new Map<number, FactResult>();
  for (const e of episodes) {
    const r = await store.recall(e.text.slice(0, TURN_CHARS), {
      type: 'fact',
      limit: RELATED_PER_TURN,
      touch: false,
      withEvidence: false,
    });
    for (const f of r.results) if (f.type === 'fact' && !seen.has(f.id)) seen.set(f.id, f);
    if (seen.size >= RELATED_MAX) break;
  }
  return [...seen.values()].slice(0, RELATED_MAX);
}

/** The user message: the turns and the related beliefs. */
export function consultMessage(episodes: Episode[], related: FactResult[], tz: string): string {
  // The episodes come screened (episodesById): no secret, no injection, no recalled memory.
  const turns = episodes.map(
    (e) =>
      `[episode ${e.id}] ${localStamp(e.occurred_at, tz)}, owner via ${e.channel}:\n${e.text.slice(0, TURN_CHARS)}`,
  );
  const beliefs = related.length
    ? related.map((f) => `${formatFactLine(f)} → ${subjectOf(f.key)}`).join('\n')
    : '(none)';
  return `Owner turns (times are the owner's local time, ${tz}):\n\n${turns.join('\n\n')}\n\nCurrent beliefs that may relate:\n${beliefs}`;
}

/** How a stored key reads as the delta fields that name it: `sam.employer` → subject sam, key employer. */
function subjectOf(key: string): string {
  const dot = key.indexOf('.');
  return dot > 0
    ? `subject "${key.slice(0, dot)}", key "${key.slice(dot + 1)}"`
    : `subject "owner", key "${key}"`;
}

/** The model's answer, read. */
export interface Consultation extends ParsedOutput {
  inputTokens: number;
  outputTokens: number;
  /** True when the whole answer was unusable (not JSON, wrong shape, or cut off at the token limit). */
  unusable: boolean;
}

/**
 * Sends one request and reads the answer.
 *
 * @throws KeelError from the model (`MODEL_*`, `CANCELLED`): the caller decides whether that
 *   fails the run (the curator) or waits for the next tick (reflection).
 */
export async function consult(
  model: ChatModel,
  system: string,
  store: MemoryStore,
  episodes: Episode[],
  tz: string,
  signal?: AbortSignal,
): Promise<Consultation> {
  const related = await relatedBeliefs(store, episodes);
  const response = await model.complete({
    system: [{ text: system, cache: true }],
    messages: [
      { role: 'user', content: [{ type: 'text', text: consultMessage(episodes, related, tz) }] },
    ],
    tools: [],
    maxTokens: MAX_OUTPUT_TOKENS,
    ...(signal ? { signal } : {}),
  });
  const text = response.content
    .filter((b) => b.type === 'text')
    .map((b) => b.text)
    .join('');
  const parsed = parseModelOutput(text);
  const truncated = response.stopReason === 'max_tokens';
  if (truncated)
    parsed.rejected.push({ where: 'output', reason: 'cut off at the output token limit' });
  return {
    ...parsed,
    inputTokens: response.usage.inputTokens,
    outputTokens: response.usage.outputTokens,
    unusable: truncated || parsed.rejected.some((r) => r.where === 'output'),
  };
}
