/**
 * A time limit on waiting for a promise, with its timer always cleared (a pending timer would
 * keep a process alive): one helper for every wait keel bounds (an MCP server's connect, a
 * refresh a command waits for).
 *
 * @module
 */

/**
 * `work`'s outcome, or a rejection when `ms` pass first.
 *
 * @param what - what is awaited, for the error ("connect").
 * @returns `work`'s value; rejects with `work`'s error, or with an `Error` "no <what> within <s>
 *   s" (seconds rounded) when the limit passes first. `work` itself is not stopped.
 */
export function withinTime<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no ${what} within ${Math.round(ms / 1000)} s`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}
