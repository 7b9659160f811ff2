/**
 * The owner's purge, the same for every door: `keel purge` and `keel forget --purge` (the CLI),
 * `/purge` and `/forget --purge` (the slash commands of the terminal and of Discord) each call
 * {@link purgeText} or {@link forgetAndPurge}. The purge is made in the store (which appends the
 * value's hashes to the purge ledger), then, once it is done, carried into keel's backups
 * (`MemoryStore.reachBackups`: each backup that still holds the value is rewritten without it),
 * and both go in the receipt. A door shows what a purge would erase first with
 * `MemoryStore.findMentions` or {@link forgetPurgeTarget}.
 *
 * @module
 */
import { KeelError } from '@keel/errors';
import type {
  BackupReach,
  ForgetResult,
  MemoryStore,
  MentionReport,
  OwnerActor,
  PurgeReceipt,
} from '@keel/memory';

/**
 * What `forget <id> --purge` erases beyond the belief's slot ({@link forgetPurgeTarget}): every
 * stored mention of its value; for a belief whose value was purged already (its text is gone, its
 * tombstone keeps the hashes), every phrase of the store that still says it (a mention written or
 * restored since). `report` lists it as `findMentions` does.
 */
export type ForgetPurgeTarget =
  | { kind: 'value'; value: string; report: MentionReport }
  | { kind: 'content'; content: string[][]; valueHash: string; report: MentionReport };

/**
 * What `forget <id> --purge` would erase beyond the belief's slot (see {@link ForgetPurgeTarget}).
 * Reads only: what a door lists before the owner says yes.
 *
 * @returns null when nothing is left to find (the value was purged already and nothing says it).
 * @throws KeelError `NOT_FOUND` (no belief `id`).
 */
export function forgetPurgeTarget(store: MemoryStore, id: number): ForgetPurgeTarget | null {
  const fact = store.fact(id);
  if (!fact) throw new KeelError('NOT_FOUND', `no fact ${id}`, { details: { id } });
  if (fact.purged_at === null) {
    return { kind: 'value', value: fact.value, report: store.findMentions(fact.value) };
  }
  const purged = store.purgedContentOf(id);
  if (!purged) return null;
  const { report } = store.findPurgedContent(purged.content);
  return report ? { kind: 'content', ...purged, report } : null;
}

/** What {@link purgeText} did. */
export interface PurgeDone {
  /** The purge in the store: rows reached per place, beliefs retracted, tombstones. */
  receipt: PurgeReceipt;
  /**
   * Keel's backups, one line each (`{path, reached, error}`: rows erased from it, 0 when it held
   * none; why it could not be reached); null when the store reaches no backups (opened on a bare
   * file, not by `@keel/host`).
   */
  backups: BackupReach[] | null;
}

/**
 * The owner's purge of `text`: every stored mention erased (`MemoryStore.purgeMentions`, one
 * transaction; the ledger keeps its hashes), then keel's backups rewritten without it
 * (`MemoryStore.reachBackups`, awaited after the transaction: it reads the ledger and the
 * backups, never the store's file, and holds none of its locks).
 *
 * @param options.actor - who the journal names: the owner at a door (default) or on the web page.
 * @throws KeelError `INVALID_INPUT` (no word to find); what the store's write throws
 *   (`DB_CORRUPT`, `JOURNAL_BROKEN`); nothing for a backup, which its line names instead.
 */
export async function purgeText(
  store: MemoryStore,
  text: string,
  options: { actor?: OwnerActor } = {},
): Promise<PurgeDone> {
  const receipt = store.purgeMentions(text, { actor: options.actor ?? 'owner' });
  return { receipt, backups: await store.reachBackups() };
}

/** What {@link forgetAndPurge} did. */
export interface ForgetPurgeDone {
  /** The belief retracted and its slot purged (`MemoryStore.forget` with `purge`). */
  forget: ForgetResult;
  /** What it erased beyond the slot ({@link forgetPurgeTarget}), or null when nothing was left. */
  target: ForgetPurgeTarget | null;
  /** The purge of the target's mentions, or null when there was none to make. */
  receipt: PurgeReceipt | null;
  /** Keel's backups, one line each, or null when the store reaches none (as {@link PurgeDone}). */
  backups: BackupReach[] | null;
  /** The belief's value was purged before (only what still said it was erased now). */
  already: boolean;
}

/**
 * The owner's `forget <id> --purge`: the belief is retracted and its slot purged, and every mention
 * of its value ({@link forgetPurgeTarget}, found again now) erased, in one transaction; then keel's
 * backups are rewritten without it, as {@link purgeText}.
 *
 * @param options.channel - the door, recorded on the retraction.
 * @param options.actor - who the journal names: the owner at a door (default) or on the web page.
 * @throws KeelError `NOT_FOUND` (no belief `id`), `INVALID_STATE` (it cannot be forgotten), what
 *   the store's write throws (`DB_CORRUPT`, `JOURNAL_BROKEN`).
 */
export async function forgetAndPurge(
  store: MemoryStore,
  id: number,
  options: { channel: string; actor?: OwnerActor },
): Promise<ForgetPurgeDone> {
  const actor = options.actor ?? 'owner';
  const done = store.transaction(() => {
    const target = forgetPurgeTarget(store, id);
    const already = store.fact(id)?.purged_at != null;
    const forget = store.forget(id, { purge: true, channel: options.channel, actor });
    let receipt: PurgeReceipt | null = null;
    if (target?.kind === 'value') receipt = store.purgeMentions(target.value, { actor });
    else if (target) {
      receipt = store.purgeContent(target.content, target.valueHash, { actor }).receipt;
    }
    return { forget, target, receipt, already };
  });
  return { ...done, backups: await store.reachBackups() };
}

/**
 * The backups a purge reached, in one line for a conversation: how many were rewritten without it
 * and how many held none of it, then each one it could not reach, with why. Empty when the store
 * reaches no backups.
 */
export function backupsLine(backups: readonly BackupReach[] | null): string {
  if (backups === null) return '';
  if (backups.length === 0) return 'Backups: none to rewrite.';
  const rewritten = backups.filter((b) => b.reached > 0).length;
  const clean = backups.filter((b) => b.reached === 0 && !b.error).length;
  const parts = [`${rewritten} rewritten without it`];
  if (clean > 0) parts.push(`${clean} held none of it`);
  const failed = backups.filter((b) => b.error);
  if (failed.length > 0) parts.push(`${failed.length} not reached`);
  return [
    `Backups: ${parts.join(', ')}.`,
    ...failed.map((b) => `Backup ${b.path} not reached: ${b.error!.code} ${b.error!.message}`),
  ].join('\n');
}
