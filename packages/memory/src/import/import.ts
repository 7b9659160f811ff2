/**
 * Importing a parsed conversation: every turn becomes a `conversation` episode with its speaker,
 * its session's time and its source id in provenance. Idempotent: a turn whose (source_doc,
 * source_id) is already stored is skipped, so importing the same file twice adds nothing and an
 * interrupted import can simply be run again. Turns are written in batches, each batch one
 * transaction with one journal entry, so a killed process leaves whole batches only. The entry's
 * `episodes_sha256` covers the rows as stored (see `importedLine`) and `times_sha256` their times,
 * for `keel verify`'s replay; `chunks_sha256` covers the same rows in runs of 16 ids
 * (`importedChunks`), so recall can check an imported turn without reading its whole batch.
 *
 * @module
 */

import { sha256 } from '@keel/language';
import type { StoreContext } from '../context.js';
import { appendJournal } from '../journal/journal.js';
import {
  episodeRow,
  type ImportedRow,
  importedChunks,
  importedLine,
  importedTimes,
  insertImported,
  validateEpisode,
} from '../repos/episodes.js';
import { countImported, finishImport, startImport } from '../repos/imports.js';
import type { ParsedImport } from './parsers.js';

/** Options for {@link importTurns}. */
export interface ImportOptions {
  /** The file's path, recorded in the `imports` table. */
  path: string;
  /** sha256 of the file's bytes. */
  fileSha256: string;
  /** Turns per transaction. Default 1000. */
  batchSize?: number;
  /** Called after each batch with turns processed so far and the total. */
  onProgress?: (done: number, total: number) => void;
}

/** What an import did. */
export interface ImportResult {
  importId: number;
  format: string;
  docs: string[];
  total: number;
  added: number;
  /** Turns already in the store (from an earlier import). */
  existing: number;
  /** Malformed turns the parser skipped. */
  skipped: { reason: string; where: string }[];
}

/** Writes the parsed turns as episodes. */
export function importTurns(
  ctx: StoreContext,
  parsed: ParsedImport,
  options: ImportOptions,
): ImportResult {
  const total = parsed.turns.length;
  const importId = startImport(ctx, {
    path: options.path,
    format: parsed.format,
    fileSha256: options.fileSha256,
    turnsTotal: total,
  });
  const batchSize = options.batchSize ?? 1000;
  const channel = `import:${parsed.format}`;
  let added = 0;
  const writeBatch = ctx.db.transaction((from: number) => {
    const now = ctx.now();
    const ids: number[] = [];
    const digest: string[] = [];
    const stored: string[] = [];
    const times: string[] = [];
    const turns = parsed.turns.slice(from, from + batchSize);
    const rows: ImportedRow[] = turns.map((turn) => {
      const input = {
        kind: 'conversation' as const,
        channel,
        role: turn.role,
        speaker: turn.speaker,
        text: turn.text,
        occurredAt: turn.occurredAt,
        sourceId: turn.sourceId,
        sourceDoc: turn.sourceDoc,
        sessionKey: turn.sessionKey,
        meta: turn.meta ?? null,
      };
      validateEpisode(input);
      return {
        ...episodeRow(input, now, ctx.ledger),
        source_id: turn.sourceId,
        source_doc: turn.sourceDoc,
      };
    });
    const written = insertImported(ctx, rows);
    for (let i = 0; i < turns.length; i++) {
      const id = written[i];
      if (id === null || id === undefined) continue;
      const turn = turns[i]!;
      const row = rows[i]!;
      ids.push(id);
      const said = sha256(turn.text);
      // The text as stored differs only when a secret was withheld from it.
      const kept = row.text === turn.text ? said : sha256(row.text);
      digest.push(`${turn.sourceDoc}|${turn.sourceId}|${said}`);
      stored.push(importedLine({ id, ...row, textSha256: kept }));
      times.push(importedTimes({ id, ...row }));
    }
    if (ids.length > 0) {
      appendJournal(ctx.db, {
        at: now,
        actor: 'import',
        op: 'import',
        entity: 'import',
        entityId: importId,
        payload: {
          count: ids.length,
          first_id: ids[0],
          last_id: ids[ids.length - 1],
          digest: sha256(digest.join('\n')),
          episodes_sha256: sha256(stored.join('\n')),
          times_sha256: sha256(times.join('\n')),
          // The same rows in runs of IMPORT_CHUNK_ROWS: recall checks a turn by its run alone.
          chunks_sha256: importedChunks(ids, stored, times),
        },
      });
      countImported(ctx, importId, ids.length);
    }
    return ids.length;
  });
  for (let from = 0; from < total; from += batchSize) {
    added += writeBatch.immediate(from);
    options.onProgress?.(Math.min(total, from + batchSize), total);
  }
  finishImport(ctx, importId);
  return {
    importId,
    format: parsed.format,
    docs: parsed.docs,
    total,
    added,
    existing: total - added,
    skipped: parsed.skipped,
  };
}
