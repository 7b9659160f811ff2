/**
 * The fast search path, in memory: each vector kept as its sign bits (binary quantisation, 48
 * bytes a row for 384-d) and as an 8-bit copy (384 bytes a row). A search keeps the best
 * `max(RESCORE_FACTOR·k, RESCORE_MIN)` rows by Hamming distance between sign bits (see
 * `hamming.ts`), then rescores those by cosine on the 8-bit copies. Measured against sqlite-vec's
 * exact search in `bench/hybrid.ts` (docs/decisions/2026-11-30-hybrid-recall-latency.md).
 *
 * @module
 */
import { CodeBuffer } from './hamming.js';

/** First-pass candidates kept per result wanted, for rescoring (and at least RESCORE_MIN). */
export const RESCORE_FACTOR = 20;
/** The fewest first-pass candidates rescored. */
export const RESCORE_MIN = 600;

/** One nearest neighbour: a row id and its cosine distance (0 same direction, 2 opposite). */
export interface Neighbour {
  id: number;
  distance: number;
}

/** Sign bits of a vector, packed 32 to a word (the binary quantisation). */
export function signBits(v: Float32Array): Uint32Array {
  const out = new Uint32Array(Math.ceil(v.length / 32));
  for (let i = 0; i < v.length; i++) if (v[i]! > 0) out[i >> 5]! |= 1 << (i & 31);
  return out;
}
/** The vector scaled to 8-bit integers (largest magnitude → 127). */
export function int8Copy(v: Float32Array): Int8Array {
  let max = 0;
  for (const x of v) max = Math.max(max, Math.abs(x));
  const out = new Int8Array(v.length);
  if (max > 0) for (let i = 0; i < v.length; i++) out[i] = Math.round((v[i]! / max) * 127);
  return out;
}

/** Binary codes and 8-bit copies of one table's vectors, in memory. */
export class CodeIndex {
  private ids: number[] = [];
  private codes: CodeBuffer;
  private q8: Int8Array;
  private norms: Float32Array;
  private slots = new Map<number, number>();
  /**
   * @param words - 32-bit words of a code: `ceil(dim / 32)`.
   * @param dim - the vectors' dimension (bytes of an 8-bit copy).
   */
  constructor(
    private readonly words: number,
    private readonly dim: number,
  ) {
    this.codes = new CodeBuffer(words, 1024);
    this.q8 = new Int8Array(1024 * dim);
    this.norms = new Float32Array(1024);
  }
  /** Rows held. */
  get size(): number {
    return this.ids.length;
  }
  /** Whether row `id` is held. */
  has(id: number): boolean {
    return this.slots.has(id);
  }
  /** Adds or replaces row `id`: its sign bits (`words` words) and 8-bit copy (`dim` bytes). */
  set(id: number, code: Uint32Array, q8: Int8Array): void {
    let slot = this.slots.get(id);
    if (slot === undefined) {
      slot = this.ids.length;
      if (slot >= this.norms.length) {
        const grow = <T extends Int8Array | Float32Array>(a: T, make: (n: number) => T) => {
          const b = make(a.length * 2);
          b.set(a as never);
          return b;
        };
        this.q8 = grow(this.q8, (n) => new Int8Array(n));
        this.norms = grow(this.norms, (n) => new Float32Array(n));
        this.codes.reserve(this.norms.length);
      }
      this.ids.push(id);
      this.slots.set(id, slot);
    }
    this.codes.set(slot, code);
    this.q8.set(q8, slot * this.dim);
    let n = 0;
    for (const x of q8) n += x * x;
    this.norms[slot] = Math.sqrt(n) || 1;
  }
  /** Removes row `id` (the last row moves into its slot); no-op when absent. */
  delete(id: number): void {
    const slot = this.slots.get(id);
    if (slot === undefined) return;
    const last = this.ids.length - 1;
    const lastId = this.ids[last]!;
    this.codes.move(last, slot);
    this.q8.copyWithin(slot * this.dim, last * this.dim, (last + 1) * this.dim);
    this.norms[slot] = this.norms[last]!;
    this.ids[slot] = lastId;
    this.slots.set(lastId, slot);
    this.ids.pop();
    this.slots.delete(id);
  }
  /** Slots of the `n` codes nearest `query` by Hamming distance (ties at the cut-off included). */
  private nearestSlots(query: Uint32Array, n: number): number[] {
    const count = this.ids.length;
    if (count <= n) return Array.from({ length: count }, (_, i) => i);
    const hist = new Uint32Array(this.words * 32 + 1);
    const dist = this.codes.distances(query, count, hist);
    let cut = 0;
    for (let seen = 0; seen + hist[cut]! < n; cut++) seen += hist[cut]!;
    const out: number[] = [];
    for (let r = 0; r < count; r++) if (dist[r]! <= cut) out.push(r);
    return out;
  }
  /** The `k` nearest rows: Hamming first pass of `candidates`, then cosine on the 8-bit copies. */
  search(query: Float32Array, k: number, candidates: number): Neighbour[] {
    const d = this.dim;
    const q = Float64Array.from(query);
    const q8 = this.q8;
    const slots = this.nearestSlots(signBits(query), candidates);
    const distance = new Float64Array(slots.length);
    const whole = d - (d % 4);
    for (let s = 0; s < slots.length; s++) {
      // Four running sums: about twice as fast as one (bench/hybrid.ts).
      const o = slots[s]! * d;
      let a = 0;
      let b = 0;
      let c = 0;
      let e = 0;
      let i = 0;
      for (; i < whole; i += 4) {
        a += q[i]! * q8[o + i]!;
        b += q[i + 1]! * q8[o + i + 1]!;
        c += q[i + 2]! * q8[o + i + 2]!;
        e += q[i + 3]! * q8[o + i + 3]!;
      }
      for (; i < d; i++) a += q[i]! * q8[o + i]!;
      distance[s] = 1 - (a + b + c + e) / this.norms[slots[s]!]!;
    }
    // Only the candidates at or under the k-th smallest distance are sorted (ties by id).
    const kth = Float64Array.from(distance).sort()[Math.min(k, slots.length) - 1] ?? 0;
    const keep: number[] = [];
    for (let s = 0; s < slots.length; s++) if (distance[s]! <= kth) keep.push(s);
    keep.sort((x, y) => distance[x]! - distance[y]! || this.ids[slots[x]!]! - this.ids[slots[y]!]!);
    return keep.slice(0, k).map((x) => ({ id: this.ids[slots[x]!]!, distance: distance[x]! }));
  }
}
