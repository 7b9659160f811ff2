/**
 * What the providers' probes share: the default timeout and how a probe's failed request becomes
 * its verdict. A probe is one cheap request (a model list or a model lookup) that proves the
 * provider answers, takes the credentials and has the model, generating nothing.
 *
 * @module
 */
import { KeelError } from '@keel/errors';
import { AttemptFailure } from './retry.js';

/** How long a probe's one request may take by default, ms. */
export const PROBE_TIMEOUT_MS = 5000;

/**
 * The verdict on a probe whose request failed, from the provider's own classification of the
 * error: a final `KeelError` (`MODEL_AUTH`, `MODEL_QUOTA`, …) is the verdict as it is; a busy
 * provider (429 rate limit, 529 or 503 overloaded) answered after checking the credentials, so the
 * probe passes (null); no answer in time is `MODEL_TIMEOUT`; a refused connection or an error
 * answer is `MODEL_UNAVAILABLE`.
 *
 * @param where - the provider and address, for the message (e.g. `Anthropic at https://…`).
 */
export function probeVerdict(
  classified: Error,
  where: string,
  timeoutMs: number,
): KeelError | null {
  if (KeelError.isInstance(classified)) return classified;
  if (!(classified instanceof AttemptFailure)) {
    return new KeelError('MODEL_UNAVAILABLE', `${where}: ${classified.message}`, {
      cause: classified,
    });
  }
  switch (classified.reason) {
    case 'rate_limited':
    case 'overloaded':
      return null;
    case 'stalled':
      return new KeelError('MODEL_TIMEOUT', `${where} did not answer within ${timeoutMs} ms`, {
        cause: classified,
      });
    default:
      return new KeelError('MODEL_UNAVAILABLE', `${where}: ${classified.message}`, {
        cause: classified,
      });
  }
}

/**
 * The error for a model listing whose request failed: the verdict of {@link probeVerdict}, a busy
 * provider being `MODEL_OVERLOADED` (a probe passes then; a list has nothing to show), and a 404
 * `MODEL_UNAVAILABLE`: no model list at that address (a wrong base URL, or a server without one).
 *
 * @param status - the HTTP status of the failed answer, when there was one.
 */
export function listFailure(
  classified: Error,
  where: string,
  timeoutMs: number,
  status: number | undefined,
): KeelError {
  if (status === 404) {
    return new KeelError('MODEL_UNAVAILABLE', `${where} has no model list (404)`, {
      cause: classified,
    });
  }
  return (
    probeVerdict(classified, where, timeoutMs) ??
    new KeelError('MODEL_OVERLOADED', `${where} is busy and listed no models; try again`, {
      cause: classified,
    })
  );
}
