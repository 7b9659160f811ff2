/**
 * `keel verify`: walks the journal chain and checks every invariant of the store; prints each
 * break with its fix and exits 1 on any (`--json`: the store's verify report).
 *
 * @module
 */
import type { Command } from 'commander';
import type { Config } from '../config.js';
import { action, EXIT, emit, wantsJson as json } from '../output.js';
import { withStore } from './shared.js';

/** Registers `keel verify`. */
export function registerVerifyCommand(program: Command, config: Config): void {
  program
    .command('verify')
    .description('walk the journal chain and check every invariant; exit 1 on any break')
    .action(
      action((_opts: unknown, cmd: Command) =>
        withStore(
          config,
          (store) => {
            const r = store.verify();
            emit(json(cmd), r, () =>
              [
                `journal: ${r.journal.entries} entries, ${r.journal.breaks.length} break(s)`,
                `facts: ${r.counts.facts} (${r.counts.active} active), episodes: ${r.counts.episodes}, tombstones: ${r.counts.tombstones}`,
                ...r.problems.map(
                  (p) => `BROKEN ${p.check}: ${p.detail}${p.fix ? ` (fix: ${p.fix})` : ''}`,
                ),
                r.ok ? 'ok' : `${r.problems.length} problem(s)`,
              ].join('\n'),
            );
            return r.ok ? EXIT.ok : EXIT.failed;
          },
          'none',
        ),
      ),
    );
}
