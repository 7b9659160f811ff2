/**
 * `keel beliefs`: everything keel believes now, without guessing a query. Each slot's current value
 * and each pending conflict (marked, with the belief it contradicts), never a superseded, forgotten
 * or rejected one; filtered by `--kind`, `--source`, `--scope`, `--min-confidence` and
 * `--max-confidence`; sorted by kind then key (the default) or strongest first (`--sort
 * confidence`). A thin adapter over `MemoryStore.beliefs`. Beliefs the journal does not explain
 * are left out and named, as `keel recall` leaves them out.
 *
 * Text is a table (id, confidence, evidence, source, when last seen, then the belief);
 * `--json` is `{"beliefs": [fact…], "unexplained": [id…]}`, each fact as every verb prints one.
 *
 * @module
 */
import { count, humanAge } from '@keel/language';
import {
  BELIEF_ORDERS,
  type BeliefListing,
  type BeliefOrder,
  type Fact,
  KINDS,
  type Kind,
  SOURCES,
  type Source,
} from '@keel/memory';
import { type Command, Option } from 'commander';
import type { Config } from '../config.js';
import { action, emit, wantsJson } from '../output.js';
import { factJson, parseConfidence, withStore } from './shared.js';

/** What `keel beliefs` is given. */
interface BeliefsOptions {
  kind?: Kind;
  source?: Source;
  scope?: 'owner' | 'agent';
  minConfidence?: number;
  maxConfidence?: number;
  sort: BeliefOrder;
}

/** Registers `keel beliefs`. */
export function registerBeliefsCommand(program: Command, config: Config): void {
  program
    .command('beliefs')
    .description(
      'every belief keel holds now (pending conflicts marked), by kind and key or strongest first',
    )
    .addOption(new Option('--kind <kind>', 'only this kind').choices([...KINDS]))
    .addOption(new Option('--source <source>', 'only from this source').choices([...SOURCES]))
    .addOption(new Option('--scope <scope>', 'only whose beliefs').choices(['owner', 'agent']))
    .option('--min-confidence <0..1>', 'only at least this confident', parseConfidence)
    .option('--max-confidence <0..1>', 'only at most this confident', parseConfidence)
    .addOption(
      new Option('--sort <order>', 'kind: by kind then key; confidence: strongest first')
        .choices([...BELIEF_ORDERS])
        .default('kind'),
    )
    .action(
      action((opts: BeliefsOptions, cmd: Command) =>
        withStore(
          config,
          (store) => {
            const listing = store.beliefs({
              ...(opts.kind ? { kind: opts.kind } : {}),
              ...(opts.source ? { source: opts.source } : {}),
              ...(opts.scope ? { scope: opts.scope } : {}),
              ...(opts.minConfidence === undefined ? {} : { minConfidence: opts.minConfidence }),
              ...(opts.maxConfidence === undefined ? {} : { maxConfidence: opts.maxConfidence }),
              order: opts.sort,
            });
            emit(
              wantsJson(cmd),
              { beliefs: listing.beliefs.map(factJson), unexplained: listing.unexplained },
              () => beliefsText(listing, store.now(), filtered(opts)),
            );
          },
          'none',
        ),
      ),
    );
}

/** Whether any filter narrowed the listing (so "none" means none match, not none held). */
function filtered(opts: BeliefsOptions): boolean {
  return Boolean(
    opts.kind ||
      opts.source ||
      opts.scope ||
      opts.minConfidence !== undefined ||
      opts.maxConfidence !== undefined,
  );
}

/** The table's columns before the belief, and how each is read from a fact. */
const COLUMNS: readonly { title: string; cell: (f: Fact, now: number) => string }[] = [
  { title: 'ID', cell: (f) => `f${f.id}` },
  { title: 'CONF', cell: (f) => f.confidence.toFixed(2) },
  { title: 'EVIDENCE', cell: (f) => String(f.evidence_count) },
  { title: 'SOURCE', cell: (f) => f.source },
  { title: 'LAST SEEN', cell: (f, now) => humanAge(now - f.last_seen_at) },
];

/**
 * The belief, last (so a value in any script needs no padding): `profile/home: Lyon`, marked when
 * it is a pending conflict or keel's own belief.
 */
function beliefCell(f: Fact): string {
  const value = f.value.replace(/\s+/g, ' ').trim();
  const marks = [
    ...(f.status === 'pending'
      ? [`PENDING: contradicts ${f.conflicts_with_id ? `f${f.conflicts_with_id}` : 'a belief'}`]
      : []),
    ...(f.scope === 'agent' ? ["keel's own"] : []),
  ];
  return `${f.kind}/${f.key}: ${value}${marks.length ? `  (${marks.join('; ')})` : ''}`;
}

/**
 * The listing as a table with a line under it: how many, and what to do with a pending conflict;
 * beliefs left out because the journal does not explain them are named, as `keel recall` names
 * them.
 */
export function beliefsText(listing: BeliefListing, now: number, narrowed: boolean): string {
  const { beliefs, unexplained } = listing;
  const rows = beliefs.map((f) => [...COLUMNS.map((c) => c.cell(f, now)), beliefCell(f)]);
  const header = [...COLUMNS.map((c) => c.title), 'BELIEF'];
  const widths = COLUMNS.map((_, i) =>
    Math.max(header[i]!.length, ...rows.map((r) => r[i]!.length)),
  );
  const line = (cells: string[]) =>
    cells.map((c, i) => (i < widths.length ? c.padEnd(widths[i]!) : c)).join('  ');
  const pending = beliefs.filter((f) => f.status === 'pending').length;
  const lines = beliefs.length
    ? [
        line(header),
        ...rows.map(line),
        `${count(beliefs.length - pending, 'belief')}${pending ? `, ${count(pending, 'pending conflict')} (keel review; keel confirm <id> or keel reject <id>)` : ''}.`,
      ]
    : [narrowed ? 'No belief matches.' : 'keel holds no beliefs yet.'];
  if (unexplained.length) {
    lines.push(
      `left out: ${unexplained.map((id) => `f${id}`).join(', ')} (changed outside keel: the journal does not explain it; keel verify)`,
    );
  }
  return lines.join('\n');
}
