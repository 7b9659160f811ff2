/**
 * The shape of a vendored secret-scanning rule (see `gitleaks-rules.ts`).
 *
 * @module
 */
import type { SecretKind } from '../kinds.js';

/** One issuer's key or token format. */
export interface VendorRule {
  /** The rule's id upstream ("github-pat", "aws-access-token" …). */
  id: string;
  kind: SecretKind;
  /** A JavaScript regex source, compiled with the flags `gud` (no inline modifiers). */
  source: string;
  /** Lower-case strings at least one of which every match contains (the text is read lower-cased). */
  keywords: string[];
  /** The least Shannon entropy (bits per character) of the secret; below it, no finding. */
  entropy?: number;
  /** The capture group that is the secret; default: the first group that matched, else the match. */
  secretGroup?: number;
  /** Regex sources (no flags) of known harmless secrets (documentation examples). */
  allow?: string[];
}
