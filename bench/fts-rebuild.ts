/**
 * How long schema step 12 (`012-script-tokens.ts`) takes on a large store (step 15,
 * `015-case-stems.ts`, runs the same SQL): the full-text indexes
 * dropped, made again and filled through `keel_fold` from every active fact and conversation turn.
 *
 * The store is recall-latency's real one ({@link buildRealStore}: 90% the shared data's turns cut
 * to chat size and imported, repeated past the end of the data; 10% facts by `remember`). The
 * step's SQL is then run again on it inside one transaction, as `migrate` runs it, `--repeat` times
 * (it is idempotent: the same indexes each time); the time of each run, the median, and the
 * share spent in `keel_fold` are printed.
 *
 * Run alone: `node --import tsx bench/fts-rebuild.ts [--rows 100000] [--repeat 3]
 * [--shared ../shared/data]`.
 *
 * @module
 */
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { foldForIndex } from '@keel/language';
import { MemoryStore } from '@keel/memory';
import { dbOf, MIGRATIONS } from '@keel/memory/internal';
import { int, isMain, ms, time, withTempDir } from './lib.js';
import { buildRealStore, chatSized, SHARED_DATA, sharedData } from './recall-latency.js';

/** The figures of one measurement. */
export interface RebuildFigures {
  /** What the store holds (recall-latency's build line). */
  built: string;
  /** Each run of the step, ms. */
  runs: number[];
  /** The text `keel_fold` read in one run: rows and characters. */
  rows: number;
  chars: number;
  /** `keel_fold` alone over that text, in JavaScript, ms. */
  foldMs: number;
}

/**
 * Builds a `rows`-row store and times step 12 on it `repeat` times.
 *
 * @param shared - the shared data folder.
 */
export function measureRebuild(
  rows: number,
  repeat: number,
  shared: string,
): Promise<RebuildFigures> {
  return withTempDir((dir) => {
    const path = join(dir, 'keel.db');
    const built = buildRealStore(path, chatSized(sharedData(shared).turns), rows);
    const store = MemoryStore.open(path);
    try {
      const db = dbOf(store);
      const step = MIGRATIONS.find((m) => m.version === 12)!;
      const runs: number[] = [];
      for (let i = 0; i < repeat; i++) {
        runs.push(time(() => db.transaction(() => db.exec(step.sql)).immediate()).ms);
      }
      const texts = [
        ...(
          db
            .prepare(
              `SELECT kind || ' ' || key AS a, value AS b FROM facts WHERE status = 'active'`,
            )
            .all() as { a: string; b: string }[]
        ).flatMap((r) => [r.a, r.b]),
        ...(
          db
            .prepare(
              `SELECT text AS a, coalesce(speaker, '') AS b FROM episodes WHERE kind = 'conversation'`,
            )
            .all() as { a: string; b: string }[]
        ).flatMap((r) => [r.a, r.b]),
      ];
      const foldMs = time(() => {
        for (const t of texts) foldForIndex(t);
      }).ms;
      return {
        built,
        runs,
        rows: texts.length / 2,
        chars: texts.reduce((n, t) => n + t.length, 0),
        foldMs,
      };
    } finally {
      store.close();
    }
  });
}

if (isMain(import.meta.url)) {
  const { values } = parseArgs({
    options: {
      rows: { type: 'string', default: '100000' },
      repeat: { type: 'string', default: '3' },
      shared: { type: 'string', default: SHARED_DATA },
    },
  });
  const f = await measureRebuild(Number(values.rows), Number(values.repeat), values.shared!);
  const sorted = [...f.runs].sort((a, b) => a - b);
  console.log(f.built);
  console.log(
    `step 12 over ${int(f.rows)} indexed rows (${int(f.chars)} characters): ` +
      `${f.runs.map(ms).join(', ')}; median ${ms(sorted[Math.floor(sorted.length / 2)]!)}; ` +
      `keel_fold alone ${ms(f.foldMs)}`,
  );
}
