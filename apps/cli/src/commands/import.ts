/**
 * `keel import <file> [--format locomo|longmemeval]`: a keel export (`keel export --format json`,
 * recognised by its content: `"format": "keel-export"`) is brought into an empty KEEL_HOME whole
 * (`MemoryStore.importKeelExport`: its beliefs, their history, evidence and tombstones; refused
 * with `STORE_NOT_EMPTY` when the store holds beliefs). A conversation archive stores every turn
 * as an episode (rerunning adds nothing). Either way it then embeds what it queued when an embedder can run, with
 * progress bars on a terminal. Prints what was added, skipped and embedded (`--json`: the import
 * result with `duration_ms`, `turns_per_second` and a `vectors` object with its own `duration_ms`).
 *
 * @module
 */
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { KeelError } from '@keel/errors';
import { closeStore, openStore } from '@keel/host';
import {
  type EmbedderSelection,
  type ImportFormat,
  isKeelExport,
  type MemoryStore,
  parseImport,
} from '@keel/memory';
import { SingleBar } from 'cli-progress';
import { type Command, Option } from 'commander';
import type { Config } from '../config.js';
import { action, emit, wantsJson as json } from '../output.js';
import { configuredEmbedder } from './models.js';

/** Registers `keel import`. */
export function registerImportCommand(program: Command, config: Config): void {
  program
    .command('import')
    .description(
      'import a keel export into an empty home, or a conversation (every turn becomes an episode; rerunning adds nothing)',
    )
    .argument('<file>', 'a JSON file')
    .addOption(
      new Option(
        '--format <format>',
        "a conversation archive's format (a keel export is recognised without it)",
      ).choices(['locomo', 'longmemeval']),
    )
    .option('--no-embed', 'store the turns only; keel reindex embeds them later')
    .action(
      action((file: string, opts: { format?: ImportFormat; embed: boolean }, cmd: Command) =>
        importFile(config, file, opts.format, opts.embed, json(cmd)),
      ),
    );
}

/** What `keel import` did about vectors. */
interface ImportVectors {
  /** The embedder used ("ollama nomic-embed-text (768-d)"), or null when none ran. */
  embedder: string | null;
  /** Rows embedded by this import (its turns, and any row that was waiting). */
  embedded: number;
  /** Rows still waiting for a vector (keel reindex embeds them). */
  pending: number;
  /** Why some or all vectors were not made; null when nothing is missing. */
  reason: string | null;
}

/**
 * Embeds what an import queued, when an embedder is configured and can run: in batches, with a
 * progress bar, interruptible with Ctrl-C (what is embedded stays). Never throws for the
 * embedder's sake: the turns are stored either way, and the result says what is pending and why.
 */
async function embedImported(
  config: Config,
  store: MemoryStore,
  embed: boolean,
  showBar: boolean,
): Promise<ImportVectors> {
  const waiting = () => store.pendingVectors();
  const none = (reason: string): ImportVectors => ({
    embedder: null,
    embedded: 0,
    pending: waiting(),
    reason,
  });
  if (!embed) return none('--no-embed');
  let selection: EmbedderSelection;
  try {
    selection = await configuredEmbedder(config);
  } catch (err) {
    if (!KeelError.isInstance(err)) throw err;
    return none(`${err.code}: ${err.message}`);
  }
  if (!selection.embedder || !selection.info) return none(`no embedder: ${selection.reason}`);
  const name = `${selection.info.provider} ${selection.info.model} (${selection.info.dim}-d)`;
  const stop = new AbortController();
  const onSigint = () => stop.abort();
  process.once('SIGINT', onSigint);
  const bar = new SingleBar({
    format: 'embedding [{bar}] {percentage}% | {value}/{total} rows | {eta_formatted} left',
    stream: process.stderr,
  });
  let started = false;
  let embedded = 0;
  try {
    const status = await store.useEmbedder(selection.embedder, selection.reason);
    if (status?.state !== 'active') {
      return { ...none(status?.reason ?? 'vectors paused'), embedder: name };
    }
    const r = await store.embedPending({
      signal: stop.signal,
      onProgress: (done, total) => {
        embedded = done;
        if (!showBar) return;
        if (!started) bar.start(total, 0);
        started = true;
        bar.update(done);
      },
    });
    return { embedder: name, embedded: r.embedded, pending: r.remaining, reason: null };
  } catch (err) {
    if (!KeelError.isInstance(err)) throw err;
    return { embedder: name, embedded, pending: waiting(), reason: `${err.code}: ${err.message}` };
  } finally {
    if (started) bar.stop();
    process.off('SIGINT', onSigint);
  }
}

/**
 * Reads, parses and stores one archive, embeds what it queued, and prints the result.
 *
 * @throws KeelError `FILE_UNREADABLE`, `IMPORT_FORMAT` (nothing stored), and as `MemoryStore.open`
 *   (`DB_CORRUPT`: the database is damaged, nothing stored).
 */
async function importFile(
  config: Config,
  file: string,
  format: ImportFormat | undefined,
  embed: boolean,
  asJson: boolean,
): Promise<void> {
  let bytes: Buffer;
  try {
    if (!statSync(file).isFile()) throw new Error('not a file');
    bytes = readFileSync(file);
  } catch (err) {
    throw new KeelError('FILE_UNREADABLE', `cannot read ${file}: ${(err as Error).message}`);
  }
  let data: unknown;
  try {
    data = JSON.parse(bytes.toString('utf8'));
  } catch (err) {
    throw new KeelError('IMPORT_FORMAT', `${file} is not valid JSON: ${(err as Error).message}`);
  }
  if (isKeelExport(data)) return importExport(config, file, data, embed, asJson);
  if (format === undefined) {
    throw new KeelError('IMPORT_FORMAT', `${file} is not a keel export; name its format`, {
      fix: 'Give --format locomo or --format longmemeval for a conversation archive; a keel export is a file written by keel export --format json.',
    });
  }
  const parsed = parseImport(data, format);
  const store = openStore(config);
  let failure: unknown;
  try {
    const showBar = !asJson && process.stderr.isTTY;
    const bar = new SingleBar({
      format: 'importing [{bar}] {percentage}% | {value}/{total} turns | {eta_formatted} left',
      stream: process.stderr,
    });
    if (showBar) bar.start(parsed.turns.length, 0);
    const started = performance.now();
    const r = store.importTurns(parsed, {
      path: file,
      fileSha256: createHash('sha256').update(bytes).digest('hex'),
      onProgress: (done) => showBar && bar.update(done),
    });
    if (showBar) bar.stop();
    const seconds = (performance.now() - started) / 1000;
    const embedStarted = performance.now();
    const vectors = await embedImported(config, store, embed, showBar);
    const embedSeconds = (performance.now() - embedStarted) / 1000;
    emit(
      asJson,
      {
        ...r,
        duration_ms: Math.round(seconds * 1000),
        turns_per_second: Math.round(r.total / Math.max(seconds, 1e-6)),
        vectors: { ...vectors, duration_ms: Math.round(embedSeconds * 1000) },
      },
      () =>
        [
          `imported ${r.added} new turn(s) of ${r.total} from ${file} (${r.existing} already stored) in ${seconds.toFixed(2)} s`,
          ...(r.skipped.length
            ? [
                `skipped ${r.skipped.length} malformed turn(s), e.g. ${r.skipped[0]!.where}: ${r.skipped[0]!.reason}`,
              ]
            : []),
          ...vectorLines(vectors, embedSeconds),
        ].join('\n'),
    );
  } catch (err) {
    failure = err;
    throw err;
  } finally {
    closeStore(store, failure);
  }
}

/**
 * The lines that say what an import did about vectors: how many were embedded (in `seconds`),
 * and how many are pending and why (with or without an embedder set up).
 */
function vectorLines(vectors: ImportVectors, seconds: number): string[] {
  const lines: string[] = [];
  if (vectors.embedded > 0) {
    lines.push(
      `embedded ${vectors.embedded} row(s) with ${vectors.embedder} in ${seconds.toFixed(1)} s`,
    );
  }
  if (vectors.reason === null || vectors.pending === 0) return lines;
  lines.push(
    vectors.embedder !== null
      ? `vectors pending for ${vectors.pending} row(s) (${vectors.reason}); keel reindex will fill them`
      : `no vectors for ${vectors.pending} row(s) (${vectors.reason}): recall of them is lexical; keel reindex embeds them once an embedder is set up`,
  );
  return lines;
}

/**
 * Brings a keel export into the store (which must hold no beliefs), embeds what it queued, and
 * prints what it wrote (`--json`: `{ "format": "keel-export", "beliefs", "left_out", "active", "tombstones",
 * "episodes", "exported_at", "vectors" }`).
 *
 * @throws KeelError `IMPORT_FORMAT`, `STORE_NOT_EMPTY` (nothing written), and as `MemoryStore.open`.
 */
async function importExport(
  config: Config,
  file: string,
  data: unknown,
  embed: boolean,
  asJson: boolean,
): Promise<void> {
  const store = openStore(config);
  let failure: unknown;
  try {
    const r = store.importKeelExport(data);
    const embedStarted = performance.now();
    const vectors = await embedImported(config, store, embed, !asJson && process.stderr.isTTY);
    const embedSeconds = (performance.now() - embedStarted) / 1000;
    emit(
      asJson,
      {
        format: 'keel-export',
        beliefs: r.beliefs,
        left_out: r.leftOut,
        active: r.active,
        tombstones: r.tombstones,
        episodes: r.episodes,
        exported_at: r.exportedAt,
        vectors,
      },
      () =>
        [
          `imported the keel export ${file}: ${r.beliefs} belief(s) (${r.active} current), ${r.tombstones} tombstone(s), ${r.episodes} episode(s)`,
          ...(r.leftOut > 0
            ? [
                `left out ${r.leftOut} belief(s) the export marks unexplained (changed outside keel's journal)`,
              ]
            : []),
          ...vectorLines(vectors, embedSeconds),
        ].join('\n'),
    );
  } catch (err) {
    failure = err;
    throw err;
  } finally {
    closeStore(store, failure);
  }
}
