/**
 * `@keel/gate`: what is worth believing. Explicit capture of the owner's "remember that …"
 * statements under stable keys, and the belief gate: one yes/no question per owner turn (does it
 * hold a durable fact about the owner?) answered by a local model through Ollama, or by
 * deterministic patterns when no model is available, after the turn is screened for secrets,
 * prompt injection and keel's own memory text.
 *
 * @module
 */
export {
  BELIEF_CATEGORIES,
  type BeliefCategory,
  type BeliefGate,
  type GateDecision,
  type GateVerdict,
} from './belief.js';
export { type Capture, captureExplicit } from './capture.js';
export {
  type ChooseBeliefGateOptions,
  chooseBeliefGate,
  DEFAULT_GATE_MODEL,
  DEFAULT_GATE_TIMEOUT_MS,
  DEFAULT_PROBE_TIMEOUT_MS,
  OllamaGate,
  type OllamaGateOptions,
} from './ollama-gate.js';
export { judgeByPattern, PATTERN_GATE_MAX_CHARS, PatternGate } from './pattern-gate.js';
export { type ScreenRefusal, type ScreenResult, screenTurn } from './screen.js';
