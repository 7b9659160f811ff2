/**
 * The owner's Discord identity, checked the same way by the front door and by outbound DMs.
 *
 * @module
 */
import { KeelError } from '@keel/errors';

/** A Discord user id (a snowflake): 15 to 21 digits. */
const SNOWFLAKE = /^\d{15,21}$/;

/**
 * Checks that `id` looks like a Discord user id.
 *
 * @throws KeelError `INVALID_INPUT` naming KEEL_DISCORD_OWNER_ID when it is missing or malformed
 *   (the front door fails closed).
 */
export function validateOwnerId(id: string | null | undefined): string {
  const v = id?.trim() ?? '';
  if (!v) {
    throw new KeelError(
      'INVALID_INPUT',
      'no owner id configured (ownerId / KEEL_DISCORD_OWNER_ID): keel will not answer anyone on Discord without one',
    );
  }
  if (!SNOWFLAKE.test(v)) {
    throw new KeelError(
      'INVALID_INPUT',
      `the owner id (ownerId / KEEL_DISCORD_OWNER_ID) "${v}" is not a Discord user id (digits only)`,
    );
  }
  return v;
}
