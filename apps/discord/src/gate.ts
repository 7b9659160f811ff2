/**
 * The owner lock: the first thing every Discord event handler runs. Only a message or interaction
 * whose author id equals the configured owner id, sent in a DM and not by a bot or by keel itself,
 * is handled. The decision never looks at a DM channel's recipient (null on partial channels, and
 * set from the author by discord.js anyway). Ids are compared in constant time.
 *
 * @module
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { validateOwnerId } from '@keel/outbound';

/** Why an event was dropped. */
export type DropReason = 'self' | 'bot' | 'guild' | 'stranger';

/** What the gate needs to know about an event's author and place. */
export interface GateInput {
  authorId: string;
  authorIsBot: boolean;
  /** Set when the event happened in a server (guild) rather than a DM. */
  guildId: string | null;
  /** keel's own user id, once logged in. */
  selfId: string | null;
  /** Set for webhook messages. */
  webhookId?: string | null;
}

/** The gate's verdict. */
export type GateVerdict = { owner: true } | { owner: false; reason: DropReason };

const digest = (s: string) => createHash('sha256').update(s, 'utf8').digest();

/** Compares two ids in constant time (hashed first, so their lengths do not leak either). */
export function sameId(a: string, b: string): boolean {
  return timingSafeEqual(digest(a), digest(b));
}

/** The owner lock for one configured owner. */
export class OwnerGate {
  readonly ownerId: string;

  /** @throws KeelError `INVALID_INPUT` without a valid owner id (fail closed). */
  constructor(ownerId: string | null | undefined) {
    this.ownerId = validateOwnerId(ownerId);
  }

  /** Decides whether an event is the owner's, before anything else looks at it. */
  check(input: GateInput): GateVerdict {
    if (input.selfId !== null && sameId(input.authorId, input.selfId)) {
      return { owner: false, reason: 'self' };
    }
    if (input.authorIsBot || input.webhookId) return { owner: false, reason: 'bot' };
    if (input.guildId !== null) return { owner: false, reason: 'guild' };
    if (!sameId(input.authorId, this.ownerId)) return { owner: false, reason: 'stranger' };
    return { owner: true };
  }
}
