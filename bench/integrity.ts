/**
 * What the integrity check costs: a damaged database is found before keel writes to it, and this
 * prints what that costs a verb, a front door and a service at 10k and 100k conversation turns
 * (plus one fact per ten turns), on a real file.
 *
 * - `open` alone, and `open` with SQLite's `PRAGMA quick_check` (what a verb pays with no cache,
 *   and what the services pay at start and each think tick);
 * - `open` when the verdict cache vouches for the file (a stat and a small read: what a one-shot
 *   verb pays after another keel process left the file as it was);
 * - the per-line guard of a running door (a stat) and recording the verdict after a write;
 * - the wall time of a whole `keel remember` process with the cache hit and missed (median of 7,
 *   interleaved; most of it is Node starting and loading keel, so on a busy machine the difference
 *   is the figure to read, and the rows above are the cleaner measure);
 * - `keel backup` (the online backup and its check).
 *
 * Figures only; no target is asserted. Run: `node --import tsx bench/integrity.ts [--quick]`.
 *
 * @module
 */
import { spawnSync } from 'node:child_process';
import { rmSync, statSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { backupDatabase, MemoryStore, parseImport } from '@keel/memory';
import {
  type BenchOptions,
  heading,
  int,
  isMain,
  makeCorpusModel,
  makeLocomoCorpus,
  ms,
  parseBenchArgs,
  percentile,
  printTable,
  REPO_ROOT,
  type SummaryRow,
  withTempDir,
} from './lib.js';

/** The built CLI (the wall-time rows run it as a process). */
const CLI = join(REPO_ROOT, 'apps/cli/bundle/keel.mjs');

/** Median of `n` runs of `fn`, ms. */
function median(n: number, fn: () => number): number {
  return percentile(
    Array.from({ length: n }, () => fn()),
    50,
  );
}

/** Fills a store at `path` with `turns` imported turns and one fact per ten turns. */
function fill(path: string, turns: number): void {
  const store = MemoryStore.open(path);
  try {
    store.importTurns(parseImport(makeLocomoCorpus(makeCorpusModel(), turns), 'locomo'), {
      path: 'bench',
      fileSha256: 'bench',
    });
    store.transaction(() => {
      for (let i = 0; i < turns / 10; i++) {
        store.remember({
          kind: 'note',
          key: `n${i}`,
          value: `value ${i} about something`,
          source: 'owner_stated',
        });
      }
    });
  } finally {
    store.close();
  }
}

/** One size's figures. */
interface Figures {
  turns: number;
  bytes: number;
  open: number;
  full: number;
  cached: number;
  guard: number;
  record: number;
  verbHit: number;
  verbMiss: number;
  backup: number;
}

function measure(dir: string, turns: number): Figures {
  const path = join(dir, 'keel.db');
  fill(path, turns);
  const cacheFile = join(dir, 'integrity.json');
  const open = median(5, () => {
    const t = performance.now();
    MemoryStore.open(path).close();
    return performance.now() - t;
  });
  const full = median(5, () => {
    const t = performance.now();
    MemoryStore.open(path, { integrity: { check: 'full', cacheFile } }).close();
    return performance.now() - t;
  });
  const seed = MemoryStore.open(path, { integrity: { check: 'full', cacheFile } });
  seed.close();
  seed.recordSound();
  const cached = median(5, () => {
    const t = performance.now();
    const s = MemoryStore.open(path, { integrity: { check: 'cached', cacheFile } });
    const took = performance.now() - t;
    if (s.lastIntegrityCheck?.how !== 'cached') throw new Error('the cache missed');
    s.close();
    s.recordSound();
    return took;
  });
  const door = MemoryStore.open(path, { integrity: { check: 'cached', cacheFile } });
  const guard = median(101, () => {
    const t = performance.now();
    door.checkIntegrity();
    return performance.now() - t;
  });
  const record = median(21, () => {
    door.addEpisode({ channel: 'bench', role: 'owner', text: 'a line' });
    const t = performance.now();
    door.recordSound();
    return performance.now() - t;
  });
  door.close();
  door.recordSound();

  const env = { ...process.env, KEEL_HOME: dir, ANTHROPIC_API_KEY: '', KEEL_EMBEDDER: 'none' };
  let n = 0;
  const remember = (miss: boolean) => {
    if (miss) rmSync(cacheFile, { force: true });
    const t = performance.now();
    const r = spawnSync(
      process.execPath,
      [CLI, 'remember', `note/bench_${n++}`, 'a', 'value', '--json'],
      {
        env,
        encoding: 'utf8',
      },
    );
    const took = performance.now() - t;
    if (r.status !== 0) throw new Error(`keel remember failed: ${r.stderr}`);
    return took;
  };
  remember(false); // warm the OS cache and the verdict
  // Interleaved, so a change in the machine's load falls on both alike.
  const hits: number[] = [];
  const misses: number[] = [];
  for (let i = 0; i < 7; i++) {
    hits.push(remember(false));
    misses.push(remember(true));
  }
  const verbHit = percentile(hits, 50);
  const verbMiss = percentile(misses, 50);

  return {
    turns,
    bytes: statSync(path).size,
    open,
    full,
    cached,
    guard,
    record,
    verbHit,
    verbMiss,
    backup: 0,
  };
}

/** Times `keel backup`'s copy and check (median of 3), ms. */
async function backupMs(dir: string): Promise<number> {
  const samples: number[] = [];
  for (let i = 0; i < 3; i++) {
    const dest = join(dir, `backup-${i}.db`);
    const t = performance.now();
    await backupDatabase(join(dir, 'keel.db'), dest);
    samples.push(performance.now() - t);
    rmSync(dest, { force: true });
  }
  return percentile(samples, 50);
}

/**
 * Runs the integrity benchmark at 10k turns, and 100k unless `--quick`, and prints its table.
 *
 * @returns rows for the final summary table.
 */
export async function benchIntegrity(options: BenchOptions): Promise<SummaryRow[]> {
  heading('integrity: what checking the database before a write costs');
  console.log(
    `load average ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}`,
  );
  const sizes = options.quick ? [10_000] : [10_000, 100_000];
  const figures: Figures[] = [];
  for (const turns of sizes) {
    figures.push(
      await withTempDir(async (dir) => {
        const f = measure(dir, turns);
        f.backup = await backupMs(dir);
        return f;
      }),
    );
  }
  printTable(
    ['turns', 'file', 'open', 'open + quick_check', 'open, cache hit', 'door guard', 'record'],
    figures.map((f) => [
      int(f.turns),
      `${(f.bytes / 1e6).toFixed(1)} MB`,
      ms(f.open),
      ms(f.full),
      ms(f.cached),
      ms(f.guard),
      ms(f.record),
    ]),
  );
  printTable(
    ['turns', 'keel remember (cache hit)', 'keel remember (cache miss)', 'keel backup'],
    figures.map((f) => [int(f.turns), ms(f.verbHit), ms(f.verbMiss), ms(f.backup)]),
  );
  return figures.flatMap((f) => [
    {
      bench: 'integrity' as const,
      metric: `quick_check at open, ${int(f.turns)} turns`,
      value: ms(f.full - f.open),
      target: '',
    },
    {
      bench: 'integrity' as const,
      metric: `cached check at open, ${int(f.turns)} turns`,
      value: ms(f.cached - f.open),
      target: '',
    },
  ]);
}

if (isMain(import.meta.url)) await benchIntegrity(parseBenchArgs());
