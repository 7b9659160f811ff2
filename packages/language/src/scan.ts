/**
 * Deterministic scans the write review runs on every value: secrets are never stored (the secret
 * scan and redaction live in `secrets/`: `detect.ts`, `shapes.ts`, `vocabulary.ts`, `redact.ts`),
 * and text that reads like instructions to a model is refused from any writer but the owner.
 *
 * @module
 */

export {
  findSecret,
  type ScanOptions,
  scanSecrets,
  secretInSlot,
  secretNamedBy,
} from './secrets/detect.js';
export {
  describeSecretKind,
  isSecretKind,
  SECRET_KINDS,
  SECRET_PLACEHOLDER,
  type SecretFinding,
  type SecretKind,
} from './secrets/kinds.js';
export { redactSecrets, SecretLedger, withholdSecrets } from './secrets/redact.js';

import { commandsModel } from './injection.js';

/** Phrases that try to steer a model from inside stored text. */
const INJECTION_PATTERNS: readonly RegExp[] = [
  /\b(?:ignore|disregard|forget)\s+(?:all\s+|any\s+)?(?:the\s+)?(?:previous|prior|above|earlier|your)\s+(?:instructions|prompts?|rules)/i,
  /\bnew\s+instructions\s*:/i,
  /<\/?\s*(?:system|instructions?|memory|assistant)\s*>/i,
  /\byou\s+are\s+now\s+(?:in\s+)?(?:developer|dan|jailbreak|unrestricted)/i,
  /\b(?:reveal|print|repeat)\s+(?:your|the)\s+system\s+prompt/i,
  /\b(?:ignore|disregard|forget|override|bypass)\s+(?:all\s+|any\s+|of\s+)*(?:the\s+|your\s+|my\s+|these\s+|those\s+)?(?:previous|prior|above|earlier|preceding|system|original|initial)\s+(?:instructions|prompts?|rules|directives|guidelines)/i,
  /\b(?:ignore|disregard|override|bypass)\s+(?:all\s+)?(?:of\s+)?your\s+(?:instructions|rules|guidelines|system prompt|programming)\b/i,
  /\b(?:ignore|disregard)\s+(?:all\s+)?(?:the\s+)?(?:instructions|rules)\s+(?:above|before|given)/i,
  /<\|(?:im_start|im_end|system|user|assistant|endoftext|eot_id|start_header_id|end_header_id)\|>/i,
  /\[\/?INST\]|<<\/?SYS>>/,
];

/**
 * True when `text` reads like an instruction aimed at a model (prompt injection): a chat-template
 * or role token, or a command to the model to set aside its instructions, rules or memory, to
 * reveal or send them, or to obey someone new, in en, es, fr, de or pt (`commandsModel`, a small
 * grammar of command verbs and what they act on; see `injection.ts`).
 */
export function looksLikeInjection(text: string): boolean {
  return INJECTION_PATTERNS.some((re) => re.test(text)) || commandsModel(text);
}
