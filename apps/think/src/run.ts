/**
 * One run of the think service — what `keel think --once` does and what the service does every
 * interval:
 *
 * 1. first, before any model work, the reminders the owner asked for and the interrupts already
 *    waiting (never in quiet hours, each at most once; `reminders.ts`, `interrupt.ts`): a reminder
 *    goes out at its time, never later by the tick's model time, and a later step that fails
 *    cannot hold it back;
 * 2. the belief gate over the owner turns written since the watermark;
 * 3. reflection over the turns the gate queued — or, once tonight's curation is due (its hour has
 *    come and tonight is not done, or it is forced), the curator, which reflects on them inside
 *    the night's one unit of work: each turn is reflected on once;
 *    After the night, the whole journal check (`keel verify`'s), which keeps the day's
 *    `keel doctor` incremental; then the interrupts this tick's reflection or curator found, so
 *    they go out in the same tick;
 * 4. the weekly review when last week has not been reviewed (after the curator's hour), which ends
 *    by sending the owner the journal's head (`weekly.ts`);
 * 5. the vector catch-up (`store.catchUpVectors`): rows written since the last tick get their
 *    vectors, a bounded number per tick (recall never embeds or writes).
 *
 * Each step is recorded in `think_runs` (the tick, and the curator and weekly review as runs of
 * their own). A model or gate failure is recorded and leaves work for the next tick; it never
 * throws. A failed delivery is a note in the report and the run goes on; a tick that fails later
 * still records what it delivered.
 *
 * @module
 */
import { corruptionError, KeelError, refusesWrites } from '@keel/errors';
import { curateNight, type Night } from './curate.js';
import type { Rejected } from './deltas.js';
import { deliverInterrupts } from './interrupt.js';
import { advanceWatermark, judgeQueue } from './queue.js';
import { reflect } from './reflect.js';
import { deliverReminders } from './reminders.js';
import { finishRun, lastFailure, lastPeriod, startRun } from './runs.js';
import { curationDue, local, nightOf, previousWeek } from './schedule.js';
import type { RunReport, ThinkDeps } from './types.js';
import { type WeeklyStep, weeklyReview } from './weekly.js';

/** After a failed night, the curator waits this long before trying again, ms (1 hour). */
export const CURATE_RETRY_MS = 60 * 60_000;

/** When the nightly curator and the weekly review run in a run. */
export interface RunOptions {
  /** `auto` (default): when due; `now`: this run; `never`: not in this run. */
  curate?: 'auto' | 'now' | 'never';
  /** `auto` (default): when last week is not reviewed yet, after the curator's hour. */
  weekly?: 'auto' | 'now' | 'never';
}

/** Everything a run did, as recorded in its `think_runs` summary. */
export interface RunDetails extends RunReport {
  night: Night | null;
  weekly: WeeklyStep | null;
  rejected: Rejected[];
  /** Sightings the write review refused (tombstoned, the owner's word, the same episode again, …). */
  ignored: number;
  screened: Record<string, number>;
  /** Owner turns dismissed because their explicit "remember that …" was already the owner's word. */
  captured: number;
  /** What the vector catch-up did: rows embedded and rows still waiting (zeros without an embedder). */
  vectors: { embedded: number; remaining: number };
  /**
   * The night's whole journal check, after the curator (null when no night ran): `ok`, the
   * entries hashed, and the problems found (`keel doctor` names each).
   */
  journal: { ok: boolean; entries: number; problems: number } | null;
  /** The reminders the owner asked for: sent, held (quiet hours, no door), missed (too late). */
  reminders: NonNullable<RunReport['reminders']>;
}

const describe = (err: unknown) => ({
  code: KeelError.isInstance(err) ? err.code : 'INTERNAL',
  error: err instanceof Error ? err.message : String(err),
});

/**
 * A database that takes no writes is not a night to retry: damaged (`DB_CORRUPT`) or its journal
 * broken (`JOURNAL_BROKEN`: every later write is refused too, until a backup is restored), it stops
 * the run (and `keel think` exits 2 with its code), like every other keel command; so does
 * `CANCELLED`. A run is still recorded as failed on a broken journal (`think_runs` is not
 * journaled), never on damaged pages.
 */
function fatal(err: unknown): KeelError | null {
  if (KeelError.isInstance(err)) {
    return err.code === 'CANCELLED' || refusesWrites(err) ? err : null;
  }
  return corruptionError(err);
}

/**
 * The night's whole journal check (`store.verify()`, what `keel verify` runs), after the curator:
 * it finds what `keel doctor`'s incremental check leaves to a whole one (an old entry edited
 * without its hash), and a pass leaves the checkpoint that keeps the day's doctor incremental; a
 * failure removes it, so the next doctor is whole and names each break with its fix. A break is a
 * note in the run, never a failed night.
 *
 * @throws KeelError `DB_CORRUPT` when the file is damaged (the run stops, as for every step).
 */
function nightlyJournalCheck(deps: ThinkDeps, report: RunDetails): RunDetails['journal'] {
  try {
    const r = deps.store.verify();
    if (!r.ok) {
      report.skipped.push(
        `journal: the nightly whole check found ${r.problems.length} problem(s); keel doctor names each with its fix`,
      );
    }
    return { ok: r.ok, entries: r.journal.entries, problems: r.problems.length };
  } catch (err) {
    const stop = fatal(err);
    if (stop) throw stop;
    const d = describe(err);
    report.skipped.push(`journal: the nightly check failed (${d.code}: ${d.error})`);
    return null;
  }
}

/**
 * Sends the owner the interrupts that are due and, with `reminders`, the reminders they asked
 * for, and counts them in `report` (run twice a tick: first, and after reflection; each item is
 * claimed before its send, so none goes twice). A failed send is retried next tick by the
 * delivery itself; any other failure is a note in `report.skipped`, never a stop of the run.
 *
 * @throws KeelError `CANCELLED`, `DB_CORRUPT`, `JOURNAL_BROKEN` (see {@link fatal}).
 */
async function deliverDue(
  deps: ThinkDeps,
  report: RunDetails,
  options: { reminders: boolean },
): Promise<void> {
  const note = (line: string) => {
    if (!report.skipped.includes(line)) report.skipped.push(line);
  };
  try {
    const delivery = await deliverInterrupts(deps);
    report.interrupts += delivery.sent;
    if (delivery.held) note(`interrupts: ${delivery.held}`);
    if (delivery.expired) {
      report.skipped.push(`interrupts: ${delivery.expired} dropped, their time had passed`);
    }
  } catch (err) {
    const stop = fatal(err);
    if (stop) throw stop;
    const d = describe(err);
    report.skipped.push(`interrupts: delivery failed (${d.code}: ${d.error}); retried next tick`);
  }
  if (!options.reminders) return;
  try {
    const reminders = await deliverReminders(deps);
    report.reminders = { sent: reminders.sent, held: reminders.held, missed: reminders.missed };
    if (reminders.heldWhy) report.skipped.push(`reminders: ${reminders.heldWhy}`);
    if (reminders.missed) {
      report.skipped.push(
        `reminders: ${reminders.missed} missed (more than a day late); keel reminders lists them`,
      );
    }
  } catch (err) {
    const stop = fatal(err);
    if (stop) throw stop;
    const d = describe(err);
    report.skipped.push(`reminders: delivery failed (${d.code}: ${d.error}); retried next tick`);
  }
}

/**
 * Runs one tick, plus the curator and weekly review when due or forced.
 *
 * @returns what it did (the `--json` output).
 * @throws KeelError `CANCELLED` when `deps.signal` aborts; store errors (`DB_*`, `BUSY`,
 *   `JOURNAL_BROKEN`).
 */
export async function runThink(deps: ThinkDeps, options: RunOptions = {}): Promise<RunDetails> {
  const { store, config } = deps;
  const log = deps.log ?? (() => {});
  const runId = startRun(store, 'tick', deps.now());
  const report: RunDetails = {
    gate: deps.gate.name,
    examined: 0,
    queued: 0,
    proposed: 0,
    written: 0,
    curated: null,
    interrupts: 0,
    skipped: [],
    runId,
    night: null,
    weekly: null,
    rejected: [],
    ignored: 0,
    screened: {},
    captured: 0,
    vectors: { embedded: 0, remaining: 0 },
    journal: null,
    reminders: { sent: 0, held: 0, missed: 0 },
  };
  try {
    // Before any model work: neither its time nor its failure may delay what is due.
    await deliverDue(deps, report, { reminders: true });
    advanceWatermark(store, deps.now());
    const gate = await judgeQueue(store, deps.gate, deps.now, deps.signal);
    report.examined = gate.examined;
    report.queued = gate.queued;
    report.screened = gate.screened;
    report.captured = gate.captured;
    if (gate.undecided > 0) {
      report.skipped.push(
        `gate: ${gate.undecided} turn(s) undecided, retried next tick` +
          (gate.stoppedEarly ? ' (stopped asking after repeated failures)' : ''),
      );
    }

    // Each believed turn is reflected on once: by this tick, or — when the curator runs in this
    // run — by the curator, inside the night's one unit of work.
    const curate = options.curate ?? 'auto';
    const now = deps.now();
    const night = nightOf(now, config.tz, config.curateAt);
    const lastFailed = lastFailure(store, 'curate');
    const backingOff =
      lastFailed !== null && now - lastFailed < CURATE_RETRY_MS && curate !== 'now';
    const due =
      curate === 'now' ||
      (curate === 'auto' &&
        curationDue(now, config.tz, config.curateAt, lastPeriod(store, 'curate')));
    // Once tonight's curation is due and until it has run, the queue is the curator's: it reflects
    // on what waits inside the night's one unit of work (a failed night is retried an hour later).
    if (!due) {
      const reflection = await reflect(deps);
      report.proposed += reflection.proposed;
      report.written += reflection.written;
      report.rejected.push(...reflection.rejected);
      report.ignored += reflection.ignored;
      if (reflection.skipped) report.skipped.push(reflection.skipped);
    }
    if (due && backingOff) {
      report.skipped.push(
        `curator: the last attempt failed; retrying after ${new Date(lastFailed + CURATE_RETRY_MS).toISOString()}`,
      );
    } else if (due) {
      const curateId = startRun(store, 'curate', now, night);
      try {
        const n = await curateNight(deps, night, curateId);
        report.night = n;
        report.curated = {
          added: n.added,
          corroborated: n.corroborated,
          superseded: n.superseded,
          conflicts: n.conflicts,
          pruned: n.pruned,
        };
        report.proposed += n.proposed;
        report.written += n.written;
        report.rejected.push(...n.rejected);
        report.ignored += n.ignored;
        if (n.waiting) report.skipped.push(`curator: ${n.waiting}`);
        finishRun(store, curateId, deps.now(), { status: 'ok', summary: n });
        log(n.diary);
      } catch (err) {
        const d = describe(err);
        const stop = fatal(err);
        if (stop?.code !== 'DB_CORRUPT')
          finishRun(store, curateId, deps.now(), { status: 'failed', ...d });
        if (stop) throw stop;
        report.skipped.push(
          `curator: failed (${d.code}: ${d.error}); nothing was kept, the night is retried`,
        );
        log(`curator failed for the night of ${night}: ${d.code}: ${d.error}`);
      }
      if (report.night) report.journal = nightlyJournalCheck(deps, report);
    }

    // What this tick's reflection or curator found for the owner goes out in the same tick.
    await deliverDue(deps, report, { reminders: false });

    const weekly = options.weekly ?? 'auto';
    const week = previousWeek(now, config.tz).week;
    const weekDue =
      weekly === 'now' ||
      (weekly === 'auto' &&
        local(now, config.tz).hour >= config.curateAt &&
        (lastPeriod(store, 'weekly') ?? '') < week);
    if (weekDue) {
      const weeklyId = startRun(store, 'weekly', now, week);
      try {
        const w = await weeklyReview(deps);
        report.weekly = w;
        if (w.skipped) report.skipped.push(`weekly: ${w.skipped}`);
        if (w.head?.note) report.skipped.push(`weekly: ${w.head.note}`);
        finishRun(store, weeklyId, deps.now(), { status: 'ok', summary: w });
      } catch (err) {
        const d = describe(err);
        const stop = fatal(err);
        if (stop?.code !== 'DB_CORRUPT')
          finishRun(store, weeklyId, deps.now(), { status: 'failed', ...d });
        if (stop) throw stop;
        report.skipped.push(`weekly: failed (${d.code}: ${d.error}); retried next tick`);
      }
    }

    try {
      report.vectors = await store.catchUpVectors();
    } catch (err) {
      const stop = fatal(err);
      if (stop) throw stop;
      const d = describe(err);
      report.skipped.push(`vectors: catch-up failed (${d.code}: ${d.error}); retried next tick`);
    }

    finishRun(store, runId, deps.now(), { status: 'ok', summary: report, gate: deps.gate.name });
    return report;
  } catch (err) {
    const stop = fatal(err);
    if (stop?.code === 'DB_CORRUPT') throw stop;
    finishRun(store, runId, deps.now(), {
      status: 'failed',
      summary: report,
      gate: deps.gate.name,
      ...describe(err),
    });
    throw stop ?? err;
  }
}
