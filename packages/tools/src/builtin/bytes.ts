/**
 * Byte-level helpers the built-in tools share: sizes as people read them, the binary-or-text rule,
 * and a buffer that keeps only the tail of a stream.
 *
 * @module
 */
import { extname } from 'node:path';

/** One kibibyte, in bytes. */
export const KIB = 1024;
/** One mebibyte, in bytes. */
export const MIB = 1024 * KIB;

/** How many leading bytes {@link looksBinary} inspects: 8 KiB (the rule git and grep use). */
export const BINARY_SNIFF_BYTES = 8 * KIB;

/** A byte count as people read it: `512 B`, `1.5 KiB`, `2.0 MiB`. */
export function formatBytes(bytes: number): string {
  if (bytes < KIB) return `${bytes} B`;
  if (bytes < MIB) return `${(bytes / KIB).toFixed(1)} KiB`;
  if (bytes < 1024 * MIB) return `${(bytes / MIB).toFixed(1)} MiB`;
  return `${(bytes / (1024 * MIB)).toFixed(1)} GiB`;
}

/**
 * Whether bytes are binary rather than text: a NUL byte, or bytes that are not valid UTF-8, in the
 * first {@link BINARY_SNIFF_BYTES}. A multi-byte character cut by the end of the sample is not
 * counted against it.
 */
export function looksBinary(bytes: Uint8Array): boolean {
  const sample = bytes.subarray(0, BINARY_SNIFF_BYTES);
  if (sample.includes(0)) return true;
  try {
    // `stream: true` holds back an incomplete character at the end instead of rejecting it.
    new TextDecoder('utf-8', { fatal: true }).decode(sample, { stream: true });
    return false;
  } catch {
    return true;
  }
}

/** How a binary file is named to the model: its extension (`.png file`), or `file without an extension`. */
export function describeFileType(path: string): string {
  const ext = extname(path).toLowerCase();
  return ext ? `${ext} file` : 'file without an extension';
}

/**
 * Decodes UTF-8 bytes that may start or end in the middle of a character (a head or a tail cut at
 * a byte count): a broken character at either edge is dropped instead of shown as U+FFFD.
 */
export function decodeCut(bytes: Uint8Array): string {
  let start = 0;
  // Continuation bytes (10xxxxxx) at the start belong to a character that was cut away.
  while (start < 3 && start < bytes.length && ((bytes[start] ?? 0) & 0xc0) === 0x80) start++;
  return new TextDecoder('utf-8').decode(bytes.subarray(start), { stream: true });
}

/**
 * Keeps the last `cap` bytes of a stream written to it in chunks, counting everything it was given
 * (so the caller can say how much was cut).
 */
export class TailBuffer {
  readonly #cap: number;
  #chunks: Buffer[] = [];
  #kept = 0;
  /** Every byte written, kept or not. */
  total = 0;

  /** @param cap - bytes to keep (the tail). */
  constructor(cap: number) {
    this.#cap = cap;
  }

  /** Adds a chunk, dropping whole chunks from the front while the rest still covers the cap. */
  push(chunk: Buffer): void {
    this.total += chunk.length;
    this.#chunks.push(chunk);
    this.#kept += chunk.length;
    while (this.#chunks.length > 1 && this.#kept - (this.#chunks[0]?.length ?? 0) >= this.#cap) {
      this.#kept -= this.#chunks.shift()?.length ?? 0;
    }
  }

  /** Bytes that were written but are not in {@link text}. */
  get cut(): number {
    return Math.max(0, this.total - this.#cap);
  }

  /** The kept tail as text (a character cut at its start is dropped). */
  text(): string {
    const all = Buffer.concat(this.#chunks);
    return decodeCut(all.subarray(Math.max(0, all.length - this.#cap)));
  }
}
