/**
 * Runs keel's benchmarks in order (remember, import, recall, locomo) and prints a summary table.
 *
 * Usage: `pnpm bench [--data <locomo.json>] [--quick] [--only <name>]`, or
 * `node --import tsx bench/run.ts ...` from the repository root. Benchmarks print figures; the
 * run never fails because a figure misses its target.
 *
 * @module
 */
import { cpus, loadavg } from 'node:os';
import { benchHonesty } from './honesty.js';
import { benchHybrid } from './hybrid.js';
import { benchImport } from './import.js';
import { benchIntegrity } from './integrity.js';
import {
  BENCH_NAMES,
  type BenchName,
  type BenchOptions,
  displayPath,
  heading,
  parseBenchArgs,
  printTable,
  type SummaryRow,
} from './lib.js';
import { benchLocomo } from './locomo.js';
import { benchLongMemEval, DEFAULT_LONGMEMEVAL } from './longmemeval.js';
import { benchRecall } from './recall.js';
import { benchRecallLatency } from './recall-latency.js';
import { benchRemember } from './remember.js';
import { benchStartTimeRows } from './start-time.js';
import { benchThinkPipelineRows } from './think-pipeline.js';
import { benchTurnRows } from './turn.js';
import { benchTurnBudgetRows } from './turn-budget.js';
import { benchVerify } from './verify.js';

const BENCHES: Record<BenchName, (options: BenchOptions) => Promise<SummaryRow[]>> = {
  remember: benchRemember,
  import: benchImport,
  recall: benchRecall,
  locomo: benchLocomo,
  // Its own data (LongMemEval format); run it alone for `--data`.
  longmemeval: (o) =>
    benchLongMemEval({
      data: [DEFAULT_LONGMEMEVAL],
      embedder: o.embedder as never,
      clock: o.clock,
      label: o.label,
    }),
  hybrid: benchHybrid,
  'recall-latency': (o) =>
    benchRecallLatency({
      quick: o.quick,
      label: o.label,
      turns: 'chat',
      ...(o.against ? { against: o.against } : {}),
    }),
  turn: benchTurnRows,
  'turn-budget': benchTurnBudgetRows,
  'think-pipeline': benchThinkPipelineRows,
  integrity: benchIntegrity,
  verify: benchVerify,
  'start-time': benchStartTimeRows,
  honesty: benchHonesty,
};

/** The machine's load averages: latency figures on a busy machine have heavier tails. */
const load = () =>
  `load average ${loadavg()
    .map((x) => x.toFixed(2))
    .join(' ')}`;

/**
 * Runs the selected benchmarks one after another and prints the summary.
 *
 * @returns every summary row, in run order.
 */
export async function runAll(options: BenchOptions): Promise<SummaryRow[]> {
  const names = options.only ? [options.only] : BENCH_NAMES;
  console.log(
    `keel benchmarks: ${names.join(', ')}${options.quick ? ' (--quick)' : ''}; ` +
      `node ${process.version}, ${process.platform}/${process.arch}, ${cpus().length} CPUs; ` +
      `data ${displayPath(options.data)}; ${load()}`,
  );
  const rows: SummaryRow[] = [];
  const durations: [string, number][] = [];
  const t0 = performance.now();
  for (const name of names) {
    const start = performance.now();
    rows.push(...(await BENCHES[name](options)));
    durations.push([name, (performance.now() - start) / 1000]);
  }
  const total = (performance.now() - t0) / 1000;

  heading('summary');
  printTable(
    ['benchmark', 'figure', 'value', 'target', 'vs target'],
    rows.map((r) => [
      r.bench,
      r.metric,
      r.value,
      r.target,
      r.met === undefined ? '' : r.met ? 'met' : 'MISSED',
    ]),
  );
  console.log(
    `\ntime: ${durations.map(([n, s]) => `${n} ${s.toFixed(1)} s`).join(', ')}; total ${total.toFixed(1)} s; ${load()}`,
  );
  return rows;
}

await runAll(parseBenchArgs());
