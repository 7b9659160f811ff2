/**
 * Hamming distances between binary codes (sign bits of vectors, packed 32 to a word): the vector
 * arm's first pass (see `quantised.ts`). Two kernels compute the same numbers:
 *
 * - a WebAssembly function using the CPU's 64-bit population count (`i64.popcnt`), over codes
 *   kept in the module's own memory ({@link CodeBuffer}); assembled below from its instructions,
 *   so there is no binary blob to trust;
 * - plain JavaScript ({@link hammingDistances}), counting bits with shifts and masks (SWAR), used
 *   when WebAssembly cannot be instantiated.
 *
 * Measured in `bench/hybrid.ts` (92k episode codes of 384 bits): see
 * docs/decisions/2026-11-30-hybrid-recall-latency.md.
 *
 * @module
 */

/**
 * Hamming distances from `query` to each of the first `count` binary codes (`w` 32-bit words
 * each, packed one after another in `codes`), in plain JavaScript.
 *
 * @param hist - when given (length 32·w + 1), counts the codes at each distance.
 * @returns one distance (in bits, 0..32·w) per code.
 */
export function hammingDistances(
  codes: Uint32Array,
  count: number,
  w: number,
  query: Uint32Array,
  hist: Uint32Array = new Uint32Array(w * 32 + 1),
): Uint16Array {
  const dist = new Uint16Array(count);
  const c = codes;
  // Population counts without lookups (SWAR): 2-bit then 4-bit partial sums per word, three
  // words added per 4-bit lane (at most 12), folded into 8-bit lanes, lanes summed once per row.
  const nib = (x: number) => {
    x -= (x >>> 1) & 0x55555555;
    return (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  };
  const fold = (x: number) => (x & 0x0f0f0f0f) + ((x >>> 4) & 0x0f0f0f0f);
  const sum = (bytes: number) => {
    const halves = (bytes & 0x00ff00ff) + ((bytes >>> 8) & 0x00ff00ff);
    return (halves & 0xffff) + (halves >>> 16);
  };
  if (w === 12) {
    // 384-d (MiniLM): unrolled.
    const [q0, q1, q2, q3, q4, q5, q6, q7, q8, q9, q10, q11] = query as unknown as number[];
    for (let r = 0, o = 0; r < count; r++, o += 12) {
      const bytes =
        fold(nib(c[o]! ^ q0!) + nib(c[o + 1]! ^ q1!) + nib(c[o + 2]! ^ q2!)) +
        fold(nib(c[o + 3]! ^ q3!) + nib(c[o + 4]! ^ q4!) + nib(c[o + 5]! ^ q5!)) +
        fold(nib(c[o + 6]! ^ q6!) + nib(c[o + 7]! ^ q7!) + nib(c[o + 8]! ^ q8!)) +
        fold(nib(c[o + 9]! ^ q9!) + nib(c[o + 10]! ^ q10!) + nib(c[o + 11]! ^ q11!));
      const d = sum(bytes); // each 8-bit lane at most 96
      dist[r] = d;
      hist[d]!++;
    }
  } else {
    for (let r = 0; r < count; r++) {
      const o = r * w;
      let d = 0;
      let bytes = 0;
      for (let j = 0; j < w; j += 3) {
        let lanes = nib(c[o + j]! ^ query[j]!);
        if (j + 1 < w) lanes += nib(c[o + j + 1]! ^ query[j + 1]!);
        if (j + 2 < w) lanes += nib(c[o + j + 2]! ^ query[j + 2]!);
        bytes += fold(lanes);
        if (j % 30 === 27) {
          // every 10 groups (each 8-bit lane at most 240): add the lanes up before they overflow
          d += sum(bytes);
          bytes = 0;
        }
      }
      d += sum(bytes);
      dist[r] = d;
      hist[d]!++;
    }
  }
  return dist;
}

/**
 * The WebAssembly module: memory 0 (exported as `mem`) and
 * `ham(codes, count, n64, query, out, hist)`: for each of `count` rows of `n64` 64-bit words
 * starting at byte `codes`, stores popcount(row XOR query) as a 16-bit number at `out + 2·row`
 * and adds one to the 32-bit counter at `hist + 4·distance`.
 *
 * ```wat
 * (func (param $codes i32) (param $count i32) (param $n64 i32) (param $q i32) (param $out i32)
 *       (param $hist i32)
 *   (local $r i32) (local $j i32) (local $a i32) (local $d i64)
 *   block loop
 *     (br_if 1 (i32.ge_u $r $count))
 *     $d = 0  $j = 0
 *     loop
 *       $d += i64.popcnt(i64.load($codes + 8·$j) ^ i64.load($q + 8·$j))
 *       (br_if 0 (i32.lt_u (++$j) $n64))
 *     end
 *     i32.store16($out + 2·$r, wrap($d))
 *     $a = $hist + 4·wrap($d)   i32.store($a, i32.load($a) + 1)
 *     $codes += 8·$n64   $r += 1   br 0
 *   end end)
 * ```
 */
function hammingModuleBytes(): Uint8Array {
  // Opcodes (WebAssembly 1.0).
  const [block, loop, end, br, brIf] = [0x02, 0x03, 0x0b, 0x0c, 0x0d];
  const [get, set, tee] = [0x20, 0x21, 0x22];
  const [i32c, i64c] = [0x41, 0x42];
  const [ltU, geU, add32, shl32] = [0x49, 0x4f, 0x6a, 0x74];
  const [i32load, i64load, i32store, store16] = [0x28, 0x29, 0x36, 0x3b];
  const [popcnt64, add64, xor64, wrap] = [0x7b, 0x7c, 0x85, 0xa7];
  const void_ = 0x40;
  const [codes, count, n64, q, out, hist, r, j, a, d] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9];
  const body = [
    ...[2, 3, 0x7f, 1, 0x7e], // locals: 3 × i32 ($r $j $a), 1 × i64 ($d)
    ...[block, void_, loop, void_],
    ...[get, r, get, count, geU, brIf, 1],
    ...[i64c, 0, set, d, i32c, 0, set, j],
    ...[loop, void_],
    ...[get, d],
    ...[get, codes, get, j, i32c, 3, shl32, add32, i64load, 3, 0],
    ...[get, q, get, j, i32c, 3, shl32, add32, i64load, 3, 0],
    ...[xor64, popcnt64, add64, set, d],
    ...[get, j, i32c, 1, add32, tee, j, get, n64, ltU, brIf, 0],
    end,
    ...[get, out, get, r, i32c, 1, shl32, add32, get, d, wrap, store16, 1, 0],
    ...[get, hist, get, d, wrap, i32c, 2, shl32, add32, tee, a],
    ...[get, a, i32load, 2, 0, i32c, 1, add32, i32store, 2, 0],
    ...[get, codes, get, n64, i32c, 3, shl32, add32, set, codes],
    ...[get, r, i32c, 1, add32, set, r],
    ...[br, 0, end, end, end],
  ];
  const section = (id: number, bytes: number[]) => [id, ...leb(bytes.length), ...bytes];
  const name = (s: string) => [s.length, ...Array.from(s, (ch) => ch.charCodeAt(0))];
  return Uint8Array.from([
    ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00], // "\0asm", version 1
    ...section(1, [1, 0x60, 6, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0]), // type: (i32 ×6) → ()
    ...section(3, [1, 0]), // one function of type 0
    ...section(5, [1, 0, 1]), // one memory, at least 1 page
    ...section(7, [2, ...name('ham'), 0, 0, ...name('mem'), 2, 0]), // exports
    ...section(10, [1, ...leb(body.length), ...body]), // code
  ]);
}

/** Unsigned LEB128. */
function leb(n: number): number[] {
  const out: number[] = [];
  do {
    let byte = n & 0x7f;
    n >>>= 7;
    if (n !== 0) byte |= 0x80;
    out.push(byte);
  } while (n !== 0);
  return out;
}

/** The parts of the WebAssembly API used here (the compiler's lib has no DOM types). */
interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}
interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object) => { exports: Record<string, unknown> };
}
const wasm = (globalThis as { WebAssembly?: WasmApi }).WebAssembly;

let compiled: object | null | undefined;
/** The compiled module, or null when this runtime cannot compile it. */
function hammingModule(): object | null {
  if (compiled === undefined) {
    try {
      compiled = wasm ? new wasm.Module(hammingModuleBytes()) : null;
    } catch {
      compiled = null;
    }
  }
  return compiled;
}

const PAGE = 65536;

/**
 * Binary codes of a growing set of rows, `words` 32-bit words each, and their Hamming distances
 * to a query. Kept in WebAssembly memory and scanned with `i64.popcnt` when WebAssembly is
 * available, else in a plain array scanned by {@link hammingDistances}. Rows are addressed by
 * slot (0..size-1); the caller keeps slots dense.
 */
export class CodeBuffer {
  /** Words a row takes in the buffer: `words` rounded up to even (whole 64-bit words). */
  readonly stride: number;
  private capacity = 0;
  private view = new Uint32Array(0);
  private readonly memory: WasmMemory | null;
  private readonly ham: ((...args: number[]) => void) | null;
  /** Bytes of the histogram in WebAssembly memory: a counter per distance 0..32·stride, padded. */
  private readonly histBytes: number;

  constructor(
    readonly words: number,
    initialRows = 1024,
    useWasm = true,
  ) {
    const module = useWasm ? hammingModule() : null;
    if (module && wasm) {
      const instance = new wasm.Instance(module);
      this.memory = instance.exports.mem as WasmMemory;
      this.ham = instance.exports.ham as (...args: number[]) => void;
      this.stride = words + (words % 2);
    } else {
      this.memory = null;
      this.ham = null;
      this.stride = words;
    }
    this.histBytes = Math.ceil((this.stride * 32 + 1) / 2) * 8;
    this.reserve(initialRows);
  }

  /** True when the WebAssembly kernel is in use. */
  get native(): boolean {
    return this.ham !== null;
  }

  /** Makes room for `rows` rows (keeping what is stored). */
  reserve(rows: number): void {
    if (rows <= this.capacity) return;
    const capacity = Math.max(rows, this.capacity * 2);
    if (this.memory) {
      // Layout: codes, the query (one row), the histogram (32-bit counters), the 16-bit
      // distances (one per row).
      const bytes = capacity * this.stride * 4 + this.stride * 4 + this.histBytes + capacity * 2;
      const have = this.memory.buffer.byteLength;
      if (bytes > have) this.memory.grow(Math.ceil((bytes - have) / PAGE));
      this.view = new Uint32Array(this.memory.buffer, 0, capacity * this.stride);
    } else {
      const next = new Uint32Array(capacity * this.stride);
      next.set(this.view);
      this.view = next;
    }
    this.capacity = capacity;
  }

  /** Stores `code` (`words` words) at `slot` (< the reserved capacity). */
  set(slot: number, code: Uint32Array): void {
    const o = slot * this.stride;
    this.view.set(code.subarray(0, this.words), o);
    if (this.stride > this.words) this.view[o + this.words] = 0;
  }

  /** Copies the row at `from` over the row at `to`. */
  move(from: number, to: number): void {
    this.view.copyWithin(to * this.stride, from * this.stride, (from + 1) * this.stride);
  }

  /**
   * Hamming distances from `query` to rows 0..count-1.
   *
   * @param hist - receives the number of rows at each distance (length 32·words + 1, zeroed).
   * @returns one distance per row; valid until the next call.
   */
  distances(query: Uint32Array, count: number, hist: Uint32Array): Uint16Array {
    if (!this.ham || !this.memory) {
      return hammingDistances(this.view, count, this.stride, query, hist);
    }
    const q = this.capacity * this.stride * 4;
    const counts = q + this.stride * 4;
    const out = counts + this.histBytes;
    const padded = new Uint32Array(this.memory.buffer, q, this.stride);
    padded.fill(0);
    padded.set(query.subarray(0, this.words));
    const histogram = new Uint32Array(this.memory.buffer, counts, this.histBytes / 4);
    histogram.fill(0);
    this.ham(0, count, this.stride / 2, q, out, counts);
    hist.set(histogram.subarray(0, hist.length));
    return new Uint16Array(this.memory.buffer, out, count);
  }
}
