/**
 * Turn overhead: what keel adds around the model on every turn (turn lock, recall, prompt
 * assembly, storing the turn, capture, the belief queue), with 10k facts stored. The model is the
 * recording fake answering at once, so the figure excludes model time. Prints p50/p95; target
 * p95 ≤ 30 ms. Not a test.
 *
 * Run: `node --import tsx bench/turn.ts [--turns N] [--facts N]`
 *
 * @module
 */

import { parseArgs } from 'node:util';
import { Agent } from '@keel/agent';
import { FakeChatModel } from '@keel/agent/test';
import { KINDS } from '@keel/memory';
import { dbOf } from '@keel/memory/internal';
import {
  type BenchOptions,
  heading,
  int,
  isMain,
  latencyLine,
  makeCorpusModel,
  makeSentence,
  ms,
  openStore,
  Rng,
  type SummaryRow,
  summarize,
  withTempDir,
} from './lib.js';

/** Measures turn overhead; returns the latency summary in ms. */
export async function benchTurn(options: { turns?: number; facts?: number } = {}) {
  const turns = options.turns ?? 200;
  const factCount = options.facts ?? 10_000;
  return withTempDir(async (dir) => {
    const store = openStore(dir);
    const model = makeCorpusModel(3);
    const rng = new Rng(5);
    // Facts written through the real write review, as the owner would over time.
    dbOf(store).transaction(() => {
      for (let i = 0; i < factCount; i++) {
        store.remember({
          kind: KINDS[i % KINDS.length]!,
          key: `subject_${i}`,
          value: makeSentence(model, rng).slice(0, 120),
          source: i % 3 === 0 ? 'owner_stated' : 'observed',
        });
      }
    })();
    const agent = new Agent({ store, model: new FakeChatModel(() => 'ok, noted.') });
    const samples: number[] = [];
    for (let i = 0; i < turns + 10; i++) {
      const text =
        i % 5 === 0
          ? `remember that my favourite ${makeSentence(model, rng).split(' ')[0]} is blue`
          : makeSentence(model, rng);
      const t = performance.now();
      await agent.turn({ text, channel: 'bench' });
      if (i >= 10) samples.push(performance.now() - t);
    }
    store.close();
    return summarize(samples);
  });
}

/** `bench/run.ts` entry: prints the figure and returns it for the summary table. */
export async function benchTurnRows(options: BenchOptions): Promise<SummaryRow[]> {
  const turns = options.quick ? 60 : 200;
  heading(`turn overhead (fake model answering at once), 10,000 facts stored, ${turns} turns`);
  const s = await benchTurn({ turns });
  console.log(`  ${latencyLine(s)}`);
  return [
    { bench: 'turn', metric: 'turn overhead p50 (10k facts)', value: ms(s.p50), target: '' },
    {
      bench: 'turn',
      metric: 'turn overhead p95 (10k facts)',
      value: ms(s.p95),
      target: '≤ 30 ms',
      met: s.p95 <= 30,
    },
  ];
}

if (isMain(import.meta.url)) {
  const { values } = parseArgs({
    options: { turns: { type: 'string' }, facts: { type: 'string' } },
  });
  const turns = values.turns ? Number(values.turns) : 200;
  const facts = values.facts ? Number(values.facts) : 10_000;
  heading(
    `turn overhead (fake model answering at once), ${int(facts)} facts stored, ${int(turns)} turns`,
  );
  const s = await benchTurn({ turns, facts });
  console.log(`  ${latencyLine(s)}`);
  console.log(
    `  target p95 ≤ 30 ms: ${s.p95 <= 30 ? 'met' : `missed by ${(s.p95 - 30).toFixed(1)} ms`}`,
  );
}
