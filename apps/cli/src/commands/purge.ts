/**
 * Purge by mention: `keel purge <text…>` lists every stored text that mentions the text (folded:
 * "Sao Paulo" finds "São Paulo"), asks on a terminal, and erases every mention
 * (`MemoryStore.purgeMentions`). With `--json`, or without a terminal, it never asks: it erases
 * only with `--yes`, and otherwise fails with `CONFIRMATION_REQUIRED`, the list in the error's
 * details. `keel forget <id> --purge` (in `memory.ts`) shows the same list and asks the same way
 * through {@link confirmErase}. Both erase through the purge verbs every door shares (`purgeText`
 * and `forgetAndPurge` of `@keel/tools`: the store, then keel's backups) and list the backups
 * reached.
 *
 * @module
 */
import * as p from '@clack/prompts';
import { KeelError } from '@keel/errors';
import { type BackupReach, backupsPath, purgeLedgerPath } from '@keel/host';
import type { MentionReport, PurgeReceipt } from '@keel/memory';
import { formatFactLine } from '@keel/prompt';
import { purgeText } from '@keel/tools';
import type { Command } from 'commander';
import type { Config } from '../config.js';
import { action, emit, wantsJson as json, say } from '../output.js';
import { factJson, withStore, withStoreAsync } from './shared.js';

/** A mention report as `--json` prints it (snake_case). */
export function mentionReportJson(report: MentionReport) {
  return {
    total: report.total,
    places: report.places,
    mentions: report.mentions.map((m) => ({
      place: m.place,
      table: m.table,
      column: m.column,
      id: m.id,
      excerpt: m.excerpt,
    })),
    beliefs: report.beliefs.map(factJson),
  };
}

/**
 * A purge receipt as `--json` prints it (snake_case; never the value, only its hash): `reached`
 * names the places it changed rows in, each with `count` and `ids`.
 */
export function receiptJson(receipt: PurgeReceipt) {
  return {
    value_hash: receipt.valueHash,
    total: receipt.total,
    reached: Object.fromEntries(Object.entries(receipt.reached).filter(([, r]) => r.count > 0)),
    retracted: receipt.retracted,
    tombstones: receipt.tombstones,
    journal_seq: receipt.journalSeq,
  };
}

/** The backups a purge reached, as `--json` prints them: `[{path, reached, error}]`. */
export function backupsJson(reach: readonly BackupReach[]) {
  return reach.map((b) => ({ path: b.path, reached: b.reached, error: b.error }));
}

/** The backups a purge reached, as a person reads them. */
export function backupLines(config: Config, reach: readonly BackupReach[]): string {
  const rewritten = reach.filter((b) => b.reached > 0);
  const clean = reach.filter((b) => b.reached === 0 && !b.error);
  const lines = [
    reach.length === 0
      ? `backups: none in ${backupsPath(config.home)}`
      : `backups: ${rewritten.length} rewritten without it${rewritten.length ? ` (${rewritten.map((b) => `${b.path} ${b.reached} row(s)`).join(', ')})` : ''}${clean.length ? `; ${clean.length} held none of it` : ''}`,
    ...reach
      .filter((b) => b.error)
      .map((b) => `backup ${b.path} not reached: error ${b.error!.code} ${b.error!.message}`),
    `a restore purges it from any backup, one copied elsewhere too (${purgeLedgerPath(config.home)} keeps its hashes, never the text)`,
  ];
  return lines.join('\n');
}

/** The list a door shows before erasing: each place, each row and its excerpt, then the beliefs. */
export function mentionLines(report: MentionReport): string {
  if (report.total === 0) return 'nothing stored mentions it';
  const lines = [`${report.total} stored row(s) mention it:`];
  for (const m of report.mentions) {
    lines.push(`  ${m.place} #${m.id} (${m.column}): ${m.excerpt}`);
  }
  if (report.beliefs.length > 0) {
    lines.push('these beliefs will be retracted and purged:');
    for (const f of report.beliefs) lines.push(`  ${formatFactLine(f)}`);
  }
  return lines.join('\n');
}

/** The receipt as a person reads it. */
export function receiptLines(receipt: PurgeReceipt): string {
  const reached = Object.entries(receipt.reached)
    .filter(([, r]) => r.count > 0)
    .map(([place, r]) => `${place} ${r.count}`)
    .join(', ');
  return [
    `purged: ${receipt.total} row(s) reached${reached ? ` (${reached})` : ''}`,
    receipt.retracted.length > 0
      ? `retracted ${receipt.retracted.map((id) => `f${id}`).join(', ')}`
      : '',
    'its words are tombstoned: only you saying them again brings them back',
  ]
    .filter(Boolean)
    .join('\n');
}

/**
 * Decides whether to erase what `report` lists: `--yes` erases; on a terminal without `--json`
 * the list is shown and the owner asked (a yes/no prompt, no by default; Ctrl-C erases nothing);
 * otherwise nothing is erased and the call fails.
 *
 * @returns true to erase; false when the owner said no on a terminal (the caller says so).
 * @throws KeelError `CONFIRMATION_REQUIRED` (with `--json` or without a terminal, and no `--yes`),
 *   the list in its details.
 */
export async function confirmErase(
  report: MentionReport,
  opts: { yes: boolean | undefined; json: boolean; verb: string },
): Promise<boolean> {
  if (opts.yes) return true;
  if (!opts.json && process.stdin.isTTY && process.stdout.isTTY) {
    say(`${mentionLines(report)}\n`);
    const answer = await p.confirm({ message: 'Erase all of it?', initialValue: false });
    return answer === true;
  }
  if (!opts.json) say(`${mentionLines(report)}\n`);
  throw new KeelError(
    'CONFIRMATION_REQUIRED',
    `${opts.verb} lists ${report.total} row(s) to erase and erased nothing: it asks before erasing, and cannot ask here`,
    {
      details: mentionReportJson(report),
      fix: `Read the list, then run \`${opts.verb} … --yes\` to erase all of it (on a terminal, without --json, keel asks instead).`,
    },
  );
}

/** Registers `keel purge <text…>`. */
export function registerPurgeCommand(program: Command, config: Config): void {
  program
    .command('purge')
    .description(
      'erase every stored mention of a text (folded: accents and case ignored), after showing the list',
    )
    .argument('<text...>', 'the words to erase, e.g. Sao Paulo')
    .option('-y, --yes', 'erase without asking (required with --json or without a terminal)')
    .action(
      action(async (words: string[], opts: { yes?: boolean }, cmd: Command) => {
        const text = words.join(' ');
        const report = withStore(config, (store) => store.findMentions(text));
        const go = await confirmErase(report, {
          yes: opts.yes,
          json: json(cmd),
          verb: 'keel purge',
        });
        if (!go) {
          emit(false, null, () => 'kept: nothing was erased');
          return;
        }
        const { receipt, backups: reach } = await withStoreAsync(config, (store) =>
          purgeText(store, text),
        );
        const backups = reach ?? [];
        emit(
          json(cmd),
          {
            erased: true,
            found: mentionReportJson(report),
            receipt: receiptJson(receipt),
            backups: backupsJson(backups),
          },
          () => `${receiptLines(receipt)}\n${backupLines(config, backups)}`,
        );
      }),
    );
}
