/**
 * `remember()` latency: 2,000 writes (a mix of new slots, repeats of the current value and new
 * values for existing slots) on a store pre-filled with 1,000 facts, each timed on its own.
 *
 * Run alone: `node --import tsx bench/remember.ts`.
 *
 * @module
 */
import {
  type Decision,
  KINDS,
  type Kind,
  type MemoryStore,
  type RememberInput,
  type Source,
} from '@keel/memory';
import {
  type BenchOptions,
  heading,
  int,
  isMain,
  latencyLine,
  makeCorpusModel,
  ms,
  openStore,
  parseBenchArgs,
  printTable,
  push,
  Rng,
  type SummaryRow,
  summarize,
  time,
  withTempDir,
  Zipf,
} from './lib.js';

/** Facts written before timing starts. */
const PREFILL = 1000;
/** Timed writes. */
const WRITES = 2000;
/** Target for the median write. */
const TARGET_P50_MS = 1;

interface SlotState {
  kind: Kind;
  key: string;
  value: string;
  source: Source;
}

/**
 * Runs the remember benchmark in a fresh temp folder and prints its figures.
 *
 * @returns rows for the final summary table.
 */
export async function benchRemember(_options: BenchOptions): Promise<SummaryRow[]> {
  heading('remember(): write latency');
  return withTempDir((dir) => {
    const store = openStore(dir);
    try {
      return measure(store);
    } finally {
      store.close();
    }
  });
}

function measure(store: MemoryStore): SummaryRow[] {
  const model = makeCorpusModel();
  const rng = new Rng(23);
  const content = model.words.slice(model.firstContentRank);
  const contentZipf = new Zipf(content.length);
  const word = () => content[contentZipf.sample(rng)]!;
  const phrase = (lo: number, hi: number) =>
    Array.from({ length: rng.int(lo, hi) }, () => model.words[model.zipf.sample(rng)]!).join(' ');
  const slots: SlotState[] = [];
  const used = new Set<string>();
  const newSlot = (): { kind: Kind; key: string } => {
    for (;;) {
      const kind = rng.pick(KINDS);
      const key = `${word()}_${word()}`;
      if (!used.has(`${kind}/${key}`)) {
        used.add(`${kind}/${key}`);
        return { kind, key };
      }
    }
  };
  /** Half the writes cite a conversation turn just recorded (untimed); half record their own. */
  const withEpisode = (input: RememberInput): RememberInput => {
    if (!rng.chance(0.5)) return input;
    const episode = store.addEpisode({
      channel: 'terminal',
      role: 'owner',
      speaker: 'owner',
      text: `${input.value}, by the way`,
    });
    return { ...input, episodeId: episode.id };
  };
  const apply = (slot: SlotState | undefined, input: RememberInput) => {
    const r = store.remember(input);
    if (r.fact && r.fact.status === 'active') {
      if (slot) {
        slot.value = r.fact.value;
        slot.source = r.fact.source;
      } else {
        slots.push({
          kind: r.fact.kind,
          key: r.fact.key,
          value: r.fact.value,
          source: r.fact.source,
        });
      }
    }
    return r;
  };
  const sources: Source[] = ['observed', 'observed', 'owner_stated', 'inferred', 'system'];

  const prefill = time(() => {
    for (let i = 0; i < PREFILL; i++) {
      apply(undefined, { ...newSlot(), value: phrase(3, 12), source: rng.pick(sources) });
    }
  });

  const latencies: number[] = [];
  const byIntent = new Map<string, number[]>();
  const byDecision = new Map<Decision, number[]>();
  for (let i = 0; i < WRITES; i++) {
    const roll = rng.next();
    let intent: 'create' | 'corroborate' | 'update';
    let slot: SlotState | undefined;
    let input: RememberInput;
    if (roll < 0.35 || slots.length === 0) {
      intent = 'create';
      input = { ...newSlot(), value: phrase(3, 12), source: rng.pick(sources) };
    } else {
      slot = rng.pick(slots);
      if (roll < 0.7) {
        intent = 'corroborate';
        // Same value, sometimes differently cased and punctuated (normalisation must match it).
        const value = rng.chance(0.3) ? `${slot.value.toUpperCase()}!` : slot.value;
        input = { kind: slot.kind, key: slot.key, value, source: rng.pick(sources) };
      } else {
        intent = 'update';
        const owner = slot.source === 'owner_stated' || slot.source === 'owner_confirmed';
        const source: Source = owner ? 'owner_stated' : rng.pick(['observed', 'owner_stated']);
        input = { kind: slot.kind, key: slot.key, value: phrase(3, 12), source };
      }
    }
    input = withEpisode(input);
    const t0 = performance.now();
    const r = apply(slot, input);
    const dt = performance.now() - t0;
    latencies.push(dt);
    push(byIntent, intent, dt);
    push(byDecision, r.decision, dt);
  }

  const all = summarize(latencies);
  const stats = store.stats();
  console.log(
    `store: ${int(PREFILL)} facts pre-filled in ${ms(prefill.ms)} (${ms(prefill.ms / PREFILL)}/write); ` +
      `after the run: ${int(stats.facts)} fact rows (${int(stats.active)} active, ${int(stats.pending)} pending), ${int(stats.episodes)} episodes`,
  );
  console.log(
    `timed: ${int(WRITES)} writes, about half citing a just-recorded turn (episodeId), half recording their own command episode`,
  );
  console.log(`all writes   ${latencyLine(all)}`);
  const rows = (m: Map<string, number[]>) =>
    [...m.entries()].map(([name, xs]) => {
      const s = summarize(xs);
      return [name, int(s.n), ms(s.p50), ms(s.p95), ms(s.p99), ms(s.max)];
    });
  console.log('\nby intended operation:');
  printTable(['intent', 'n', 'p50', 'p95', 'p99', 'max'], rows(byIntent));
  console.log('\nby the store’s decision:');
  printTable(['decision', 'n', 'p50', 'p95', 'p99', 'max'], rows(byDecision));
  const met = all.p50 <= TARGET_P50_MS;
  console.log(
    `\ntarget p50 ≤ ${TARGET_P50_MS} ms: ${met ? 'met' : `missed by ${ms(all.p50 - TARGET_P50_MS)}`}`,
  );
  return [
    { bench: 'remember', metric: 'p50', value: ms(all.p50), target: '≤ 1 ms', met },
    { bench: 'remember', metric: 'p95', value: ms(all.p95), target: '' },
    { bench: 'remember', metric: 'p99', value: ms(all.p99), target: '' },
  ];
}

if (isMain(import.meta.url)) await benchRemember(parseBenchArgs());
