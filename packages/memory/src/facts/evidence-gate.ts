/**
 * The evidence gate: how sure keel may be of a belief, given who it came from and how many
 * independent episodes support it. Enforced inside the store for every writer (see
 * `transitions.ts`, the only code that changes a confidence); no caller can raise a belief past it.
 *
 * - A first observed or inferred sighting is capped at {@link FIRST_SIGHTING_CAP} (0.70).
 * - Each independent repeat (a different episode) adds {@link REPEAT_STEP} (0.05), up to
 *   {@link NON_OWNER_MAX} (0.95).
 * - Only the owner's word (owner_stated, owner_confirmed) reaches 1.0.
 *
 * @module
 */
import type { Source } from '../types.js';

/** First confidence of an observed or inferred belief (the evidence gate's cap). */
export const FIRST_SIGHTING_CAP = 0.7;
/** Confidence added per independent repeat (from a different episode). */
export const REPEAT_STEP = 0.05;
/** The most any belief not from the owner can reach. */
export const NON_OWNER_MAX = 0.95;
/** A non-owner belief at or above this is "strong": a weaker new sighting cannot replace it. */
export const STRONG_CONFIDENCE = 0.85;

const OWNER_SOURCES: readonly Source[] = ['owner_stated', 'owner_confirmed'];

/** True for the sources that speak with the owner's authority. */
export function isOwnerSource(source: Source): boolean {
  return OWNER_SOURCES.includes(source);
}

/** How authoritative a source is; a write may replace a stored value of equal or lower rank. */
export function authority(source: Source): number {
  switch (source) {
    case 'owner_stated':
    case 'owner_confirmed':
      return 3;
    case 'system':
      return 2;
    case 'observed':
    case 'imported':
      return 1;
    case 'inferred':
      return 0;
  }
}

/** Rounds a confidence to 4 decimals, as the store keeps it. */
export const round = (x: number) => Math.round(x * 10_000) / 10_000;

/**
 * The most confidence a belief may hold given its source and how many independent episodes
 * support it. Owner sources may hold 1.0; others start at most at 0.70 and rise 0.05 per
 * independent repeat to at most 0.95.
 *
 * @param independentEvidence - distinct supporting episodes, ≥ 1.
 * @returns a ceiling in 0..1.
 */
export function confidenceCeiling(source: Source, independentEvidence: number): number {
  if (isOwnerSource(source)) return 1;
  return round(
    Math.min(
      NON_OWNER_MAX,
      FIRST_SIGHTING_CAP + REPEAT_STEP * Math.max(0, independentEvidence - 1),
    ),
  );
}

/**
 * The one rule by which a belief's confidence rises: `newSightings` independent episodes added
 * to a belief now held at `current` with `source` and `evidence` pieces of evidence in all. Each
 * new sighting adds {@link REPEAT_STEP}, never past {@link confidenceCeiling}; a belief the owner
 * has just made theirs (`promotedToOwner`) is 1.0. Confidence never falls by corroboration.
 *
 * @param current - the confidence before, 0..1.
 * @param evidence - independent pieces of evidence after the new sightings, ≥ 1.
 * @returns the confidence after, 0..1.
 */
export function raisedConfidence(
  current: number,
  source: Source,
  evidence: number,
  newSightings: number,
  promotedToOwner = false,
): number {
  if (promotedToOwner && isOwnerSource(source)) return 1;
  const ceiling = confidenceCeiling(source, evidence);
  return Math.max(current, Math.min(ceiling, round(current + REPEAT_STEP * newSightings)));
}
