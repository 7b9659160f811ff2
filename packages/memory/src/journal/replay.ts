/**
 * Replay: what the journal says the store holds, compared with what it holds.
 *
 * From the first entry written with replay records (`journal_head.replay_seq`; 1 for a store
 * created with them), the `state` entries give every row of `facts`, `fact_evidence` and
 * `tombstones` each decision changed, with its digest before and after (see `rows.ts`). Replay
 * follows them in order and reports:
 *
 * - a row whose digest is not the one the journal last recorded (named with the fields that
 *   differ: value, status, source, confidence, evidence count, …);
 * - a row written after replay records began that the journal never recorded (a planted row);
 * - a row recorded as changing from a state other than the one the journal last recorded for it
 *   (it was changed outside the journal in between, even if a later decision recorded the result);
 * - a row the journal recorded that is gone;
 * - `journal_facts` (recall's index of each fact's newest digest) disagreeing with the records.
 *
 * Episodes are checked from the very first entry: each episode entry records its kind, channel,
 * role and text hash (and, since anchors, when it occurred), an import entry a
 * digest of the rows it wrote and of their times, and (for recall's cheap check) of each run of 16
 * of them (imports journaled before replay records carry none and are not checked; before
 * anchors, no times; before runs, no runs), and a purge's redaction entry the new text's hash.
 * An episode whose text or time is not the one journaled — rewritten, moved, or redacted through
 * `redacted_at` without a journaled purge — is a break.
 *
 * Rows written before replay records began, and never changed since, cannot be checked: the
 * report counts them (`predate`). Nor can a writer who rewrites the whole file consistently (the
 * rows, the records, every hash, the head) be told from keel itself: that is what a backup kept
 * elsewhere is for.
 *
 * @module
 */

import { sha256 } from '@keel/language';
import type Database from 'better-sqlite3';
import { PURGED } from '../redaction.js';
import { importedChunks, importedLine, importedTimes } from '../repos/episodes.js';
import { journalHead, REPLAY_EVERYTHING } from './head.js';
import { baselineOf, parsedPayload } from './journal.js';
import { JOURNALED_COLUMNS, type JournaledTable, type RecordedRow, rowDigest } from './rows.js';

/** What `keel verify` says it cannot detect. */
export const CANNOT_DETECT =
  'a writer who rewrites the whole file consistently (every row, every journal record and hash, ' +
  "and the journal's head) and its anchor beside it (keel.db.anchor): nothing on this machine " +
  'tells; keep the head elsewhere (keel verify --head) and check against it (keel verify ' +
  '--against), or compare with a backup kept elsewhere';

/** The fix named for a row the journal does not explain. */
export const RESTORE_FIX = 'restore keel.db from a backup taken before the change';

/** One break replay found. */
export interface ReplayProblem {
  check: 'replay';
  detail: string;
  fix: string;
}

/** Rows per journaled table (and episodes). */
export interface RowCounts {
  facts: number;
  evidence: number;
  tombstones: number;
  episodes: number;
}

/** What {@link replayJournal} found. */
export interface ReplayReport {
  /** The first entry replayed: entries before it predate replay records. */
  from: number;
  /** Entries replayed (from `from` on). */
  entries: number;
  /** Rows checked against the journal. */
  checked: RowCounts;
  /** Rows written before replay records began and never changed since: not checked. */
  predate: RowCounts;
  problems: ReplayProblem[];
}

const NOUN: Record<JournaledTable, string> = {
  facts: 'fact',
  fact_evidence: 'evidence row',
  tombstones: 'tombstone',
};
const COUNT_KEY: Record<JournaledTable, keyof RowCounts> = {
  facts: 'facts',
  fact_evidence: 'evidence',
  tombstones: 'tombstones',
};

/** The journal's newest record of one row (its columns merged from every record of it). */
interface Recorded {
  seq: number;
  sha256: string;
  /** The row was once recorded as changing from a state the journal did not hold. */
  broken: boolean;
  row: Record<string, unknown>;
  /** A record's entry was redacted (a purge or compaction rewrote strings in it). */
  redacted: boolean;
}

const isRecordedRow = (r: unknown): r is RecordedRow => {
  const x = r as RecordedRow;
  return (
    !!x &&
    typeof x === 'object' &&
    (x.t === 'facts' || x.t === 'fact_evidence' || x.t === 'tombstones') &&
    typeof x.id === 'number' &&
    typeof x.sha256 === 'string'
  );
};

/**
 * A decision entry against the state records beside it: the fact it names, as the decision says
 * it left it (`after`), must be the row the journal's state records hold for it by then; a
 * decision about a fact written after replay records began that no state record ever recorded is
 * a decision keel did not make. A field a purge or compaction rewrote is not compared.
 */
function checkDecision(
  e: {
    seq: number;
    op: string;
    entity_id: number | null;
    payload: string;
    redacted_at: number | null;
  },
  facts: ReadonlyMap<number, Recorded>,
  firstFact: number,
  add: (detail: string) => void,
): void {
  const after = parsedPayload(e.payload)?.after;
  if (!after || typeof after !== 'object' || e.entity_id === null) return;
  const rec = facts.get(e.entity_id);
  if (!rec) {
    if (e.entity_id >= firstFact) {
      add(
        `entry ${e.seq} (${e.op}) decides about fact ${e.entity_id}, which no state record holds`,
      );
    }
    return;
  }
  const said = after as Record<string, unknown>;
  for (const column of JOURNALED_COLUMNS.facts) {
    if (!(column in said)) continue;
    const want = said[column] ?? null;
    const have = rec.row[column] ?? null;
    if (want === have) continue;
    const rewritten = (v: unknown) => typeof v === 'string' && v.includes(PURGED);
    if ((e.redacted_at !== null || rec.redacted) && (rewritten(want) || rewritten(have))) continue;
    add(
      `entry ${e.seq} (${e.op}) says fact ${e.entity_id}'s ${column} is ${JSON.stringify(want)}; the state record (entry ${rec.seq}) says ${JSON.stringify(have)}`,
    );
  }
}

/** How a fact or tombstone is named in a break: `fact 12 (profile/city)`. */
function nameOf(table: JournaledTable, row: Record<string, unknown>): string {
  if (table === 'fact_evidence') {
    return `evidence row ${row.id} (fact ${row.fact_id}, episode ${row.episode_id})`;
  }
  return `${NOUN[table]} ${row.id} (${row.kind}/${row.key})`;
}

/**
 * The journaled columns in which `row` differs from what the journal recorded. A string the
 * record's purge or compaction rewrote (it holds {@link PURGED}) is not compared; a fact's value
 * is compared by its hash.
 */
function differingFields(
  table: JournaledTable,
  row: Record<string, unknown>,
  rec: Recorded,
): string[] {
  const out: string[] = [];
  for (const c of JOURNALED_COLUMNS[table]) {
    if (table === 'facts' && c === 'value') {
      const want = rec.row.value_sha256;
      if (
        typeof want === 'string' ? want !== sha256(String(row.value)) : row.value !== rec.row.value
      )
        out.push('value');
      continue;
    }
    const want = rec.row[c] ?? null;
    const have = row[c] ?? null;
    if (rec.redacted && typeof want === 'string' && want.includes(PURGED)) continue;
    if (want !== have) out.push(c.replaceAll('_', ' '));
  }
  return out;
}

/**
 * Replays the journal against `facts`, `fact_evidence`, `tombstones` and `episodes` and reports
 * every row it does not explain, each named with its row and the fix. Read-only.
 */
export function replayJournal(db: Database.Database): ReplayReport {
  const problems: ReplayProblem[] = [];
  const add = (detail: string, fix = RESTORE_FIX) =>
    problems.push({ check: 'replay', detail, fix });
  const start = journalHead(db)?.replay ?? REPLAY_EVERYTHING;
  const firstId: Record<JournaledTable, number> = {
    facts: start.facts,
    fact_evidence: start.fact_evidence,
    tombstones: start.tombstones,
  };
  const checked: RowCounts = { facts: 0, evidence: 0, tombstones: 0, episodes: 0 };
  const predate: RowCounts = { facts: 0, evidence: 0, tombstones: 0, episodes: 0 };

  const recorded: Record<JournaledTable, Map<number, Recorded>> = {
    facts: new Map(),
    fact_evidence: new Map(),
    tombstones: new Map(),
  };
  /** Each episode's creating entry. */
  const created = new Map<
    number,
    {
      seq: number;
      kind: unknown;
      channel: unknown;
      role: unknown;
      text: unknown;
      occurred_at: unknown;
    }
  >();
  /** Import batches with a digest of their rows. */
  const imports: {
    seq: number;
    first: number;
    last: number;
    count: number;
    sha256: unknown;
    /** The digest of the rows' times; undefined for an import journaled before times were. */
    times: unknown;
    /** The digests of its runs of ids (`importedChunks`); undefined before runs were journaled. */
    chunks: unknown;
  }[] = [];
  /** Episodes: the newest redaction entry and the text hash before the first one. */
  const redactions = new Map<number, { seq: number; sha256: unknown; original: unknown }>();
  let entries = 0;

  for (const e of db
    .prepare(
      `SELECT seq, op, entity, entity_id, payload, redacted_at FROM journal
       WHERE op IN ('state', 'episode', 'import', 'redact')
          OR (entity = 'fact' AND entity_id IS NOT NULL) ORDER BY seq`,
    )
    .iterate() as IterableIterator<{
    seq: number;
    op: string;
    entity: string;
    entity_id: number | null;
    payload: string;
    redacted_at: number | null;
  }>) {
    if (e.op === 'episode' && e.entity === 'episode' && e.entity_id !== null) {
      const p = parsedPayload(e.payload) ?? {};
      created.set(e.entity_id, {
        seq: e.seq,
        kind: p.kind,
        channel: p.channel,
        role: p.role,
        text: p.text_sha256,
        occurred_at: p.occurred_at,
      });
      continue;
    }
    if (e.op === 'import' && e.entity === 'import') {
      const p = parsedPayload(e.payload);
      if (p && 'episodes_sha256' in p) {
        imports.push({
          seq: e.seq,
          first: Number(p.first_id),
          last: Number(p.last_id),
          count: Number(p.count),
          sha256: p.episodes_sha256,
          times: p.times_sha256,
          chunks: p.chunks_sha256,
        });
      }
      continue;
    }
    if (e.op === 'redact' && e.entity === 'episode' && e.entity_id !== null) {
      const p = parsedPayload(e.payload) ?? {};
      const prev = redactions.get(e.entity_id);
      redactions.set(e.entity_id, {
        seq: e.seq,
        sha256: p.text_sha256,
        original: prev ? prev.original : p.before_sha256,
      });
      continue;
    }
    if (e.op !== 'state' && e.entity === 'fact') {
      if (e.seq >= start.seq) checkDecision(e, recorded.facts, firstId.facts, add);
      continue;
    }
    if (e.op !== 'state' || e.seq < start.seq) continue;
    entries++;
    const p = parsedPayload(e.payload);
    const rows = Array.isArray(p?.rows) ? p.rows : null;
    if (!rows) {
      add(`entry ${e.seq}: a state record that cannot be read`);
      continue;
    }
    for (const r of rows) {
      if (!isRecordedRow(r)) {
        add(`entry ${e.seq}: a state record that cannot be read`);
        continue;
      }
      const prev = recorded[r.t].get(r.id);
      const noun = `${NOUN[r.t]} ${r.id}`;
      let broken = prev?.broken ?? false;
      if (prev && r.before !== prev.sha256) {
        add(`${noun} was changed outside the journal between entry ${prev.seq} and entry ${e.seq}`);
        broken = true;
      } else if (!prev && r.before !== null && r.id >= firstId[r.t]) {
        add(`${noun} existed before the journal first recorded it (entry ${e.seq})`);
        broken = true;
      }
      // A record holds the whole row the first time, then the columns that changed.
      const row = r.row && typeof r.row === 'object' ? r.row : {};
      recorded[r.t].set(r.id, {
        seq: e.seq,
        sha256: r.sha256,
        broken,
        row: prev ? { ...prev.row, ...row } : row,
        redacted: (prev?.redacted ?? false) || e.redacted_at !== null,
      });
    }
  }

  // Every row against the journal's newest record of it.
  for (const table of ['facts', 'fact_evidence', 'tombstones'] as const) {
    const seen = new Set<number>();
    for (const row of db
      .prepare(`SELECT * FROM ${table} ORDER BY id`)
      .iterate() as IterableIterator<Record<string, unknown> & { id: number }>) {
      seen.add(row.id);
      const rec = recorded[table].get(row.id);
      if (!rec) {
        if (row.id >= firstId[table]) {
          checked[COUNT_KEY[table]]++;
          add(`${nameOf(table, row)} is not in the journal: it was written outside keel`);
        } else {
          predate[COUNT_KEY[table]]++;
        }
        continue;
      }
      checked[COUNT_KEY[table]]++;
      if (rowDigest(table, row) === rec.sha256) continue;
      const fields = differingFields(table, row, rec);
      add(
        `${nameOf(table, row)}: ${fields.length ? fields.join(', ') : 'its fields'} ${fields.length === 1 ? 'differs' : 'differ'} from the journal's record (entry ${rec.seq})`,
        table === 'facts' && row.status === 'active'
          ? `${RESTORE_FIX}; until then recall leaves it out (keel forget ${row.id} retires it)`
          : RESTORE_FIX,
      );
    }
    for (const [id, rec] of recorded[table]) {
      if (!seen.has(id))
        add(`${NOUN[table]} ${id} is missing; the journal recorded it at entry ${rec.seq}`);
    }
  }

  // Recall's index of each fact's newest record.
  const index = new Map(
    (
      db.prepare('SELECT fact_id, seq, sha256, broken FROM journal_facts').all() as {
        fact_id: number;
        seq: number;
        sha256: string;
        broken: number;
      }[]
    ).map((r) => [r.fact_id, r]),
  );
  for (const [id, rec] of recorded.facts) {
    const i = index.get(id);
    if (!i || i.seq !== rec.seq || i.sha256 !== rec.sha256 || (i.broken === 1) !== rec.broken) {
      add(`journal_facts does not hold fact ${id}'s newest record (entry ${rec.seq})`);
    }
    index.delete(id);
  }
  for (const id of index.keys()) {
    add(`journal_facts holds fact ${id}, which no journal record names`);
  }

  // Episodes.
  const baseline = baselineOf(db, 'episode');
  const byImport = new Map<number, (typeof imports)[number]>();
  for (const b of imports) for (let id = b.first; id <= b.last; id++) byImport.set(id, b);
  const importLines = new Map<number, string[]>();
  const importTimes = new Map<number, string[]>();
  const importIds = new Map<number, number[]>();
  for (const ep of db
    .prepare(
      'SELECT id, kind, channel, role, text, redacted_at, occurred_at FROM episodes ORDER BY id',
    )
    .iterate() as IterableIterator<{
    id: number;
    kind: string;
    channel: string;
    role: string;
    text: string;
    redacted_at: number | null;
    occurred_at: number;
  }>) {
    const actual = sha256(ep.text);
    const redaction = redactions.get(ep.id);
    const base = baseline.get(ep.id);
    const origin = created.get(ep.id);
    const batch = origin ? undefined : byImport.get(ep.id);
    if (!origin && !batch && ep.id < start.episodes) predate.episodes++;
    else checked.episodes++;
    if (!origin && !batch && ep.id >= start.episodes) {
      add(`episode ${ep.id} is not in the journal: it was written outside keel`);
    }
    if (origin) {
      // The time is journaled since anchors; an older entry recorded none.
      for (const field of ['kind', 'channel', 'role', 'occurred_at'] as const) {
        if (origin[field] !== undefined && origin[field] !== ep[field]) {
          add(
            `episode ${ep.id}: ${field} is ${ep[field]}, the journal recorded ${String(origin[field])} (entry ${origin.seq})`,
          );
        }
      }
    }
    if (batch) {
      const original = redaction ? redaction.original : actual;
      const lines = importLines.get(batch.seq) ?? [];
      lines.push(importedLine({ ...ep, textSha256: String(original) }));
      importLines.set(batch.seq, lines);
      const times = importTimes.get(batch.seq) ?? [];
      times.push(importedTimes(ep));
      importTimes.set(batch.seq, times);
      const ids = importIds.get(batch.seq) ?? [];
      ids.push(ep.id);
      importIds.set(batch.seq, ids);
    }
    // The text: the newest journaled redaction's, else the baseline's, else the creating entry's.
    const expected = redaction?.sha256 ?? base ?? origin?.text;
    if (expected === undefined) {
      if (ep.redacted_at !== null) {
        add(`episode ${ep.id}: text rewritten through redacted_at; no journaled purge redacted it`);
      }
      continue;
    }
    if (actual === expected) continue;
    if (redaction) {
      add(`episode ${ep.id}: text differs from its redaction (entry ${redaction.seq})`);
    } else if (base !== undefined) {
      add(
        `episode ${ep.id}: text differs from its redaction made before redactions were journaled`,
      );
    } else if (ep.redacted_at !== null) {
      add(
        `episode ${ep.id}: text rewritten through redacted_at; no journaled purge redacted it (entry ${origin!.seq} recorded the text)`,
      );
    } else {
      add(`episode ${ep.id}: text differs from the journal's record (entry ${origin!.seq})`);
    }
  }
  for (const b of imports) {
    const lines = importLines.get(b.seq) ?? [];
    const runs =
      b.chunks === undefined ||
      JSON.stringify(
        importedChunks(importIds.get(b.seq) ?? [], lines, importTimes.get(b.seq) ?? []),
      ) === JSON.stringify(b.chunks);
    if (lines.length !== b.count || sha256(lines.join('\n')) !== b.sha256 || !runs) {
      add(
        `episodes ${b.first}-${b.last}: the rows differ from what their import journaled (entry ${b.seq})`,
      );
    }
    const times = importTimes.get(b.seq) ?? [];
    if (b.times !== undefined && sha256(times.join('\n')) !== b.times) {
      add(
        `episodes ${b.first}-${b.last}: their times differ from what their import journaled (entry ${b.seq})`,
      );
    }
  }

  return { from: start.seq, entries, checked, predate, problems };
}
