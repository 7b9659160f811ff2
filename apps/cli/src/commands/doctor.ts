/**
 * `keel doctor`: what is configured and what is degraded: the data folder, the database's schema
 * and integrity, full-text and vector search, the embedder, the chat model, the memory's size, the
 * think service (its lock holder and its state, read through the store's repositories) and the
 * newest captures that failed (a failed capture never fails its turn; this is where it shows), the
 * newest backup and the lines waiting in the recovery file.
 * Exits 1 when the database is damaged or its journal is broken (the journal check `keel verify`
 * makes: each break is named with its fix), never for capture failures. The journal check is
 * incremental: entries after the last whole check (at most a day old; `keel.db.checked`) are
 * hashed again, everything else it does (anchor, triggers, every current row against the
 * journal) runs in full; `--full`, or no recent whole check, hashes every entry.
 *
 * The integrity check is a full `PRAGMA quick_check` (a sound verdict is cached for the verbs).
 * A damaged database is then read only, never written (no embedder is bound to it), and the
 * report says how to get back: `keel restore <file>` (naming the newest backup), and
 * `keel recover` for the lines kept meanwhile.
 *
 * Then the live checks (`@keel/host`'s `runChecks`): the chat model takes its key and has its
 * model, the belief gate's model is pulled, Discord takes the bot token and an owner is paired,
 * the services run. Each problem is printed with its error code and a one-line fix; a check that
 * fails (something configured that does not work) makes doctor exit 1, as damage does.
 * `--offline` (or `--no-live`) skips the checks that use the network.
 *
 * @module
 */
import { KeelError } from '@keel/errors';
import { DOCTOR_CAPTURE_FAILURES, type DoctorReport, doctorReport } from '@keel/host';
import { count } from '@keel/language';
import type { Command } from 'commander';
import type { Config } from '../config.js';
import { asTyped, fixesAsTyped } from '../invocation.js';
import { action, EXIT, emit, wantsJson as json } from '../output.js';
import { serviceSetup } from './service.js';

/** A capture failure this recent (ms) counts as "failed recently" in the text report: 30 days. */
const RECENT_CAPTURE_MS = 30 * 86_400_000;

/** Registers `keel doctor`. */
export function registerDoctorCommand(program: Command, config: Config): void {
  program
    .command('doctor')
    .description('what is configured, what is degraded, and whether it works (live checks)')
    .option('--offline', 'skip the checks that use the network (model, Discord, Ollama)')
    .option('--no-live', 'the same as --offline')
    .option(
      '--full',
      'hash every journal entry again (by default only those after the last whole check, made at most a day ago)',
    )
    .action(
      action((opts: { offline?: boolean; live?: boolean; full?: boolean }, cmd: Command) =>
        doctor(config, json(cmd), !opts.offline && opts.live !== false, opts.full === true),
      ),
    );
}

/**
 * Prints the doctor report.
 *
 * @param live - make the checks that use the network.
 * @returns the exit code: 1 when the database is damaged or a check failed.
 */
async function doctor(
  config: Config,
  asJson: boolean,
  live: boolean,
  full: boolean,
): Promise<number> {
  const report = await doctorReport(config, { live, full, services: serviceSetupOrNull(config) });
  const text = () =>
    [
      `data folder   ${report.home}`,
      `database      ${report.database} (schema ${report.schema_version}, SQLite ${report.sqlite})`,
      `integrity     ${report.integrity === 'ok' ? 'ok' : `DAMAGED: ${report.integrity}\n              ${damageAdvice(report)}`}`,
      `backups       ${report.backup.newest ? `newest ${report.backup.newest} (${report.backup.at})` : `none in ${report.backup.folder} (keel backup makes one)`}`,
      ...(report.recovery.lines > 0
        ? [
            `recovery      ${report.recovery.lines} line(s) you said while the database was damaged wait in ${report.recovery.path}${report.integrity === 'ok' ? ': keel recover stores them' : ''}`,
          ]
        : []),
      'full-text     FTS5 ok',
      `embedder      ${report.embedder ? `${report.embedder.name} ${report.embedder.model} (${report.embedder.dim}-d)` : 'none'}`,
      `vectors       ${
        report.vectors.available
          ? `on: ${count(report.vectors.counts?.facts ?? 0, 'fact')}, ${count(report.vectors.counts?.episodes ?? 0, 'episode')} indexed${report.vectors.pending ? `, ${report.vectors.pending} waiting (keel reindex)` : ''}`
          : `off: ${report.vectors.reason}`
      }`,
      `recall mode   ${report.recall_mode}`,
      `model         ${report.model.reason}${modelVerdict(report.checks)}`,
      `memory        ${count(report.counts.active, 'active belief')} (${report.counts.pending} pending), ${count(report.counts.episodes, 'episode')}`,
      `think         ${
        report.think.running
          ? `running (PID ${report.think.running.pid})`
          : 'not running (keel think)'
      }; last tick ${report.think.last_tick ? `${report.think.last_tick.status} at ${report.think.last_tick.at}` : 'never'}; last night ${report.think.last_night ?? 'never'}; ${report.think.queue.waiting} turn(s) waiting for the gate, ${report.think.queue.believed} for the curator`,
      `tools         ${report.tools.enabled.length ? report.tools.enabled.join(', ') : 'no built-ins'} (workspace ${report.tools.workspace}); ${report.tools.calls === null ? 'the tool log cannot be read' : `${count(report.tools.calls, 'call')} logged (keel tools log), ${count(report.tools.grants ?? 0, 'standing answer')} (keel tools)`}`,
      `reminders     ${report.tools.reminders_pending === null ? 'unknown (the database is damaged)' : `${report.tools.reminders_pending} pending (keel reminders)`}`,
      `capture       ${
        report.capture_failures
          ? captureLine(report.capture_failures, Date.now())
          : 'unknown: the journal cannot be read (the database is damaged)'
      }`,
      ...journalLines(report.journal),
      `trust         ${
        report.unexplained === null
          ? 'unknown: the database is damaged, so no belief is vouched for'
          : report.unexplained.length === 0
            ? report.journal?.ok
              ? 'the journal explains every current belief'
              : 'the journal is broken (above): no belief is vouched for beyond what it still explains'
            : `${report.unexplained.length} belief(s) the journal does not explain, left out of recall: ${report.unexplained
                .slice(0, 5)
                .map((id) => `f${id}`)
                .join(
                  ', ',
                )}${report.unexplained.length > 5 ? ', …' : ''} (keel verify names the change; keel restore a backup from before it, or keel forget the belief)`
      }`,
      ...checkLines(report.checks, live),
    ].join('\n');
  // The keel commands in its fixes as the owner types them (`pnpm keel …` from a clone).
  emit(asJson, fixesAsTyped(report), () => asTyped(text()));
  return report.ok ? EXIT.ok : EXIT.failed;
}

/**
 * Where and for whom this keel installs its services, for the service checks; null where keel
 * installs no services (another system) or this keel cannot name itself.
 */
function serviceSetupOrNull(config: Config): ReturnType<typeof serviceSetup> | null {
  try {
    return serviceSetup(config);
  } catch (err) {
    if (KeelError.isInstance(err)) return null;
    throw err;
  }
}

/** A check as `--json` prints it. */
type CheckJson = DoctorReport['checks'][number];

/** What the live check says of the model line: `: the key works`, `: FAILED (MODEL_AUTH, …)`. */
function modelVerdict(checks: CheckJson[]): string {
  const c = checks.find((x) => x.name === 'model');
  if (!c || c.status === 'skip') return '';
  if (c.status === 'ok') return '; checked: it answers';
  return `; ${c.status === 'fail' ? 'FAILED' : 'warning'}: ${c.code} (see checks)`;
}

/**
 * The checks section: a count, then one line per check; each problem followed by its error code
 * and its fix.
 */
function checkLines(checks: CheckJson[], live: boolean): string[] {
  const count = (status: string) => checks.filter((c) => c.status === status).length;
  const summary = [
    `${count('fail')} failed`,
    `${count('warn')} warning(s)`,
    `${count('ok')} ok`,
    `${count('skip')} skipped`,
  ].join(', ');
  const width = Math.max(...checks.map((c) => c.name.length));
  const lines = [`checks        ${summary}${live ? '' : ' (--offline: no network checks)'}`];
  for (const c of checks) {
    lines.push(`  ${c.status.padEnd(4)}  ${c.name.padEnd(width)}  ${c.detail}`);
    if (c.code) {
      const indent = ' '.repeat(width + 10);
      lines.push(`${indent}error ${c.code}`, `${indent}fix: ${c.fix}`);
    }
  }
  return lines;
}

/**
 * What to do about a damaged database: restore a backup (the newest named) with `keel restore`,
 * then `keel recover` for the lines kept meanwhile.
 */
function damageAdvice(report: DoctorReport): string {
  const restore = report.backup.newest
    ? `keel restore ${report.backup.newest} (the newest backup; keel backup makes them)`
    : `keel restore <file> with a backup (keel backup makes them; none is in ${report.backup.folder})`;
  const recover =
    report.recovery.lines > 0
      ? `, then keel recover stores the ${report.recovery.lines} line(s) kept in ${report.recovery.path}`
      : '';
  return `keel writes nothing to it now. Restore: stop keel think and keel discord, then ${restore}; the damaged file is kept beside${recover}.`;
}

/** The journal line and one line per break with its fix. */
function journalLines(journal: DoctorReport['journal']): string[] {
  if (!journal) return ['journal       not checked: the database is damaged'];
  const hashed =
    journal.scope === 'whole'
      ? 'every entry hashed again'
      : journal.hashed_from > journal.entries
        ? 'no entry since the last whole check; keel doctor --full hashes them all'
        : `entries ${journal.hashed_from}-${journal.entries} hashed again, older ones at the last whole check; keel doctor --full hashes them all`;
  if (journal.ok) {
    return [
      `journal       ok: ${count(journal.entries, 'entry', 'entries')}, ending where keel last wrote (entry ${journal.head}); ${hashed}`,
    ];
  }
  return [
    `journal       BROKEN: ${journal.problems.length} problem(s) (keel verify for the full report; ${hashed})`,
    ...journal.problems.flatMap((p) => [
      `  ${p.check}: ${p.detail}`,
      ...(p.fix ? [`    fix: ${p.fix}`] : []),
    ]),
  ];
}

/**
 * The capture line: `2 failed recently: e41 TOO_LARGE value is …; e40 …` for failures in the last
 * {@link RECENT_CAPTURE_MS}, else `ok` (with the date of the last failure when there was one).
 */
function captureLine(
  failures: { at: string; episode_id: number | null; code: string; message: string }[],
  now: number,
): string {
  const recent = failures.filter((f) => now - Date.parse(f.at) <= RECENT_CAPTURE_MS);
  if (recent.length === 0) {
    return failures[0] ? `ok (last failure ${failures[0].at.slice(0, 10)})` : 'ok';
  }
  const clip = (s: string) => (s.length <= 80 ? s : `${s.slice(0, 79)}…`);
  const count =
    recent.length === DOCTOR_CAPTURE_FAILURES ? `${recent.length}+` : String(recent.length);
  return `${count} failed recently: ${recent
    .map((f) => `${f.episode_id === null ? '' : `e${f.episode_id} `}${f.code} ${clip(f.message)}`)
    .join('; ')}`;
}
