/**
 * What `keel verify` costs at 10k and 100k rows, on two kinds of store: the recall benchmark's
 * (90% conversation episodes imported from the synthetic corpus, 10% facts written one by one
 * through `store.remember`), and one of facts only (each `store.remember` records its own command
 * episode, so 5k facts are 10k rows). Times the whole `store.verify()` and its parts alone: the
 * chain walk with its head and redaction checks (`verifyJournal`), replay against facts,
 * evidence, tombstones and episodes (`replayJournal`), and SQLite's `integrity_check`, the largest
 * of the other checks (median of three at 10k, one run at 100k). Prints the journal's size and the
 * share of it the `state` records replay reads take. Then `keel doctor`'s incremental check
 * (`store.verify({ incremental: true })`) after a day's writes since the whole check.
 *
 * Run alone: `node --import tsx bench/verify.ts [--quick]`.
 *
 * @module
 */

import { KINDS, type MemoryStore, type Source, verifyJournal } from '@keel/memory';
import { dbOf, replayJournal } from '@keel/memory/internal';
import {
  type BenchOptions,
  databaseBytes,
  heading,
  int,
  isMain,
  makeCorpusModel,
  ms,
  openStore,
  parseBenchArgs,
  Rng,
  type SummaryRow,
  time,
  withTempDir,
} from './lib.js';
import { buildStore } from './recall.js';

/** Runs `fn` `runs` times (1 or 3) and returns the median time, ms. */
function median(fn: () => unknown, runs: number): number {
  const xs = Array.from({ length: runs }, () => time(fn).ms).sort((a, b) => a - b);
  return xs[Math.floor(xs.length / 2)]!;
}

/** A store of `facts` beliefs written through `store.remember`, each with its own episode. */
function factStore(dir: string, facts: number): MemoryStore {
  const store = openStore(dir, `facts-${facts}.db`);
  const rng = new Rng(43);
  const model = makeCorpusModel();
  const word = () => model.words[rng.int(model.firstContentRank, model.words.length - 1)]!;
  const sources: Source[] = ['observed', 'observed', 'owner_stated', 'inferred'];
  const written = time(() => {
    for (let i = 0; i < facts; i++) {
      store.remember({
        kind: rng.pick(KINDS),
        key: `${word()}_${word()}`,
        value: `${word()} ${word()} ${word()}`,
        source: rng.pick(sources),
      });
    }
  });
  console.log(
    `\n${int(facts)} facts: ${int(facts)} remember() calls in ${ms(written.ms)} (${ms(written.ms / facts)}/call)`,
  );
  return store;
}

/** A day's writes after the whole check: `n` beliefs through `store.remember`. */
const DAY_OF_WRITES = 200;

/**
 * Times `keel doctor`'s incremental journal check after {@link DAY_OF_WRITES} more beliefs were
 * written since the whole check that left the checkpoint; prints one line. @returns ms.
 */
function measureIncremental(store: MemoryStore, runs: number): number {
  const rng = new Rng(47);
  for (let i = 0; i < DAY_OF_WRITES; i++) {
    store.remember({
      kind: 'note',
      key: `day_${i}`,
      value: `note ${rng.int(0, 1e9)}`,
      source: 'observed',
    });
  }
  const first = store.verify({ incremental: true });
  if (!first.ok || first.scope !== 'incremental')
    throw new Error(`incremental check: ${first.scope}, ${first.problems[0]?.detail ?? 'ok'}`);
  const t = median(() => store.verify({ incremental: true }), runs);
  console.log(
    `    doctor's incremental check after ${DAY_OF_WRITES} more beliefs: ${ms(t)} ` +
      `(entries ${int(first.journal.from)}-${int(first.journal.entries)} hashed again)`,
  );
  return t;
}

/** Times verify and its parts on `store`; prints one block. @returns the total, ms. */
function measure(
  store: MemoryStore,
  label: string,
  runs: number,
): { whole: number; incremental: number } {
  const db = dbOf(store);
  const report = store.verify();
  if (!report.ok) throw new Error(`${label}: verify found problems: ${report.problems[0]?.detail}`);
  const total = median(() => store.verify(), runs);
  const chain = median(() => verifyJournal(db), runs);
  const replay = median(() => replayJournal(db), runs);
  const integrity = median(() => db.pragma('integrity_check'), runs);
  const sizes = db
    .prepare(
      `SELECT count(*) AS entries, sum(length(payload)) AS bytes,
              sum(CASE WHEN op = 'state' THEN length(payload) ELSE 0 END) AS state
       FROM journal`,
    )
    .get() as { entries: number; bytes: number; state: number };
  const { bytes } = databaseBytes(store);
  const rows = report.counts.facts + report.counts.episodes;
  console.log(
    `  ${label}: ${int(report.counts.facts)} fact rows + ${int(report.counts.episodes)} episodes ` +
      `= ${int(rows)} rows, ${int(report.journal.entries)} journal entries; file ${int(bytes)} bytes; ` +
      `journal payloads ${int(sizes.bytes)} bytes, of which state records ${int(sizes.state)} ` +
      `(${((100 * sizes.state) / Math.max(1, sizes.bytes)).toFixed(0)}%)`,
  );
  console.log(
    `    verify ${ms(total)}: chain walk ${ms(chain)}, replay ${ms(replay)}, integrity_check ` +
      `${ms(integrity)}, the other checks about ${ms(Math.max(0, total - chain - replay - integrity))}`,
  );
  return { whole: total, incremental: measureIncremental(store, runs) };
}

/**
 * Runs the verify benchmark (10k and 100k rows; 10k only with `--quick`), each store in a fresh
 * temp folder, and prints its figures.
 *
 * @returns rows for the final summary table.
 */
export async function benchVerify(options: BenchOptions): Promise<SummaryRow[]> {
  heading('verify: the cost of keel verify');
  const sizes = options.quick ? [10_000] : [10_000, 100_000];
  const model = makeCorpusModel();
  const rows: SummaryRow[] = [];
  for (const size of sizes) {
    const label = `${int(size / 1000)}k rows`;
    const runs = size >= 100_000 ? 1 : 3;
    const mixed = await withTempDir((dir) => {
      const store = buildStore(dir, model, size);
      try {
        return measure(store, `${label}, 90% imported episodes`, runs);
      } finally {
        store.close();
      }
    });
    const facts = await withTempDir((dir) => {
      const store = factStore(dir, size / 2);
      try {
        return measure(store, `${label}, facts through remember`, runs);
      } finally {
        store.close();
      }
    });
    rows.push(
      { bench: 'verify', metric: `${label}, 90% episodes`, value: ms(mixed.whole), target: '' },
      {
        bench: 'verify',
        metric: `${label}, 90% episodes, doctor (incremental)`,
        value: ms(mixed.incremental),
        target: '',
      },
      { bench: 'verify', metric: `${label}, facts only`, value: ms(facts.whole), target: '' },
      {
        bench: 'verify',
        metric: `${label}, facts only, doctor (incremental)`,
        value: ms(facts.incremental),
        target: '',
      },
    );
  }
  return rows;
}

if (isMain(import.meta.url)) await benchVerify(parseBenchArgs());
