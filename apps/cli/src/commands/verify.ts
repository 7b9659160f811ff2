/**
 * `keel verify`: walks the journal chain and its head, replays the journal against the facts,
 * evidence, tombstones and episodes it explains, and checks every invariant of the store; prints
 * each break with its fix, says how far replay reached and what verify cannot detect, and exits 1
 * on any break (`--json`: the store's verify report).
 *
 * @module
 */
import { existsSync } from 'node:fs';
import { count } from '@keel/language';
import { formatHead, parseHead, type VerifyReport } from '@keel/memory';
import type { Command } from 'commander';
import type { Config } from '../config.js';
import { action, EXIT, emit, wantsJson as json } from '../output.js';
import { withStore } from './shared.js';

/** What `keel verify --help` says after the options. */
const HELP = `
It checks that the journal's chain is whole and ends where its head says, that every redacted
payload and episode text matches the redaction entry that recorded it, and that replaying the
journal gives the facts, evidence, tombstones and episodes the store holds: a value, status,
source, confidence or evidence count changed behind keel's back is reported with the row.
Rows written before replay records began (an older store) are counted, not checked.

The journal's end is checked against its anchor, keel.db.anchor beside the file, which keel
moves after every write: a journal cut short, or one that goes on past it, is a break. The
schema's triggers are checked against the ones the migrations made.

What it cannot detect: a writer who rewrites both the file and its anchor consistently. Keep the
head elsewhere (keel verify --head prints it; keep it in a note or another machine) and check
against it later with keel verify --against <seq>:<hash>; keep a backup elsewhere too.`;

/** `replay: from entry 1 (the whole journal); checked 3 facts, …` */
function replayLine(r: VerifyReport['replay']): string {
  const rows = (c: VerifyReport['replay']['checked']) =>
    `${count(c.facts, 'fact')}, ${count(c.evidence, 'evidence row')}, ${count(c.tombstones, 'tombstone')}, ${count(c.episodes, 'episode')}`;
  const from =
    r.from <= 1
      ? 'from entry 1 (the whole journal)'
      : `from entry ${r.from} (entries 1-${r.from - 1} predate replay records)`;
  const older = Object.values(r.predate).some((n) => n > 0)
    ? `; written before replay records, not checked: ${rows(r.predate)}`
    : '';
  return `replay: ${from}; checked ${rows(r.checked)}${older}`;
}

/** What `keel verify` prints for a home with no database: nothing is opened or created. */
function nothingToVerify(path: string, asJson: boolean): number {
  emit(
    asJson,
    { ok: true, database: null, detail: `no keel database at ${path}: nothing to verify` },
    () => `nothing to verify: there is no keel database at ${path} (nothing was created)`,
  );
  return EXIT.ok;
}

/** The text report. */
function reportLines(r: VerifyReport): string {
  return [
    `journal: ${count(r.journal.entries, 'entry', 'entries')}, ${count(r.journal.breaks.length, 'break')}; head ${r.head ? `at entry ${r.head.seq}` : 'MISSING'}`,
    `anchor: ${r.anchorFile ?? 'none'}`,
    replayLine(r.replay),
    `facts: ${r.counts.facts} (${r.counts.active} active), episodes: ${r.counts.episodes}, tombstones: ${r.counts.tombstones}`,
    ...r.problems.map((p) => `BROKEN ${p.check}: ${p.detail}${p.fix ? ` (fix: ${p.fix})` : ''}`),
    ...(r.journal.breaks.length > 0
      ? [
          'a broken journal cannot be mended in place: restore keel.db from a backup taken before the break',
        ]
      : []),
    `cannot detect: ${r.cannotDetect}`,
    r.ok ? 'ok' : `${r.problems.length} problem(s)`,
  ].join('\n');
}

/** Registers `keel verify`. */
export function registerVerifyCommand(program: Command, config: Config): void {
  program
    .command('verify')
    .description(
      'walk the journal chain, replay it against the store and check every invariant; exit 1 on any break',
    )
    .option('--head', "print the journal's head (<seq>:<hash>) to keep elsewhere, then verify")
    .option(
      '--against <head>',
      'also check that the journal still holds a head you kept (<seq>:<hash>)',
    )
    .addHelpText('after', HELP)
    .action(
      action((opts: { head?: boolean; against?: string }, cmd: Command) => {
        const against = opts.against === undefined ? undefined : parseHead(opts.against);
        if (!existsSync(config.paths.db)) return nothingToVerify(config.paths.db, json(cmd));
        return withStore(
          config,
          (store) => {
            const r = store.verify(against ? { against } : {});
            emit(json(cmd), r, () =>
              [...(opts.head ? [`head: ${formatHead(r.end)}`] : []), reportLines(r)].join('\n'),
            );
            return r.ok ? EXIT.ok : EXIT.failed;
          },
          'none',
        );
      }),
    );
}
