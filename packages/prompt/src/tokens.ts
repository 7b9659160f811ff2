/**
 * Token counts: gpt-tokenizer's o200k_base encoding (OpenAI's current one), which keel uses as an
 * estimate of any model's count for its budgets. The encoding's tables are large (tens of MB in
 * memory, a noticeable part of a second to load), so they are loaded on the first call, not when
 * keel starts: a verb that never builds a prompt never loads them.
 *
 * @module
 */
import { createRequire } from 'node:module';

type Tokenizer = typeof import('gpt-tokenizer');

let tokenizer: Tokenizer | undefined;

/** gpt-tokenizer, loaded synchronously on first use (its CommonJS build, through `require`). */
function load(): Tokenizer {
  tokenizer ??= createRequire(import.meta.url)('gpt-tokenizer') as Tokenizer;
  return tokenizer;
}

/** The number of o200k_base tokens in `text`. */
export function countTokens(text: string): number {
  return load().countTokens(text);
}

/** `text` as o200k_base token ids. */
export function encodeTokens(text: string): number[] {
  return load().encode(text);
}

/** The text of o200k_base token ids (the inverse of {@link encodeTokens}). */
export function decodeTokens(tokens: readonly number[]): string {
  return load().decode(tokens);
}
