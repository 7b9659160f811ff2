/**
 * How long keel takes to start, end to end, as a person at a shell sees it: the wall time of whole
 * `node <keel> …` processes, and the most memory each held.
 *
 * - `node -e 0`: Node alone, the floor every row stands on;
 * - `keel --help` and `keel --version` (targets ≤ 200 ms);
 * - `keel recall x` on a small home (40 beliefs and their episodes; target ≤ 300 ms);
 * - the terminal: from starting `keel` on a pseudo-terminal (`script`, util-linux) to its prompt
 *   `you ›` on the screen (target ≤ 500 ms), beside the same pseudo-terminal running
 *   `node -e "console.log('you ›')"` (what the pseudo-terminal alone costs).
 *
 * Each figure is the min and median of `--runs` runs (default 10, `--quick` 5), the cases taken in
 * rotating order so that passing load falls on all alike. Peak memory is each process's own
 * `maxRSS` (`process.resourceUsage()`, read at exit by a preload in separate runs, so the timed
 * runs carry nothing extra). No model is configured (the API keys are emptied and Ollama points at
 * a closed port), so the terminal opens offline; `KEEL_SKIP_SETUP=1` keeps a first start from
 * offering `keel setup` first.
 *
 * Run: `node --import tsx bench/start-time.ts [--runs N] [--quick] [--cli <main.js>] [--label L]`.
 * `--cli` times another keel (another checkout's `apps/cli/bundle/keel.mjs`, or an older `apps/cli/dist/main.js`); `--label` names the
 * result file `bench/results/start-time-<label>.md` (default: the date).
 *
 * @module
 */
import { type SpawnSyncReturns, spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { MemoryStore } from '@keel/memory';
import {
  type BenchOptions,
  displayPath,
  heading,
  isMain,
  percentile,
  printTable,
  REPO_ROOT,
  type SummaryRow,
  withTempDir,
} from './lib.js';
import { writeResults } from './results.js';

/** The keel timed by default: the built CLI of this checkout. */
export const DEFAULT_CLI = join(REPO_ROOT, 'apps/cli/bundle/keel.mjs');

/** One process to time. */
interface Case {
  name: string;
  /** The arguments after `node`. */
  args: string[];
  /** Wait for this text on a pseudo-terminal instead of the process's exit. */
  prompt?: string;
  /** The target, in words, and the limit in ms. */
  target?: { text: string; ms: number };
}

/** A case's figures. */
interface Figures {
  name: string;
  min: number;
  median: number;
  rssMb: number;
  target: Case['target'];
}

/** Options of {@link benchStartTime}. */
export interface StartTimeOptions {
  runs: number;
  cli: string;
  label: string | undefined;
}

const quote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;

/** The environment of every run: a given home, no model, no colours. */
function envFor(home: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return {
    ...process.env,
    KEEL_HOME: home,
    ANTHROPIC_API_KEY: '',
    OPENAI_API_KEY: '',
    OLLAMA_HOST: 'http://127.0.0.1:9',
    NO_COLOR: '1',
    // A first start at a terminal offers `keel setup`: the prompt timed is the terminal's.
    KEEL_SKIP_SETUP: '1',
    ...extra,
  };
}

/** Runs `node <args>` to its end; resolves to the wall time in ms. */
function timeExit(args: string[], env: NodeJS.ProcessEnv): number {
  const t0 = performance.now();
  const r: SpawnSyncReturns<string> = spawnSync(process.execPath, args, {
    env,
    encoding: 'utf8',
    input: '',
    timeout: 60_000,
  });
  const elapsed = performance.now() - t0;
  if (r.status !== 0) {
    throw new Error(`node ${args.join(' ')} exited ${r.status}: ${r.stderr.slice(0, 400)}`);
  }
  return elapsed;
}

/**
 * Starts `node <args>` on a pseudo-terminal (`script -qfec`) and resolves to the ms until `prompt`
 * shows, then ends the session with Ctrl-D (end of input) and waits for it to exit.
 */
function timePrompt(args: string[], prompt: string, env: NodeJS.ProcessEnv): Promise<number> {
  const command = [process.execPath, ...args].map(quote).join(' ');
  return new Promise((done, fail) => {
    const t0 = performance.now();
    const child = spawn('script', ['-qfec', command, '/dev/null'], { env });
    let seen = '';
    let elapsed: number | null = null;
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      fail(new Error(`no prompt after 60 s; the screen showed: ${seen.slice(-400)}`));
    }, 60_000);
    child.stdout.on('data', (chunk: Buffer) => {
      if (elapsed !== null) return;
      seen += chunk.toString();
      if (seen.includes(prompt)) {
        elapsed = performance.now() - t0;
        child.stdin.write('\x04');
      }
    });
    child.on('error', fail);
    child.on('close', () => {
      clearTimeout(timer);
      if (elapsed === null) fail(new Error(`exited before the prompt: ${seen.slice(-400)}`));
      else done(elapsed);
    });
  });
}

/** The peak RSS of one run of the case, MB (the process reports it at exit). */
async function peakRss(c: Case, env: NodeJS.ProcessEnv, dir: string): Promise<number> {
  const out = join(dir, 'rss.txt');
  const preload = join(dir, 'rss.mjs');
  writeFileSync(
    preload,
    `import { writeFileSync } from 'node:fs';\nprocess.on('exit', () => writeFileSync(${JSON.stringify(out)}, String(process.resourceUsage().maxRSS)));\n`,
  );
  rmSync(out, { force: true });
  const args = ['--import', preload, ...c.args];
  if (c.prompt) await timePrompt(args, c.prompt, env);
  else timeExit(args, env);
  return Number(readFileSync(out, 'utf8')) / 1024;
}

/** Fills a small home: 40 beliefs, each with its command episode. */
function seed(home: string): void {
  const store = MemoryStore.open(join(home, 'keel.db'));
  try {
    const kinds = ['preference', 'fact', 'relationship', 'project'] as const;
    for (let i = 0; i < 40; i++) {
      store.remember({
        kind: kinds[i % kinds.length]!,
        key: `item_${i}`,
        value: `value number ${i} about coffee, Lyon and the x-ray on Tuesday`,
        source: 'owner_stated',
        channel: 'cli',
      });
    }
  } finally {
    store.close();
  }
}

/** The cases, in the order they are printed. */
function cases(cli: string): Case[] {
  return [
    { name: 'node -e 0 (Node alone)', args: ['-e', '0'] },
    { name: 'keel --help', args: [cli, '--help'], target: { text: '≤ 200 ms', ms: 200 } },
    { name: 'keel --version', args: [cli, '--version'], target: { text: '≤ 200 ms', ms: 200 } },
    { name: 'keel recall x', args: [cli, 'recall', 'x'], target: { text: '≤ 300 ms', ms: 300 } },
    {
      name: 'pty: node printing the prompt',
      args: ['-e', "console.log('you ›')"],
      prompt: 'you ›',
    },
    {
      name: 'keel (terminal) to its prompt',
      args: [cli],
      prompt: 'you ›',
      target: { text: '≤ 500 ms', ms: 500 },
    },
  ];
}

/** Whether a case can run here (`keel --version` did not exist before it was added). */
function runs(c: Case, env: NodeJS.ProcessEnv): boolean {
  if (c.prompt) return spawnSync('script', ['--version']).status === 0;
  return spawnSync(process.execPath, c.args, { env, input: '', timeout: 60_000 }).status === 0;
}

const fmt = (ms: number) => `${Math.round(ms)} ms`;

/**
 * Times every case `runs` times, prints the table and writes `bench/results/start-time-<label>.md`.
 *
 * @returns the summary rows (min and median of the keel cases).
 * @throws Error when `cli` does not exist.
 */
export async function benchStartTime(options: StartTimeOptions): Promise<SummaryRow[]> {
  const cli = resolve(options.cli);
  if (!existsSync(cli)) throw new Error(`${cli} is missing: build first (pnpm build)`);
  heading(`start time (${displayPath(cli)}, ${options.runs} runs)`);
  return withTempDir(async (dir) => {
    const home = join(dir, 'home');
    const emptyHome = join(dir, 'empty');
    seed(home);
    const env = envFor(home);
    const all = cases(cli);
    const live = all.filter((c) => {
      const ok = runs(c, c.prompt ? envFor(emptyHome) : env);
      if (!ok) console.log(`skipped: ${c.name} (it does not run here)`);
      return ok;
    });
    const samples = new Map<Case, number[]>(live.map((c) => [c, []]));
    for (let i = 0; i < options.runs; i++) {
      for (let j = 0; j < live.length; j++) {
        const c = live[(i + j) % live.length]!;
        // The terminal writes its home on every start: a fresh one each time (a first start).
        const runEnv = c.prompt ? envFor(join(dir, `pty-${i}-${j}`)) : env;
        const t = c.prompt ? await timePrompt(c.args, c.prompt, runEnv) : timeExit(c.args, runEnv);
        samples.get(c)!.push(t);
      }
    }
    const figures: Figures[] = [];
    for (const c of live) {
      const t = samples.get(c)!;
      const rssMb = await peakRss(c, c.prompt ? envFor(join(dir, 'pty-rss')) : env, dir);
      figures.push({
        name: c.name,
        min: Math.min(...t),
        median: percentile(t, 50),
        rssMb,
        target: c.target,
      });
    }
    const header = ['case', 'min', 'median', 'peak RSS', 'target', 'median vs target'];
    const rows = figures.map((f) => [
      f.name,
      fmt(f.min),
      fmt(f.median),
      `${f.rssMb.toFixed(0)} MB`,
      f.target?.text ?? '',
      f.target ? (f.median <= f.target.ms ? 'met' : 'MISSED') : '',
    ]);
    printTable(header, rows);
    const load = loadavg()
      .map((x) => x.toFixed(2))
      .join(' ');
    const notes = [
      `keel: ${displayPath(cli)}; ${options.runs} runs of each case, in rotating order.`,
      `Load average at the end: ${load} (2 CPUs shared; a busy machine lifts every row, Node's too).`,
      'Wall time of whole processes (spawn to exit, or to the prompt on a pseudo-terminal).',
      'Peak RSS: the process maxRSS at exit, from a separate run with a preload.',
    ];
    writeResults(options.label ? `start-time-${options.label}` : 'start-time', header, rows, notes);
    return figures
      .filter((f) => f.target)
      .map((f) => ({
        bench: 'start-time' as const,
        metric: `${f.name} median (min)`,
        value: `${fmt(f.median)} (${fmt(f.min)})`,
        target: f.target!.text,
        met: f.median <= f.target!.ms,
      }));
  });
}

/** The defaults when `bench/run.ts` runs it. */
export function benchStartTimeRows(options: BenchOptions): Promise<SummaryRow[]> {
  return benchStartTime({ runs: options.quick ? 5 : 10, cli: DEFAULT_CLI, label: options.label });
}

if (isMain(import.meta.url)) {
  const { values } = parseArgs({
    options: {
      runs: { type: 'string' },
      quick: { type: 'boolean', default: false },
      cli: { type: 'string' },
      label: { type: 'string' },
    },
  });
  const runsWanted = values.runs === undefined ? (values.quick ? 5 : 10) : Number(values.runs);
  if (!Number.isInteger(runsWanted) || runsWanted < 1)
    throw new Error('--runs: a whole number ≥ 1');
  await benchStartTime({
    runs: runsWanted,
    cli: values.cli ? resolve(values.cli) : DEFAULT_CLI,
    label: values.label,
  });
}
