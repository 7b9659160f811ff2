/**
 * The recovery file: what the owner says while the database cannot take it is not lost.
 *
 * When a door finds the database damaged, the owner's line (a terminal line, piped lines included,
 * a Discord DM, `keel remember`, `keel ask`) is appended to `$KEEL_HOME/recovery.jsonl` (mode
 * 0600, one JSON object per line: `id`, `time`, `channel`, `text`, and `source_id` for a line with
 * its own id such as a Discord message), with secrets withheld as the store withholds them. Once
 * the database is restored, {@link recoverInto} (`keel recover`) stores each line as the owner's
 * episode with its original time and channel, keeps what the line asked to be remembered as the
 * door would have (a `keel remember`, or an explicit "remember that …"), then clears the file. It
 * is idempotent: a line recovered twice (or a Discord message also caught up by the Discord door)
 * is stored once.
 *
 * @module
 */
import { createHash } from 'node:crypto';
import {
  appendFileSync,
  chmodSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { KeelError } from '@keel/errors';
import { captureExplicit } from '@keel/gate';
import { redactSecrets, SECRET_PLACEHOLDER, secretInSlot } from '@keel/language';
import type { Decision, Kind, MemoryStore, Scope, Source } from '@keel/memory';
import { ensureHome } from './files.js';

/** The recovery file's name inside KEEL_HOME. */
export const RECOVERY_FILE = 'recovery.jsonl';

/** The source document of a recovered episode (a Discord message keeps its own provenance). */
export const RECOVERY_SOURCE = 'recovery';

/** The recovery file's path for a KEEL_HOME. */
export function recoveryPath(home: string): string {
  return join(home, RECOVERY_FILE);
}

/** One line of the recovery file. */
export interface RecoveryLine {
  /** What makes a line recovered twice stored once: its `source_id`, or a hash of the line. */
  id: string;
  /** When the owner said it, ISO 8601 (UTC, ms). */
  time: string;
  /** The door it came through: `terminal`, `cli`, `discord`. */
  channel: string;
  /** The owner's words, secrets withheld. */
  text: string;
  /** The line's own id where it has one (a Discord message: `discord:<id>`). */
  source_id?: string;
  /** A command rather than conversation (`remember`: a `keel remember` the database refused). */
  verb?: 'remember';
  /** That `keel remember`'s belief (absent when it held a secret). */
  remember?: RecoveryRemember;
}

/** The belief a `keel remember` asked for (see `RememberInput` of `@keel/memory`). */
export interface RecoveryRemember {
  scope: Scope;
  kind: Kind;
  key: string;
  value: string;
  source: Source;
  /** True since, ms since epoch. */
  validFrom?: number;
  replaces?: boolean;
}

/** What a door keeps. */
export interface RecoveryInput {
  channel: string;
  text: string;
  /** When it was said, ms since epoch. Default now. */
  at?: number;
  /** Its own id (a Discord message: `discord:<id>`), as the door would file it. */
  sourceId?: string;
  /** The command refused, when the line is one (`remember`). */
  verb?: 'remember';
  /** A `keel remember`'s belief (not kept when it holds a secret, which the words then withhold). */
  remember?: RecoveryRemember;
}

/**
 * Appends the owner's line to the recovery file (created with mode 0600, in a KEEL_HOME created
 * with 0700), secrets withheld. Empty text is not kept.
 *
 * @returns the file and the line as written (null for empty text).
 * @throws KeelError `FILE_UNREADABLE` when the file cannot be written.
 */
export function keepForRecovery(
  home: string,
  input: RecoveryInput,
): { path: string; line: RecoveryLine | null } {
  const path = recoveryPath(home);
  let raw = input.text.replace(/\r?\n$/, '');
  let remember = input.remember ?? null;
  const secret = remember && secretInSlot(remember.key, remember.value);
  if (remember && secret) {
    // A credential is never kept: not the belief, nor its value (or key) in the words.
    for (const part of secret.inKey ? [remember.value, remember.key] : [remember.value]) {
      if (part) raw = raw.split(part).join(SECRET_PLACEHOLDER);
    }
    remember = null;
  }
  const text = redactSecrets(raw);
  if (!text.trim()) return { path, line: null };
  const time = new Date(input.at ?? Date.now()).toISOString();
  const id =
    input.sourceId ??
    `r:${createHash('sha256').update(`${time}\n${input.channel}\n${text}`).digest('hex').slice(0, 32)}`;
  const line: RecoveryLine = {
    id,
    time,
    channel: input.channel,
    text,
    ...(input.sourceId ? { source_id: input.sourceId } : {}),
    ...(input.verb ? { verb: input.verb } : {}),
    ...(remember ? { remember } : {}),
  };
  try {
    ensureHome(home);
    appendFileSync(path, `${JSON.stringify(line)}\n`, { mode: 0o600 });
    if ((statSync(path).mode & 0o777) !== 0o600) chmodSync(path, 0o600);
  } catch (err) {
    throw new KeelError('FILE_UNREADABLE', `cannot write ${path}: ${(err as Error).message}`, {
      cause: err,
      details: { path },
    });
  }
  return { path, line };
}

/** The lines waiting in the recovery file (and in an import that stopped half-way). */
export function pendingRecovery(home: string): { path: string; lines: number } {
  let lines = 0;
  for (const file of recoveryFiles(home, true)) {
    try {
      lines += readFileSync(file, 'utf8')
        .split('\n')
        .filter((l) => l.trim()).length;
    } catch {
      // gone meanwhile
    }
  }
  return { path: recoveryPath(home), lines };
}

/** The recovery file and any import of it that stopped half-way (`recovery.jsonl.importing-…`). */
function recoveryFiles(home: string, withMain: boolean): string[] {
  let names: string[];
  try {
    names = readdirSync(home);
  } catch {
    return [];
  }
  return names
    .filter((n) => n.startsWith(`${RECOVERY_FILE}.importing-`) || (withMain && n === RECOVERY_FILE))
    .sort()
    .map((n) => join(home, n));
}

function parseLine(text: string): RecoveryLine | null {
  try {
    const v = JSON.parse(text) as Partial<RecoveryLine> | null;
    if (
      v &&
      typeof v.id === 'string' &&
      typeof v.time === 'string' &&
      Number.isFinite(Date.parse(v.time)) &&
      typeof v.channel === 'string' &&
      v.channel &&
      typeof v.text === 'string' &&
      (v.source_id === undefined || typeof v.source_id === 'string') &&
      (v.verb === undefined || v.verb === 'remember')
    ) {
      return v as RecoveryLine;
    }
  } catch {
    // not JSON
  }
  return null;
}

/** What {@link recoverInto} did. */
export interface RecoverResult {
  /** The recovery file. */
  path: string;
  /** Lines stored as episodes now. */
  recovered: number;
  /** Lines already stored (recovered before, or caught up by the Discord door). */
  existing: number;
  /** The episodes stored, in the file's order. */
  episodes: number[];
  /** What the lines asked to be remembered, and the write review's decision on each. */
  beliefs: { episode: number; decision: Decision; fact: number | null }[];
  /** Lines that were not keel's JSON (or that the store refuses), kept aside in `unreadableFile`. */
  unreadable: number;
  unreadableFile: string | null;
}

/**
 * Stores every waiting line as the owner's episode (its original time and channel; provenance
 * `recovery`/id, or for a Discord message the provenance the Discord door gives it), each line in
 * one unit of work with what it asked to be remembered, then clears the file. Lines already stored are skipped. Lines that cannot be read are
 * moved to `recovery-unreadable-<time>.jsonl` beside it, never dropped.
 *
 * The file is first renamed aside (`recovery.jsonl.importing-<pid>-<time>`), so a line another
 * process appends meanwhile starts a new file and waits for the next `keel recover`; an import
 * that stopped half-way is picked up again.
 *
 * @throws KeelError from the store (`DB_CORRUPT`, …); the lines stored before it are kept whole
 *   (episode and belief), the failing line keeps neither, and the file stays waiting: the next run
 *   skips what is stored and stores the rest.
 */
export function recoverInto(store: MemoryStore, home: string): RecoverResult {
  const path = recoveryPath(home);
  const stamp = fileStamp(Date.now());
  try {
    renameSync(path, `${path}.importing-${process.pid}-${stamp}`);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const files = recoveryFiles(home, false);
  const lines: RecoveryLine[] = [];
  const bad: string[] = [];
  for (const file of files) {
    for (const raw of readFileSync(file, 'utf8').split('\n')) {
      if (!raw.trim()) continue;
      const line = parseLine(raw);
      if (line) lines.push(line);
      else bad.push(raw);
    }
  }
  const result: RecoverResult = {
    path,
    recovered: 0,
    existing: 0,
    episodes: [],
    beliefs: [],
    unreadable: 0,
    unreadableFile: null,
  };
  for (const line of lines) {
    // Each line is one unit of work: its episode and what it asked to be remembered are kept
    // together or not at all. A crash part-way keeps the lines before it whole; the file stays
    // waiting, and the next `keel recover` skips those (stored already) and stores the rest.
    const outcome = store.transaction(() => recoverLine(store, line));
    if (outcome === 'existing') result.existing++;
    else if (outcome === 'refused') bad.push(JSON.stringify(line));
    else {
      result.recovered++;
      result.episodes.push(outcome.episode);
      if (outcome.belief) result.beliefs.push(outcome.belief);
    }
  }
  result.unreadable = bad.length;
  if (bad.length > 0) {
    const aside = join(home, `recovery-unreadable-${stamp}.jsonl`);
    writeFileSync(aside, `${bad.join('\n')}\n`, { mode: 0o600, flag: 'a' });
    result.unreadableFile = aside;
  }
  for (const file of files) rmSync(file, { force: true });
  return result;
}

/**
 * Stores one recovered line (call inside the line's transaction): `existing` when it is stored
 * already, `refused` when the store refuses it as it is (too large, invalid: it is kept aside, not
 * retried forever), else the owner episode and the belief it asked for (see {@link keepBelief}).
 *
 * @throws KeelError from the store other than `TOO_LARGE` / `INVALID_INPUT` (`DB_CORRUPT`, …).
 */
function recoverLine(
  store: MemoryStore,
  line: RecoveryLine,
): 'existing' | 'refused' | { episode: number; belief: RecoverResult['beliefs'][number] | null } {
  const doc = line.source_id ? null : RECOVERY_SOURCE;
  const sourceId = line.source_id ?? line.id;
  if (store.episodeBySource(doc, sourceId)) return 'existing';
  let episode: { id: number };
  try {
    episode = store.addEpisode({
      kind: line.verb ? 'command' : 'conversation',
      channel: line.channel,
      role: 'owner',
      text: line.text,
      actor: 'owner',
      occurredAt: Date.parse(line.time),
      sourceDoc: doc,
      sourceId,
      meta: { recovered: true },
    });
  } catch (err) {
    if (!KeelError.isInstance(err) || !['TOO_LARGE', 'INVALID_INPUT'].includes(err.code)) {
      throw err;
    }
    return 'refused';
  }
  return { episode: episode.id, belief: keepBelief(store, line, episode.id) };
}

/**
 * What a recovered line asked to be remembered, kept as its door would have kept it: a
 * `keel remember`'s belief, or the owner's explicit statement ("remember that …") as an
 * owner_stated belief resting on the recovered episode. A failed capture is recorded (`keel doctor`
 * lists it), as a door records it; it never stops the recovery.
 */
function keepBelief(
  store: MemoryStore,
  line: RecoveryLine,
  episodeId: number,
): RecoverResult['beliefs'][number] | null {
  try {
    const r = line.remember;
    const capture = line.verb ? null : captureExplicit(line.text);
    const input = r
      ? {
          scope: r.scope,
          kind: r.kind,
          key: r.key,
          value: r.value,
          source: r.source,
          ...(r.validFrom === undefined ? {} : { validFrom: r.validFrom }),
          ...(r.replaces ? { replaces: true } : {}),
        }
      : capture
        ? {
            kind: capture.kind,
            key: capture.key,
            value: capture.value,
            source: 'owner_stated' as const,
          }
        : null;
    if (!input) return null;
    const w = store.remember({ ...input, episodeId, actor: 'owner', channel: line.channel });
    return { episode: episodeId, decision: w.decision, fact: w.fact?.id ?? null };
  } catch (err) {
    if (!KeelError.isInstance(err) || err.code === 'DB_CORRUPT') throw err;
    store.recordCaptureFailure(episodeId, err.code, err.message);
    return null;
  }
}

/** A time as a file-name stamp: `2026-03-01T10-15-00-123Z`. */
export function fileStamp(ms: number): string {
  return new Date(ms).toISOString().replace(/[:.]/g, '-');
}
