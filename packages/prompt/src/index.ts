/**
 * `@keel/prompt`: the one place that builds the prompt's memory, and how memory is written out for
 * the model and the owner.
 *
 * - Blocks: the static block (standing beliefs) and the per-turn block (what recall found), each
 *   fenced as data and cut to a token budget, and the instructions that tell the model how to read
 *   them.
 * - Lines: one fact or episode as a line; every fact line carries its confidence, evidence count,
 *   source and age.
 * - The fence grammar: {@link stripMemoryText} removes keel's memory text from a turn, reading it
 *   with the same shapes the blocks are written with.
 * - Token counts ({@link countTokens}, {@link encodeTokens}, {@link decodeTokens}): the estimate
 *   every budget uses, its tables loaded on the first call.
 *
 * @module
 */
export {
  buildStaticBlock,
  buildTurnBlock,
  MEMORY_INSTRUCTIONS,
  type MemoryBlock,
  STANDING_KINDS,
  STATIC_BUDGET_TOKENS,
  STATIC_CANDIDATES,
  standingInput,
  TURN_BUDGET_TOKENS,
} from './blocks.js';
export { fenceMemoryResult, fenceToolOutput, flagStoredText, stripMemoryText } from './fence.js';
export {
  type FactLineInput,
  formatEpisodeLine,
  formatFactLine,
  formatResultLine,
} from './format.js';
export { countTokens, decodeTokens, encodeTokens } from './tokens.js';
