/**
 * Cancellation shared by the gates.
 *
 * @module
 */
import { KeelError } from '@keel/errors';

/** The error a gate rejects with when the caller's signal aborts. */
export function cancelled(cause?: unknown): KeelError {
  return new KeelError('CANCELLED', 'the belief gate was cancelled', {
    ...(cause === undefined ? {} : { cause }),
  });
}

/**
 * @throws KeelError `CANCELLED` when `signal` is aborted.
 */
export function throwIfCancelled(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw cancelled(signal.reason);
}
