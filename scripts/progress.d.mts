// Types of progress.mjs, for the tests (tests/scripts/progress.test.ts).

export const TTY_EVERY_MS: number;
export const LOG_EVERY_MS: number;

export function formatElapsed(ms: number): string;

export function progressLine(
  prefix: string,
  label: string,
  elapsedMs: number,
  phase?: string | null,
): string;

export function pnpmPhase(line: string, state?: { phase?: string | null }): string | null;

export interface ProgressOptions {
  prefix: string;
  label: string;
  stream?: { write(text: string): unknown; isTTY?: boolean; columns?: number };
  tty?: boolean;
  columns?: number;
  now?: () => number;
  setInterval?: (fn: () => void, ms: number) => unknown;
  clearInterval?: (handle: unknown) => void;
  phases?: ((line: string, state: { phase: string | null }) => string | null) | null;
  everyMs?: number;
}

export interface Progress {
  feed(chunk: string | Uint8Array): void;
  phase(text: string): void;
  stop(): number;
}

export function startProgress(options: ProgressOptions): Progress;
