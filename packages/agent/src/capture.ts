/**
 * The one write of the owner's statement, shared by every door: the terminal with a model and
 * the offline terminal (and so Discord, which runs one of them). Capture never fails a turn: an
 * error is recorded against the turn's episode (`keel doctor` lists it) and returned for the door
 * to say.
 *
 * Corrections are by slot, not by phrase. For each owner line:
 *
 * 1. **what it says stopped or changed** (`readCorrection`: negation + the slot's predicate, an
 *    ending verb + its object, a change from A to B) is resolved against memory: the belief of the
 *    slot the clause places, of the family its verb ends (a couple's ending: the partner
 *    relations), or whose value the clause mentions (folded content words). The owner's word
 *    closes it (`retracted`, `valid_to` the turn's time, history kept); a change opens B in A's
 *    slot (an update: A superseded).
 * 2. **what it states** (`captureExplicit`: "remember that …", a correction, or a plain statement
 *    in a known slot) is written as `owner_stated`: a new value in a held slot supersedes it.
 * 3. **what it may replace**: a statement that placed nothing in a slot (nothing, or a note) and
 *    closed nothing, whose content words overlap a current owner belief's value, becomes a
 *    pending question on that belief ("does … mean f3 no longer holds?"), never a silent second
 *    certainty. A line about someone else ("my brother bought a flat in Valparaíso") asks
 *    nothing: it mentions what the owner holds without saying anything of it.
 *
 * @module
 */
import { ERROR_FIXES, KeelError, type KeelErrorCode } from '@keel/errors';
import {
  CAPTURE_MAX_CHARS,
  type Capture,
  type ChangeReading,
  captureExplicit,
  type Fragment,
  oversizedStatement,
  readCorrection,
  readFragment,
  saysGoesOn,
  sentencesOf,
  speaksOfOthers,
  speechActOf,
} from '@keel/gate';
import {
  type Fact,
  isOwnerSource,
  type MemoryStore,
  type PendingQuestion,
  type WriteResult,
} from '@keel/memory';
import { applyChange, close, targetsOf } from './capture-change.js';
import {
  insteadAfter,
  insteadOfStop,
  namedFragment,
  pastState,
  presenceInHeldSlot,
  saysWhatClosed,
  slotNamed,
} from './capture-instead.js';
import {
  heldSlotFor,
  type LineContext,
  overlaps,
  ownBeliefs,
  rewrite,
  subjectWords,
  write,
} from './capture-words.js';
import { captureReminder, type ReminderNote } from './reminders.js';

export { subjectWords, TRUNCATION_LETTERS } from './capture-words.js';

/** What capturing one owner line did. */
export interface OwnerCapture {
  /** The write review's result, or null when the line states nothing to keep (or it failed). */
  write: WriteResult | null;
  /** Writes of the line's further sentences ("… My boyfriend is Kenji now"), in order. */
  also: WriteResult[];
  /** Beliefs the line closed on the owner's word (retracted, history kept), as they are now. */
  closed: Fact[];
  /** Pending questions the line raised: beliefs it may replace, for the owner to answer. */
  questions: PendingQuestion[];
  /**
   * Why the capture failed (the episode is stored all the same), with the one-line fix, or null.
   * `TOO_LARGE` when the owner asked to keep a statement longer than capture reads.
   */
  error: CaptureError | null;
  /** A request to be reminded the line made, and what came of it (see `reminders.ts`), or null. */
  reminder: ReminderNote | null;
}

/** Why capturing the owner's statement failed: a KeelError code (or `INTERNAL`), its message and fix. */
export interface CaptureError {
  code: string;
  message: string;
  /** The one-line fix the door prints under it. */
  fix: string;
}

/** The most questions one line raises. */
export const MAX_QUESTIONS_PER_LINE = 3;

/**
 * Pending questions for the owner beliefs a statement may replace: those whose value shares a
 * subject word with the line ({@link subjectWords}), at most {@link MAX_QUESTIONS_PER_LINE}.
 */
function askAboutOverlaps(
  ctx: LineContext,
  text: string,
  except: number | null,
): PendingQuestion[] {
  const said = subjectWords(text);
  if (said.size === 0) return [];
  const questions: PendingQuestion[] = [];
  for (const f of ownBeliefs(ctx.store)) {
    if (questions.length >= MAX_QUESTIONS_PER_LINE) break;
    if (f.id === except || !isOwnerSource(f.source)) continue;
    if (!overlaps(said, subjectWords(f.value))) continue;
    const { question } = ctx.store.ask(f.id, {
      actor: 'owner',
      said: text,
      episodeId: ctx.episodeId,
    });
    questions.push(question);
  }
  return questions;
}

/** What one sentence of the owner's line did (see {@link captureSentence}). */
interface SentenceCapture {
  write: WriteResult | null;
  closed: Fact[];
  questions: PendingQuestion[];
  /** A value the sentence gave with no slot ("Nairobi now."), for the slot the line closed. */
  unplaced?: string;
  /** Further writes of the sentence ("left dell, we relocated to raleigh and i'm at Red Hat"). */
  also?: WriteResult[];
}

/**
 * One sentence of the owner's line (the line itself for the first: its trigger phrase is read
 * there): what it says stopped or changed, what it states, and, when `ask`, what it may replace.
 */
function captureSentence(ctx: LineContext, text: string, ask: boolean): SentenceCapture {
  const { capture, reading, fragmentOf } = readSentence(ctx.store, text);
  const { written, more, closed, announced } = applySentence(ctx, text, capture, reading);
  const fragment = capture || (reading && reading.shape !== 'negation') ? null : fragmentOf();
  let write = written;
  if (!write && closed.length === 0) write = namedFragment(ctx, fragment);
  if (!write && !reading && closed.length === 0 && isStatement(text)) write = sayAgain(ctx, text);
  const placed =
    write?.fact != null &&
    write.fact.kind !== 'note' &&
    write.decision !== 'ignore' &&
    write.decision !== 'withheld';
  const asked = announced.map(
    (f) => ctx.store.ask(f.id, { actor: 'owner', said: text, episodeId: ctx.episodeId }).question,
  );
  // A line about someone else ("Bologna won 3–1", "my brother bought a flat in Valparaíso")
  // may mention what the owner holds without saying anything of it: no question.
  const mayAsk =
    ask &&
    closed.length === 0 &&
    !placed &&
    !saysGoesOn(text) &&
    (reading !== null || ((capture !== null || isStatement(text)) && !speaksOfOthers(text)));
  const questions =
    asked.length > 0 ? asked : mayAsk ? askAboutOverlaps(ctx, text, write?.fact?.id ?? null) : [];
  return {
    write,
    closed,
    questions,
    ...(fragment && !fragment.name ? { unplaced: fragment.value } : {}),
    ...(more.length > 0 ? { also: more } : {}),
  };
}

/**
 * What a sentence says, read once against what the owner holds: the statement to keep (or
 * none), and what it says stopped or changed (or nothing).
 */
function readSentence(
  store: MemoryStore,
  text: string,
): { capture: Capture | null; reading: ChangeReading | null; fragmentOf: () => Fragment | null } {
  // A fragment is read in the sentence's own words (the first sentence of a whole line), once.
  let fragment: Fragment | null | undefined;
  const fragmentOf = () => {
    if (fragment === undefined) fragment = readFragment(sentencesOf(text)[0] ?? text);
    return fragment;
  };
  let capture = captureExplicit(text);
  let reading = readCorrection(text);
  // An ending said of a subject no belief names ("the gym membership ended when I moved to
  // Porto") is read as the line's other shapes instead.
  if (reading?.subject && targetsOf(store, reading, null).length === 0) {
    reading = readCorrection(text, { subjects: false });
  }
  capture = insteadOfStop(reading, capture, text);
  // A new value for a slot the owner holds ("started with a new therapist yesterday, dr. anya
  // kowalczyk") says more than a note of the same line: the fragment is written instead.
  if (capture?.kind === 'note' && !reading) {
    const named = fragmentOf()?.name;
    if (named && slotNamed(store, named)) capture = null;
  }
  if (capture) capture = heldSlotFor(store, capture);
  // A plain "my X is Y" with an open-ended X restates a slot: kept only when it is held.
  if (
    capture?.restates &&
    !store.current({ scope: 'owner', kind: capture.kind, key: capture.key })
  ) {
    capture = null;
  }
  return { capture, reading, fragmentOf };
}

/**
 * Closes and writes what a sentence says: a change supersedes, a stop closes what it names (and
 * what holds instead is written), an announced end is held for a question, a statement is kept.
 *
 * @returns the write, further writes, the beliefs closed, and those an announced end is about.
 */
function applySentence(
  ctx: LineContext,
  text: string,
  capture: Capture | null,
  reading: ChangeReading | null,
): { written: WriteResult | null; more: WriteResult[]; closed: Fact[]; announced: Fact[] } {
  // "I lived in Galway until March 1st, now I'm in Cork": a state that held until a day.
  // (A note read from a later clause, "…, now I'm in Cork", is what holds after it.)
  const past = reading || (capture && capture.kind !== 'note') ? null : pastState(ctx, text);
  if (reading?.shape === 'change' || (reading?.to && !reading.opens)) {
    const { write: written, closed } = applyChange(ctx, reading, capture);
    return { written, more: [], closed, announced: [] };
  }
  if (reading?.announced) {
    // An end announced, not yet come: the belief holds until then; the owner is asked.
    const announced = targetsOf(ctx.store, reading, null).slice(0, MAX_QUESTIONS_PER_LINE);
    return { written: null, more: [], closed: past ? [past] : [], announced };
  }
  const closed: Fact[] = past ? [past] : [];
  for (const f of reading ? targetsOf(ctx.store, reading, null) : []) {
    // The statement's own value replaces a belief of its own slot.
    if (capture && capture.kind !== 'note' && f.kind === capture.kind && f.key === capture.key) {
      continue;
    }
    const c = close(ctx, f, reading!);
    if (c) closed.push(c);
  }
  let written: WriteResult | null = null;
  let more: WriteResult[] = [];
  // "i'm at Monzo now" in a line that names the slot or its old value: that slot's new value.
  if ((!capture || capture.kind === 'note') && closed.length === 0 && !reading) {
    written = presenceInHeldSlot(ctx, text);
  }
  // What holds instead, said after the stop ("sold the Civic, I drive a Tesla Model 3 now").
  if (!written && closed.length > 0) {
    [written = null, ...more] = insteadAfter(ctx, text, closed, reading?.ended);
  }
  // A note that only says something stopped adds nothing once the belief is closed.
  if (!written && capture && !(capture.kind === 'note' && saysWhatClosed(capture, closed))) {
    written = write(ctx, capture);
  }
  // A plain statement the review refused (a credential, a tombstone) was never asked to be
  // kept: the line is answered as any other line (its refusal is journaled all the same).
  if (
    capture?.trigger === 'plain' &&
    (written?.decision === 'withheld' || written?.decision === 'ignore')
  ) {
    written = null;
  }
  return { written, more, closed, announced: [] };
}

/** The fix of a capture that failed on a bug (not a KeelError). */
const INTERNAL_CAPTURE_FIX =
  'This is a bug in keel; please report it with what you said (the message itself is stored).';

/**
 * The note every door says after a turn whose capture failed (the turn went on): the code and the
 * message in one line, then the one-line fix, as every door prints an error:
 * `(Your message is stored, but keel could not keep it as a belief: TOO_LARGE: …. keel doctor lists
 * it.)` and `fix: …` on the next line. A failure handed over without its fix (a type that dropped
 * it) gets its code's fix ({@link ERROR_FIXES}), or the bug's fix when the code is not keel's.
 */
export function captureErrorNote(error: { code: string; message: string; fix?: string }): string {
  const fix =
    error.fix ||
    (Object.hasOwn(ERROR_FIXES, error.code)
      ? ERROR_FIXES[error.code as KeelErrorCode]
      : INTERNAL_CAPTURE_FIX);
  return `(Your message is stored, but keel could not keep it as a belief: ${error.code}: ${error.message}. keel doctor lists it.)\nfix: ${fix}`;
}

/**
 * Refuses a statement the owner asked keel to keep ("remember that …") that is longer than
 * capture reads: never dropped silently.
 *
 * @throws KeelError `TOO_LARGE` naming the length and the limit ({@link CAPTURE_MAX_CHARS}).
 */
function refuseOversized(text: string): void {
  const length = oversizedStatement(text);
  if (length === null) return;
  throw new KeelError(
    'TOO_LARGE',
    `the statement to remember is ${length} characters and its first sentence is longer than the ${CAPTURE_MAX_CHARS} characters keel keeps as a belief`,
    {
      details: { length, limit: CAPTURE_MAX_CHARS },
      fix: `Say what to remember in a shorter sentence (at most ${CAPTURE_MAX_CHARS} characters); the whole message is stored as your episode.`,
    },
  );
}

/**
 * Captures the owner's statement in `text` (see the module comment): what it says stopped or
 * changed closes or supersedes the belief of its slot, what it states is kept as `owner_stated`
 * with `episodeId` as its evidence, and what it may replace is asked. A time phrase said with the
 * value ("I moved to Porto yesterday") is the belief's start (`valid_from`: that day's start in
 * `tz`) when it names a day at or before the line; a month or a year alone leaves the start
 * unknown rather than guessed. A statement asked to be kept that is longer than capture reads is
 * refused with `TOO_LARGE` (as `error`), never dropped silently.
 *
 * @param episodeId - the owner's episode of this line (already stored).
 * @param tz - the owner's IANA time zone (`KEEL_TZ`), default "UTC".
 */
export function captureOwnerStatement(
  store: MemoryStore,
  text: string,
  episodeId: number,
  tz = 'UTC',
): OwnerCapture {
  // A request to be reminded is read first and on its own: its outcome is said whatever the
  // statement's capture does.
  const reminder = captureReminder(store, text, episodeId, tz);
  try {
    refuseOversized(text);
    const said = store.episode(episodeId)?.occurred_at ?? store.now();
    const ctx: LineContext = { store, episodeId, said, tz, line: text };
    const first = captureSentence(ctx, text, true);
    const also: WriteResult[] = [];
    // Each further sentence of the line is the owner's statement too ("Arjun and I called it
    // quits. My boyfriend is Kenji now"): read alone, its writes and closes added; only the
    // first asks.
    const unplaced = first.unplaced ? [first.unplaced] : [];
    also.push(...(first.also ?? []));
    for (const sentence of sentencesOf(text).slice(1)) {
      if (!isStatement(sentence)) continue;
      const next = captureSentence(ctx, sentence, false);
      if (next.write) also.push(next.write);
      also.push(...(next.also ?? []));
      first.closed.push(...next.closed);
      if (next.unplaced) unplaced.push(next.unplaced);
    }
    // "Nairobi now. left Mombasa on the 3rd": a value said alone takes the slot the line closed.
    const emptied = first.closed.find(
      (f) => f.kind !== 'note' && !store.current({ scope: f.scope, kind: f.kind, key: f.key }),
    );
    if (emptied && unplaced[0]) also.push(rewrite(ctx, emptied, unplaced[0]));
    return {
      write: first.write ?? also.shift() ?? null,
      also,
      closed: first.closed,
      questions: first.questions,
      error: null,
      reminder,
    };
  } catch (err) {
    const error: CaptureError = {
      code: KeelError.isInstance(err) ? err.code : 'INTERNAL',
      message: err instanceof Error ? err.message : String(err),
      fix: KeelError.isInstance(err) ? err.fix : INTERNAL_CAPTURE_FIX,
    };
    store.recordCaptureFailure(episodeId, error.code, error.message);
    return { write: null, also: [], closed: [], questions: [], error, reminder };
  }
}

/**
 * The owner saying again what they forgot, in a line keel would not otherwise keep ("I drink
 * oat milk, just so you know"): the forgotten belief whose content the line's first clause says,
 * and nothing more, is kept again as the owner's word (its tombstone lifted). Saying it again is
 * the one way back; a line that only mentions it ("my friend drinks oat milk") is not.
 */
function sayAgain(ctx: LineContext, text: string): WriteResult | null {
  const clause = text.trim().split(/\s*(?:[,;:.!?…\n]|\s[-—–]\s)/u)[0] ?? '';
  const again = ctx.store.forgottenSaidAgain(clause)[0];
  if (!again) return null;
  return ctx.store.remember({
    kind: again.kind,
    key: again.key,
    value: again.value,
    source: 'owner_stated',
    episodeId: ctx.episodeId,
    actor: 'owner',
  });
}

/** True when the line states something (not a question, request, supposition or report). */
function isStatement(text: string): boolean {
  return speechActOf(text) === 'statement';
}
