/**
 * `@keel/prompt`: the one place that builds the prompt's memory, and how memory is written out for
 * the model and the owner. Every fact line carries its confidence, evidence count, source and age.
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
  TURN_BUDGET_TOKENS,
} from './blocks.js';
export {
  type FactLineInput,
  formatEpisodeLine,
  formatFactLine,
  formatResultLine,
} from './format.js';
