/**
 * What a line the owner typed produced at a door (a slash command's reply, the offline session's
 * reply), and how one version of a belief reads in a history listing.
 *
 * @module
 */
import type { KeelError } from '@keel/errors';
import type { SecretKind } from '@keel/language';
import type { Fact, RecallResponse, WriteResult } from '@keel/memory';
import { formatFactLine } from '@keel/prompt';

/** What one line produced. */
export interface TurnReply {
  /** Text to show the owner. */
  text: string;
  /** The owner's line as stored (absent for slash commands). */
  episodeId?: number;
  /** The write, when the line was an explicit "remember that …". */
  write?: WriteResult;
  /**
   * Why capturing the line as a belief failed, when it did (the line is stored all the same):
   * the capture's error code, message and the one-line fix the door prints under it.
   */
  captureError?: { code: string; message: string; fix: string };
  /** The recall behind the reply, when there was one. */
  recall?: RecallResponse;
  /**
   * The kinds of credential withheld from the line (never stored; the reply says so); absent or
   * empty when there were none.
   */
  withheld?: SecretKind[];
  /** Set for `/quit`. */
  quit?: boolean;
  /**
   * The error the line failed with (a slash command's `NOT_FOUND`, a message past the episode
   * limit's `TOO_LARGE`, …), for a door to report as an error (its code, message and fix; under
   * `--json` the error object): `text` says it too. Absent when the line was handled.
   */
  error?: KeelError;
}

/**
 * One version of a belief in a history listing: its line, its status and links, when it was true
 * (`true from … to …`, either end open when unknown or still holding) and when keel recorded it.
 */
export function historyLine(f: Fact): string {
  const links = [
    f.supersedes_id ? `supersedes f${f.supersedes_id}` : '',
    f.superseded_by_id ? `superseded by f${f.superseded_by_id}` : '',
  ]
    .filter(Boolean)
    .join(', ');
  const day = (ms: number | null) => (ms === null ? '…' : new Date(ms).toISOString().slice(0, 10));
  const validity =
    f.valid_from === null && f.valid_to === null
      ? ''
      : ` true from ${day(f.valid_from)} to ${f.valid_to === null ? 'now' : day(f.valid_to)};`;
  return `${formatFactLine(f)} [${f.status}${links ? `; ${links}` : ''}]${validity} recorded ${new Date(f.created_at).toISOString()}`;
}
