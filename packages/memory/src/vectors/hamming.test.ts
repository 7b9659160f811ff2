// Hamming distances (hamming.ts): both kernels, WebAssembly and plain JavaScript, against a plain
// bit count.

import { describe, expect, it } from 'vitest';
import { CodeBuffer, hammingDistances } from './hamming.js';

describe('Hamming distances (the first pass)', () => {
  it('equal a plain bit count for every code width, at both extremes and in between', async () => {
    let seed = 7;
    const next = () => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed;
    };
    const naive = (a: Uint32Array, b: Uint32Array) => {
      let d = 0;
      for (let i = 0; i < a.length; i++) {
        let x = (a[i]! ^ b[i]!) >>> 0;
        for (; x; x >>>= 1) d += x & 1;
      }
      return d;
    };
    for (const words of [1, 2, 3, 12, 24, 32, 48]) {
      const query = Uint32Array.from({ length: words }, next);
      const rows = [
        query.slice(), // distance 0
        query.map((x) => ~x >>> 0), // every bit differs: 32·words
        ...Array.from({ length: 50 }, () => Uint32Array.from({ length: words }, next)),
      ];
      const codes = new Uint32Array(rows.length * words);
      for (const [i, r] of rows.entries()) codes.set(r, i * words);
      const want = rows.map((r) => naive(r, query));
      const got = Array.from(hammingDistances(codes, rows.length, words, query));
      expect(got, `${words} words`).toEqual(want);
      expect(got.slice(0, 2)).toEqual([0, 32 * words]);
      // The same numbers from the code buffer, with the WebAssembly kernel and without, after it
      // grew past its first reservation (4 rows) and after a row was moved.
      for (const useWasm of [true, false]) {
        const buffer = new CodeBuffer(words, 4, useWasm);
        expect(buffer.native).toBe(useWasm);
        for (const [i, r] of rows.entries()) {
          buffer.reserve(i + 1);
          buffer.set(i, r);
        }
        const hist = new Uint32Array(words * 32 + 1);
        expect(
          Array.from(buffer.distances(query, rows.length, hist)),
          `${words}, ${useWasm}`,
        ).toEqual(want);
        const counts = new Uint32Array(words * 32 + 1);
        for (const x of want) counts[x]!++;
        expect(Array.from(hist)).toEqual(Array.from(counts));
        buffer.move(1, 0); // the all-different row over the identical one
        expect(buffer.distances(query, 1, new Uint32Array(words * 32 + 1))[0]).toBe(32 * words);
      }
    }
  });
});
