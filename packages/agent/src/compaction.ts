/**
 * Compaction: the oldest whole turns of the history folded into the anchor, a summary the model
 * writes in passes that each fit a request, or a plain list of the owner's words when the model
 * refuses to summarise.
 *
 * @module
 */

import { KeelError } from '@keel/errors';
import { countTokens, decodeTokens, encodeTokens, flagStoredText } from '@keel/prompt';
import type { RequestBudget } from './budget.js';
import type { ChatModel, ContentBlock, TextBlock } from './model/types.js';
import type { SessionStore, StoredMessage } from './session.js';

/** Output tokens of a compaction summary, at most. */
const SUMMARY_MAX_TOKENS = 1024;
/** Tokens held for the anchor when history is folded to fit a request. */
export const ANCHOR_ALLOWANCE = 1_600;
/** Tokens of one compaction pass's transcript, at most; fewer when the model's window is small. */
const COMPACT_CHUNK_TOKENS = 32_000;
/** Tokens of one compaction pass's transcript, at least. */
const MIN_CHUNK_TOKENS = 1_000;
/** Tokens of one message in a compaction transcript, at most. */
const COMPACT_MESSAGE_TOKENS = 2_000;
/** Tokens a compaction request holds besides its transcript: the instructions and the anchor. */
const SUMMARY_ALLOWANCE = ANCHOR_ALLOWANCE + 200;
const COMPACT_SYSTEM =
  'You compact a conversation between an owner and their agent, keel. Write a concise summary that keeps every decision made, every open task or promise, every constraint or preference the owner stated, and names, dates and numbers that matter. Plain text, no preamble.';

/**
 * Folds the oldest whole turns into the anchor until the messages left hold at most
 * `keepTokens`; the newest turn is folded only when it alone holds more than `newestTokens`. The folded transcript is summarised in passes that
 * each fit a request (every message cut to its share); a pass the model refuses, or answers
 * with nothing, is replaced by a plain list of what the owner said, so the history always
 * shrinks.
 *
 * @returns true when the anchor was updated.
 * @throws the model's errors other than `MODEL_REFUSED_INPUT` (the anchor keeps the passes
 *   already made).
 */
export async function foldHistory(
  session: SessionStore,
  model: ChatModel,
  signal: AbortSignal | undefined,
  keepTokens: number,
  newestTokens: number,
  budget: RequestBudget,
): Promise<boolean> {
  const history = session.history();
  const byTurn = new Map<number, StoredMessage[]>();
  for (const m of history.messages) byTurn.set(m.turnId, [...(byTurn.get(m.turnId) ?? []), m]);
  const turns = [...byTurn.values()];
  let remaining = history.messages.reduce((n, m) => n + m.tokens, 0);
  const folded: StoredMessage[][] = [];
  while (turns.length > 0 && remaining > (turns.length === 1 ? newestTokens : keepTokens)) {
    const t = turns.shift()!;
    folded.push(t);
    remaining -= t.reduce((n, m) => n + m.tokens, 0);
  }
  if (folded.length === 0) return false;
  const maxTokens = Math.min(SUMMARY_MAX_TOKENS, budget.maxTokens);
  // Each pass: the instructions, the summary so far, and as many whole turns as fit.
  const chunkBudget = Math.max(
    MIN_CHUNK_TOKENS,
    Math.min(COMPACT_CHUNK_TOKENS, budget.input - SUMMARY_ALLOWANCE - countTokens(COMPACT_SYSTEM)),
  );
  let anchor = history.anchor;
  let chunk: string[] = [];
  let chunkTokens = 0;
  let lastId = 0;
  const flush = async () => {
    if (chunk.length === 0) return;
    anchor = await summarise(model, anchor, chunk.join('\n'), maxTokens, signal);
    session.setAnchor(anchor, lastId);
    chunk = [];
    chunkTokens = 0;
  };
  for (const turn of folded) {
    const lines = transcriptLines(turn, chunkBudget);
    const tokens = lines.reduce((n, l) => n + countTokens(l) + 1, 0);
    if (chunkTokens + tokens > chunkBudget) await flush();
    chunk.push(...lines);
    chunkTokens += tokens;
    lastId = turn[turn.length - 1]!.id;
  }
  await flush();
  return true;
}

/** One summarising pass; a refusal or an empty answer falls back to {@link plainSummary}. */
async function summarise(
  model: ChatModel,
  anchor: string | null,
  transcript: string,
  maxTokens: number,
  signal: AbortSignal | undefined,
): Promise<string> {
  try {
    const response = await model.complete({
      system: [{ text: COMPACT_SYSTEM }],
      messages: [
        {
          role: 'user',
          content: [
            {
              type: 'text',
              // Stored words reach the model here too: a line that reads like instructions is
              // flagged, in the summary so far and in the turns folded in.
              text: `${anchor ? `Summary so far:\n${flagStoredText(anchor)}\n\n` : ''}Conversation to fold in:\n${flagStoredText(transcript)}`,
            },
          ],
        },
      ],
      tools: [],
      maxTokens,
      ...(signal ? { signal } : {}),
    });
    const summary = textOf(response.content).trim();
    if (summary) return summary;
  } catch (err) {
    if (!KeelError.isInstance(err) || err.code !== 'MODEL_REFUSED_INPUT') throw err;
  }
  return plainSummary(anchor, transcript);
}

/** The text a response said (its text blocks, joined). */
export function textOf(content: readonly ContentBlock[]): string {
  return content
    .filter((b): b is TextBlock => b.type === 'text')
    .map((b) => b.text)
    .join('');
}

/** `text` cut to `cap` tokens, marked when cut. */
function clipTokens(text: string, cap: number): string {
  const tokens = encodeTokens(text);
  return tokens.length <= cap ? text : `${decodeTokens(tokens.slice(0, Math.max(0, cap)))} […]`;
}

/** One turn's messages as transcript lines for a summary, each cut to its share of `chunk`. */
function transcriptLines(turn: readonly StoredMessage[], chunk: number): string[] {
  const cap = Math.max(50, Math.min(COMPACT_MESSAGE_TOKENS, Math.floor(chunk / turn.length) - 8));
  return turn.map((m) => {
    const parts = m.content.map((b) =>
      b.type === 'text'
        ? b.text
        : b.type === 'tool_use'
          ? `[tool ${b.name} ${JSON.stringify(b.input)}]`
          : `[tool result: ${b.content.slice(0, 500)}]`,
    );
    return clipTokens(`${m.role === 'user' ? 'Owner' : 'keel'}: ${parts.join(' ')}`, cap);
  });
}

/** Tokens of a plain summary's list of the owner's words, at most. */
const PLAIN_SUMMARY_TOKENS = 1_200;

/**
 * A summary made without the model, for when it refuses to summarise: the summary so far (cut)
 * and what the owner said in the folded turns (each cut to 200 characters; the newest kept).
 */
function plainSummary(anchor: string | null, transcript: string): string {
  const said = transcript
    .split('\n')
    .filter((l) => l.startsWith('Owner: ') && !l.startsWith('Owner: [tool result'))
    .map((l) => (l.length > 207 ? `${l.slice(0, 206)}…` : l));
  const kept: string[] = [];
  let used = 0;
  for (const line of said.reverse()) {
    const cost = countTokens(line) + 1;
    if (used + cost > PLAIN_SUMMARY_TOKENS) break;
    kept.unshift(line);
    used += cost;
  }
  return [
    ...(anchor ? [clipTokens(anchor, 300)] : []),
    '(Earlier turns could not be summarised; what the owner said in them:)',
    ...kept,
  ].join('\n');
}
