/**
 * `@keel/prompt`: how memory is written out for the model and the owner. Every fact line carries
 * its confidence, evidence count, source and age.
 *
 * @module
 */
export {
  type FactLineInput,
  formatEpisodeLine,
  formatFactLine,
  formatResultLine,
} from './format.js';
