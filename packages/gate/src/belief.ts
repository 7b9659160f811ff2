/**
 * The belief gate's contract: one yes/no question per owner turn ("does it hold a durable fact
 * about the owner?"). A "yes" sends the turn to the pending-beliefs queue, where the nightly
 * curator extracts facts; the gate itself extracts nothing.
 *
 * @module
 */

/** The kinds of durable fact the gate recognises, in the order the pattern gate prefers them. */
export const BELIEF_CATEGORIES = [
  'correction',
  'identity',
  'relationship',
  'decision',
  'plan',
  'preference',
  'other',
] as const;

/**
 * What kind of durable fact a turn holds:
 * - `preference`: what the owner likes, dislikes, favours or habitually does;
 * - `relationship`: a person or pet in the owner's life and who they are;
 * - `plan`: something the owner intends to do beyond the current conversation;
 * - `correction`: the owner corrects something said before;
 * - `identity`: name, job, home, age, health, allergies, diet, languages, notable possessions;
 * - `decision`: a choice the owner has made;
 * - `other`: durable, but none of the above.
 */
export type BeliefCategory = (typeof BELIEF_CATEGORIES)[number];

/**
 * The gate's answer. `undecided` means the gate could not judge this time (model unreachable,
 * timed out, or gave an unusable reply); the caller keeps the turn and asks again later.
 */
export type GateDecision = 'yes' | 'no' | 'undecided';

/** One judgement of one turn. */
export interface GateVerdict {
  decision: GateDecision;
  /** One line saying why (or why the gate could not decide). */
  reason: string;
  /** The kind of fact; present only when `decision` is `yes`. */
  category?: BeliefCategory;
}

/** One yes/no question per owner turn: does it hold a durable fact about the owner? No extraction. */
export interface BeliefGate {
  /** Which gate this is, for the run report (`ollama`: a local model; `pattern`: no model). */
  readonly name: 'ollama' | 'pattern';
  /**
   * Judges one owner turn. Screen it first with {@link screenTurn}: the gate does not look for
   * secrets or injection itself.
   *
   * @param text - the owner's turn, as screened.
   * @param options.signal - aborts the judgement.
   * @returns `undecided` instead of throwing when the gate cannot judge this time.
   * @throws KeelError `CANCELLED` only when `options.signal` aborts.
   */
  judge(text: string, options?: { signal?: AbortSignal }): Promise<GateVerdict>;
}
