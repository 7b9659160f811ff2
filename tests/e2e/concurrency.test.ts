import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MemoryStore } from '@keel/memory';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempHome } from '../support/cli.js';

const WRITER = fileURLToPath(new URL('../support/writer.mjs', import.meta.url));

let home: string;
let cleanup: () => void;
beforeEach(() => {
  ({ home, cleanup } = tempHome());
});
afterEach(() => cleanup());

function startWriter(dbPath: string, count: number, label: string) {
  const child: ChildProcess = spawn(process.execPath, [WRITER, dbPath, String(count), label], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d) => {
    out += d;
  });
  child.stderr!.on('data', (d) => {
    err += d;
  });
  const ready = new Promise<void>((resolve) => {
    const check = () => (out.includes('ready\n') ? resolve() : setTimeout(check, 5));
    check();
  });
  const done = new Promise<{ errors: string[]; decisions: Record<string, number> }>(
    (resolve, reject) => {
      child.on('exit', (code) => {
        if (code !== 0) reject(new Error(`writer ${label} exited ${code}: ${err}`));
        else resolve(JSON.parse(out.slice(out.indexOf('ready\n') + 6)));
      });
    },
  );
  return { child, ready, done };
}

describe('several processes writing at once', () => {
  it('four processes writing the same 200 facts, then 200 corroborations, end with 200 active rows', async () => {
    const dbPath = join(home, 'keel.db');
    MemoryStore.open(dbPath).close(); // migrate once up front, as the first keel start does
    const writers = ['a', 'b', 'c', 'd'].map((l) => startWriter(dbPath, 200, l));
    await Promise.all(writers.map((w) => w.ready));
    for (const w of writers) w.child.stdin!.end('go\n');
    const results = await Promise.all(writers.map((w) => w.done));

    expect(results.flatMap((r) => r.errors)).toEqual([]);
    const decisions = results.reduce<Record<string, number>>((acc, r) => {
      for (const [k, v] of Object.entries(r.decisions)) acc[k] = (acc[k] ?? 0) + v;
      return acc;
    }, {});
    // Exactly one writer created each fact; every other write corroborated it.
    expect(decisions).toEqual({ create: 200, corroborate: 1400 });

    const store = MemoryStore.open(dbPath);
    const active = store.activeFacts();
    expect(active).toHaveLength(200);
    // 4 processes × 2 writes each, every write from its own episode: 8 independent sightings.
    expect(new Set(active.map((f) => f.evidence_count))).toEqual(new Set([8]));
    expect(active.reduce((n, f) => n + f.evidence_count, 0)).toBe(1600);
    // The evidence gate: 0.70 + 7 × 0.05, capped at 0.95.
    expect(new Set(active.map((f) => f.confidence))).toEqual(new Set([0.95]));
    const report = store.verify();
    store.close();
    expect(report.problems).toEqual([]);
    expect(report.ok).toBe(true);
  });
});
