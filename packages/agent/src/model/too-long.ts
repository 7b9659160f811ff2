/**
 * Reading a provider's "prompt is too long" refusal, the same for every provider: whether a
 * refusal says so, and the counts it gives. The counts are what the provider (or a proxy in front
 * of it) claims; they need not add up, and the agent checks them against its own count before it
 * learns anything from them.
 *
 * Internal to `@keel/agent`: not exported from the package.
 *
 * @module
 */

/** A refusal's message that says the prompt passed the context window. */
const PROMPT_TOO_LONG =
  /prompt is too long|too many (input )?tokens|exceeds? (the )?(model'?s? |available )?(maximum )?context|context (length|window|size)|maximum context length/i;
/** An OpenAI-style error code that says the same. */
const TOO_LONG_CODES = /context_length_exceeded|exceed_context_size|string_above_max_length/i;

/** Anthropic: "prompt is too long: 208310 tokens > 200000 maximum". */
const PROMPT_COUNTS = /(\d[\d,]*)\s*tokens?\s*>\s*(\d[\d,]*)/;
/** Anthropic: "input length and `max_tokens` exceed context limit: 198000 + 8192 > 200000". */
const PROMPT_PLUS_OUTPUT = /(\d[\d,]*)\s*\+\s*\d[\d,]*\s*>\s*(\d[\d,]*)/;
/**
 * Ollama with `truncate: false` (its llama.cpp runner): "request (8889 tokens) exceeds the
 * available context size (4096 tokens), try increasing it".
 */
const REQUEST_EXCEEDS =
  /\((\d[\d,]*) tokens?\) exceeds the available context size \((\d[\d,]*) tokens?\)/i;
/** OpenAI and vLLM: "This model's maximum context length is 8192 tokens." */
const OPENAI_LIMIT = /maximum context length is (\d[\d,]*)/i;
/**
 * OpenAI: "However, your messages resulted in 9000 tokens"; vLLM: "you requested 5000 tokens
 * (4000 in the messages, 1000 in the completion)" (the messages' count is the prompt).
 */
const OPENAI_PROMPT = [
  /(\d[\d,]*) in the messages/i,
  /resulted in (\d[\d,]*) tokens/i,
  /requested (\d[\d,]*) tokens/i,
];

/** What a "prompt is too long" refusal claims. */
export interface PromptTooLong {
  reason: 'prompt_too_long';
  /** The prompt's size as the provider counted it, tokens, when the message says. */
  promptTokens?: number;
  /** The provider's context window, tokens, when the message says. */
  limitTokens?: number;
}

const num = (text: string | undefined): number | undefined => {
  const n = Number((text ?? '').replaceAll(',', ''));
  return Number.isSafeInteger(n) && n > 0 ? n : undefined;
};

/**
 * Whether a refusal says the prompt is too long, and the counts it gives.
 *
 * @param message - the provider's error message.
 * @param code - the provider's error code (OpenAI's `context_length_exceeded`), if any.
 * @returns the reason and counts, or null when the refusal is about something else.
 */
export function readPromptTooLong(message: string, code?: string): PromptTooLong | null {
  if (!PROMPT_TOO_LONG.test(message) && !TOO_LONG_CODES.test(code ?? '')) return null;
  const anthropic =
    PROMPT_COUNTS.exec(message) ??
    PROMPT_PLUS_OUTPUT.exec(message) ??
    REQUEST_EXCEEDS.exec(message);
  const promptTokens = num(
    anthropic?.[1] ?? OPENAI_PROMPT.map((re) => re.exec(message)?.[1]).find(Boolean),
  );
  const limitTokens = num(anthropic?.[2] ?? OPENAI_LIMIT.exec(message)?.[1]);
  return {
    reason: 'prompt_too_long',
    ...(promptTokens === undefined ? {} : { promptTokens }),
    ...(limitTokens === undefined ? {} : { limitTokens }),
  };
}
