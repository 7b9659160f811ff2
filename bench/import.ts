/**
 * Import throughput: the LoCoMo file (`--data`) and a synthetic 100k-turn corpus in LoCoMo's
 * shape, each parsed (`JSON.parse` + `parseImport`, timed apart) and written with
 * `store.importTurns` into fresh stores (the synthetic corpus three times; the best run is the
 * figure). Prints turns/s and the database size after import, and writes the figures to
 * `bench/results/import-<date>[-<label>].md`.
 *
 * Run alone: `node --import tsx bench/import.ts [--data <locomo.json>] [--quick] [--label <name>]
 * [--against <dir>]`.
 *
 * @module
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type ImportResult, MemoryStore, type ParsedImport, parseImport } from '@keel/memory';
import {
  type BenchOptions,
  databaseBytes,
  displayPath,
  heading,
  int,
  isMain,
  makeCorpusModel,
  makeLocomoCorpus,
  ms,
  openStore,
  parseBenchArgs,
  percentile,
  type SummaryRow,
  time,
  withTempDir,
} from './lib.js';
import { writeResults } from './results.js';

/** Target import throughput of the LoCoMo file, turns per second. */
const TARGET_TURNS_PER_S = 5000;
/** Target import throughput of the synthetic 100k-turn corpus without an embedder, turns per second. */
const TARGET_SYNTHETIC_TURNS_PER_S = 20_000;
/** Imports of the synthetic corpus by each build with `--against`, alternating. */
const AGAINST_ROUNDS = 3;
/** Fresh-store imports of the (small) LoCoMo file; the median is reported. */
const LOCOMO_REPEATS = 5;
/** Fresh-store imports of the synthetic corpus; the best is reported (a shared machine only slows a run). */
const SYNTHETIC_REPEATS = 3;

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

interface ImportRun {
  result: ImportResult;
  importMs: number;
  bytes: number;
  walBeforeCheckpoint: number;
}

/** Imports `parsed` into a new store file `name` in `dir`, timing only `importTurns`. */
function importInto(dir: string, name: string, parsed: ParsedImport, text: string): ImportRun {
  const store = openStore(dir, name);
  try {
    const { ms: importMs, result } = time(() =>
      store.importTurns(parsed, { path: name, fileSha256: sha256(text) }),
    );
    return { result, importMs, ...databaseBytes(store) };
  } finally {
    store.close();
  }
}

/** Parses a LoCoMo JSON text, timing `JSON.parse` and `parseImport` apart. */
function parseTimed(text: string): { parsed: ParsedImport; jsonMs: number; parseMs: number } {
  const json = time(() => JSON.parse(text) as unknown);
  const parsed = time(() => parseImport(json.result, 'locomo'));
  return { parsed: parsed.result, jsonMs: json.ms, parseMs: parsed.ms };
}

/**
 * Runs the import benchmark in a fresh temp folder and prints its figures.
 *
 * @returns rows for the final summary table.
 */
export async function benchImport(options: BenchOptions): Promise<SummaryRow[]> {
  heading('import: throughput');
  const loadAtStart = loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');
  return withTempDir(async (dir) => {
    const rows: SummaryRow[] = [];

    // LoCoMo file: small, so imported LOCOMO_REPEATS times into fresh stores; median reported.
    const text = readFileSync(options.data, 'utf8');
    const { parsed, jsonMs, parseMs } = parseTimed(text);
    const runs = Array.from({ length: LOCOMO_REPEATS }, (_, i) =>
      importInto(dir, `locomo-${i}.db`, parsed, text),
    );
    const median = percentile(
      runs.map((r) => r.importMs),
      50,
    );
    const run = runs[0]!;
    const locomoRate = parsed.turns.length / (median / 1000);
    console.log(
      `LoCoMo ${displayPath(options.data)}: ${int(Buffer.byteLength(text))} bytes, ${parsed.docs.length} sample(s), ` +
        `${int(parsed.turns.length)} turns (${parsed.skipped.length} skipped by the parser)`,
    );
    console.log(
      `  parse     JSON.parse ${ms(jsonMs)} + parseImport ${ms(parseMs)} = ${int(parsed.turns.length / ((jsonMs + parseMs) / 1000))} turns/s`,
    );
    console.log(
      `  import    median of ${LOCOMO_REPEATS} fresh stores ${ms(median)} (runs: ${runs.map((r) => r.importMs.toFixed(1)).join(', ')} ms) ` +
        `= ${int(locomoRate)} turns/s; added ${int(run.result.added)}`,
    );
    console.log(
      `  database  ${int(run.bytes)} bytes after checkpoint (${int(run.bytes / parsed.turns.length)} bytes/turn; WAL was ${int(run.walBeforeCheckpoint)} bytes)`,
    );
    rows.push({
      bench: 'import',
      metric: `LoCoMo import (${int(parsed.turns.length)} turns)`,
      value: `${int(locomoRate)} turns/s`,
      target: '≥ 5,000 turns/s',
      met: locomoRate >= TARGET_TURNS_PER_S,
    });

    // Synthetic corpus.
    const size = options.quick ? 10_000 : 100_000;
    const gen = time(() => {
      const json = JSON.stringify(makeLocomoCorpus(makeCorpusModel(), size));
      return json;
    });
    const synth = parseTimed(gen.result);
    const speakers = new Set(synth.parsed.turns.map((t) => t.speaker)).size;
    const sessions = new Set(synth.parsed.turns.map((t) => t.sessionKey)).size;
    const first = synth.parsed.turns[0]!.occurredAt;
    const last = synth.parsed.turns.reduce((m, t) => Math.max(m, t.occurredAt), first);
    const words = synth.parsed.turns.reduce((n, t) => n + t.text.split(' ').length, 0);
    console.log(
      `\nsynthetic corpus: ${int(size)} turns, ${synth.parsed.docs.length} conversations, ${int(sessions)} sessions, ` +
        `${speakers} speakers, ${(words / size).toFixed(1)} words/turn, ` +
        `${new Date(first).toISOString().slice(0, 10)}..${new Date(last).toISOString().slice(0, 10)}, ` +
        `${int(Buffer.byteLength(gen.result))} bytes of JSON (generated in ${ms(gen.ms)})`,
    );
    console.log(
      `  parse     JSON.parse ${ms(synth.jsonMs)} + parseImport ${ms(synth.parseMs)} = ${int(size / ((synth.jsonMs + synth.parseMs) / 1000))} turns/s`,
    );
    const bigs = Array.from({ length: SYNTHETIC_REPEATS }, (_, i) =>
      importInto(dir, `synthetic-${i}.db`, synth.parsed, gen.result),
    );
    const rates = bigs.map((r) => size / (r.importMs / 1000));
    const big = bigs[rates.indexOf(Math.max(...rates))]!;
    const rate = Math.max(...rates);
    console.log(
      `  import    best of ${SYNTHETIC_REPEATS} fresh stores ${ms(big.importMs)} = ${int(rate)} turns/s ` +
        `(runs: ${rates.map((r) => int(r)).join(', ')} turns/s; median ${int(percentile(rates, 50))}); added ${int(big.result.added)}`,
    );
    console.log(
      `  database  ${int(big.bytes)} bytes after checkpoint (${int(big.bytes / size)} bytes/turn; WAL was ${int(big.walBeforeCheckpoint)} bytes)`,
    );
    const verdict = (r: number, target: number) =>
      r >= target
        ? 'met'
        : `missed by ${int(target - r)} turns/s (${((100 * r) / target).toFixed(0)}% of target)`;
    console.log(
      `\ntargets: LoCoMo ≥ ${int(TARGET_TURNS_PER_S)} turns/s ${verdict(locomoRate, TARGET_TURNS_PER_S)}; ` +
        `synthetic ≥ ${int(TARGET_SYNTHETIC_TURNS_PER_S)} turns/s ${verdict(rate, TARGET_SYNTHETIC_TURNS_PER_S)}`,
    );
    if (options.against) {
      // This build and the other, alternating on fresh files: both meet the same load.
      const other = (
        (await import(pathToFileURL(join(options.against, 'dist', 'index.js')).href)) as {
          MemoryStore: typeof MemoryStore;
        }
      ).MemoryStore;
      const ab: Record<'this' | 'against', number[]> = { this: [], against: [] };
      for (let round = 0; round < AGAINST_ROUNDS; round++) {
        for (const which of round % 2 === 0
          ? (['this', 'against'] as const)
          : (['against', 'this'] as const)) {
          const Store = which === 'this' ? MemoryStore : other;
          const store = Store.open(join(dir, `ab-${which}-${round}.db`));
          try {
            const t = time(() =>
              store.importTurns(synth.parsed, { path: 'ab', fileSha256: sha256(gen.result) }),
            );
            ab[which].push(size / (t.ms / 1000));
          } finally {
            store.close();
          }
        }
      }
      const line = (xs: number[]) =>
        `median ${int(percentile(xs, 50))} turns/s (runs ${xs.map((x) => int(x)).join(', ')})`;
      console.log(`\nagainst ${options.against}, alternating, ${AGAINST_ROUNDS} rounds:`);
      console.log(`  this build     ${line(ab.this)}`);
      console.log(`  against build  ${line(ab.against)}`);
      rows.push(
        {
          bench: 'import',
          metric: 'synthetic import, this build (alternating)',
          value: `${int(percentile(ab.this, 50))} turns/s (runs ${ab.this.map((x) => int(x)).join(', ')})`,
          target: `≥ ${int(TARGET_SYNTHETIC_TURNS_PER_S)} turns/s`,
          met: percentile(ab.this, 50) >= TARGET_SYNTHETIC_TURNS_PER_S,
        },
        {
          bench: 'import',
          metric: 'synthetic import, against build (alternating)',
          value: `${int(percentile(ab.against, 50))} turns/s (runs ${ab.against.map((x) => int(x)).join(', ')})`,
          target: '',
        },
      );
    }
    rows.push(
      {
        bench: 'import',
        metric: `synthetic import (${int(size)} turns), best of ${SYNTHETIC_REPEATS}`,
        value: `${int(rate)} turns/s (runs ${rates.map((r) => int(r)).join(', ')})`,
        target: `≥ ${int(TARGET_SYNTHETIC_TURNS_PER_S)} turns/s`,
        met: rate >= TARGET_SYNTHETIC_TURNS_PER_S,
      },
      {
        bench: 'import',
        metric: `synthetic parse (${int(size)} turns)`,
        value: `${int(size / ((synth.jsonMs + synth.parseMs) / 1000))} turns/s`,
        target: '',
      },
      {
        bench: 'import',
        metric: `database size (${int(size)} turns)`,
        value: `${int(big.bytes)} bytes`,
        target: '',
      },
    );
    writeResults(
      'import',
      ['metric', 'value', 'target', 'met'],
      rows.map((r) => [
        r.metric,
        r.value,
        r.target,
        r.met === undefined ? '' : r.met ? 'met' : 'MISSED',
      ]),
      [
        `Load average at the start: ${loadAtStart} (2 CPUs shared; a busy machine slows every row).`,
        `LoCoMo: ${displayPath(options.data)}, median of ${LOCOMO_REPEATS} fresh stores.`,
        `Synthetic: ${int(size)} LoCoMo-shaped turns (seeded), no embedder, ${SYNTHETIC_REPEATS} fresh stores, the best reported.`,
        ...(options.against
          ? [
              `Against: ${displayPath(options.against)}, ${AGAINST_ROUNDS} rounds alternating with this build in one process.`,
            ]
          : []),
      ],
      options.label,
    );
    return rows;
  });
}

if (isMain(import.meta.url)) await benchImport(parseBenchArgs());
