/**
 * `keel export [--format json|markdown] [--include episodes] [--out FILE]`: the owner's memory
 * taken out, assembled by `MemoryStore.exportMemory` (the shape is documented in `@keel/memory`'s
 * `export/format.ts` and the README) and written here: JSON under keel's `--json` contract, or
 * Markdown for a person (`export-markdown.ts`). To stdout by default; `--out` writes a file only
 * the owner can read (mode 0600) and prints what it wrote. `keel import <file>` brings a JSON
 * export back into an empty KEEL_HOME.
 *
 * @module
 */
import { KeelError } from '@keel/errors';
import { formatJson } from '@keel/host';
import { type KeelExport, writePrivateFile } from '@keel/memory';
import { type Command, Option } from 'commander';
import type { Config } from '../config.js';
import { action, emit, say, wantsJson } from '../output.js';
import { exportMarkdown } from './export-markdown.js';
import { withStore } from './shared.js';

/** The options `keel export` takes. */
interface ExportOpts {
  format?: 'json' | 'markdown';
  include?: 'episodes';
  out?: string;
}

/** The export as the text it is written as. */
function rendered(x: KeelExport, format: 'json' | 'markdown', tz: string): string {
  return format === 'json' ? `${formatJson(x, { pretty: true })}\n` : exportMarkdown(x, tz);
}

/**
 * Registers `keel export`.
 *
 * @throws KeelError `INVALID_INPUT` (`--json` to stdout with `--format markdown`),
 *   `FILE_UNREADABLE` (the `--out` file cannot be written).
 */
export function registerExportCommand(program: Command, config: Config): void {
  program
    .command('export')
    .description(
      'take your memory out: every belief with its evidence and history, and the tombstones, as JSON or Markdown',
    )
    .addOption(
      new Option(
        '--format <format>',
        'json (keel import reads it back) or markdown (to read)',
      ).choices(['json', 'markdown']),
    )
    .addOption(
      new Option('--include <what>', 'also every episode (the whole conversation)').choices([
        'episodes',
      ]),
    )
    .option('--out <file>', 'write to this file (mode 0600) instead of stdout')
    .action(
      action((opts: ExportOpts, cmd: Command) => {
        const json = wantsJson(cmd);
        if (json && !opts.out && opts.format === 'markdown') {
          throw new KeelError(
            'INVALID_INPUT',
            '--json prints the export as JSON; --format markdown is not JSON',
            {
              fix: 'Drop --json, or give --out <file> (then --json prints what was written).',
            },
          );
        }
        const format = opts.format ?? 'json';
        const x = withStore(
          config,
          (store) => store.exportMemory({ includeEpisodes: opts.include === 'episodes' }),
          'none',
        );
        const text = rendered(x, format, config.think.tz);
        if (!opts.out) {
          if (format === 'json') process.stdout.write(text);
          else say(text);
          return;
        }
        try {
          // A temporary file made 0600, renamed over the target: mode 0600 whatever was there.
          writePrivateFile(opts.out, text);
        } catch (err) {
          throw new KeelError(
            'FILE_UNREADABLE',
            `cannot write ${opts.out}: ${(err as Error).message}`,
            {
              fix: 'Check that the folder exists and that you can write to it.',
            },
          );
        }
        const summary = {
          path: opts.out,
          format,
          beliefs: x.beliefs.length,
          tombstones: x.tombstones.length,
          episodes: x.episodes?.length ?? null,
          bytes: Buffer.byteLength(text),
        };
        emit(
          json,
          summary,
          () =>
            `wrote ${opts.out} (${format}): ${summary.beliefs} belief(s), ${summary.tombstones} tombstone(s)${x.episodes ? `, ${x.episodes.length} episode(s)` : ''}`,
        );
      }),
    );
}
