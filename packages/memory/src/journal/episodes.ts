/**
 * Which episodes the journal explains, asked of the few rows recall is about to return (as
 * `unexplainedFacts` of `rows.ts` is of facts): an episode edited or inserted outside keel is left
 * out of recall, and so out of every prompt, and its id is listed. `keel verify` (`replay.ts`)
 * names the same rows with the whole journal; this check reads only what the candidates need.
 *
 * An episode is explained when the journal holds its record and the row agrees with it:
 *
 * - a turn keel stored one by one (`addEpisode`): its `episode` entry (found by the journal's
 *   entity index) records its kind, channel, role, text hash and (since anchors) when it occurred;
 * - an imported turn: the `import` entry whose batch covers its id records digests of its rows and
 *   their times: one per run of 16 ids (`chunks_sha256`), so the turn's run alone is read and
 *   hashed; a batch journaled before runs were is read and hashed whole (`episodes_sha256`,
 *   `times_sha256`: at most the import's batch size, 1000 turns by default). A verdict is kept for
 *   this connection until anything is written to the file (SQLite's `data_version` and the
 *   connection's own `total_changes()`), so a door or a benchmark reading without writing hashes
 *   each run once;
 * - a purged text: the newest journaled redaction's hash (or, for one redacted before redactions
 *   were journaled, the baseline's) instead of the original's;
 * - an episode written before replay records began (`journal_head.replay_episode`) with no entry
 *   of its own is taken as it is, unless its text was rewritten through `redacted_at` without a
 *   journaled purge.
 *
 * An entry whose payload is not the one its hash names (altered, and not through a journaled
 * redaction) backs nothing. A writer who rewrites the rows and their entries and every hash
 * consistently is not seen here (nor by replay): the anchor (`keel verify`) is what tells.
 *
 * @module
 */
import { sha256 } from '@keel/language';
import type Database from 'better-sqlite3';
import { stmt } from '../context.js';
import {
  IMPORT_CHUNK_ROWS,
  importedChunk,
  importedLine,
  importedTimes,
} from '../repos/episodes.js';
import type { Episode } from '../types.js';
import { journalHead } from './head.js';
import { parsedPayload } from './journal.js';

/** One journal entry about an episode, as read. */
interface EpisodeEntry {
  id: number;
  seq: number;
  op: string;
  payload: string;
  payload_hash: string;
  redacted_at: number | null;
}

/** Where an import entry's batch lies: the ids it wrote. */
interface ImportRange {
  seq: number;
  first: number;
  last: number;
}

/** An import entry's batch as its payload records it, read when a verdict is needed. */
interface ImportBatch extends ImportRange {
  count: number;
  /** The digest of every row; null when the entry backs nothing (its payload was altered). */
  rows: unknown;
  /** Undefined for an import journaled before times were. */
  times: unknown;
  /** One digest per run of IMPORT_CHUNK_ROWS ids; null for an import journaled before runs were. */
  chunks: unknown[] | null;
}

/** Per connection: where the import batches lie, and the verdicts reached since the last write. */
interface ImportMemo {
  /** The import entries' count and newest seq: the ranges are read again when an import is added. */
  imports: string;
  /** Sorted by `first`. Only a lookup: each verdict reads its entry afresh. */
  ranges: ImportRange[];
  /** {@link fileStamp} when the verdicts were reached: dropped once anything is written. */
  stamp: string;
  /** The entries read for verdicts, by seq. */
  batches: Map<number, ImportBatch | null>;
  /** By `seq:run` (a run's verdict) or `seq` (a whole batch's). */
  verdicts: Map<string, boolean>;
}

const memos = new WeakMap<Database.Database, ImportMemo>();

/** A payload as its chain covers it: its hash matches, or a journaled redaction rewrote it. */
const backed = (e: { payload: string; payload_hash: string; redacted_at: number | null }) =>
  e.redacted_at !== null || sha256(e.payload) === e.payload_hash;

/** Changes whenever anything is written to the file, by this connection or another. */
function fileStamp(db: Database.Database): string {
  const version = (stmt(db, 'PRAGMA data_version').get() as { data_version: number }).data_version;
  const own = (stmt(db, 'SELECT total_changes() AS n').get() as { n: number }).n;
  return `${version}:${own}`;
}

/**
 * This connection's memo: the ranges read again when an import entry was added, the verdicts
 * dropped when anything was written since they were reached.
 */
function importMemo(db: Database.Database): ImportMemo {
  const stamp = fileStamp(db);
  let memo = memos.get(db);
  if (memo?.stamp === stamp) return memo;
  const n = stmt(
    db,
    `SELECT count(*) AS n, max(seq) AS seq FROM journal WHERE entity = 'import' AND op = 'import'`,
  ).get() as { n: number; seq: number | null };
  const imports = `${n.n}:${n.seq}`;
  if (memo?.imports !== imports) {
    // Read in SQLite, without parsing every payload here: an import's runs make it a few KB.
    const ranges = stmt(
      db,
      `SELECT seq, first, last FROM (
         SELECT seq,
           CASE WHEN json_valid(payload) THEN json_extract(payload, '$.first_id') END AS first,
           CASE WHEN json_valid(payload) THEN json_extract(payload, '$.last_id') END AS last,
           CASE WHEN json_valid(payload) THEN json_type(payload, '$.episodes_sha256') END AS digest
         FROM journal WHERE entity = 'import' AND op = 'import')
       WHERE digest IS NOT NULL`,
    ).all() as ImportRange[];
    ranges.sort((a, b) => a.first - b.first);
    memo = { imports, ranges, stamp, batches: new Map(), verdicts: new Map() };
  } else {
    memo = { ...memo, stamp, batches: new Map(), verdicts: new Map() };
  }
  memos.set(db, memo);
  return memo;
}

/** The range whose ids hold `id`, or undefined. */
function rangeOf(ranges: readonly ImportRange[], id: number): ImportRange | undefined {
  let lo = 0;
  let hi = ranges.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const r = ranges[mid]!;
    if (id < r.first) hi = mid - 1;
    else if (id > r.last) lo = mid + 1;
    else return r;
  }
  return undefined;
}

/** Import entry `seq` as its payload records it now; null when it is gone or records no batch. */
function readBatch(db: Database.Database, seq: number): ImportBatch | null {
  const e = stmt(db, 'SELECT payload, payload_hash, redacted_at FROM journal WHERE seq = ?').get(
    seq,
  ) as { payload: string; payload_hash: string; redacted_at: number | null } | undefined;
  const p = e && parsedPayload(e.payload);
  if (!e || !p) return null;
  return {
    seq,
    first: Number(p.first_id),
    last: Number(p.last_id),
    count: Number(p.count),
    // An altered entry covers its ids all the same, and backs none of them.
    rows: backed(e) ? p.episodes_sha256 : null,
    times: p.times_sha256,
    chunks: Array.isArray(p.chunks_sha256) ? p.chunks_sha256 : null,
  };
}

/**
 * The rows with ids in `[from, to]` as an import entry's digests cover them: each row's
 * {@link importedLine} (a purged text by its hash before the first redaction, as `keel verify`
 * reads it) and {@link importedTimes}, in id order.
 */
function importedRows(
  db: Database.Database,
  from: number,
  to: number,
): { lines: string[]; times: string[] } {
  const original = new Map<number, unknown>();
  for (const r of stmt(
    db,
    `SELECT entity_id AS id, payload FROM journal
     WHERE entity = 'episode' AND entity_id BETWEEN ? AND ? AND op = 'redact' ORDER BY seq`,
  ).all(from, to) as { id: number; payload: string }[]) {
    if (!original.has(r.id)) original.set(r.id, parsedPayload(r.payload)?.before_sha256);
  }
  const lines: string[] = [];
  const times: string[] = [];
  for (const ep of stmt(
    db,
    `SELECT id, kind, channel, role, text, occurred_at FROM episodes
     WHERE id BETWEEN ? AND ? ORDER BY id`,
  ).all(from, to) as Pick<Episode, 'id' | 'kind' | 'channel' | 'role' | 'text' | 'occurred_at'>[]) {
    const text = original.has(ep.id) ? String(original.get(ep.id)) : sha256(ep.text);
    lines.push(importedLine({ ...ep, textSha256: text }));
    times.push(importedTimes(ep));
  }
  return { lines, times };
}

/**
 * Whether imported turn `id`, in the batch of import entry `seq`, is as that entry journaled it:
 * its run of {@link IMPORT_CHUNK_ROWS} ids against the run's digest, or, for a batch journaled
 * before runs were, every row of the batch (count, kind, channel, role, text, time). The entry is
 * read afresh (an entry altered since is no longer backed); verdicts are kept in `memo`.
 */
function importExplained(
  db: Database.Database,
  memo: ImportMemo,
  seq: number,
  id: number,
): boolean {
  if (!memo.batches.has(seq)) memo.batches.set(seq, readBatch(db, seq));
  const b = memo.batches.get(seq);
  if (!b || b.rows === null || id < b.first || id > b.last) return false;
  const run = Math.floor((id - b.first) / IMPORT_CHUNK_ROWS);
  const key = b.chunks ? `${seq}:${run}` : `${seq}`;
  const known = memo.verdicts.get(key);
  if (known !== undefined) return known;
  let ok: boolean;
  if (b.chunks) {
    const from = b.first + run * IMPORT_CHUNK_ROWS;
    const { lines, times } = importedRows(db, from, Math.min(b.last, from + IMPORT_CHUNK_ROWS - 1));
    ok = importedChunk(lines, times) === b.chunks[run];
  } else {
    const { lines, times } = importedRows(db, b.first, b.last);
    ok =
      lines.length === b.count &&
      sha256(lines.join('\n')) === b.rows &&
      (b.times === undefined || sha256(times.join('\n')) === b.times);
  }
  memo.verdicts.set(key, ok);
  return ok;
}

/**
 * The episodes among `episodes` whose row the journal does not explain (see the module comment):
 * no record of it although it was written after replay records began (inserted outside keel), a
 * kind, channel, role or time other than its record's, a text other than the one journaled (or
 * its journaled redaction's), a text rewritten through `redacted_at` with no journaled purge, an
 * imported turn whose run (or, for an older import, batch) differs from its digest, or a record
 * whose entry was altered. Recall leaves these out; `keel verify` names each.
 *
 * @returns their ids.
 */
export function unexplainedEpisodes(
  db: Database.Database,
  episodes: readonly Episode[],
): Set<number> {
  const out = new Set<number>();
  if (episodes.length === 0) return out;
  const ids = JSON.stringify(episodes.map((e) => e.id));
  const origin = new Map<number, EpisodeEntry>();
  const redaction = new Map<number, EpisodeEntry>();
  // One query for all of them, by the journal's entity index; in order, so the newest wins.
  for (const e of stmt(
    db,
    `SELECT j.entity_id AS id, j.seq, j.op, j.payload, j.payload_hash, j.redacted_at
     FROM json_each(?) x CROSS JOIN journal j ON j.entity = 'episode' AND j.entity_id = x.value
     WHERE j.op IN ('episode', 'redact') ORDER BY j.seq`,
  ).all(ids) as EpisodeEntry[]) {
    (e.op === 'episode' ? origin : redaction).set(e.id, e);
  }
  let baseline = new Map<number, string>();
  try {
    baseline = new Map(
      (
        stmt(
          db,
          `SELECT b.id, b.sha256 FROM json_each(?) x
           CROSS JOIN journal_baseline b ON b.entity = 'episode' AND b.id = x.value`,
        ).all(ids) as { id: number; sha256: string }[]
      ).map((r) => [r.id, r.sha256]),
    );
  } catch {
    // a schema from before the baseline: none
  }
  const start = journalHead(db)?.replay.episodes ?? 1;
  let imports: ImportMemo | null = null;
  for (const ep of episodes) {
    const made = origin.get(ep.id);
    const redacted = redaction.get(ep.id);
    if ((made && !backed(made)) || (redacted && !backed(redacted))) {
      out.add(ep.id);
      continue;
    }
    const record = made ? parsedPayload(made.payload) : undefined;
    if (made) {
      // The time is journaled since anchors; an older entry recorded none.
      const moved = (['kind', 'channel', 'role', 'occurred_at'] as const).some(
        (f) => record?.[f] !== undefined && record[f] !== ep[f],
      );
      if (!record || moved) {
        out.add(ep.id);
        continue;
      }
    } else {
      imports ??= importMemo(db);
      const batch = rangeOf(imports.ranges, ep.id);
      if (batch) {
        if (!importExplained(db, imports, batch.seq, ep.id)) {
          out.add(ep.id);
          continue;
        }
      } else if (ep.id >= start) {
        out.add(ep.id); // written outside keel: no entry records it
        continue;
      }
    }
    // The text: the newest journaled redaction's, else the baseline's, else the creating entry's.
    const expected = redacted
      ? parsedPayload(redacted.payload)?.text_sha256
      : (baseline.get(ep.id) ?? record?.text_sha256);
    if (expected === undefined) {
      if (ep.redacted_at !== null || redacted) out.add(ep.id);
      continue;
    }
    if (sha256(ep.text) !== expected) out.add(ep.id);
  }
  return out;
}
