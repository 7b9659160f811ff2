/**
 * `@keel/gate`: what is worth believing.
 *
 * - Capture ({@link captureExplicit}): the owner's own statements — "remember that …", "call me
 *   …", "actually …", in English, Spanish, French, German or Portuguese, in any script — under
 *   stable keys, as their word; never a question, request, supposition or someone else's words
 *   as the owner's ({@link speechActOf} tells them apart). One table per language in `capture/`.
 * - The belief gate ({@link BeliefGate}): one yes/no question per owner turn — does it hold a
 *   durable fact about the owner? — answered by a local model through Ollama ({@link OllamaGate})
 *   or, when none answers, by deterministic patterns ({@link PatternGate}: an engine over the word
 *   lists and clause tables in `patterns/`); {@link chooseBeliefGate} says which ran and why.
 * - The screen ({@link screenTurn}): a turn holding a credential or text aimed at a model is
 *   refused, and keel's own memory text (read with `@keel/prompt`'s fence grammar) is cut out.
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
export { type Presence, readPresence } from './capture/presence.js';
export {
  CAPTURE_LANGUAGES,
  CAPTURE_MAX_CHARS,
  type Capture,
  type CaptureLanguage,
  type CaptureTrigger,
  type ChangeReading,
  type ChangeShape,
  captureExplicit,
  type Fragment,
  laterClauses,
  MAX_SENTENCES,
  oversizedStatement,
  PARTNER_KEYS,
  type PastState,
  readCorrection,
  readFragment,
  readPastState,
  SCRIPT_LANGUAGES,
  type ScriptLanguage,
  type SlotFamily,
  type SpeechAct,
  saysGoesOn,
  sentencesOf,
  speaksOfOthers,
  speechActOf,
} from './capture.js';
export {
  type ChooseBeliefGateOptions,
  chooseBeliefGate,
  DEFAULT_GATE_MODEL,
  DEFAULT_GATE_TIMEOUT_MS,
  DEFAULT_PROBE_TIMEOUT_MS,
  OllamaGate,
  type OllamaGateOptions,
  ollamaHasModel,
} from './ollama-gate.js';
export { judgeByPattern, PATTERN_GATE_MAX_CHARS, PatternGate } from './pattern-gate.js';
export { type ScreenRefusal, type ScreenResult, screenTurn } from './screen.js';
