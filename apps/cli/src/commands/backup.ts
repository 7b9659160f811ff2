/**
 * The verbs for a damaged day: `keel backup [file]` (a verified copy, safe while the services
 * run), `keel restore <file>` (a backup in place of the database, the replaced file kept beside,
 * every purge made since applied to it first)
 * and `keel recover` (what the owner said while the database was damaged, stored once it is
 * restored). Each is a thin adapter over `@keel/host`.
 *
 * @module
 */
import { backupHome, pendingRecovery, recoverInto, recoveryPath, restoreHome } from '@keel/host';
import { count } from '@keel/language';
import type { Command } from 'commander';
import type { Config } from '../config.js';
import { action, EXIT, emit, wantsJson as json } from '../output.js';
import { withStore } from './shared.js';

const MB = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;

/** Registers `keel backup`, `keel restore` and `keel recover`. */
export function registerBackupCommands(program: Command, config: Config): void {
  program
    .command('backup')
    .description(
      'copy the database (safe while keel runs) to a file, verified; default $KEEL_HOME/backups/keel-<time>.db',
    )
    .argument('[file]', 'where to write the copy (must not exist)')
    .action(
      action(async (file: string | undefined, _opts: unknown, cmd: Command) => {
        const r = await backupHome(config, file);
        emit(
          json(cmd),
          {
            path: r.path,
            bytes: r.bytes,
            pages: r.pages,
            check: 'ok',
            copy_ms: Math.round(r.copyMs),
            check_ms: Math.round(r.checkMs),
          },
          () =>
            `backed up ${config.paths.db} to ${r.path} (${MB(r.bytes)}; quick check ok) in ${Math.round(r.copyMs + r.checkMs)} ms\nrestore it with: keel restore ${r.path}`,
        );
        return EXIT.ok;
      }),
    );

  program
    .command('restore')
    .description(
      'put a backup in place of the database (the replaced file is kept beside it); stop keel think and keel discord first',
    )
    .argument('<file>', 'a backup made by keel backup')
    .option(
      '--force',
      'replace the database even when it is sound (it is kept beside all the same)',
    )
    .action(
      action(async (file: string, opts: { force?: boolean }, cmd: Command) => {
        const r = await restoreHome(config, file, { force: Boolean(opts.force) });
        emit(
          json(cmd),
          {
            from: r.from,
            database: r.database,
            schema_version: r.info.version,
            facts: r.info.facts,
            episodes: r.info.episodes,
            previous: r.previous,
            kept_as: r.keptAs,
            recovery: { path: recoveryPath(config.home), lines: r.recoveryLines },
            purges: {
              ledger: r.purges.ledger,
              entries: r.purges.entries,
              found: r.purges.found,
              reached: r.purges.reached,
              unreadable: r.purges.unreadable,
            },
          },
          () =>
            [
              `restored ${r.from} (schema ${r.info.version}, ${count(r.info.facts, 'fact')}, ${count(r.info.episodes, 'episode')}) as ${r.database}`,
              ...(r.keptAs
                ? [
                    `the ${r.previous === 'sound' ? 'replaced' : 'damaged'} file is kept as ${r.keptAs}`,
                  ]
                : []),
              ...(r.purges.found > 0
                ? [
                    `${r.purges.found} value(s) purged since the backup was made are purged from it again (${r.purges.reached} row(s); ${r.purges.ledger})`,
                  ]
                : []),
              ...(r.purges.unreadable > 0
                ? [
                    `${r.purges.unreadable} line(s) of ${r.purges.ledger} could not be read and were skipped`,
                  ]
                : []),
              ...(r.recoveryLines > 0
                ? [
                    `${r.recoveryLines} line(s) you said meanwhile wait in ${recoveryPath(config.home)}: run keel recover`,
                  ]
                : []),
            ].join('\n'),
        );
        return EXIT.ok;
      }),
    );

  program
    .command('recover')
    .description(
      'store what you said while the database was damaged (kept in $KEEL_HOME/recovery.jsonl) as your episodes, once',
    )
    .action(
      action((_opts: unknown, cmd: Command) => {
        const waiting = pendingRecovery(config.home);
        const r =
          waiting.lines === 0
            ? null
            : withStore(config, (store) => recoverInto(store, config.home));
        emit(
          json(cmd),
          r
            ? {
                path: r.path,
                recovered: r.recovered,
                existing: r.existing,
                episodes: r.episodes,
                unreadable: r.unreadable,
                unreadable_file: r.unreadableFile,
              }
            : {
                path: waiting.path,
                recovered: 0,
                existing: 0,
                episodes: [],
                unreadable: 0,
                unreadable_file: null,
              },
          () =>
            r
              ? [
                  `stored ${r.recovered} line(s) from ${r.path} as your episodes${r.episodes.length ? ` (${r.episodes.map((id) => `e${id}`).join(', ')})` : ''}${r.existing ? `; ${r.existing} were stored already` : ''}`,
                  ...(r.unreadable
                    ? [`${r.unreadable} line(s) could not be read; kept in ${r.unreadableFile}`]
                    : []),
                ].join('\n')
              : `nothing to recover (${waiting.path} holds no lines)`,
        );
        return EXIT.ok;
      }),
    );
}
