/**
 * The retry policy every streaming provider shares (Anthropic, OpenAI-compatible, Ollama): attempts with
 * exponential backoff and equal jitter (a `retry-after` wins when longer), a stall watchdog per
 * attempt, and the mapping of whatever ended the loop to the {@link KeelError} callers see. Each
 * provider classifies its own errors into a retryable {@link AttemptFailure} or a final
 * `KeelError`; the loop here is the same for all of them.
 *
 * Internal to `@keel/agent`: not exported from the package.
 *
 * @module
 */
import { KeelError, type KeelErrorCode } from '@keel/errors';
import pRetry, { AbortError } from 'p-retry';
import type { ChatRequest, RetryReason, WaitInfo } from './types.js';

/** Retry and timeout options every hosted provider takes. Nothing is read from the environment. */
export interface RetryOptions {
  /** Attempts per request, the first included. Default 4 (so up to 3 retries). */
  maxAttempts?: number;
  /** Backoff before retry n (1-based) is about `baseDelayMs * 2^(n-1)`, jittered. Default 1000 ms. */
  baseDelayMs?: number;
  /** Upper bound of the computed backoff, ms. Default 16000. A `retry-after` header wins over it. */
  maxDelayMs?: number;
  /**
   * No response headers or stream event for this long, ms → the attempt is abandoned and retried
   * (`MODEL_TIMEOUT` after the last attempt). Default 30000.
   */
  stallTimeoutMs?: number;
  /**
   * No response headers or stream event for this long, ms → `request.onWait` is told (once per
   * silence), so a door can say that keel is waiting. Default 5000, at most a third of
   * `stallTimeoutMs`. Not told when it is not below `stallTimeoutMs`.
   */
  waitNoticeMs?: number;
  /**
   * A 429 whose `retry-after` is longer than this, ms, is treated as an exhausted quota
   * (`MODEL_QUOTA`, not retried). Default 600000 (10 minutes).
   */
  quotaRetryAfterMs?: number;
  /** Waits `ms` between attempts; rejects when `signal` aborts. Injected by tests. Default: a timer. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** A number in [0, 1) for jitter. Injected by tests. Default `Math.random`. */
  random?: () => number;
}

/** {@link RetryOptions} with every default filled in. */
export type RetryPolicy = Required<RetryOptions>;

/** A retryable failure of one attempt. What callers see in the end is a {@link KeelError}. */
export class AttemptFailure extends Error {
  constructor(
    readonly reason: RetryReason,
    message: string,
    /** Text this attempt already streamed through `onText`. */
    readonly discardText: string,
    /** The server's `retry-after`, ms, when it gave one. */
    readonly retryAfterMs: number | undefined,
    options: { cause?: unknown } = {},
  ) {
    super(message, options);
    this.name = 'AttemptFailure';
  }
}

/** An error thrown by the caller's own callback (`onText`, `onRetry`): passed through untouched. */
export class CallbackError extends Error {
  constructor(readonly original: unknown) {
    super('callback threw');
  }
}

const defaultSleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });

/** Words in a 429's message or code that mean the quota or credit is gone (not retried). */
export const QUOTA_WORDS =
  /quota|credit|billing|exhaust|insufficient|spend(ing)? limit|usage limit|balance|payment/i;

/**
 * Fills the defaults of `options` and checks them.
 *
 * @throws KeelError `INVALID_INPUT` when `maxAttempts` is not an integer ≥ 1, a delay is negative
 *   or not finite, or `stallTimeoutMs` is 0.
 */
export function retryPolicy(options: RetryOptions): RetryPolicy {
  const policy: RetryPolicy = {
    maxAttempts: options.maxAttempts ?? 4,
    baseDelayMs: options.baseDelayMs ?? 1000,
    maxDelayMs: options.maxDelayMs ?? 16_000,
    stallTimeoutMs: options.stallTimeoutMs ?? 30_000,
    waitNoticeMs:
      options.waitNoticeMs ?? Math.min(5000, Math.floor((options.stallTimeoutMs ?? 30_000) / 3)),
    quotaRetryAfterMs: options.quotaRetryAfterMs ?? 600_000,
    sleep: options.sleep ?? defaultSleep,
    random: options.random ?? Math.random,
  };
  if (!Number.isInteger(policy.maxAttempts) || policy.maxAttempts < 1) {
    throw new KeelError(
      'INVALID_INPUT',
      `maxAttempts must be an integer ≥ 1, got ${policy.maxAttempts}`,
    );
  }
  for (const [name, value] of [
    ['baseDelayMs', policy.baseDelayMs],
    ['maxDelayMs', policy.maxDelayMs],
    ['stallTimeoutMs', policy.stallTimeoutMs],
    ['waitNoticeMs', policy.waitNoticeMs],
  ] as const) {
    if (!(value >= 0) || !Number.isFinite(value) || (name === 'stallTimeoutMs' && value === 0)) {
      throw new KeelError('INVALID_INPUT', `${name} must be a finite number ≥ 0, got ${value}`);
    }
  }
  return policy;
}

/**
 * The backoff before the retry that follows failed attempt `attempt` (1-based), ms: "equal jitter"
 * (half of `min(maxDelayMs, baseDelayMs * 2^(attempt-1))` fixed, half random, so the retries of
 * many clients spread out), or `retryAfterMs` when that is longer.
 */
export function backoffDelay(
  policy: RetryPolicy,
  attempt: number,
  retryAfterMs: number | undefined,
): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  const jittered = Math.round(ceiling / 2 + (policy.random() * ceiling) / 2);
  return Math.max(jittered, retryAfterMs ?? 0);
}

/**
 * Runs `attempt` until it resolves, throws something other than an {@link AttemptFailure}, or
 * `policy.maxAttempts` attempts have failed. Before each retry it tells `request.onRetry` and sleeps
 * the {@link backoffDelay}.
 *
 * What it throws: an error of the caller's callback as it was; a `KeelError` from `attempt` as it
 * is; `CANCELLED` when `request.signal` aborted; `final(failure)` for the last
 * {@link AttemptFailure}.
 */
export async function withRetries<T>(
  policy: RetryPolicy,
  request: Pick<ChatRequest, 'signal' | 'onRetry'>,
  attempt: (attemptNumber: number) => Promise<T>,
  final: (failure: AttemptFailure) => KeelError,
): Promise<T> {
  const signal = request.signal;
  try {
    return await pRetry(
      async (attemptNumber) => {
        try {
          return await attempt(attemptNumber);
        } catch (error) {
          // Non-retryable outcomes leave p-retry through its AbortError.
          if (error instanceof AttemptFailure) throw error;
          throw new AbortError(error instanceof Error ? error : new Error(String(error)));
        }
      },
      {
        retries: policy.maxAttempts - 1,
        // Delays are computed and slept in onFailedAttempt (retry-after, injectable sleep).
        minTimeout: 0,
        factor: 1,
        ...(signal === undefined ? {} : { signal }),
        shouldRetry: ({ error }) => error instanceof AttemptFailure,
        onFailedAttempt: async ({ error, attemptNumber, retriesLeft }) => {
          if (retriesLeft <= 0 || !(error instanceof AttemptFailure)) return;
          const delayMs = backoffDelay(policy, attemptNumber, error.retryAfterMs);
          try {
            request.onRetry?.({
              attempt: attemptNumber,
              reason: error.reason,
              delayMs,
              discardText: error.discardText,
              message: error.message,
            });
          } catch (callbackError) {
            throw new CallbackError(callbackError);
          }
          await policy.sleep(delayMs, signal);
        },
      },
    );
  } catch (error) {
    if (error instanceof CallbackError) throw error.original;
    if (KeelError.isInstance(error)) throw error;
    if (signal?.aborted) {
      throw new KeelError('CANCELLED', 'the model request was cancelled', { cause: error });
    }
    if (error instanceof AttemptFailure) throw final(error);
    throw error;
  }
}

/**
 * The `KeelError` for the last failed attempt: `code` with a message saying what happened after
 * how many attempts, and `{attempts, reason}` as details.
 */
export function exhausted(
  code: KeelErrorCode,
  what: string,
  failure: AttemptFailure,
  attempts: number,
): KeelError {
  return new KeelError(
    code,
    `${what} after ${attempts} attempt(s); last error: ${failure.message}`,
    {
      cause: failure.cause ?? failure,
      details: { attempts, reason: failure.reason },
    },
  );
}

/** How a provider names itself in the error for its last failed attempt. */
export interface FinalWords {
  /** Where the answers were asked for, e.g. the base URL or Ollama's host. */
  where: string;
  /** What stayed overloaded, e.g. the model's name. */
  overloaded: string;
  /**
   * The code for a run of 5xx answers: `MODEL_UNAVAILABLE` (the server failed), or
   * `MODEL_OVERLOADED` for a provider whose 5xx mostly means a busy upstream. Default
   * `MODEL_UNAVAILABLE`.
   */
  serverError?: 'MODEL_UNAVAILABLE' | 'MODEL_OVERLOADED';
}

/**
 * The `KeelError` for the last failed attempt of a provider's streamed request, the same for every
 * provider: a stall is `MODEL_TIMEOUT`, a connection failure `MODEL_UNAVAILABLE`, a run of 5xx
 * `words.serverError`, a busy server (429, 503, 529) `MODEL_OVERLOADED`.
 */
export function finalFailure(
  policy: RetryPolicy,
  failure: AttemptFailure,
  words: FinalWords,
): KeelError {
  const code: KeelErrorCode =
    failure.reason === 'stalled'
      ? 'MODEL_TIMEOUT'
      : failure.reason === 'connection'
        ? 'MODEL_UNAVAILABLE'
        : failure.reason === 'server_error'
          ? (words.serverError ?? 'MODEL_UNAVAILABLE')
          : 'MODEL_OVERLOADED';
  const what =
    code === 'MODEL_TIMEOUT'
      ? `the response stream stalled (nothing for ${policy.stallTimeoutMs} ms)`
      : code === 'MODEL_UNAVAILABLE'
        ? `cannot get an answer from ${words.where}`
        : `${words.overloaded} stayed overloaded`;
  return exhausted(code, what, failure, policy.maxAttempts);
}

/** True when `error`, or an error it wraps, is a refused connection (`ECONNREFUSED`: nothing listens). */
export function connectionRefused(error: unknown, depth = 0): boolean {
  if (!(error instanceof Error) || depth > 5) return false;
  if ((error as { code?: unknown }).code === 'ECONNREFUSED') return true;
  const inner = error instanceof AggregateError ? error.errors : [];
  return [error.cause, ...inner].some((e) => connectionRefused(e, depth + 1));
}

/** Who {@link AttemptScope} tells when a response is late, and when. */
export interface WaitNotice {
  /** Silence after which `onWait` is told, ms (only when below the stall timeout). */
  afterMs: number;
  onWait: ((info: WaitInfo) => void) | undefined;
  /** The attempt (1-based). */
  attempt: number;
}

/**
 * One attempt's abort controller: aborted when the caller's signal aborts, or by the stall
 * watchdog when {@link AttemptScope.arm} is not called again within `stallTimeoutMs`. With a
 * {@link WaitNotice}, its `onWait` is told once per silence that reaches `afterMs`.
 */
export class AttemptScope {
  /** Pass to the client; aborted on cancellation or a stall. */
  readonly signal: AbortSignal;
  /** True once the watchdog fired. */
  stalled = false;
  readonly #controller = new AbortController();
  readonly #outer: AbortSignal | undefined;
  readonly #stallTimeoutMs: number;
  readonly #onOuterAbort = () => this.#controller.abort();
  readonly #notice: WaitNotice | undefined;
  #watchdog: ReturnType<typeof setTimeout> | undefined;
  #noticeTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(outer: AbortSignal | undefined, stallTimeoutMs: number, notice?: WaitNotice) {
    this.signal = this.#controller.signal;
    this.#outer = outer;
    this.#stallTimeoutMs = stallTimeoutMs;
    this.#notice = notice;
    outer?.addEventListener('abort', this.#onOuterAbort, { once: true });
  }

  /** (Re)starts the watchdog and the wait notice: call before the request and on every event. */
  arm(): void {
    clearTimeout(this.#watchdog);
    clearTimeout(this.#noticeTimer);
    this.#watchdog = setTimeout(() => {
      this.stalled = true;
      this.#controller.abort();
    }, this.#stallTimeoutMs);
    const notice = this.#notice;
    if (notice?.onWait && notice.afterMs < this.#stallTimeoutMs) {
      const onWait = notice.onWait;
      this.#noticeTimer = setTimeout(() => {
        try {
          onWait({
            attempt: notice.attempt,
            waitedMs: notice.afterMs,
            giveUpInMs: this.#stallTimeoutMs - notice.afterMs,
          });
        } catch {
          // A notice that cannot be shown changes nothing of the request.
        }
      }, notice.afterMs);
    }
  }

  /** Stops the watchdog and the notice, and forgets the caller's signal. */
  dispose(): void {
    clearTimeout(this.#watchdog);
    clearTimeout(this.#noticeTimer);
    this.#outer?.removeEventListener('abort', this.#onOuterAbort);
  }
}

/** Passes a piece of text to `onText`, wrapping an error it throws in a {@link CallbackError}. */
export function emitText(onText: ((delta: string) => void) | undefined, delta: string): void {
  if (!onText) return;
  try {
    onText(delta);
  } catch (error) {
    throw new CallbackError(error);
  }
}

/** `CANCELLED` for an aborted request. */
export function cancelled(signal: AbortSignal, cause?: unknown): KeelError {
  return new KeelError('CANCELLED', 'the model request was cancelled', {
    cause: cause ?? signal.reason,
  });
}

/** The failure of an attempt whose stream sent nothing for `ms`. */
export function stallFailure(ms: number, streamed: string, cause?: unknown): AttemptFailure {
  return new AttemptFailure(
    'stalled',
    `no stream event for ${ms} ms`,
    streamed,
    undefined,
    cause === undefined ? {} : { cause },
  );
}

/** An error's message with its `code` and its causes, for a log line. */
export function describeCause(error: Error): string {
  const inner = error.cause instanceof Error ? ` (${describeCause(error.cause)})` : '';
  const code = (error as { code?: unknown }).code;
  return `${error.message}${typeof code === 'string' ? ` [${code}]` : ''}${inner}`;
}

/**
 * How long the server asks to wait, ms: `retry-after-ms`, else `retry-after` (seconds or an HTTP
 * date). Undefined when neither is present.
 */
export function parseRetryAfterHeader(headers: Headers): number | undefined {
  const ms = Number.parseFloat(headers.get('retry-after-ms') ?? '');
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const value = headers.get('retry-after');
  if (value === null || value.trim() === '') return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/** What {@link streamAttempt} needs of a provider's stream accumulator. */
export interface StreamAccumulator<E, R> {
  /** The text streamed so far (kept in a failure, for the caller to show). */
  readonly text: string;
  /** Takes one stream event; text deltas go to `onText` (through {@link emitText}). */
  apply(event: E, onText: ((delta: string) => void) | undefined): void;
  /** Whether the stream reached its end event (Anthropic's `message_stop`, a `finish_reason`). */
  complete(): boolean;
  /** The response, once complete. */
  response(attempt: number): R;
}

/**
 * One streamed attempt, the same for every provider whose client streams an async iterable: the
 * stall watchdog re-armed on each event, the caller's cancellation, a stream that ends before its
 * end event, and the provider's own classification of everything else.
 *
 * @param waitNoticeMs - silence (no headers, no event) after which `onWait` is told, once per
 *   silence; not told when it is not below `stallTimeoutMs`.
 * @param open - starts the request with the attempt's signal and resolves to its event stream.
 * @param incomplete - the failure message when the stream ends before its end event.
 * @param classify - turns a client or network error into a retryable {@link AttemptFailure} or a
 *   final `KeelError`.
 * @throws AttemptFailure (retryable: `stalled`, `connection`, or what `classify` says),
 *   {@link CallbackError} (an `onText` that threw), KeelError `CANCELLED`, or what `classify`
 *   returns.
 */
export async function streamAttempt<E, R>(options: {
  signal: AbortSignal | undefined;
  stallTimeoutMs: number;
  /** Silence after which `onWait` is told, ms. */
  waitNoticeMs: number;
  onWait: ((info: WaitInfo) => void) | undefined;
  attempt: number;
  onText: ((delta: string) => void) | undefined;
  accumulator: StreamAccumulator<E, R>;
  open: (signal: AbortSignal) => Promise<AsyncIterable<E>>;
  incomplete: string;
  classify: (error: unknown, streamed: string) => Error;
}): Promise<R> {
  const { signal: outer, stallTimeoutMs: stallMs, accumulator: acc } = options;
  if (outer?.aborted) throw cancelled(outer);
  const scope = new AttemptScope(outer, stallMs, {
    afterMs: options.waitNoticeMs,
    onWait: options.onWait,
    attempt: options.attempt,
  });
  try {
    scope.arm();
    const stream = await options.open(scope.signal);
    for await (const event of stream) {
      scope.arm();
      acc.apply(event, options.onText);
    }
    // The clients end the iteration quietly when the request is aborted.
    if (outer?.aborted) throw cancelled(outer);
    if (scope.stalled) throw stallFailure(stallMs, acc.text);
    if (!acc.complete()) {
      throw new AttemptFailure('connection', options.incomplete, acc.text, undefined);
    }
    return acc.response(options.attempt);
  } catch (error) {
    if (error instanceof AttemptFailure || error instanceof CallbackError) throw error;
    if (KeelError.isInstance(error)) throw error;
    if (outer?.aborted) throw cancelled(outer, error);
    if (scope.stalled) throw stallFailure(stallMs, acc.text, error);
    throw options.classify(error, acc.text);
  } finally {
    scope.dispose();
  }
}
